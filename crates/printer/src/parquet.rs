//! `--format parquet`: the records as Parquet, encoded column by column.
//!
//! A [`ParquetWriter`] is an [`io::Write`] that takes the rows of
//! [`Format::Rows`](crate::Format::Rows) (in pieces of any size) and writes
//! them in row groups of [`ROW_GROUP_ROWS`] rows, each column encoded with
//! the parquet crate's column writers (ZSTD-compressed at
//! [`ZSTD_LEVEL`]; text dictionary-encoded with statistics, except the
//! nearly distinct columns of [`DISTINCT_TEXT`], plain without; integers
//! `DELTA_BINARY_PACKED`). Each row group is encoded on a thread of its own
//! as its rows come, a block of rows at a time, while the scan goes on; as
//! many row groups are encoded at once as rayon's pool has threads (`-j`),
//! and they go into the file in order, so the file is the same whatever the
//! number of threads. Memory stays bounded: at most one row group's rows
//! and encoded columns per encoding thread.
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
//! use urlsift_printer::ParquetWriter;
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
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use bytes::Bytes;
use parquet::basic::{Compression, Encoding, LogicalType, Repetition, Type as Physical, ZstdLevel};
use parquet::column::writer::{ColumnCloseResult, ColumnWriter, get_column_writer};
use parquet::data_type::ByteArray;
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterPropertiesPtr};
use parquet::file::writer::{SerializedFileWriter, SerializedPageWriter, TrackedWrite};
use parquet::schema::types::{
    ColumnPath, SchemaDescPtr, SchemaDescriptor, Type as SchemaType, TypePtr,
};

use crate::fields::{self, Column, FIELDS, Type};
use crate::rows::{self, Rows, Value};

/// The ZSTD level of the pages: a fast negative level (the level is not
/// written in the file: every reader of ZSTD pages reads them).
pub(crate) const ZSTD_LEVEL: i32 = -5;

/// Text columns whose values are nearly all distinct (whole URLs and their
/// parts after the host, identifiers): plain pages, no dictionary (it
/// would outgrow its page and be dropped), and no statistics (their
/// minimum and maximum prune nothing).
pub(crate) const DISTINCT_TEXT: [&str; 10] = [
    "url",
    "normalized",
    "key",
    "path",
    "query",
    "fragment",
    "found",
    "message_id",
    "warc_target_uri",
    "warc_record_id",
];

/// Rows per Parquet row group.
pub(crate) const ROW_GROUP_ROWS: usize = 128 * 1024;

/// A row group also ends once its rows hold this many bytes (so that a
/// row group's rows stay addressable with 32-bit offsets).
const ROW_GROUP_BYTES: usize = 1 << 30;

fn err(e: impl std::error::Error + Send + Sync + 'static) -> io::Error {
    io::Error::other(e)
}

