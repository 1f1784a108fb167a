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

use std::collections::HashMap;
use std::io::{self, Write};

use serde::Serialize;

use crate::extract::{Kind, Match};
use crate::uri::{self, NormalizeOptions, UriRef};

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
pub fn new_sink<'w, W: Write + 'w>(opts: &Options, out: W) -> Box<dyn Sink + 'w> {
    if opts.count {
        return Box::new(CountSink {
            out,
            with_filename: opts.with_filename,
            color: opts.color,
        });
    }
    if opts.unique || opts.count_by.is_some() {
        return Box::new(Aggregate::new(out, opts));
    }
    match opts.format {
        Format::Text => Box::new(TextSink {
            out,
            opts: opts.clone(),
        }),
        Format::Json => Box::new(JsonSink {
            out,
            normalize: opts.normalize,
        }),
        Format::Csv | Format::Tsv => {
            let delim = if opts.format == Format::Csv {
                b','
            } else {
                b'\t'
            };
            let w = csv::WriterBuilder::new()
                .delimiter(delim)
                .quote_style(if delim == b'\t' {
                    csv::QuoteStyle::Never
                } else {
                    csv::QuoteStyle::Necessary
                })
                .from_writer(out);
            Box::new(CsvSink {
                w,
                header: opts.no_header,
                normalize: opts.normalize,
                tsv: delim == b'\t',
            })
        }
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
        let opts = NormalizeOptions::default();
        if self.www {
            let mut t = b"http:".to_vec();
            t.extend_from_slice(&self.text);
            uri::normalize(&t, &opts).ok()
        } else {
            uri::normalize(&self.text, &opts).ok()
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

fn row<'a>(rec: &Record<'a, '_>, normalize: bool) -> Row<'a> {
    let parts = Parts::new(rec.m);
    let u = parts.uri();
    Row {
        file: rec.file,
        start: rec.m.start,
        end: rec.m.end,
        line: rec.line,
        url: rec.m.url_str().into_owned(),
        normalized: normalize.then(|| parts.normalized()),
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

struct TextSink<W: Write> {
    out: W,
    opts: Options,
}

impl<W: Write> Sink for TextSink<W> {
    fn record(&mut self, rec: &Record<'_, '_>) -> io::Result<()> {
        let (path, num, reset) = if self.opts.color {
            (color::PATH, color::NUMBER, color::RESET)
        } else {
            ("", "", "")
        };
        if self.opts.with_filename {
            write!(self.out, "{path}{}{reset}:", rec.file)?;
        }
        if self.opts.line_number {
            write!(self.out, "{num}{}{reset}:", rec.line)?;
        }
        if self.opts.byte_offset {
            write!(self.out, "{num}{}{reset}:", rec.m.start)?;
        }
        if self.opts.normalize {
            match Parts::new(rec.m).normalized() {
                Some(n) => self.out.write_all(n.as_bytes())?,
                None => self.out.write_all(&rec.m.url)?,
            }
        } else {
            self.out.write_all(&rec.m.url)?;
        }
        self.out.write_all(b"\n")
    }

    fn finish(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

struct JsonSink<W: Write> {
    out: W,
    normalize: bool,
}

impl<W: Write> Sink for JsonSink<W> {
    fn record(&mut self, rec: &Record<'_, '_>) -> io::Result<()> {
        serde_json::to_writer(&mut self.out, &row(rec, self.normalize))?;
        self.out.write_all(b"\n")
    }

    fn finish(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

struct CsvSink<W: Write> {
    w: csv::Writer<W>,
    header: bool,
    normalize: bool,
    tsv: bool,
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

impl<W: Write> Sink for CsvSink<W> {
    fn record(&mut self, rec: &Record<'_, '_>) -> io::Result<()> {
        if !self.header {
            self.header = true;
            self.w
                .write_record(header_fields(self.normalize))
                .map_err(csv_err)?;
        }
        let r = row(rec, self.normalize);
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
        // TSV has no quoting: tabs and newlines inside a field become spaces.
        if self.tsv {
            for s in &mut f {
                if s.contains(['\t', '\n', '\r']) {
                    *s = s.replace(['\t', '\n', '\r'], " ");
                }
            }
        }
        self.w.write_record(&f).map_err(csv_err)
    }

    fn finish(&mut self) -> io::Result<()> {
        self.w.flush()
    }
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

/// The aggregation key of `m` for `--unique` (`by` = `None`) and
/// `--count-by`: the URL (or its normal form with `normalize`), its lower-cased
/// host, or its lower-cased scheme (`www` URLs count as `http`). `None` when
/// the URL has nothing to count (no host for `--count-by host`).
pub fn aggregate_key(m: &Match<'_>, by: Option<CountBy>, normalize: bool) -> Option<Vec<u8>> {
    let parts = Parts::new(m);
    let url = || -> Vec<u8> {
        if normalize {
            parts
                .normalized()
                .map(String::into_bytes)
                .unwrap_or_else(|| m.url.to_vec())
        } else {
            m.url.to_vec()
        }
    };
    Some(match by {
        None | Some(CountBy::Url) => url(),
        Some(CountBy::Host) => parts
            .uri()
            .host()
            .filter(|h| !h.is_empty())?
            .to_ascii_lowercase(),
        Some(CountBy::Scheme) => match m.kind {
            Kind::Www => b"http".to_vec(),
            Kind::Uri => parts.uri().scheme().unwrap_or(b"").to_ascii_lowercase(),
        },
    })
}

/// `--unique` and `--count-by`: an in-memory table keyed by the URL (or its
/// normal form, or its host or scheme).
///
/// Memory grows with the number of distinct keys (about the key's length
/// plus 80 bytes each; 10 million distinct URLs of 60 bytes take about
/// 1.5 GiB). A bounded version that spills to disk is future work.
pub struct Aggregate<W: Write> {
    out: W,
    by: Option<CountBy>,
    normalize: bool,
    order: Vec<Vec<u8>>,
    counts: HashMap<Vec<u8>, u64>,
}

impl<W: Write> Aggregate<W> {
    /// An empty table for `opts.unique` / `opts.count_by`, printing to `out`.
    pub fn new(out: W, opts: &Options) -> Self {
        Aggregate {
            out,
            by: opts.count_by,
            normalize: opts.normalize,
            order: Vec::new(),
            counts: HashMap::new(),
        }
    }

    /// Count one key (from [`aggregate_key`]).
    pub fn add(&mut self, key: Vec<u8>) {
        if let Some(c) = self.counts.get_mut(&key) {
            *c += 1;
        } else {
            self.counts.insert(key.clone(), 1);
            self.order.push(key);
        }
    }
}

impl<W: Write> Sink for Aggregate<W> {
    fn record(&mut self, rec: &Record<'_, '_>) -> io::Result<()> {
        if let Some(key) = aggregate_key(rec.m, self.by, self.normalize) {
            self.add(key);
        }
        Ok(())
    }

    fn finish(&mut self) -> io::Result<()> {
        write_table(&self.order, &self.counts, self.by, &mut self.out)?;
        self.out.flush()
    }
}

impl<W: Write> Aggregate<W> {
    /// Print the table to `out` (instead of the writer it was made with).
    pub fn write_to(&self, out: &mut dyn Write) -> io::Result<()> {
        write_table(&self.order, &self.counts, self.by, out)
    }
}

fn write_table(
    order: &[Vec<u8>],
    counts: &HashMap<Vec<u8>, u64>,
    by: Option<CountBy>,
    out: &mut dyn Write,
) -> io::Result<()> {
    if by.is_none() {
        for k in order {
            out.write_all(k)?;
            out.write_all(b"\n")?;
        }
    } else {
        // Like `sort | uniq -c | sort -rn`: most frequent first, ties by key.
        let mut rows: Vec<(&Vec<u8>, u64)> = order.iter().map(|k| (k, counts[k])).collect();
        rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        for (k, c) in rows {
            write!(out, "{c:>7} ")?;
            out.write_all(k)?;
            out.write_all(b"\n")?;
        }
    }
    Ok(())
}
