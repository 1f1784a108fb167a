//! The records as Arrow batches, for callers that want the arrays
//! themselves (the Python package): the schema of `--format parquet`
//! ([`fields::columns`]) as an Arrow [`schema`], and a [`BatchDecoder`]
//! that turns the rows of [`Format::Rows`](crate::Format::Rows) into
//! [`RecordBatch`]es of it. Only arrow's array crates: no compute kernels.

use std::io;
use std::sync::Arc;

use arrow_array::builder::{BooleanBuilder, Int64Builder, StringBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};

use crate::fields::{self, Column, FIELDS, Type};
use crate::rows::{self, Rows, Value};

/// Rows per Arrow batch.
pub(crate) const BATCH_ROWS: usize = 8192;

/// The Arrow type of a field's values: text `Utf8` (`LargeUtf8` if
/// `large`), every integer `Int64`, booleans `Boolean`. The one mapping of
/// the package's Arrow tables (those of whole records and any other).
pub(crate) fn data_type(ty: Type, large: bool) -> DataType {
    match ty {
        Type::Text if large => DataType::LargeUtf8,
        Type::Text => DataType::Utf8,
        Type::U64 | Type::U32 => DataType::Int64,
        Type::Bool => DataType::Boolean,
    }
}

/// The Arrow field of the record field `name` (as `data_type` types it,
/// nullable as `nullable`); `None` for a name that is not a field.
///
/// ```
/// let f = urlsift_printer::arrow::field("end", false, false).unwrap();
/// assert_eq!(f.data_type(), &arrow_schema::DataType::Int64);
/// assert!(urlsift_printer::arrow::field("nope", false, false).is_none());
/// ```
pub fn field(name: &str, nullable: bool, large: bool) -> Option<Field> {
    let f = FIELDS.iter().find(|f| f.name == name)?;
    Some(Field::new(f.name, data_type(f.ty, large), nullable))
}

/// The Arrow schema of the records: [`fields::columns`]`(mail)`, typed as
/// `data_type` says; the schema of `--format parquet` files.
///
/// ```
/// let s = urlsift_printer::arrow::schema(false);
/// assert_eq!(s.field(5).name(), "normalized");
/// assert_eq!(s.field(1).data_type(), &arrow_schema::DataType::Int64);
/// assert_eq!(s.fields().last().unwrap().name(), "rel");
/// assert!(s.field_with_name("message_id").is_err());
/// assert!(urlsift_printer::arrow::schema(true).field_with_name("message_id").is_ok());
/// ```
pub fn schema(mail: bool) -> SchemaRef {
    let fields: Vec<Field> = fields::columns(mail)
        .map(|c| Field::new(c.field.name, data_type(c.field.ty, false), c.nullable))
        .collect();
    Arc::new(Schema::new(fields))
}

/// The builder of one column.
enum Builder {
    Text(StringBuilder),
    Int(Int64Builder),
    Bool(BooleanBuilder),
}

/// Rows in, Arrow batches out: the rows of
/// [`Format::Rows`](crate::Format::Rows) as [`RecordBatch`]es of
/// [`schema`], 8192 rows each (the last one of a run fewer).
///
/// ```
/// use urlsift_printer::arrow::{BatchDecoder, schema};
/// use urlsift_printer::{Format, Formatter, Options, Record};
/// let m = &urlsift_core::find(b"see http://a.example/").collect::<Vec<_>>()[0];
/// let mut rows = Vec::new();
/// let mut f = Formatter::new(&Options { format: Format::Rows, ..Options::default() });
/// f.format(&Record { file: "a.txt", line: 1, m, mail: None, web: None }, &mut rows).unwrap();
/// let mut d = BatchDecoder::new(false).unwrap();
/// let mut full = 0;
/// // Rows in pieces of any size; full batches go to the closure.
/// for piece in rows.chunks(7) {
///     d.decode(piece, |_| { full += 1; Ok(()) }).unwrap();
/// }
/// assert_eq!(full, 0);
/// let rest = d.flush().unwrap().unwrap();
/// assert_eq!((rest.num_rows(), rest.schema()), (1, schema(false)));
/// assert!(d.flush().unwrap().is_none());
/// ```
pub struct BatchDecoder {
    schema: SchemaRef,
    columns: Vec<Column>,
    /// Rows taken, whole rows not yet taken (from `start` to `whole`,
    /// `rows` of them), then the start of the next.
    buf: Vec<u8>,
    start: usize,
    whole: usize,
    rows: usize,
}

impl BatchDecoder {
    /// A decoder of rows into [`schema`]`(mail)` (`mail`: with the
    /// `--mail` columns; without, the rows' mail fields are left out).
    pub fn new(mail: bool) -> io::Result<Self> {
        Ok(BatchDecoder {
            schema: schema(mail),
            columns: fields::columns(mail).collect(),
            buf: Vec::new(),
            start: 0,
            whole: 0,
            rows: 0,
        })
    }

    /// Decode `buf`, the next bytes of the rows (a piece of any size: a
    /// row may continue in the next call), handing each batch of
    /// 8192 rows to `full` as it fills. An error of `full` ends
    /// the call with it.
    pub fn decode(
        &mut self,
        buf: &[u8],
        mut full: impl FnMut(RecordBatch) -> io::Result<()>,
    ) -> io::Result<()> {
        // What was taken goes: the rest is less than a batch and a row.
        self.buf.drain(..self.start);
        self.whole -= self.start;
        self.start = 0;
        self.buf.extend_from_slice(buf);
        while let Some(n) = rows::row_len(&self.buf[self.whole..])? {
            if self.whole + n > self.buf.len() {
                break;
            }
            self.whole += n;
            self.rows += 1;
            if self.rows == BATCH_ROWS {
                full(self.batch()?)?;
            }
        }
        Ok(())
    }