/// The Parquet schema of the files ([`fields::columns`]`(mail)`): text
/// `BYTE_ARRAY` (`STRING`), integers `INT64`, booleans `BOOLEAN`; a column
/// that may hold nulls is `OPTIONAL`, the others `REQUIRED`.
pub(crate) fn schema(mail: bool) -> io::Result<TypePtr> {
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

/// Rows handed to a row group's encoders at once.
const BLOCK_ROWS: usize = 1024;

/// The most threads one row group's columns are split over.
pub(crate) const MAX_LANES: usize = 4;

/// The values of one column for one block of rows, and their definition
/// levels (1: a value, 0: null).
struct Values {
    vals: Vals,
    defs: Vec<i16>,
    column: Column,
}

enum Vals {
    Text(Vec<ByteArray>),
    Int(Vec<i64>),
    Bool(Vec<bool>),
}

impl Values {
    fn new(column: Column) -> Self {
        let n = BLOCK_ROWS;
        let vals = match column.field.ty {
            Type::Text => Vals::Text(Vec::with_capacity(n)),
            Type::U64 | Type::U32 => Vals::Int(Vec::with_capacity(n)),
            Type::Bool => Vals::Bool(Vec::with_capacity(n)),
        };
        Values {
            vals,
            defs: Vec::with_capacity(n),
            column,
        }
    }

    /// Add `v` (text borrowed from `block`).
    fn push(&mut self, v: Value<'_>, block: &Bytes) -> io::Result<()> {
        let some = match (&mut self.vals, v) {
            (Vals::Text(t), Value::Text(v)) => {
                v.map(|s| t.push(ByteArray::from(block.slice_ref(s))))
            }
            // Counts and offsets: never past i64::MAX.
            (Vals::Int(t), Value::Int(v)) => {
                v.map(|n| t.push(i64::try_from(n).unwrap_or(i64::MAX)))
            }
            (Vals::Bool(t), Value::Bool(v)) => v.map(|b| t.push(b)),
            _ => {
                return Err(invalid(format!(
                    "a value of the wrong type in column {}",
                    self.column.field.name
                )));
            }
        };
        if some.is_none() && !self.column.nullable {
            return Err(invalid(format!(
                "a null in column {}, which has none",
                self.column.field.name
            )));
        }
        self.defs.push(i16::from(some.is_some()));
        Ok(())
    }

    /// Hand the values to `w` and start the next block.
    fn write(&mut self, w: &mut ColumnWriter<'_>) -> io::Result<()> {
        let defs = self.column.nullable.then_some(&self.defs[..]);
        let r = match (&mut self.vals, w) {
            (Vals::Text(v), ColumnWriter::ByteArrayColumnWriter(w)) => {
                let r = w.write_batch(v, defs, None);
                v.clear();
                r
            }
            (Vals::Int(v), ColumnWriter::Int64ColumnWriter(w)) => {
                let r = w.write_batch(v, defs, None);
                v.clear();
                r
            }
            (Vals::Bool(v), ColumnWriter::BoolColumnWriter(w)) => {
                let r = w.write_batch(v, defs, None);
                v.clear();
                r
            }
            _ => {
                return Err(invalid(format!(
                    "column {}: not its writer",
                    self.column.field.name
                )));
            }
        };
        self.defs.clear();
        r.map(|_| ()).map_err(err)
    }
}

fn invalid(what: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("parquet: {what}"))
}

/// Encode one row group, its rows given in `blocks` (whole rows, each
/// block its own buffer: its values are slices of it) as they come; returns
/// its column chunks.
fn encode_group(
    blocks: impl IntoIterator<Item = Bytes>,
    layout: &Layout,
    mine: impl Fn(usize) -> bool,
) -> io::Result<Vec<(usize, Chunk)>> {
    let ids: Vec<usize> = (0..layout.columns.len()).filter(|&i| mine(i)).collect();
    let cols: Vec<Column> = ids.iter().map(|&i| layout.columns[i]).collect();
    // For each field of a row: the slot of its column, if it has one.
    let mut slot = vec![None; FIELDS.len()];
    let mut check = vec![false; FIELDS.len()];
    for (k, c) in cols.iter().enumerate() {
        slot[c.index] = Some(k);
        check[c.index] = true;
    }
    let mut values: Vec<Values> = cols.iter().map(|&c| Values::new(c)).collect();
    let mut sinks: Vec<TrackedWrite<Vec<u8>>> =
        cols.iter().map(|_| TrackedWrite::new(Vec::new())).collect();
    let mut writers: Vec<ColumnWriter<'_>> = sinks
        .iter_mut()
        .zip(&ids)
        .map(|(sink, &i)| {
            let pages = Box::new(SerializedPageWriter::new(sink));
            get_column_writer(layout.descr.column(i), layout.props.clone(), pages)
        })
        .collect();
    for shared in blocks {
        // Its values are slices of the block: a lane that shares it with
        // others takes its own copy, so that no two threads count
        // references to one buffer value by value.
        let block = match shared.try_into_mut() {
            Ok(only) => only.freeze(),
            Err(shared) => Bytes::copy_from_slice(&shared),
        };
        for row in Rows::new(&block) {
            row?.visit(&check, |f, v| match slot[f] {
                Some(k) => values[k].push(v, &block),
                None => Ok(()),
            })?;
        }
        for (v, w) in values.iter_mut().zip(writers.iter_mut()) {
            v.write(w)?;
        }
    }
    let closes = writers
        .into_iter()
        .map(|w| w.close().map_err(err))
        .collect::<io::Result<Vec<_>>>()?;
    let mut out = Vec::with_capacity(cols.len());
    for ((sink, close), i) in sinks.into_iter().zip(closes).zip(ids) {
        let bytes = sink.into_inner().map_err(err)?;
        out.push((i, (Bytes::from(bytes), close)));
    }
    Ok(out)
}

