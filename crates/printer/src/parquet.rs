//! `--format parquet`: the JSON Lines records, written as Parquet.
//!
//! A [`ParquetWriter`] is an [`io::Write`] that takes the JSON Lines output
//! (the same objects `--format json --normalize` prints) in pieces of any
//! size, decodes them with arrow-json into batches of [`BATCH_ROWS`] rows,
//! and writes those as the scan streams, in row groups of at most
//! [`ROW_GROUP_ROWS`] rows (ZSTD-compressed; strings dictionary-encoded).
//! Memory stays bounded: at most one row group is buffered. DuckDB, Spark,
//! pandas/pyarrow and Polars read the files directly.
//!
//! [`BatchDecoder`] is the decoding half alone: with the `arrow` feature
//! (without the parquet crate), this module has [`schema`] and it, for
//! callers that want the Arrow batches themselves (the Python package).
//!
//! The columns ([`schema`]): `file`, `start`, `end`, `line`, `url`,
//! `normalized` (null when the URL is not valid enough to normalize),
//! `style`, `kind`, `valid`, `ambiguous`, then the components `scheme`,
//! `userinfo`, `host`, `host_kind`, `port`, `path`, `query`, `fragment`
//! (null when absent), with `--mail` `message`, `message_id`,
//! `message_offset`, `part`, `content_type`, `part_offset`, `part_start`,
//! `part_line`, and always the web fields `found`, `source`,
//! `source_name`, `warc_target_uri`, `warc_record_id`, `warc_date`,
//! `warc_type`, `warc_offset` (null for a URL that is not a web link: one
//! schema, so files made from text and from web archives can be merged).
//!
//! ```
//! use std::io::Write;
//! use urlsift_printer::parquet::ParquetWriter;
//! let mut file = Vec::new();
//! {
//!     let mut w = ParquetWriter::new(&mut file, false).unwrap();
//!     w.write_all(br#"{"file":"a.txt","start":0,"end":16,"line":1,"url":"http://a.example","#).unwrap();
//!     w.write_all(br#""normalized":"http://a.example/","style":"bare","kind":"uri","valid":true,"#).unwrap();
//!     w.write_all(br#""ambiguous":false,"scheme":"http","host":"a.example","path":""}"#).unwrap();
//!     w.write_all(b"\n").unwrap();
//!     w.close().unwrap();
//! }
//! assert_eq!(&file[..4], b"PAR1");
//! ```

use std::io;
#[cfg(feature = "parquet")]
use std::io::Write;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_json::reader::{Decoder, ReaderBuilder};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
#[cfg(feature = "parquet")]
use parquet::arrow::ArrowWriter;
#[cfg(feature = "parquet")]
use parquet::basic::{Compression, ZstdLevel};
#[cfg(feature = "parquet")]
use parquet::file::properties::WriterProperties;

/// Rows decoded from JSON per Arrow batch.
pub const BATCH_ROWS: usize = 8192;

/// Rows per Parquet row group.
pub const ROW_GROUP_ROWS: usize = 128 * 1024;

/// The Arrow schema of the rows: the record's fields, `normalized`, the
/// web fields (always: null for a record that is not a web link), and with
/// `mail` the `--mail` columns, in [`FIELDS`](crate::fields::FIELDS) order.
///
/// ```
/// let s = urlsift_printer::parquet::schema(false);
/// assert_eq!(s.field(5).name(), "normalized");
/// assert_eq!(s.fields().last().unwrap().name(), "warc_offset");
/// assert!(s.field_with_name("message_id").is_err());
/// assert!(urlsift_printer::parquet::schema(true).field_with_name("message_id").is_ok());
/// ```
pub fn schema(mail: bool) -> SchemaRef {
    use crate::fields::{Group, Type};
    let groups: &[Group] = if mail {
        &[
            Group::Record,
            Group::Normalized,
            Group::Key,
            Group::Web,
            Group::Mail,
        ]
    } else {
        &[Group::Record, Group::Normalized, Group::Key, Group::Web]
    };
    let fields: Vec<Field> = crate::fields::fields(groups)
        .map(|f| {
            let t = match f.ty {
                Type::Text => DataType::Utf8,
                Type::U64 => DataType::UInt64,
                Type::U32 => DataType::UInt32,
                Type::Bool => DataType::Boolean,
            };
            // `normalized` is null when the run does not normalize.
            let nullable = f.nullable || f.group != Group::Record;
            Field::new(f.name, t, nullable)
        })
        .collect();
    Arc::new(Schema::new(fields))
}

/// JSON Lines in, Arrow batches out: the rows of the JSON objects that
/// `--format json --normalize` prints, as [`RecordBatch`]es of [`schema`],
/// [`BATCH_ROWS`] rows each (the last one of a run fewer). This is the
/// decoding half of [`ParquetWriter`] (feature `parquet`); it needs only
/// the `arrow` feature, for callers that want the batches themselves.
///
/// ```
/// use urlsift_printer::parquet::{BatchDecoder, schema};
/// let mut d = BatchDecoder::new(false).unwrap();
/// let line = concat!(
///     r#"{"file":"a.txt","start":0,"end":16,"line":1,"url":"http://a.example","#,
///     r#""normalized":"http://a.example/","style":"bare","kind":"uri","valid":true,"#,
///     r#""ambiguous":false,"scheme":"http","host":"a.example","path":""}"#,
///     "\n",
/// );
/// let mut full = 0;
/// // JSON Lines in pieces of any size; full batches go to the closure.
/// for piece in line.as_bytes().chunks(7) {
///     d.decode(piece, |_| { full += 1; Ok(()) }).unwrap();
/// }
/// assert_eq!(full, 0);
/// let rest = d.flush().unwrap().unwrap();
/// assert_eq!((rest.num_rows(), rest.schema()), (1, schema(false)));
/// assert!(d.flush().unwrap().is_none());
/// ```
pub struct BatchDecoder {
    decoder: Decoder,
}

