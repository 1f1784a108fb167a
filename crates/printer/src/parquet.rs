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

use std::io::{self, Write};
use std::sync::Arc;

use arrow_json::reader::{Decoder, ReaderBuilder};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
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
        &[Group::Record, Group::Normalized, Group::Web, Group::Mail]
    } else {
        &[Group::Record, Group::Normalized, Group::Web]
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

/// JSON Lines in, Parquet out (see the module docs). Call
/// [`ParquetWriter::close`] at the end: it writes the footer.
pub struct ParquetWriter<W: Write + Send> {
    decoder: Decoder,
    writer: ArrowWriter<W>,
}

fn err(e: impl std::error::Error + Send + Sync + 'static) -> io::Error {
    io::Error::other(e)
}

impl<W: Write + Send> ParquetWriter<W> {
    /// A writer of the rows to `out` (`mail`: with the `--mail` columns).
    pub fn new(out: W, mail: bool) -> io::Result<Self> {
        let schema = schema(mail);
        let decoder = ReaderBuilder::new(schema.clone())
            .with_batch_size(BATCH_ROWS)
            .build_decoder()
            .map_err(err)?;
        let props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(ZstdLevel::try_new(1).map_err(err)?))
            .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
            .build();
        let writer = ArrowWriter::try_new(out, schema, Some(props)).map_err(err)?;
        Ok(ParquetWriter { decoder, writer })
    }

    fn flush_batch(&mut self) -> io::Result<()> {
        if let Some(batch) = self.decoder.flush().map_err(err)? {
            self.writer.write(&batch).map_err(err)?;
        }
        Ok(())
    }

    /// Write what is left and the footer; returns the number of rows.
    pub fn close(mut self) -> io::Result<u64> {
        if self.decoder.has_partial_record() {
            return Err(io::Error::other(
                "parquet: the last JSON record is incomplete",
            ));
        }
        self.flush_batch()?;
        let meta = self.writer.close().map_err(err)?;
        Ok(meta.file_metadata().num_rows().max(0) as u64)
    }
}

impl<W: Write + Send> Write for ParquetWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut off = 0;
        while off < buf.len() {
            let n = self.decoder.decode(&buf[off..]).map_err(err)?;
            off += n;
            if self.decoder.len() >= BATCH_ROWS && !self.decoder.has_partial_record() {
                self.flush_batch()?;
            } else if n == 0 {
                return Err(io::Error::other(
                    "parquet: the JSON decoder made no progress",
                ));
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
