//! `--format parquet`: the records as Parquet, encoded column by column.
//!
//! A [`ParquetWriter`] is an [`io::Write`] that takes the rows of
//! [`Format::Rows`](crate::Format::Rows) (in pieces of any size) and writes
//! them in row groups of [`ROW_GROUP_ROWS`] rows, each column encoded with
//! the parquet crate's column writers (ZSTD-compressed; dictionary-encoded
//! where that is smaller). Once a row group is full it is encoded on a pool
//! of threads while the next one fills, its columns in parallel; the row
//! groups go into the file in order, so the file is the same whatever the
//! number of threads. Memory stays bounded: the row group that fills, and
//! at most one more per encoding thread.
//!
//! The columns are [`fields::columns`]: `file`, `start`, `end`, `line`,
//! `url`, `normalized` (null when the URL is not valid enough to
//! normalize), `style`, `kind`, `valid`, `ambiguous`, then the components
//! `scheme`, `userinfo`, `host`, `host_kind`, `port`, `path`, `query`,
//! `fragment` (null when absent), with `--mail` the mail fields, and always
//! the web fields (null for a URL that is not a web link). Text is UTF-8
//! (`STRING`), every integer a signed 64-bit `INT64` (Spark's and DuckDB's
//! `bigint`), `valid` and `ambiguous` `BOOLEAN`. DuckDB, Spark,
//! pandas/pyarrow and Polars read the files directly.
//!
//! ```
//! use std::io::Write;
//! use urlsift_printer::parquet::ParquetWriter;
//! use urlsift_printer::{Format, Formatter, Options, Record};
//! let opts = Options { format: Format::Rows, normalize: true, ..Options::default() };
//! let mut rows = Vec::new();
//! let mut f = Formatter::new(&opts);
//! for m in urlsift_core::find(b"see http://a.example/ and http://b.example/") {
//!     f.format(&Record { file: "a.txt", line: 1, m: &m, mail: None, web: None }, &mut rows).unwrap();
//! }
//! let mut file = Vec::new();
//! let mut w = ParquetWriter::new(&mut file, false).unwrap();
//! w.write_all(&rows).unwrap();
//! assert_eq!(w.close().unwrap(), 2);
//! assert_eq!(&file[..4], b"PAR1");
//! ```

use std::collections::VecDeque;
use std::io::{self, Write};
use std::sync::mpsc::{Receiver, sync_channel};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

use bytes::Bytes;
use parquet::basic::{Compression, LogicalType, Repetition, Type as Physical, ZstdLevel};
use parquet::column::writer::{ColumnCloseResult, ColumnWriter, get_column_writer};
use parquet::data_type::ByteArray;
use parquet::file::properties::{WriterProperties, WriterPropertiesPtr};
use parquet::file::writer::{SerializedFileWriter, SerializedPageWriter, TrackedWrite};
use parquet::schema::types::{SchemaDescPtr, SchemaDescriptor, Type as SchemaType, TypePtr};
use rayon::prelude::*;

use crate::fields::{self, Column, FIELDS, Type};
use crate::rows::{self, Value};

/// Rows per Parquet row group.
pub const ROW_GROUP_ROWS: usize = 128 * 1024;

/// A row group also ends once its rows hold this many bytes (so that a
/// row group's rows stay addressable with 32-bit offsets).
const ROW_GROUP_BYTES: usize = 1 << 30;

/// Values handed to a column writer at once.
const WRITE_BATCH: usize = 8192;

fn err(e: impl std::error::Error + Send + Sync + 'static) -> io::Error {
    io::Error::other(e)
}

/// The Parquet schema of the files ([`fields::columns`]`(mail)`): text
/// `BYTE_ARRAY` (`STRING`), integers `INT64`, booleans `BOOLEAN`; a column
/// that may hold nulls is `OPTIONAL`, the others `REQUIRED`.
///
/// ```
/// let s = urlsift_printer::parquet::schema(false).unwrap();
/// let start = &s.get_fields()[1];
/// assert_eq!(start.name(), "start");
/// assert_eq!(start.get_physical_type(), parquet::basic::Type::INT64);
/// ```
pub fn schema(mail: bool) -> io::Result<TypePtr> {
    let mut cols = Vec::new();
    for c in fields::columns(mail) {
        let (physical, logical) = match c.field.ty {
            Type::Text => (Physical::BYTE_ARRAY, Some(LogicalType::String)),
            Type::U64 | Type::U32 => (Physical::INT64, None),
            Type::Bool => (Physical::BOOLEAN, None),
        };
        let rep = if c.nullable {
            Repetition::OPTIONAL
        } else {
            Repetition::REQUIRED
        };
        let t = SchemaType::primitive_type_builder(c.field.name, physical)
            .with_repetition(rep)
            .with_logical_type(logical)
            .build()
            .map_err(err)?;
        cols.push(Arc::new(t));
    }
    let root = SchemaType::group_type_builder("urlsift")
        .with_fields(cols)
        .build()
        .map_err(err)?;
    Ok(Arc::new(root))
}