/// A row group being encoded: its lanes' chunks, when they are ready.
struct Pending {
    done: Receiver<io::Result<Vec<(usize, Chunk)>>>,
    lanes: usize,
    /// The chunks of the lanes that are done, and how many are.
    chunks: Vec<(usize, Chunk)>,
    finished: usize,
}

impl Pending {
    /// Take one lane's result, waiting for it if `wait`; true once every
    /// lane is done.
    fn poll(&mut self, wait: bool) -> io::Result<bool> {
        while self.finished < self.lanes {
            let r = if wait {
                self.done.recv().ok()
            } else {
                match self.done.try_recv() {
                    Ok(r) => Some(r),
                    Err(std::sync::mpsc::TryRecvError::Empty) => return Ok(false),
                    Err(std::sync::mpsc::TryRecvError::Disconnected) => None,
                }
            };
            let r = r.ok_or_else(|| io::Error::other("parquet: an encoding thread ended"))?;
            self.chunks.extend(r?);
            self.finished += 1;
        }
        Ok(true)
    }
}

/// The row group that fills, on its encoding threads: where its blocks go,
/// one channel per lane (a lane encodes some of the columns).
struct Filling {
    lanes: Vec<SyncSender<Bytes>>,
}

/// Rows in, Parquet out (see the module docs). Call
/// [`ParquetWriter::close`] at the end: it writes the last row group and
/// the footer.
pub struct ParquetWriter<W: Write + Send> {
    writer: SerializedFileWriter<W>,
    layout: Arc<Layout>,
    /// Rows per row group.
    group_rows: usize,
    /// Rows handed on, whole rows not yet handed on (from `start` to
    /// `whole`, `rows` of them), then the start of the next.
    buf: Vec<u8>,
    start: usize,
    whole: usize,
    rows: usize,
    /// Rows of the row group that fills, and their bytes.
    group: usize,
    group_bytes: usize,
    filling: Option<Filling>,
    /// Row groups being encoded, in file order (the filling one last), and
    /// how many may be.
    pending: VecDeque<Pending>,
    limit: Option<usize>,
}

