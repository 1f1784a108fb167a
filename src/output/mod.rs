//! Output: every format implements one [`Sink`] trait (text, JSON Lines,
//! CSV/TSV, counts, unique/aggregate), fed in input order.
//!
//! ```
//! use urlsift::output::{Format, Options, Record, Sink, new_sink};
//! let text = b"see <http://example.com/a> now";
//! let mut out = Vec::new();
//! {
//!     let opts = Options { format: Format::Json, ..Options::default() };
//!     let mut sink = new_sink(&opts, &mut out);
//!     for m in urlsift::extract::extract(text) {
//!         sink.record(&Record { file: "-", line: 1, m: &m, mail: None }).unwrap();
//!     }
//!     sink.finish().unwrap();
//! }
//! let line = String::from_utf8(out).unwrap();
//! assert!(line.contains(r#""url":"http://example.com/a""#));
//! assert!(line.contains(r#""style":"angle""#));
//! assert!(line.contains(r#""host":"example.com""#));
//! ```

use std::borrow::Cow;
use std::io::{self, Write};

use serde::Serialize;

use crate::dedup::{self, Counter, KeyLevel, Offer, Unique, fingerprint};
use crate::extract::{Kind, Match};
use crate::uri::UriRef;

#[cfg(feature = "parquet")]
pub mod parquet;
pub mod run;

/// ANSI colours, as ripgrep uses them: file names magenta, line numbers and
/// byte offsets green.
mod color {
    pub const PATH: &str = "\x1b[35m";
    pub const NUMBER: &str = "\x1b[32m";
    pub const RESET: &str = "\x1b[0m";
}

/// The output format of the extract command.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// One URL per line, with optional `file:line:offset:` prefixes.
    #[default]
    Text,
    /// JSON Lines: one object per URL (fields in DESIGN.md's CLI contract).
    Json,
    /// CSV with a header row (RFC 4180 quoting).
    Csv,
    /// Tab-separated values with a header row.
    Tsv,
}

/// What to aggregate instead of listing every URL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CountBy {
    /// Count each distinct URL.
    Url,
    /// Count each distinct host (lower-cased); URLs without a host are not counted.
    Host,
    /// Count each distinct scheme (lower-cased; `www` URLs count as `http`).
    Scheme,
}

/// How the extract command prints what it finds.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The format.
    pub format: Format,
    /// Prefix each text line with its line number (`-n`).
    pub line_number: bool,
    /// Prefix each text line with the URL's byte offset (`-b`).
    pub byte_offset: bool,
    /// Prefix each text line with the file name (`-H`).
    pub with_filename: bool,
    /// Print the RFC 3986 section 6 normal form instead of the URL as found.
    pub normalize: bool,
    /// Print each distinct URL once, in order of first appearance.
    pub unique: bool,
    /// Print `count key` lines, most frequent first.
    pub count_by: Option<CountBy>,
    /// What `unique`, `count_by` (by URL) and sharding by URL compare: the
    /// URL as found or a normal form. With `normalize`, a normalizing level
    /// is also the form printed.
    pub dedup_key: KeyLevel,
    /// Print only the number of URLs per file (`-c`).
    pub count: bool,
    /// Colour file names, line numbers and byte offsets (ANSI escapes).
    pub color: bool,
    /// Leave out the CSV/TSV header row (the caller writes it once, with
    /// [`write_header`]).
    pub no_header: bool,
}

/// One URL found, with where it was found.
#[derive(Debug)]
pub struct Record<'a, 'h> {
    /// The input's name (`-` for standard input).
    pub file: &'a str,
    /// The 1-based line number of the URL's first byte.
    pub line: u64,
    /// The match.
    pub m: &'a Match<'h>,
    /// With `--mail`: the message and part the URL came from (offsets and
    /// `line` then refer to the decoded part text).
    pub mail: Option<&'a crate::input::mail::MailWhere>,
}