/// What encoding a row group needs, shared with the encoding threads.
struct Layout {
    columns: Vec<Column>,
    descr: SchemaDescPtr,
    props: WriterPropertiesPtr,
}

/// One encoded column chunk: its bytes and what closing its writer said.
type Chunk = (Bytes, ColumnCloseResult);

/// The encoding threads, shared by every writer of the process, and the
/// row groups they may hold at once.
struct Encoders {
    pool: rayon::ThreadPool,
    busy: Mutex<usize>,
    freed: Condvar,
    limit: usize,
}

impl Encoders {
    /// The encoders, as many threads as the current rayon pool has; `None`
    /// with one thread (row groups are then encoded where they fill).
    fn get() -> Option<&'static Encoders> {
        static ENCODERS: OnceLock<Option<Encoders>> = OnceLock::new();
        ENCODERS
            .get_or_init(|| {
                let n = rayon::current_num_threads();
                if n <= 1 {
                    return None;
                }
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .thread_name(|i| format!("urlsift-parquet-{i}"))
                    .build()
                    .ok()?;
                Some(Encoders {
                    pool,
                    busy: Mutex::new(0),
                    freed: Condvar::new(),
                    limit: n,
                })
            })
            .as_ref()
    }

    /// Wait for room for one more row group.
    fn acquire(&self) {
        let mut busy = self.busy.lock().unwrap_or_else(|p| p.into_inner());
        while *busy >= self.limit {
            busy = self.freed.wait(busy).unwrap_or_else(|p| p.into_inner());
        }
        *busy += 1;
    }

    fn release(&self) {
        let mut busy = self.busy.lock().unwrap_or_else(|p| p.into_inner());
        *busy = busy.saturating_sub(1);
        self.freed.notify_one();
    }
}

/// Encode the rows of `buf` (whole rows) as one row group's column chunks,
/// the columns in parallel on the current rayon pool when `parallel`.
fn encode(buf: Vec<u8>, layout: &Layout, parallel: bool) -> io::Result<Vec<Chunk>> {
    let (offsets, n) = rows::value_offsets(&buf)?;
    let buf = Bytes::from(buf);
    let one = |(i, c): (usize, &Column)| encode_column(&buf, &offsets, n, c, i, layout);
    if parallel {
        layout.columns.par_iter().enumerate().map(one).collect()
    } else {
        layout.columns.iter().enumerate().map(one).collect()
    }
}

/// Encode column `col` (the `i`th of the file) of the `n` rows of `buf`,
/// whose values start at `offsets` ([`FIELDS`]`.len()` per row).
fn encode_column(
    buf: &Bytes,
    offsets: &[u32],
    n: usize,
    col: &Column,
    i: usize,
    layout: &Layout,
) -> io::Result<Chunk> {
    let stride = FIELDS.len();
    let at = |r: usize| offsets[r * stride + col.index];
    let wrong = || {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "parquet: a value of the wrong type in column {}",
                col.field.name
            ),
        )
    };
    let null = || {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "parquet: a null in column {}, which has none",
                col.field.name
            ),
        )
    };
    let mut sink = TrackedWrite::new(Vec::new());
    let close = {
        let pages = Box::new(SerializedPageWriter::new(&mut sink));
        let mut w = get_column_writer(layout.descr.column(i), layout.props.clone(), pages);
        let mut defs: Vec<i16> = Vec::with_capacity(WRITE_BATCH);
        for start in (0..n).step_by(WRITE_BATCH) {
            let end = (start + WRITE_BATCH).min(n);
            defs.clear();
            let defined = |defs: &mut Vec<i16>, some: bool| -> io::Result<()> {
                if !some && !col.nullable {
                    return Err(null());
                }
                defs.push(i16::from(some));
                Ok(())
            };
            let wrote = match &mut w {
                ColumnWriter::ByteArrayColumnWriter(t) => {
                    let mut vals = Vec::with_capacity(end - start);
                    for r in start..end {
                        let Value::Text(v) = rows::value_at(buf, at(r), col.field.ty)? else {
                            return Err(wrong());
                        };
                        defined(&mut defs, v.is_some())?;
                        if let Some(s) = v {
                            vals.push(ByteArray::from(buf.slice_ref(s)));
                        }
                    }
                    t.write_batch(&vals, col.nullable.then_some(&defs[..]), None)
                }
                ColumnWriter::Int64ColumnWriter(t) => {
                    let mut vals = Vec::with_capacity(end - start);
                    for r in start..end {
                        let Value::Int(v) = rows::value_at(buf, at(r), col.field.ty)? else {
                            return Err(wrong());
                        };
                        defined(&mut defs, v.is_some())?;
                        if let Some(v) = v {
                            // Counts and offsets: never past i64::MAX.
                            vals.push(i64::try_from(v).unwrap_or(i64::MAX));
                        }
                    }
                    t.write_batch(&vals, col.nullable.then_some(&defs[..]), None)
                }
                ColumnWriter::BoolColumnWriter(t) => {
                    let mut vals = Vec::with_capacity(end - start);
                    for r in start..end {
                        let Value::Bool(v) = rows::value_at(buf, at(r), col.field.ty)? else {
                            return Err(wrong());
                        };
                        defined(&mut defs, v.is_some())?;
                        vals.extend(v);
                    }
                    t.write_batch(&vals, col.nullable.then_some(&defs[..]), None)
                }
                _ => return Err(wrong()),
            };
            wrote.map_err(err)?;
        }
        w.close().map_err(err)?
    };
    let bytes = sink.into_inner().map_err(err)?;
    Ok((Bytes::from(bytes), close))
}