impl<W: Write + Send> ParquetWriter<W> {
    /// A writer of the rows to `out` (`mail`: with the `--mail` columns).
    pub fn new(out: W, mail: bool) -> io::Result<Self> {
        let mut b = WriterProperties::builder()
            .set_compression(Compression::ZSTD(
                ZstdLevel::try_new(ZSTD_LEVEL).map_err(err)?,
            ))
            .set_max_row_group_row_count(Some(ROW_GROUP_ROWS));
        for c in fields::columns(mail) {
            let path = ColumnPath::from(c.field.name);
            if matches!(c.field.ty, Type::U64 | Type::U32) {
                // Integers (offsets and line numbers, nearly all distinct
                // and rising): deltas, not a dictionary.
                b = b
                    .set_column_dictionary_enabled(path.clone(), false)
                    .set_column_encoding(path, Encoding::DELTA_BINARY_PACKED);
            } else if DISTINCT_TEXT.contains(&c.field.name) {
                b = b
                    .set_column_dictionary_enabled(path.clone(), false)
                    .set_column_statistics_enabled(path, EnabledStatistics::None);
            }
        }
        let props = b.build();
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
            group_rows: ROW_GROUP_ROWS,
            buf: Vec::new(),
            start: 0,
            whole: 0,
            rows: 0,
            group: 0,
            group_bytes: 0,
            filling: None,
            pending: VecDeque::new(),
            limit: None,
        })
    }

    /// Row groups of `rows` rows (at least 1) instead of
    /// [`ROW_GROUP_ROWS`].
    #[cfg(test)]
    pub(crate) fn with_row_group_rows(mut self, rows: usize) -> Self {
        self.group_rows = rows.max(1);
        self
    }

    /// The whole rows of `buf` as a block, the rest kept.
    fn take_block(&mut self) -> Bytes {
        let block = Bytes::copy_from_slice(&self.buf[self.start..self.whole]);
        self.group += self.rows;
        self.group_bytes += block.len();
        self.start = self.whole;
        self.rows = 0;
        block
    }

    /// Hand the whole rows of `buf` to the row group that fills (started on
    /// an encoding thread if it is not), and end that row group if it is
    /// full or `last`.
    fn hand_on(&mut self, last: bool) -> io::Result<()> {
        if self.rows > 0 {
            if self.filling.is_none() {
                self.start_group()?;
            }
            let block = self.take_block();
            let sent = match &self.filling {
                Some(f) => f.lanes.iter().all(|l| l.send(block.clone()).is_ok()),
                None => false,
            };
            if !sent {
                // The encoder ended early: its error says why.
                self.filling = None;
                while !self.pending.is_empty() {
                    self.write_oldest()?;
                }
                return Err(io::Error::other("parquet: an encoding thread ended"));
            }
        }
        if last || self.group >= self.group_rows || self.group_bytes >= ROW_GROUP_BYTES {
            // Its encoder finishes once it has every block.
            self.filling = None;
            self.group = 0;
            self.group_bytes = 0;
        }
        // Whatever is ready goes out now.
        while let Some(p) = self.pending.front_mut() {
            if !p.poll(false)? {
                break;
            }
            self.write_oldest()?;
        }
        Ok(())
    }

    /// A row group's encoders: its columns split over as many lanes as
    /// rayon's pool has threads (`-j`, at most [`MAX_LANES`]), each on a
    /// thread of its own, that encode the rows as they come (so they wait
    /// for the scan, which a thread of a rayon pool must not do). Row
    /// groups are written out in order.
    fn start_group(&mut self) -> io::Result<()> {
        let threads = *self
            .limit
            .get_or_insert_with(|| rayon::current_num_threads().max(1));
        let lanes = threads.clamp(1, MAX_LANES);
        // Row groups at once: one lane per thread, and one more row group
        // that fills while the others finish.
        while self.pending.len() > threads / lanes {
            self.write_oldest()?;
        }
        // Room for a whole row group's results and blocks: the scan never
        // waits for the encoders of a row group it has finished.
        let (done_tx, done) = sync_channel(lanes);
        let mut senders = Vec::with_capacity(lanes);
        for lane in 0..lanes {
            let (tx, blocks) = sync_channel(self.group_rows.div_ceil(BLOCK_ROWS) + 1);
            senders.push(tx);
            let layout = self.layout.clone();
            let done_tx = done_tx.clone();
            std::thread::Builder::new()
                .name("urlsift-parquet".into())
                .spawn(move || {
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        encode_group(blocks, &layout, |i| i % lanes == lane)
                    }))
                    .unwrap_or_else(|p| {
                        Err(io::Error::other(format!(
                            "parquet: encoding a row group failed: {}",
                            urlsift_core::diag::panic_message(p.as_ref())
                        )))
                    });
                    let _ = done_tx.send(r);
                })?;
        }
        self.pending.push_back(Pending {
            done,
            lanes,
            chunks: Vec::new(),
            finished: 0,
        });
        self.filling = Some(Filling { lanes: senders });
        Ok(())
    }

    /// Wait for the oldest row group's lanes and write it.
    fn write_oldest(&mut self) -> io::Result<()> {
        let Some(mut p) = self.pending.pop_front() else {
            return Ok(());
        };
        p.poll(true)?;
        let mut chunks = p.chunks;
        chunks.sort_by_key(|(i, _)| *i);
        self.put(chunks.into_iter().map(|(_, c)| c).collect())
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
        if self.whole != self.buf.len() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "parquet: the last row is cut short",
            ));
        }
        if self.filling.is_none() && self.pending.is_empty() && self.rows > 0 {
            // Fewer rows than a block: encoded here.
            let block = self.take_block();
            let chunks = encode_group([block], &self.layout, |_| true)?;
            self.put(chunks.into_iter().map(|(_, c)| c).collect())?;
        } else {
            self.hand_on(true)?;
        }
        while !self.pending.is_empty() {
            self.write_oldest()?;
        }
        let meta = self.writer.close().map_err(err)?;
        Ok(meta.file_metadata().num_rows().max(0) as u64)
    }
}