/// Receives every URL of a run, in input order.
pub trait Sink {
    /// One URL.
    fn record(&mut self, rec: &Record<'_, '_>) -> io::Result<()>;
    /// The end of one input, with the number of URLs it had.
    fn file_done(&mut self, _file: &str, _count: u64) -> io::Result<()> {
        Ok(())
    }
    /// The end of the run: flush aggregates.
    fn finish(&mut self) -> io::Result<()>;
}

/// Build the sink that `opts` asks for, writing to `out`.
///
/// `unique` and `count_by` keep their whole state in memory here; the
/// command line's run ([`run`]) bounds it with `--max-memory`.
pub fn new_sink<'w, W: Write + 'w>(opts: &Options, out: W) -> Box<dyn Sink + 'w> {
    if opts.count {
        return Box::new(CountSink {
            out,
            with_filename: opts.with_filename,
            color: opts.color,
        });
    }
    if opts.unique || opts.count_by.is_some() {
        return Box::new(DedupSink {
            f: Formatter::new(opts),
            buf: Vec::new(),
            out,
            by: opts.count_by,
            level: opts.dedup_key,
            unique: Unique::new(usize::MAX, None),
            counter: Counter::new(usize::MAX, None),
        });
    }
    Box::new(FormatSink {
        f: Formatter::new(opts),
        buf: Vec::new(),
        out,
    })
}

/// Formats one record at a time into a byte buffer, in any of the
/// [`Format`]s: the one place that knows what a text line, a JSON object or
/// a CSV row holds.
///
/// ```
/// use urlsift::output::{Format, Formatter, Options, Record};
/// let m = &urlsift::extract::extract(b"at http://a.example/x, and")[0];
/// let mut f = Formatter::new(&Options { format: Format::Csv, ..Options::default() });
/// let mut out = Vec::new();
/// f.format(&Record { file: "f", line: 1, m, mail: None }, &mut out).unwrap();
/// let csv = String::from_utf8(out).unwrap();
/// assert!(csv.starts_with("file,start,end,line,url,"));
/// assert!(csv.contains("\nf,3,21,1,http://a.example/x,"));
/// ```
pub struct Formatter {
    opts: Options,
    header: bool,
    /// Scratch for `--normalize` in text output ([`dedup::key_into`]).
    keybuf: Vec<u8>,
}

impl Formatter {
    /// A formatter for `opts` (its format, prefixes and normalization).
    pub fn new(opts: &Options) -> Self {
        Formatter {
            opts: opts.clone(),
            header: opts.no_header,
            keybuf: Vec::new(),
        }
    }

    /// The level `--normalize` prints: the de-duplication key's level when
    /// that normalizes, otherwise 6.2.2 + 6.2.3.
    fn normal_level(&self) -> KeyLevel {
        match self.opts.dedup_key {
            KeyLevel::Raw => KeyLevel::Scheme,
            l => l,
        }
    }