/// A row group being encoded: its chunks, when they are ready.
type Pending = Receiver<io::Result<Vec<Chunk>>>;

/// Rows in, Parquet out (see the module docs). Call
/// [`ParquetWriter::close`] at the end: it writes the last row group and
/// the footer.
pub struct ParquetWriter<W: Write + Send> {
    writer: SerializedFileWriter<W>,
    layout: Arc<Layout>,
    /// The row group that fills: whole rows, then the start of the next.
    buf: Vec<u8>,
    /// The end of the whole rows in `buf`, and how many there are.
    whole: usize,
    rows: usize,
    /// Row groups sent to the encoders, in file order.
    pending: VecDeque<Pending>,
}

impl<W: Write + Send> ParquetWriter<W> {
    /// A writer of the rows to `out` (`mail`: with the `--mail` columns).
    pub fn new(out: W, mail: bool) -> io::Result<Self> {
        let props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(ZstdLevel::try_new(1).map_err(err)?))
            .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
            .build();
        let props = Arc::new(props);
        let schema = schema(mail)?;
        let descr = Arc::new(SchemaDescriptor::new(schema.clone()));
        let writer = SerializedFileWriter::new(out, schema, props.clone()).map_err(err)?;
        Ok(ParquetWriter {
            writer,
            layout: Arc::new(Layout {
                columns: fields::columns(mail).collect(),
                descr,
                props,
            }),
            buf: Vec::new(),
            whole: 0,
            rows: 0,
            pending: VecDeque::new(),
        })
    }

    /// The whole rows of `buf` as a row group (on the encoders when there
    /// are any), the rest kept for the next one.
    fn cut(&mut self) -> io::Result<()> {
        let mut rest = Vec::with_capacity(self.buf.capacity());
        rest.extend_from_slice(&self.buf[self.whole..]);
        let mut group = std::mem::replace(&mut self.buf, rest);
        group.truncate(self.whole);
        self.whole = 0;
        self.rows = 0;
        let Some(enc) = Encoders::get() else {
            let chunks = encode(group, &self.layout, false)?;
            return self.put(chunks);
        };
        // At most one row group per encoding thread waits here, the oldest
        // written first.
        while self.pending.len() >= enc.limit {
            self.write_oldest()?;
        }
        enc.acquire();
        let (tx, rx) = sync_channel(1);
        let layout = self.layout.clone();
        enc.pool.spawn(move || {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                encode(group, &layout, true)
            }))
            .unwrap_or_else(|p| {
                Err(io::Error::other(format!(
                    "parquet: encoding a row group failed: {}",
                    urlsift_core::diag::panic_message(p.as_ref())
                )))
            });
            let _ = tx.send(r);
            enc.release();
        });
        self.pending.push_back(rx);
        // Whatever is ready goes out now.
        while let Some(Ok(r)) = self.pending.front().map(Receiver::try_recv) {
            self.pending.pop_front();
            self.put(r?)?;
        }
        Ok(())
    }

    fn write_oldest(&mut self) -> io::Result<()> {
        if let Some(rx) = self.pending.pop_front() {
            let r = rx
                .recv()
                .map_err(|_| io::Error::other("parquet: an encoding thread ended"))?;
            self.put(r?)?;
        }
        Ok(())
    }

    /// Write one encoded row group.
    fn put(&mut self, chunks: Vec<Chunk>) -> io::Result<()> {
        let mut rg = self.writer.next_row_group().map_err(err)?;
        for (bytes, close) in chunks {
            rg.append_column(&bytes, close).map_err(err)?;
        }
        rg.close().map_err(err)?;
        Ok(())
    }

    /// Write what is left and the footer; returns the number of rows.
    pub fn close(mut self) -> io::Result<u64> {
        while !self.pending.is_empty() {
            self.write_oldest()?;
        }
        if self.whole != self.buf.len() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "parquet: the last row is cut short",
            ));
        }
        if self.rows > 0 {
            let group = std::mem::take(&mut self.buf);
            let chunks = match Encoders::get() {
                Some(enc) => enc.pool.install(|| encode(group, &self.layout, true)),
                None => encode(group, &self.layout, false),
            }?;
            self.put(chunks)?;
        }
        let meta = self.writer.close().map_err(err)?;
        Ok(meta.file_metadata().num_rows().max(0) as u64)
    }
}

impl<W: Write + Send> Write for ParquetWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(buf);
        while let Some(n) = rows::row_len(&self.buf[self.whole..])? {
            if self.whole + n > self.buf.len() {
                break;
            }
            self.whole += n;
            self.rows += 1;
            if self.rows >= ROW_GROUP_ROWS || self.whole >= ROW_GROUP_BYTES {
                self.cut()?;
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