impl<W: Write + Send> Write for ParquetWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // What was taken goes: the rest is less than a block and a row.
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
            if self.rows >= BLOCK_ROWS
                || self.group + self.rows >= self.group_rows
                || self.group_bytes + (self.whole - self.start) >= ROW_GROUP_BYTES
            {
                self.hand_on(false)?;
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Format, Formatter, Options, Record};
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::Field;

    /// The rows of `n` URLs, `line` counting up.
    fn rows(n: usize) -> Vec<u8> {
        let text: String = (0..n)
            .map(|i| format!("http://h{}.example/{i} ", i % 7))
            .collect();
        let mut f = Formatter::new(&Options {
            format: Format::Rows,
            normalize: true,
            ..Options::default()
        });
        let mut out = Vec::new();
        for (i, m) in urlsift_core::find(text.as_bytes()).enumerate() {
            let rec = Record {
                file: "f",
                line: i as u64 + 1,
                m: &m,
                mail: None,
                web: None,
            };
            f.format(&rec, &mut out).unwrap();
        }
        out
    }

    fn write(rows: &[u8], piece: usize) -> io::Result<Vec<u8>> {
        let mut file = Vec::new();
        let mut w = ParquetWriter::new(&mut file, false)?.with_row_group_rows(1000);
        for p in rows.chunks(piece) {
            w.write_all(p)?;
        }
        assert_eq!(w.close()?, 5500);
        Ok(file)
    }

    #[test]
    fn rows_in_any_pieces_make_one_file_of_row_groups_in_order() {
        let rows = rows(5500);
        let whole = write(&rows, rows.len()).unwrap();
        for piece in [1, 7, 1013] {
            assert!(write(&rows, piece).unwrap() == whole, "pieces of {piece}");
        }
        let r = SerializedFileReader::new(bytes::Bytes::from(whole)).unwrap();
        assert_eq!(r.metadata().num_row_groups(), 6);
        let lines: Vec<i64> = r
            .get_row_iter(None)
            .unwrap()
            .map(
                |row| match row.unwrap().get_column_iter().nth(3).unwrap().1 {
                    Field::Long(n) => *n,
                    f => panic!("{f:?}"),
                },
            )
            .collect();
        assert_eq!(lines, (1..=5500).collect::<Vec<i64>>());
    }

    /// The integer written in row `r` (an integer column), `None` for a
    /// null: rising, falling, both ends of the range and past it.
    fn int_at(r: usize, nullable: bool) -> Option<u64> {
        let v = [0, 1, i64::MAX as u64, u64::MAX, 7, 3, 1 << 40, 2][r % 8];
        (!(nullable && r.is_multiple_of(5))).then_some(v + (r as u64 % 3).min(u64::MAX - v))
    }

    #[test]
    fn integer_columns_are_deltas_that_read_back_as_written() {
        let columns: Vec<Column> = fields::columns(false).collect();
        let n = 3000;
        let mut buf = Vec::new();
        for r in 0..n {
            let mut w = rows::RowWriter::new(&mut buf);
            for (i, f) in FIELDS.iter().enumerate() {
                let nullable = columns
                    .iter()
                    .find(|c| c.index == i)
                    .is_none_or(|c| c.nullable);
                match f.ty {
                    Type::Text => w.text((!nullable).then_some("x")),
                    Type::U64 | Type::U32 => w.int(int_at(r, nullable)),
                    Type::Bool => w.bool(Some(r.is_multiple_of(2))),
                }
            }
            w.end().unwrap();
        }
        let mut file = Vec::new();
        let mut w = ParquetWriter::new(&mut file, false).unwrap();
        w.write_all(&buf).unwrap();
        assert_eq!(w.close().unwrap(), n as u64);
        let r = SerializedFileReader::new(bytes::Bytes::from(file)).unwrap();
        let ints: Vec<(usize, &Column)> = columns
            .iter()
            .enumerate()
            .filter(|(_, c)| matches!(c.field.ty, Type::U64 | Type::U32))
            .collect();
        assert!(ints.len() >= 4);
        let rg = r.metadata().row_group(0);
        for &(k, c) in &ints {
            let chunk = rg.column(k);
            assert!(
                chunk
                    .encodings()
                    .any(|e| e == Encoding::DELTA_BINARY_PACKED),
                "{}",
                c.field.name
            );
            assert_eq!(chunk.dictionary_page_offset(), None, "{}", c.field.name);
        }
        for (row, got) in r.get_row_iter(None).unwrap().enumerate() {
            let got = got.unwrap();
            let fields: Vec<&Field> = got.get_column_iter().map(|(_, f)| f).collect();
            for &(k, c) in &ints {
                let want = int_at(row, c.nullable).map(|v| i64::try_from(v).unwrap_or(i64::MAX));
                let have = match fields[k] {
                    Field::Long(v) => Some(*v),
                    Field::Null => None,
                    f => panic!("{f:?}"),
                };
                assert_eq!(have, want, "row {row}, {}", c.field.name);
            }
        }
    }

    #[test]
    fn distinct_text_is_plain_without_statistics_the_rest_has_both() {
        for name in DISTINCT_TEXT {
            assert!(
                FIELDS.iter().any(|f| f.name == name && f.ty == Type::Text),
                "{name}"
            );
        }
        let file = write(&rows(5500), 4096).unwrap();
        let r = SerializedFileReader::new(bytes::Bytes::from(file)).unwrap();
        let rg = r.metadata().row_group(0);
        let names: Vec<&str> = fields::columns(false).map(|c| c.field.name).collect();
        let chunk = |name: &str| rg.column(names.iter().position(|&n| n == name).unwrap());
        for k in 0..names.len() {
            assert!(matches!(rg.column(k).compression(), Compression::ZSTD(_)));
        }
        // Columns with a value in every one of these rows.
        for name in ["url", "normalized", "path"] {
            assert!(DISTINCT_TEXT.contains(&name));
            assert_eq!(chunk(name).dictionary_page_offset(), None, "{name}");
            assert!(chunk(name).statistics().is_none(), "{name}");
        }
        for name in ["file", "style", "kind", "scheme", "host"] {
            assert!(!DISTINCT_TEXT.contains(&name));
            assert!(chunk(name).dictionary_page_offset().is_some(), "{name}");
            let stats = chunk(name).statistics().unwrap();
            assert!(stats.min_bytes_opt().is_some(), "{name}");
        }
    }

    #[test]
    fn bytes_that_are_not_rows_fail() {
        let mut w = ParquetWriter::new(Vec::new(), false).unwrap();
        assert!(w.write_all(b"\xff\xff\xff\xffnot a row").is_err());
        let mut w = ParquetWriter::new(Vec::new(), false)
            .unwrap()
            .with_row_group_rows(2);
        let mut bad = rows(3);
        // The first value's length made 255: the row's values no longer
        // fit it, and its row group fails to encode.
        bad[4] = 0xff;
        let e = w.write_all(&bad).and_then(|()| w.close().map(|_| ()));
        assert_eq!(e.unwrap_err().kind(), io::ErrorKind::InvalidData);
        // A row cut short.
        let rows = rows(3);
        let mut w = ParquetWriter::new(Vec::new(), false).unwrap();
        w.write_all(&rows[..rows.len() - 1]).unwrap();
        assert!(w.close().is_err());
    }
}

/// The examples of items private to the crate.
#[cfg(test)]
mod examples {
    #[test]
    fn schema() {
        let s = crate::parquet::schema(false).unwrap();
        let start = &s.get_fields()[1];
        assert_eq!(start.name(), "start");
        assert_eq!(start.get_physical_type(), parquet::basic::Type::INT64);
    }
    #[test]
    fn with_row_group_rows() {
        use crate::ParquetWriter;
        let w = ParquetWriter::new(Vec::new(), false)
            .unwrap()
            .with_row_group_rows(1000);
        assert_eq!(w.close().unwrap(), 0);
    }
}