    /// Append `rec`, formatted, to `out` (for CSV/TSV, after the header row
    /// if this is the first record and the options do not leave it out).
    pub fn format(&mut self, rec: &Record<'_, '_>, out: &mut Vec<u8>) -> io::Result<()> {
        let level = self.normal_level();
        let o = &self.opts;
        match o.format {
            Format::Text => {
                let (path, num, reset) = if o.color {
                    (color::PATH, color::NUMBER, color::RESET)
                } else {
                    ("", "", "")
                };
                if o.with_filename {
                    write!(out, "{path}{}{reset}:", rec.file)?;
                }
                if o.line_number {
                    write!(out, "{num}{}{reset}:", rec.line)?;
                }
                if o.byte_offset {
                    write!(out, "{num}{}{reset}:", rec.m.start)?;
                }
                if o.normalize {
                    let www = rec.m.kind == Kind::Www;
                    let key = dedup::key_into(&rec.m.url, www, level, &mut self.keybuf);
                    out.extend_from_slice(key);
                } else {
                    out.extend_from_slice(&rec.m.url);
                }
                out.push(b'\n');
            }
            Format::Json => {
                serde_json::to_writer(&mut *out, &row(rec, o.normalize.then_some(level)))?;
                out.push(b'\n');
            }
            Format::Csv | Format::Tsv => {
                let tsv = o.format == Format::Tsv;
                let normalize = o.normalize;
                let mut w = csv::WriterBuilder::new()
                    .delimiter(if tsv { b'\t' } else { b',' })
                    .quote_style(if tsv {
                        csv::QuoteStyle::Never
                    } else {
                        csv::QuoteStyle::Necessary
                    })
                    .buffer_capacity(1024)
                    .from_writer(&mut *out);
                if !self.header {
                    self.header = true;
                    w.write_record(header_fields(normalize)).map_err(csv_err)?;
                }
                w.write_record(csv_fields(rec, normalize.then_some(level), tsv))
                    .map_err(csv_err)?;
                w.flush()?;
            }
        }
        Ok(())
    }
}

/// Writes each record formatted by a [`Formatter`].
struct FormatSink<W: Write> {
    f: Formatter,
    buf: Vec<u8>,
    out: W,
}

impl<W: Write> Sink for FormatSink<W> {
    fn record(&mut self, rec: &Record<'_, '_>) -> io::Result<()> {
        self.buf.clear();
        self.f.format(rec, &mut self.buf)?;
        self.out.write_all(&self.buf)
    }

    fn finish(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// The components of a match, from the URI engine. An abbreviated `www.` URI
/// is split as the network-path reference `//www...`, so it has a host.
pub struct Parts {
    text: Vec<u8>,
    www: bool,
}

impl Parts {
    /// Prepare the split of `m`.
    pub fn new(m: &Match<'_>) -> Parts {
        let www = m.kind == Kind::Www;
        let mut text = Vec::with_capacity(m.url.len() + 2);
        if www {
            text.extend_from_slice(b"//");
        }
        text.extend_from_slice(&m.url);
        Parts { text, www }
    }

    /// The RFC 3986 split.
    pub fn uri(&self) -> UriRef<'_> {
        UriRef::split(&self.text)
    }

    /// True if the URL is a valid RFC 3986 URI (an abbreviated one: a valid
    /// network-path reference).
    pub fn valid(&self) -> bool {
        self.uri().validate().is_ok()
    }

    /// The normal form (RFC 3986 6.2.2 and 6.2.3). A `www.` URI is taken as
    /// `http://` (RFC 2396bis Appendix F's usual heuristic). `None` when the
    /// URL is not valid enough to normalize.
    pub fn normalized(&self) -> Option<String> {
        self.normalized_at(KeyLevel::Scheme)
    }

    /// The normal form at `level` (`None` when the URL is not valid enough
    /// to normalize; [`KeyLevel::Raw`] gives the URL as found).
    pub fn normalized_at(&self, level: KeyLevel) -> Option<String> {
        let url = if self.www {
            &self.text[2..]
        } else {
            &self.text[..]
        };
        match level.normalize_options() {
            None => Some(String::from_utf8_lossy(url).into_owned()),
            Some(opts) => dedup::normal_form(url, self.www, &opts).ok(),
        }
    }
}

fn lossy(b: Option<&[u8]>) -> Option<String> {
    b.map(|b| String::from_utf8_lossy(b).into_owned())
}

/// One JSON Lines / CSV row.
#[derive(Serialize)]
struct Row<'a> {
    file: &'a str,
    start: usize,
    end: usize,
    line: u64,
    url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    normalized: Option<Option<String>>,
    style: &'static str,
    kind: &'static str,
    valid: bool,
    ambiguous: bool,
    scheme: Option<String>,
    userinfo: Option<String>,
    host: Option<String>,
    host_kind: Option<&'static str>,
    port: Option<String>,
    path: String,
    query: Option<String>,
    fragment: Option<String>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    mail: Option<&'a crate::input::mail::MailWhere>,
}