fn err(e: impl std::error::Error + Send + Sync + 'static) -> io::Error {
    io::Error::other(e)
}

impl BatchDecoder {
    /// A decoder of records into [`schema`]`(mail)` (`mail`: with the
    /// `--mail` columns). Fields of the JSON that the schema does not have
    /// are left out.
    pub fn new(mail: bool) -> io::Result<Self> {
        let decoder = ReaderBuilder::new(schema(mail))
            .with_batch_size(BATCH_ROWS)
            .build_decoder()
            .map_err(err)?;
        Ok(BatchDecoder { decoder })
    }

    /// Decode `buf`, the next bytes of the JSON Lines (a piece of any size:
    /// a record may continue in the next call), handing each batch of
    /// [`BATCH_ROWS`] rows to `full` as it fills. An error of `full` ends
    /// the call with it.
    pub fn decode(
        &mut self,
        buf: &[u8],
        mut full: impl FnMut(RecordBatch) -> io::Result<()>,
    ) -> io::Result<()> {
        let mut off = 0;
        while off < buf.len() {
            let n = self.decoder.decode(&buf[off..]).map_err(err)?;
            off += n;
            if self.decoder.len() >= BATCH_ROWS && !self.decoder.has_partial_record() {
                if let Some(batch) = self.decoder.flush().map_err(err)? {
                    full(batch)?;
                }
            } else if n == 0 {
                return Err(io::Error::other(
                    "parquet: the JSON decoder made no progress",
                ));
            }
        }
        Ok(())
    }

    /// The rows decoded since the last batch, as a batch (`None` when there
    /// are none). Fails if the bytes so far end inside a record.
    pub fn flush(&mut self) -> io::Result<Option<RecordBatch>> {
        if self.decoder.has_partial_record() {
            return Err(io::Error::other(
                "parquet: the last JSON record is incomplete",
            ));
        }
        self.decoder.flush().map_err(err)
    }
}

/// JSON Lines in, Parquet out (see the module docs): a [`BatchDecoder`]
/// whose batches go to a Parquet writer. Call [`ParquetWriter::close`] at
/// the end: it writes the footer.
#[cfg(feature = "parquet")]
pub struct ParquetWriter<W: Write + Send> {
    decoder: BatchDecoder,
    writer: ArrowWriter<W>,
}

#[cfg(feature = "parquet")]
impl<W: Write + Send> ParquetWriter<W> {
    /// A writer of the rows to `out` (`mail`: with the `--mail` columns).
    pub fn new(out: W, mail: bool) -> io::Result<Self> {
        let decoder = BatchDecoder::new(mail)?;
        let props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(ZstdLevel::try_new(1).map_err(err)?))
            .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
            .build();
        let writer = ArrowWriter::try_new(out, schema(mail), Some(props)).map_err(err)?;
        Ok(ParquetWriter { decoder, writer })
    }

    /// Write what is left and the footer; returns the number of rows.
    pub fn close(mut self) -> io::Result<u64> {
        if let Some(batch) = self.decoder.flush()? {
            self.writer.write(&batch).map_err(err)?;
        }
        let meta = self.writer.close().map_err(err)?;
        Ok(meta.file_metadata().num_rows().max(0) as u64)
    }
}

#[cfg(feature = "parquet")]
impl<W: Write + Send> Write for ParquetWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let writer = &mut self.writer;
        self.decoder
            .decode(buf, |batch| writer.write(&batch).map_err(err))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_array::types::UInt64Type;

    #[test]
    fn batch_decoder_makes_full_batches_from_any_pieces() {
        let mut json = Vec::new();
        let n = 2 * BATCH_ROWS + 1000;
        for i in 0..n {
            json.extend_from_slice(
                format!(
                    r#"{{"file":"f","start":{i},"end":1,"line":1,"url":"u","style":"bare","kind":"uri","valid":true,"ambiguous":false,"path":"","found":"x"}}"#
                )
                .as_bytes(),
            );
            json.push(b'\n');
        }
        let mut d = BatchDecoder::new(false).unwrap();
        let mut batches = Vec::new();
        for piece in json.chunks(1013) {
            d.decode(piece, |b| {
                batches.push(b);
                Ok(())
            })
            .unwrap();
        }
        let sizes: Vec<usize> = batches.iter().map(RecordBatch::num_rows).collect();
        assert_eq!(sizes, [BATCH_ROWS, BATCH_ROWS]);
        batches.push(d.flush().unwrap().unwrap());
        let starts: Vec<u64> = batches
            .iter()
            .flat_map(|b| b.column(1).as_primitive::<UInt64Type>().values().to_vec())
            .collect();
        assert_eq!(starts, (0..n as u64).collect::<Vec<_>>());
        // An error of the consumer of full batches ends the call.
        let mut d = BatchDecoder::new(false).unwrap();
        let e = d.decode(&json, |_| Err(io::Error::other("closed")));
        assert_eq!(e.unwrap_err().to_string(), "closed");
        // Bytes that end inside a record cannot be flushed.
        let mut d = BatchDecoder::new(false).unwrap();
        d.decode(&json[..50], |_| Ok(())).unwrap();
        assert!(d.flush().is_err());
    }
}