    /// The whole rows so far as a batch, the rest kept.
    fn batch(&mut self) -> io::Result<RecordBatch> {
        let buf = &self.buf[self.start..self.whole];
        let n = self.rows;
        // For each field of a row: the builder of its column, if it has one.
        let mut slot = vec![None; FIELDS.len()];
        let mut check = vec![false; FIELDS.len()];
        let mut builders: Vec<Builder> = Vec::with_capacity(self.columns.len());
        for (k, c) in self.columns.iter().enumerate() {
            slot[c.index] = Some(k);
            check[c.index] = true;
            builders.push(match c.field.ty {
                Type::Text => Builder::Text(StringBuilder::with_capacity(n, 0)),
                Type::U64 | Type::U32 => Builder::Int(Int64Builder::with_capacity(n)),
                Type::Bool => Builder::Bool(BooleanBuilder::with_capacity(n)),
            });
        }
        // Row by row, in the order of the bytes.
        for row in Rows::new(buf) {
            for (f, v) in row?.values_checking(&check).enumerate() {
                let v = v?;
                let Some(k) = slot[f] else { continue };
                match (&mut builders[k], v) {
                    // Checked as UTF-8 on the way.
                    (Builder::Text(b), Value::Text(v)) => {
                        b.append_option(v.map(String::from_utf8_lossy))
                    }
                    (Builder::Int(b), Value::Int(v)) => {
                        b.append_option(v.map(|v| i64::try_from(v).unwrap_or(i64::MAX)))
                    }
                    (Builder::Bool(b), Value::Bool(v)) => b.append_option(v),
                    _ => {
                        return Err(io::Error::new(
                            io::ErrorKind::InvalidData,
                            "a value of the wrong type",
                        ));
                    }
                }
            }
        }
        self.start = self.whole;
        self.rows = 0;
        let arrays: Vec<ArrayRef> = builders
            .into_iter()
            .map(|b| -> ArrayRef {
                match b {
                    Builder::Text(mut b) => Arc::new(b.finish()),
                    Builder::Int(mut b) => Arc::new(b.finish()),
                    Builder::Bool(mut b) => Arc::new(b.finish()),
                }
            })
            .collect();
        RecordBatch::try_new(self.schema.clone(), arrays).map_err(io::Error::other)
    }

    /// The rows decoded since the last batch, as a batch (`None` when there
    /// are none). Fails if the bytes so far end inside a row.
    pub fn flush(&mut self) -> io::Result<Option<RecordBatch>> {
        if self.whole != self.buf.len() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the last row is incomplete",
            ));
        }
        if self.rows == 0 {
            return Ok(None);
        }
        self.batch().map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Format, Formatter, Options, Record};
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int64Type;

    #[test]
    fn batch_decoder_makes_full_batches_from_any_pieces() {
        let text: String = (0..2 * BATCH_ROWS + 1000)
            .map(|i| format!("http://h{i}.example/ "))
            .collect();
        let found = urlsift_core::find(text.as_bytes()).collect::<Vec<_>>();
        let mut rows = Vec::new();
        let mut f = Formatter::new(&Options {
            format: Format::Rows,
            ..Options::default()
        });
        for m in &found {
            let rec = Record {
                file: "f",
                line: 1,
                m,
                mail: None,
                web: None,
            };
            f.format(&rec, &mut rows).unwrap();
        }
        let mut d = BatchDecoder::new(false).unwrap();
        let mut batches = Vec::new();
        for piece in rows.chunks(1013) {
            d.decode(piece, |b| {
                batches.push(b);
                Ok(())
            })
            .unwrap();
        }
        let sizes: Vec<usize> = batches.iter().map(RecordBatch::num_rows).collect();
        assert_eq!(sizes, [BATCH_ROWS, BATCH_ROWS]);
        batches.push(d.flush().unwrap().unwrap());
        let starts: Vec<i64> = batches
            .iter()
            .flat_map(|b| b.column(1).as_primitive::<Int64Type>().values().to_vec())
            .collect();
        let want: Vec<i64> = found.iter().map(|m| m.start as i64).collect();
        assert_eq!(starts, want);
        // An error of the consumer of full batches ends the call.
        let mut d = BatchDecoder::new(false).unwrap();
        let e = d.decode(&rows, |_| Err(io::Error::other("closed")));
        assert_eq!(e.unwrap_err().to_string(), "closed");
        // Bytes that end inside a row cannot be flushed.
        let mut d = BatchDecoder::new(false).unwrap();
        d.decode(&rows[..50], |_| Ok(())).unwrap();
        assert!(d.flush().is_err());
    }
}

/// The examples of items private to the crate.
#[cfg(test)]
mod examples {
    #[test]
    fn data_type() {
        use crate::fields::Type;
        use arrow_schema::DataType;
        assert_eq!(crate::arrow::data_type(Type::U64, false), DataType::Int64);
        assert_eq!(
            crate::arrow::data_type(Type::Text, true),
            DataType::LargeUtf8
        );
    }
}