fn row<'a>(rec: &Record<'a, '_>, normalize: Option<KeyLevel>) -> Row<'a> {
    let parts = Parts::new(rec.m);
    let u = parts.uri();
    Row {
        file: rec.file,
        start: rec.m.start,
        end: rec.m.end,
        line: rec.line,
        url: rec.m.url_str().into_owned(),
        normalized: normalize.map(|l| parts.normalized_at(l)),
        style: rec.m.style.as_str(),
        kind: rec.m.kind.as_str(),
        valid: u.validate().is_ok(),
        ambiguous: rec.m.ambiguous,
        scheme: lossy(u.scheme()),
        userinfo: lossy(u.userinfo()),
        host: lossy(u.host()),
        host_kind: u.host_kind().map(|k| k.as_str()),
        port: lossy(u.port()),
        path: String::from_utf8_lossy(u.path()).into_owned(),
        query: lossy(u.query()),
        fragment: lossy(u.fragment()),
        mail: rec.mail,
    }
}

fn header_fields(normalize: bool) -> Vec<&'static str> {
    let mut h = vec!["file", "start", "end", "line", "url"];
    if normalize {
        h.push("normalized");
    }
    h.extend([
        "style",
        "kind",
        "valid",
        "ambiguous",
        "scheme",
        "userinfo",
        "host",
        "host_kind",
        "port",
        "path",
        "query",
        "fragment",
    ]);
    h
}

/// Write the CSV/TSV header row that `opts` asks for (nothing for other formats).
pub fn write_header(opts: &Options, out: &mut dyn Write) -> io::Result<()> {
    let delim = match opts.format {
        Format::Csv => b',',
        Format::Tsv => b'\t',
        _ => return Ok(()),
    };
    let mut w = csv::WriterBuilder::new().delimiter(delim).from_writer(out);
    w.write_record(header_fields(opts.normalize))
        .map_err(csv_err)?;
    w.flush()
}

fn csv_err(e: csv::Error) -> io::Error {
    match e.into_kind() {
        csv::ErrorKind::Io(e) => e,
        other => io::Error::other(format!("{other:?}")),
    }
}

/// The CSV/TSV fields of one record (TSV has no quoting: tabs and newlines
/// inside a field become spaces).
fn csv_fields(rec: &Record<'_, '_>, normalize: Option<KeyLevel>, tsv: bool) -> Vec<String> {
    let r = row(rec, normalize);
    let o = |s: &Option<String>| s.clone().unwrap_or_default();
    let mut f = vec![
        r.file.to_string(),
        r.start.to_string(),
        r.end.to_string(),
        r.line.to_string(),
        r.url.clone(),
    ];
    if let Some(n) = &r.normalized {
        f.push(o(n));
    }
    f.extend([
        r.style.to_string(),
        r.kind.to_string(),
        r.valid.to_string(),
        r.ambiguous.to_string(),
        o(&r.scheme),
        o(&r.userinfo),
        o(&r.host),
        r.host_kind.unwrap_or("").to_string(),
        o(&r.port),
        r.path.clone(),
        o(&r.query),
        o(&r.fragment),
    ]);
    if tsv {
        for s in &mut f {
            if s.contains(['\t', '\n', '\r']) {
                *s = s.replace(['\t', '\n', '\r'], " ");
            }
        }
    }
    f
}

struct CountSink<W: Write> {
    out: W,
    with_filename: bool,
    color: bool,
}

impl<W: Write> Sink for CountSink<W> {
    fn record(&mut self, _rec: &Record<'_, '_>) -> io::Result<()> {
        Ok(())
    }

    fn file_done(&mut self, file: &str, count: u64) -> io::Result<()> {
        match (self.with_filename, self.color) {
            (false, _) => writeln!(self.out, "{count}"),
            (true, false) => writeln!(self.out, "{file}:{count}"),
            (true, true) => writeln!(self.out, "{}{file}{}:{count}", color::PATH, color::RESET),
        }
    }

    fn finish(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// The key `--count-by` counts `m` under: the URL at the de-duplication
/// `level` (see [`dedup::key`]), its lower-cased host, or its lower-cased
/// scheme (`www` URLs count as `http`). `None` when the URL has nothing to
/// count (no host for `--count-by host`).
///
/// ```
/// use urlsift::dedup::KeyLevel;
/// use urlsift::output::{CountBy, count_key};
/// let m = &urlsift::extract::extract(b"see HTTP://Example.COM:80/a")[0];
/// assert_eq!(count_key(m, None, KeyLevel::Scheme).unwrap().as_ref(), b"http://example.com/a");
/// assert_eq!(count_key(m, Some(CountBy::Host), KeyLevel::Raw).unwrap().as_ref(), b"example.com");
/// assert_eq!(count_key(m, Some(CountBy::Scheme), KeyLevel::Raw).unwrap().as_ref(), b"http");
/// ```
pub fn count_key<'m>(
    m: &'m Match<'_>,
    by: Option<CountBy>,
    level: KeyLevel,
) -> Option<Cow<'m, [u8]>> {
    let www = m.kind == Kind::Www;
    Some(match by {
        None | Some(CountBy::Url) => dedup::key(&m.url, www, level),
        Some(CountBy::Host) => Cow::Owned(host_key(m)?),
        Some(CountBy::Scheme) => Cow::Owned(match m.kind {
            Kind::Www => b"http".to_vec(),
            Kind::Uri => Parts::new(m)
                .uri()
                .scheme()
                .unwrap_or(b"")
                .to_ascii_lowercase(),
        }),
    })
}

/// The lower-cased host of `m` (`None` when it has no host, or an empty one).
pub fn host_key(m: &Match<'_>) -> Option<Vec<u8>> {
    let parts = Parts::new(m);
    let u = parts.uri();
    let h = u.host().filter(|h| !h.is_empty())?;
    Some(h.to_ascii_lowercase())
}

/// Write one `--count-by` row: the count right-aligned in 7 columns, a
/// space, the key (like `uniq -c`).
pub fn write_count_row(out: &mut dyn Write, count: u64, key: &[u8]) -> io::Result<()> {
    write!(out, "{count:>7} ")?;
    out.write_all(key)?;
    out.write_all(b"\n")
}

/// `--unique` and `--count-by` in memory: the first record of each distinct
/// key as it comes, or the counts at the end.
struct DedupSink<W: Write> {
    f: Formatter,
    buf: Vec<u8>,
    out: W,
    by: Option<CountBy>,
    level: KeyLevel,
    unique: Unique,
    counter: Counter,
}

impl<W: Write> Sink for DedupSink<W> {
    fn record(&mut self, rec: &Record<'_, '_>) -> io::Result<()> {
        if self.by.is_some() {
            if let Some(k) = count_key(rec.m, self.by, self.level) {
                self.counter.add(fingerprint(&k), &k)?;
            }
            return Ok(());
        }
        let k = dedup::key(&rec.m.url, rec.m.kind == Kind::Www, self.level);
        self.buf.clear();
        self.f.format(rec, &mut self.buf)?;
        if self.unique.offer(fingerprint(&k), &self.buf)? == Offer::New {
            self.out.write_all(&self.buf)?;
        }
        Ok(())
    }

    fn finish(&mut self) -> io::Result<()> {
        let out = &mut self.out;
        std::mem::replace(&mut self.unique, Unique::new(usize::MAX, None))
            .finish(|p| out.write_all(p))?;
        std::mem::replace(&mut self.counter, Counter::new(usize::MAX, None))
            .finish(|c, k| write_count_row(out, c, k))?;
        self.out.flush()
    }
}
