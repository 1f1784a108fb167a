//! Output: one URL's [`Record`], and the one path it takes to the output.
//! Every format and mode is a [`Sink`] that turns records into a [`Batch`]
//! (text, JSON Lines, CSV/TSV, keyed records for `--unique` and shards,
//! keys for `--count-by`, counts), and a [`Printer`] writes the batches in
//! input order; a [`Plan`] picks the sink a run's [`Options`] ask for.
//!
//! ```text
//! records of a chunk -> Sink (format; key; shard)  -> Batch     (any thread, in parallel)
//! batches, in order  -> Printer (header; --unique; --count-by; shards) -> writers
//! ```
//!
//! A sink holds no state that crosses records, so a big input's chunks are
//! formatted on every core, each into its own batch, and the output is the
//! same as one sink's over the whole input. The printer does what needs the
//! records in order: the CSV header before each output's first row, the
//! first record of each key (`--unique`, bounded by a memory limit), the
//! counts (`--count-by`), the split into shards.
//!
//! A [`Formatter`] is the sink of plain output, one record at a time; the
//! fields its records hold are listed in [`fields`].
//!
//! ```
//! use urlsift_printer::{Format, Formatter, Options, Record};
//! let m = &urlsift_core::find(b"see <http://example.com/a> now").collect::<Vec<_>>()[0];
//! let rec = Record { file: "-", line: 1, m, mail: None, web: None };
//! let mut text = Vec::new();
//! Formatter::new(&Options::default()).format(&rec, &mut text).unwrap();
//! assert_eq!(text, b"http://example.com/a\n");
//!
//! let mut json = Vec::new();
//! let opts = Options { format: Format::Json, ..Options::default() };
//! Formatter::new(&opts).format(&rec, &mut json).unwrap();
//! let json = String::from_utf8(json).unwrap();
//! assert!(json.contains(r#""url":"http://example.com/a""#));
//! assert!(json.contains(r#""style":"angle""#));
//! assert!(json.contains(r#""host":"example.com""#));
//! ```
#![deny(missing_docs)]
#![warn(clippy::print_stderr, clippy::print_stdout)]

use std::borrow::Cow;
use std::io::{self, Write};

use crate::dedup::KeyLevel;
use urlsift_core::{Kind, Match};
use urlsift_uri::UriRef;

pub use urlsift_origin::{MailWhere, WebWhere};

#[cfg(feature = "arrow")]
pub mod arrow;
#[cfg(feature = "parquet")]
mod parquet;

pub mod dedup;
pub mod fields;
mod pipeline;
// The readers of rows serve the Parquet and Arrow writers only.
#[cfg_attr(not(any(feature = "arrow", feature = "parquet")), allow(dead_code))]
mod rows;

#[cfg(feature = "parquet")]
pub use parquet::ParquetWriter;
pub use pipeline::{Batch, BatchMark, Plan, PrintError, Printer, RecordWriter, ShardBy, Sink};

/// ANSI colours, as ripgrep uses them: file names magenta, line numbers and
/// byte offsets green.
pub(crate) mod color {
    /// File names.
    pub(crate) const PATH: &str = "\x1b[35m";
    /// Line numbers and byte offsets.
    pub(crate) const NUMBER: &str = "\x1b[32m";
    /// Back to the terminal's default.
    pub(crate) const RESET: &str = "\x1b[0m";
}

/// The output format of the extract command.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// One URL per line, with optional `file:line:offset:` prefixes.
    #[default]
    Text,
    /// JSON Lines: one object per URL (fields in the README's JSON table).
    Json,
    /// CSV with a header row (RFC 4180 quoting): the JSON fields but the
    /// mail ones; the web fields always (empty for a URL not from a web
    /// page).
    Csv,
    /// Tab-separated values with a header row: the columns of CSV.
    Tsv,
    /// The rows of `--format parquet`: every field of
    /// [`fields::FIELDS`], `normalized` null without `normalize`, in the
    /// compact binary form read only by `ParquetWriter` (feature `parquet`)
    /// and `arrow::BatchDecoder` (feature `arrow`).
    Rows,
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
    /// Count each distinct registrable domain (eTLD+1 by the Public Suffix
    /// List); URLs whose host has none (IP addresses, public suffixes,
    /// invalid hosts) are not counted.
    Domain,
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
    /// After a file name, a NUL byte instead of `:` (`-0`, grep's `-Z`).
    pub null: bool,
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
    /// Leave out the CSV/TSV header row (a [`Printer`] writes each output's
    /// header itself, and leaves it out of its sinks' records).
    pub no_header: bool,
    /// Add a `key` field to JSON and CSV/TSV records: the URL's key at
    /// this level (null where it has none at that level). The command line
    /// gives `--dedup-key`'s level here.
    pub key_field: Option<KeyLevel>,
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
    pub mail: Option<&'a MailWhere>,
    /// In a web archive: the record and the place in the page the link
    /// came from.
    pub web: Option<&'a WebWhere>,
}

/// Formats one record at a time into a byte buffer, in any of the
/// [`Format`]s: the one place that knows what a text line, a JSON object or
/// a CSV row holds.
///
/// ```
/// use urlsift_printer::{Format, Formatter, Options, Record};
/// let m = &urlsift_core::find(b"at http://a.example/x, and").collect::<Vec<_>>()[0];
/// let mut f = Formatter::new(&Options { format: Format::Csv, ..Options::default() });
/// let mut out = Vec::new();
/// f.format(&Record { file: "f", line: 1, m, mail: None, web: None }, &mut out).unwrap();
/// let csv = String::from_utf8(out).unwrap();
/// assert!(csv.starts_with("file,start,end,line,url,"));
/// assert!(csv.contains("\nf,3,21,1,http://a.example/x,"));
/// ```
pub struct Formatter {
    opts: Options,
    header: bool,
    /// Scratch for `--normalize` in text output ([`dedup::key_into`]).
    keybuf: Vec<u8>,
    /// Scratch for the `//www...` form of an abbreviated URI, split as a
    /// network-path reference.
    partbuf: Vec<u8>,
    /// The registrable domains of the hosts seen last.
    domains: DomainCache,
    /// The last file name, as a JSON string.
    file_json: QuotedName,
}

/// A file name, its JSON string and whether CSV and TSV take it as it is,
/// kept from one record to the next (records come file by file): the
/// name is checked for escapes and quotes once.
#[derive(Default)]
struct QuotedName {
    name: String,
    json: Vec<u8>,
    /// Nothing in the name CSV quotes.
    csv: bool,
    /// Nothing in the name TSV replaces.
    tsv: bool,
}

impl QuotedName {
    /// The name `name`: its JSON string and flags.
    #[inline]
    fn get(&mut self, name: &str) -> &QuotedName {
        if self.json.is_empty() || self.name != name {
            self.name.clear();
            self.name.push_str(name);
            self.json.clear();
            json_str(&mut self.json, name);
            self.csv = !csv_special(name.as_bytes(), false);
            self.tsv = !csv_special(name.as_bytes(), true);
        }
        self
    }
}

impl Formatter {
    /// A formatter for `opts` (its format, prefixes and normalization).
    pub fn new(opts: &Options) -> Self {
        Formatter {
            opts: opts.clone(),
            header: opts.no_header,
            keybuf: Vec::new(),
            partbuf: Vec::new(),
            domains: DomainCache::default(),
            file_json: QuotedName::default(),
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
        self.format_with(rec, None, out)
    }

    /// [`Formatter::format`], given the URL's de-duplication key at `level`
    /// when the caller has it: text output with `--normalize` prints that key
    /// instead of normalizing the URL again, when it is the form printed.
    pub(crate) fn format_with(
        &mut self,
        rec: &Record<'_, '_>,
        key: Option<(&[u8], KeyLevel)>,
        out: &mut Vec<u8>,
    ) -> io::Result<()> {
        let level = self.normal_level();
        let o = &self.opts;
        match o.format {
            Format::Text => self.format_text(rec, key, level, out),
            Format::Json => {
                let normalized = o.normalize.then(|| normal_at(rec.m, level));
                let keyed = o.key_field.map(|l| normal_at(rec.m, l));
                let www = rec.m.kind == Kind::Www;
                let text = split_text(rec.m, &mut self.partbuf);
                let extra = Extra {
                    normalized: normalized.as_ref(),
                    key: keyed.as_ref(),
                };
                let file = &self.file_json.get(rec.file).json;
                let fields = Fields::new(text, www, &mut self.domains);
                write_json(rec, file, &fields, extra, out)?;
            }
            Format::Csv | Format::Tsv => {
                let tsv = o.format == Format::Tsv;
                let normalize = o.normalize;
                let key_field = o.key_field;
                let has_key = key_field.is_some();
                if !self.header {
                    self.header = true;
                    csv_header(CsvRow::new(out, tsv), normalize, has_key);
                }
                let normalized = normalize.then(|| normal_at(rec.m, level));
                let keyed = key_field.map(|l| normal_at(rec.m, l));
                let www = rec.m.kind == Kind::Www;
                let text = split_text(rec.m, &mut self.partbuf);
                let fields = Fields::new(text, www, &mut self.domains);
                let extra = Extra {
                    normalized: normalized.as_ref(),
                    key: keyed.as_ref(),
                };
                let name = self.file_json.get(rec.file);
                let plain_name = if tsv { name.tsv } else { name.csv };
                write_csv(CsvRow::new(out, tsv), rec, &fields, extra, plain_name);
            }
            Format::Rows => {
                let normalized = o.normalize.then(|| normal_at(rec.m, level)).flatten();
                let key = o.key_field.and_then(|l| normal_at(rec.m, l));
                let www = rec.m.kind == Kind::Www;
                let text = split_text(rec.m, &mut self.partbuf);
                let extra = [normalized.as_deref(), key.as_deref()];
                write_row(rec, &Fields::new(text, www, &mut self.domains), extra, out)?;
            }
        }
        Ok(())
    }

    /// A text line: the prefixes (file, line, byte offset; coloured with
    /// `color`) and the URL, or its key with `--normalize`.
    #[inline(always)]
    fn format_text(
        &mut self,
        rec: &Record<'_, '_>,
        key: Option<(&[u8], KeyLevel)>,
        level: KeyLevel,
        out: &mut Vec<u8>,
    ) {
        let o = &self.opts;
        // Colour escapes around a prefix: none without `color`.
        let paint = |out: &mut Vec<u8>, esc: &str, body: &[u8]| {
            if o.color {
                out.extend_from_slice(esc.as_bytes());
                out.extend_from_slice(body);
                out.extend_from_slice(color::RESET.as_bytes());
            } else {
                out.extend_from_slice(body);
            }
        };
        out.reserve(rec.m.url.len() + 48);
        if o.with_filename {
            paint(out, color::PATH, rec.file.as_bytes());
            out.push(if o.null { 0 } else { b':' });
        }
        let mut n = itoa::Buffer::new();
        if o.line_number {
            paint(out, color::NUMBER, n.format(rec.line).as_bytes());
            out.push(b':');
        }
        if o.byte_offset {
            paint(out, color::NUMBER, n.format(rec.m.start).as_bytes());
            out.push(b':');
        }
        if o.normalize {
            let www = rec.m.kind == Kind::Www;
            let key = match key {
                Some((k, l)) if l == level => k,
                _ => dedup::key_into(&rec.m.url, www, level, &mut self.keybuf),
            };
            out.extend_from_slice(key);
        } else {
            out.extend_from_slice(&rec.m.url);
        }
        out.push(b'\n');
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

    /// The normal form at `level`: for [`KeyLevel::Scheme`], RFC 3986 6.2.2
    /// and 6.2.3. A `www.` URI is taken as `http://` (RFC 2396bis Appendix
    /// F's usual heuristic). `None` when the URL is not valid enough to
    /// normalize; [`KeyLevel::Raw`] gives the URL as found.
    ///
    /// ```
    /// use urlsift_printer::dedup::KeyLevel;
    /// let m = &urlsift_core::find(b"see HTTP://A.example:80/%7e").collect::<Vec<_>>()[0];
    /// let parts = urlsift_printer::Parts::new(m);
    /// let n = parts.normalized_at(KeyLevel::Scheme);
    /// assert_eq!(n.as_deref(), Some("http://a.example/~"));
    /// ```
    pub fn normalized_at(&self, level: KeyLevel) -> Option<String> {
        let url = if self.www {
            &self.text[2..]
        } else {
            &self.text[..]
        };
        normalized(url, self.www, level)
    }
}

/// [`Parts::normalized_at`] of the URL `url` (an abbreviated one if `www`).
fn normalized(url: &[u8], www: bool, level: KeyLevel) -> Option<String> {
    if matches!(level, KeyLevel::Whatwg | KeyLevel::Surt) {
        let mut out = Vec::new();
        return dedup::web_key_into(url, www, level, &mut out)
            .then(|| String::from_utf8_lossy(&out).into_owned());
    }
    match level.normalize_options() {
        None => Some(String::from_utf8_lossy(url).into_owned()),
        Some(opts) => dedup::normal_form(url, www, &opts).ok(),
    }
}

/// The `normalized` field of `m` at `level` (`None`: not valid enough).
fn normal_at(m: &Match<'_>, level: KeyLevel) -> Option<String> {
    normalized(&m.url, m.kind == Kind::Www, level)
}

/// The text the URI engine splits for `m`: its URL, or for an abbreviated
/// `www.` URI, `//` and the URL (in `buf`), a network-path reference.
fn split_text<'a>(m: &'a Match<'_>, buf: &'a mut Vec<u8>) -> &'a [u8] {
    if m.kind != Kind::Www {
        return &m.url;
    }
    buf.clear();
    buf.extend_from_slice(b"//");
    buf.extend_from_slice(&m.url);
    buf
}

/// The fields of a JSON Lines object or CSV row that come from the URL:
/// its split, checked once. Each component is a piece of the URL's text,
/// split at ASCII delimiters: a piece of UTF-8 text is UTF-8, and a piece
/// of text with nothing to escape or quote has nothing either, so the
/// writers copy the pieces as plain bytes when the whole allows it; the
/// other records convert each piece lossily (U+FFFD for each invalid
/// sequence).
struct Fields<'p> {
    /// The text split: the URL, or `//` and an abbreviated one.
    text: &'p [u8],
    /// The URL (`text` without the `//` of an abbreviated one).
    url: &'p [u8],
    /// The split (Appendix B's, for an invalid URL).
    u: UriRef<'p>,
    valid: bool,
    /// The text is UTF-8.
    utf8: bool,
    /// What the text holds, from one pass ([`Bytes::of`]).
    bytes: Bytes,
    host_kind: Option<&'static str>,
    host_ascii: Option<Cow<'p, str>>,
    domain: Option<Cow<'p, str>>,
}

/// What one pass over a URL finds: bytes that are not ASCII, and the
/// bytes JSON escapes or CSV/TSV quote or replace. A field needs no
/// escaping or quoting when its URL's `clean` flag is set; otherwise the
/// writers look again, byte by byte (a control byte other than tab, CR
/// and LF is no CSV special, but clears `csv` and `tsv`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Bytes {
    /// A byte from 0x80 up.
    non_ascii: bool,
    /// Nothing JSON escapes: no `"`, `\\` or control below 0x20.
    json: bool,
    /// Nothing CSV quotes: no `,`, `"` or control below 0x20.
    csv: bool,
    /// Nothing TSV replaces: no control below 0x20.
    tsv: bool,
}

impl Bytes {
    /// The flags of `b`, eight bytes at a time (SWAR: a word has a byte
    /// below `n <= 0x80` iff `(w - n * 0x01..) & !w & 0x80..` is not zero,
    /// and a byte `c` iff the word xor `c * 0x01..` has a zero byte).
    #[inline]
    fn of(b: &[u8]) -> Bytes {
        const ONES: u64 = 0x0101_0101_0101_0101;
        const HIGH: u64 = 0x8080_8080_8080_8080;
        let below = |w: u64, n: u64| w.wrapping_sub(n * ONES) & !w & HIGH;
        let is = |w: u64, c: u8| below(w ^ (u64::from(c) * ONES), 1);
        let (mut high, mut ctl, mut quote, mut backslash, mut comma) = (0, 0, 0, 0, 0);
        let mut word = |w: u64| {
            high |= w & HIGH;
            ctl |= below(w, 0x20);
            quote |= is(w, b'"');
            backslash |= is(w, b'\\');
            comma |= is(w, b',');
        };
        let mut words = b.chunks_exact(8);
        for c in &mut words {
            let mut a = [0u8; 8];
            a.copy_from_slice(c);
            word(u64::from_le_bytes(a));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            // Padded with a byte that is none of them.
            let mut a = [b'a'; 8];
            a[..rest.len()].copy_from_slice(rest);
            word(u64::from_le_bytes(a));
        }
        Bytes {
            non_ascii: high != 0,
            json: ctl | quote | backslash == 0,
            csv: ctl | quote | comma == 0,
            tsv: ctl == 0,
        }
    }
}

/// The fields only some runs write: `normalized` (with `--normalize`) and
/// `key` (when asked), each `Some(None)` for a JSON `null`.
#[derive(Clone, Copy, Default)]
struct Extra<'a> {
    normalized: Option<&'a Option<String>>,
    key: Option<&'a Option<String>>,
}

/// The `host_ascii` and `domain` fields of a host: its UTS #46 ASCII form
/// (an IP literal in lower case) and, for a registered name, its
/// registrable domain.
///
/// ```
/// use urlsift_uri::HostKind;
/// let (ascii, domain) = urlsift_printer::host_keys(Some(b"www.EXAMPLE.co.uk"), Some(HostKind::RegName));
/// assert_eq!(ascii.as_deref(), Some("www.example.co.uk"));
/// assert_eq!(domain.as_deref(), Some("example.co.uk"));
/// ```
pub fn host_keys(
    host: Option<&[u8]>,
    kind: Option<urlsift_uri::HostKind>,
) -> (Option<String>, Option<String>) {
    let (ascii, domain) = host_keys_cow(host, kind, &mut DomainCache::default());
    (ascii.map(Cow::into_owned), domain.map(Cow::into_owned))
}

/// True when `h` is its own UTS #46 ASCII form: lower-case letters,
/// digits, `-`, `.` and `_` only, and no `xn--` label (the names
/// [`urlsift_keys::host_ascii`] returns unchanged; tested against it).
fn own_ascii_form(h: &[u8]) -> bool {
    // One pass: each byte by a table, its classes or-ed and and-ed
    // together; `xn--` looked for only in a host with a `-`.
    let (all, any) = h.iter().fold((OWN, 0), |(all, any), &b| {
        let c = OWN_ASCII[b as usize];
        (all & c, any | c)
    });
    if all & OWN == 0 {
        return false;
    }
    if any & DASH == 0 {
        return true;
    }
    let mut label = true;
    for (i, &b) in h.iter().enumerate() {
        if label && b == b'x' && h.get(i..i + 4) == Some(b"xn--") {
            return false;
        }
        label = b == b'.';
    }
    true
}

/// `h` as text when it is its own ASCII form ([`own_ascii_form`]), without
/// a second look at its bytes.
#[inline]
fn own_ascii_str(h: &[u8]) -> Option<&str> {
    if !own_ascii_form(h) {
        return None;
    }
    debug_assert!(h.is_ascii());
    // SAFETY: `own_ascii_form` accepts ASCII bytes only (`OWN_ASCII`),
    // and ASCII is UTF-8.
    Some(unsafe { std::str::from_utf8_unchecked(h) })
}

/// [`OWN_ASCII`]: a byte of a host that is its own ASCII form.
const OWN: u8 = 1;
/// [`OWN_ASCII`]: `-`.
const DASH: u8 = 2;

/// The bytes of a host that is its own ASCII form ([`own_ascii_form`]):
/// lower-case letters, digits, `-`, `.` and `_` ([`OWN`]; `-` is also
/// [`DASH`]).
static OWN_ASCII: [u8; 256] = {
    let mut t = [0; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        if c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'-' | b'.' | b'_') {
            t[b] = OWN;
        }
        if c == b'-' {
            t[b] |= DASH;
        }
        b += 1;
    }
    t
};

/// [`host_keys`], borrowed from `host` where the host is its own ASCII
/// form (the usual case: no allocation).
fn host_keys_cow<'h>(
    host: Option<&'h [u8]>,
    kind: Option<urlsift_uri::HostKind>,
    domains: &mut DomainCache,
) -> (Option<Cow<'h, str>>, Option<Cow<'h, str>>) {
    let Some(h) = host.filter(|h| !h.is_empty()) else {
        return (None, None);
    };
    let regname = kind == Some(urlsift_uri::HostKind::RegName);
    if h.first() != Some(&b'[')
        && let Some(a) = own_ascii_str(h)
    {
        let domain = if regname {
            domains.get(a).map(Cow::Borrowed)
        } else {
            None
        };
        return (Some(Cow::Borrowed(a)), domain);
    }
    let ascii = urlsift_keys::host_ascii(h);
    let domain = match (regname, &ascii) {
        (true, Some(a)) => {
            urlsift_keys::host::registrable_domain(a).map(|d| Cow::Owned(d.to_owned()))
        }
        _ => None,
    };
    (ascii.map(Cow::Owned), domain)
}

/// The registrable domains of the hosts seen last (direct-mapped, by a
/// hash of the host): a host seen again is one look-up, not a walk of the
/// Public Suffix List. Hosts repeat in most text; a host seen for the first
/// time costs a hash and a copy more. Each slot holds its host in place,
/// zero-padded: a look-up compares two arrays of fixed size and a miss
/// copies one, with no allocation.
#[derive(Default)]
struct DomainCache {
    slots: Vec<DomainSlot>,
}

/// A host (up to [`DomainCache::LONGEST`] bytes, zero-padded), its length
/// and its registrable domain's place in it (start, length; `NONE`: no
/// domain).
#[derive(Clone, Copy)]
struct DomainSlot {
    host: [u8; DomainCache::LONGEST],
    len: u8,
    at: u8,
    domain: u8,
}

impl Default for DomainSlot {
    fn default() -> Self {
        DomainSlot {
            host: [0; DomainCache::LONGEST],
            // No host is this long: an empty slot matches nothing.
            len: u8::MAX,
            at: 0,
            domain: DomainSlot::NONE,
        }
    }
}

impl DomainSlot {
    /// `domain`: the host has no registrable domain.
    const NONE: u8 = u8::MAX;
}

impl DomainCache {
    /// The number of slots (a power of two).
    const SLOTS: usize = 1024;
    /// Longer hosts are not kept.
    const LONGEST: usize = 64;

    /// [`urlsift_keys::host::registrable_domain`] of `a`, a host of no
    /// byte 0 (its own ASCII form).
    fn get<'a>(&mut self, a: &'a str) -> Option<&'a str> {
        let b = a.as_bytes();
        if b.is_empty() || b.len() > Self::LONGEST {
            return urlsift_keys::host::registrable_domain(a);
        }
        if self.slots.is_empty() {
            self.slots.resize_with(Self::SLOTS, Default::default);
        }
        let mut key = [0u8; Self::LONGEST];
        key[..b.len()].copy_from_slice(b);
        let slot = &mut self.slots[Self::hash(&key, b.len()) & (Self::SLOTS - 1)];
        if usize::from(slot.len) == b.len() && slot.host == key {
            if slot.domain == DomainSlot::NONE {
                return None;
            }
            let at = usize::from(slot.at);
            return a.get(at..at + usize::from(slot.domain));
        }
        let d = urlsift_keys::host::registrable_domain(a);
        // The domain is a suffix of `a`: its place, as offsets.
        let at = d.map(|d| (d.as_ptr() as usize).wrapping_sub(b.as_ptr() as usize));
        let place = match (at, d) {
            (None, _) => Some((0, DomainSlot::NONE)),
            (Some(at), Some(d)) if at + d.len() <= b.len() => Some((at as u8, d.len() as u8)),
            // Not a piece of `a` after all: not kept.
            _ => None,
        };
        if let Some((at, domain)) = place {
            *slot = DomainSlot {
                host: key,
                len: b.len() as u8,
                at,
                domain,
            };
        }
        d
    }

    /// A hash of a zero-padded host `key`, `len` bytes long: its 8-byte
    /// words folded into one and multiplied (the top bits are the
    /// best-mixed).
    #[inline]
    fn hash(key: &[u8; Self::LONGEST], len: usize) -> usize {
        let mut h = len as u64;
        for (i, w) in key.chunks_exact(8).enumerate() {
            let mut a = [0u8; 8];
            a.copy_from_slice(w);
            h ^= u64::from_le_bytes(a).rotate_left(i as u32 * 7);
        }
        (h.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as usize
    }
}

impl<'p> Fields<'p> {
    /// The fields of a URL split as `text`: the URL, or if `www`, `//` and
    /// an abbreviated URL (see [`split_text`]).
    fn new(text: &'p [u8], www: bool, domains: &mut DomainCache) -> Self {
        // The strict parser splits a valid reference as Appendix B does
        // (tested in the URI crate): one pass validates and splits it; only
        // an invalid one is split again.
        let (u, valid) = match UriRef::parse(text) {
            Ok(u) => (u, true),
            Err(_) => (UriRef::split(text), false),
        };
        let bytes = Bytes::of(text);
        let utf8 = !bytes.non_ascii || std::str::from_utf8(text).is_ok();
        let kind = u.host_kind();
        let (host_ascii, domain) = host_keys_cow(u.host(), kind, domains);
        Fields {
            text,
            url: text.get(if www { 2 } else { 0 }..).unwrap_or_default(),
            u,
            valid,
            utf8,
            bytes,
            host_kind: kind.map(|k| k.as_str()),
            host_ascii,
            domain,
        }
    }

    /// The most bytes a record of these fields takes, the file name
    /// `file` bytes long: the pieces of the URL (at most twice its text:
    /// the URL and its components, which do not overlap), `host_ascii`,
    /// `domain`, the file name, and 512 bytes for the keys, delimiters,
    /// quotes, `null`s, numbers and names.
    fn bound(&self, file: usize) -> usize {
        let len = |v: &Option<Cow<'_, str>>| v.as_ref().map_or(0, |v| v.len());
        512 + file + 2 * self.text.len() + len(&self.host_ascii) + len(&self.domain)
    }

    /// True when the pieces of the URL are copied as they are: UTF-8,
    /// `host_ascii` and `domain` pieces of it too.
    fn plain(&self) -> bool {
        self.utf8 && borrowed(&self.host_ascii) && borrowed(&self.domain)
    }

    /// A piece of the text, as text.
    fn text_of(b: &'p [u8]) -> Cow<'p, str> {
        String::from_utf8_lossy(b)
    }

    fn url(&self) -> Cow<'p, str> {
        Self::text_of(self.url)
    }
    fn scheme(&self) -> Option<Cow<'p, str>> {
        self.u.scheme().map(Self::text_of)
    }
    fn userinfo(&self) -> Option<Cow<'p, str>> {
        self.u.userinfo().map(Self::text_of)
    }
    fn host(&self) -> Option<Cow<'p, str>> {
        self.u.host().map(Self::text_of)
    }
    fn port(&self) -> Option<Cow<'p, str>> {
        self.u.port().map(Self::text_of)
    }
    fn path(&self) -> Cow<'p, str> {
        Self::text_of(self.u.path())
    }
    fn query(&self) -> Option<Cow<'p, str>> {
        self.u.query().map(Self::text_of)
    }
    fn fragment(&self) -> Option<Cow<'p, str>> {
        self.u.fragment().map(Self::text_of)
    }
}

/// Append `s` as a JSON string. URLs seldom hold a byte JSON escapes
/// (`"`, `\\`, controls), so those go through serde_json and the rest is
/// copied as it is (serde_json leaves non-ASCII text as it is too).
fn json_str(out: &mut Vec<u8>, s: &str) {
    if !json_special(s.as_bytes()) {
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    } else {
        // Writing into a Vec cannot fail, and a str always serializes.
        let _ = serde_json::to_writer(&mut *out, s);
    }
}

/// True if `b` holds a byte JSON escapes: `"`, `\\` or a control below
/// 0x20. Eight bytes at a time (SWAR: a word has a zero byte iff
/// `(w - 0x01..) & !w & 0x80..` is not zero, and a byte below `n <= 0x80`
/// iff `(w - n * 0x01..) & !w & 0x80..` is not zero).
fn json_special(b: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero = |w: u64| w.wrapping_sub(ONES) & !w & HIGH;
    let mut acc = 0;
    let mut words = b.chunks_exact(8);
    for c in &mut words {
        let mut a = [0u8; 8];
        a.copy_from_slice(c);
        let w = u64::from_le_bytes(a);
        acc |= (w.wrapping_sub(0x20 * ONES) & !w & HIGH)
            | zero(w ^ (u64::from(b'"') * ONES))
            | zero(w ^ (u64::from(b'\\') * ONES));
    }
    acc != 0
        || words
            .remainder()
            .iter()
            .any(|&c| c < 0x20 || c == b'"' || c == b'\\')
}

/// Append `key` (`,"name":`) and `value` (a string or `null`) to a JSON
/// object.
fn json_opt(out: &mut Vec<u8>, key: &[u8], value: Option<&str>) {
    out.extend_from_slice(key);
    match value {
        Some(v) => json_str(out, v),
        None => out.extend_from_slice(b"null"),
    }
}

/// True if `v` is borrowed (from the URL's text), or absent.
fn borrowed(v: &Option<Cow<'_, str>>) -> bool {
    !matches!(v, Some(Cow::Owned(_)))
}

/// [`json_opt`] for a piece of a URL; `clean` when the URL holds nothing
/// JSON escapes (so the piece holds nothing either). Always inlined: the
/// key is then a constant, copied without a call.
#[inline(always)]
fn json_part(out: &mut Vec<u8>, key: &[u8], value: Option<&str>, clean: bool) {
    match value {
        Some(v) if clean => {
            out.extend_from_slice(key);
            out.push(b'"');
            out.extend_from_slice(v.as_bytes());
            out.push(b'"');
        }
        _ => json_opt(out, key, value),
    }
}

/// Append `key` (`,"name":`) and the number or boolean `value` to a JSON
/// object.
fn json_raw(out: &mut Vec<u8>, key: &[u8], value: &[u8]) {
    out.extend_from_slice(key);
    out.extend_from_slice(value);
}

/// Append the JSON Lines object of `rec` (fields in the README's JSON
/// table; `normalized` only with `--normalize`, the mail fields only
/// with `--mail`), and a newline. Written field by field rather than
/// through a serde struct: about twice as fast (docs/performance.md),
/// with no allocation per field for a UTF-8 URL.
fn write_json(
    rec: &Record<'_, '_>,
    file: &[u8],
    f: &Fields<'_>,
    extra: Extra<'_>,
    out: &mut Vec<u8>,
) -> io::Result<()> {
    // The URL's components are pieces of its text: when it holds nothing
    // to escape, neither do they, and they are copied as they are.
    let clean = f.bytes.json;
    if clean && f.plain() && extra.normalized.is_none() && extra.key.is_none() {
        write_json_clean(rec, file, f, out);
        return write_json_end(rec, out);
    }
    let mut n = itoa::Buffer::new();
    let tf = |b: bool| if b { &b"true"[..] } else { b"false" };
    out.reserve(256 + 2 * f.url.len());
    out.extend_from_slice(b"{\"file\":");
    out.extend_from_slice(file);
    json_raw(out, b",\"start\":", n.format(rec.m.start).as_bytes());
    json_raw(out, b",\"end\":", n.format(rec.m.end).as_bytes());
    json_raw(out, b",\"line\":", n.format(rec.line).as_bytes());
    json_part(out, b",\"url\":", Some(&f.url()), clean);
    if let Some(v) = extra.normalized {
        json_opt(out, b",\"normalized\":", v.as_deref());
    }
    if let Some(v) = extra.key {
        json_opt(out, b",\"key\":", v.as_deref());
    }
    json_raw(out, b",\"style\":\"", <&str>::from(rec.m.style).as_bytes());
    out.push(b'"');
    json_raw(out, b",\"kind\":\"", <&str>::from(rec.m.kind).as_bytes());
    out.push(b'"');
    json_raw(out, b",\"valid\":", tf(f.valid));
    json_raw(out, b",\"ambiguous\":", tf(rec.m.ambiguous));
    json_part(out, b",\"scheme\":", f.scheme().as_deref(), clean);
    json_part(out, b",\"userinfo\":", f.userinfo().as_deref(), clean);
    json_part(out, b",\"host\":", f.host().as_deref(), clean);
    match f.host_kind {
        // Our own names: nothing to escape.
        Some(k) => {
            json_raw(out, b",\"host_kind\":\"", k.as_bytes());
            out.push(b'"');
        }
        None => json_raw(out, b",\"host_kind\":", b"null"),
    }
    json_part(out, b",\"port\":", f.port().as_deref(), clean);
    json_part(out, b",\"path\":", Some(&f.path()), clean);
    json_part(out, b",\"query\":", f.query().as_deref(), clean);
    json_part(out, b",\"fragment\":", f.fragment().as_deref(), clean);
    // Borrowed, these are pieces of the URL too.
    let (ha, dom) = (&f.host_ascii, &f.domain);
    json_part(
        out,
        b",\"host_ascii\":",
        ha.as_deref(),
        clean && borrowed(ha),
    );
    json_part(out, b",\"domain\":", dom.as_deref(), clean && borrowed(dom));
    write_json_end(rec, out)
}

/// The end of a JSON Lines object: the mail or web fields, `}` and a
/// newline.
fn write_json_end(rec: &Record<'_, '_>, out: &mut Vec<u8>) -> io::Result<()> {
    match rec.mail {
        Some(w) => {
            // The mail fields, flattened into this object: serde's `{...}`
            // with its `{` turned into a `,`.
            let at = out.len();
            serde_json::to_writer(&mut *out, w)?;
            match out.get_mut(at) {
                Some(b) if *b == b'{' => *b = b',',
                _ => return Err(io::Error::other("mail fields: not a JSON object")),
            }
        }
        None => match rec.web {
            Some(w) => write_web_json(w, out),
            None => out.push(b'}'),
        },
    }
    out.push(b'\n');
    Ok(())
}

/// Bytes reserved at the end of a buffer, written in order: each copy is
/// one bounds check, not a capacity check and a length update.
struct Cursor<'a> {
    buf: &'a mut [u8],
    at: usize,
}

/// A JSON key before a string and before `null`: `,"name":"` and
/// `,"name":null`.
macro_rules! json_key {
    ($name:literal) => {
        (
            concat!(",\"", $name, "\":\"").as_bytes(),
            concat!(",\"", $name, "\":null").as_bytes(),
        )
    };
}

impl Cursor<'_> {
    /// Space for `bound` bytes at the end of `out`.
    #[inline(always)]
    fn new(out: &mut Vec<u8>, bound: usize) -> Cursor<'_> {
        let start = out.len();
        out.resize(start + bound, 0);
        Cursor {
            buf: &mut out[start..],
            at: 0,
        }
    }

    /// The number of bytes written, to keep of the space reserved.
    fn written(&self) -> usize {
        self.at
    }

    #[inline(always)]
    fn byte(&mut self, b: u8) {
        self.buf[self.at] = b;
        self.at += 1;
    }

    #[inline(always)]
    fn put(&mut self, b: &[u8]) {
        self.buf[self.at..self.at + b.len()].copy_from_slice(b);
        self.at += b.len();
    }

    /// A key ([`json_key!`]), then `"value"` or `null`.
    #[inline(always)]
    fn part(&mut self, (open, null): (&[u8], &[u8]), value: Option<&[u8]>) {
        match value {
            Some(v) => {
                self.put(open);
                self.put(v);
                self.put(b"\"");
            }
            None => self.put(null),
        }
    }
}

/// Keep the first `written` of the bytes reserved from `start` on.
fn keep(out: &mut Vec<u8>, start: usize, written: usize) {
    out.truncate(start + written);
}

/// [`write_json`]'s fields up to `domain`, for a UTF-8 URL with nothing
/// to escape whose `host_ascii` and `domain` are pieces of it, without
/// `normalized` and `key`: the same bytes, the pieces copied as they are,
/// written into space reserved once for the whole record.
fn write_json_clean(rec: &Record<'_, '_>, file: &[u8], f: &Fields<'_>, out: &mut Vec<u8>) {
    let start = out.len();
    let mut w = Cursor::new(out, f.bound(file.len()));
    let mut n = itoa::Buffer::new();
    let u = &f.u;
    fn text<'a>(v: &'a Option<Cow<'_, str>>) -> Option<&'a [u8]> {
        v.as_deref().map(str::as_bytes)
    }
    w.put(b"{\"file\":");
    w.put(file);
    w.put(b",\"start\":");
    w.put(n.format(rec.m.start).as_bytes());
    w.put(b",\"end\":");
    w.put(n.format(rec.m.end).as_bytes());
    w.put(b",\"line\":");
    w.put(n.format(rec.line).as_bytes());
    w.put(b",\"url\":\"");
    w.put(f.url);
    w.put(b"\",\"style\":\"");
    w.put(<&str>::from(rec.m.style).as_bytes());
    w.put(b"\",\"kind\":\"");
    w.put(<&str>::from(rec.m.kind).as_bytes());
    w.put(if f.valid {
        b"\",\"valid\":true"
    } else {
        b"\",\"valid\":false"
    });
    w.put(if rec.m.ambiguous {
        b",\"ambiguous\":true"
    } else {
        b",\"ambiguous\":false"
    });
    w.part(json_key!("scheme"), u.scheme());
    w.part(json_key!("userinfo"), u.userinfo());
    w.part(json_key!("host"), u.host());
    w.part(json_key!("host_kind"), f.host_kind.map(str::as_bytes));
    w.part(json_key!("port"), u.port());
    w.put(b",\"path\":\"");
    w.put(u.path());
    match (u.query(), u.fragment()) {
        (None, None) => w.put(b"\",\"query\":null,\"fragment\":null"),
        (q, frag) => {
            w.put(b"\"");
            w.part(json_key!("query"), q);
            w.part(json_key!("fragment"), frag);
        }
    }
    w.part(json_key!("host_ascii"), text(&f.host_ascii));
    w.part(json_key!("domain"), text(&f.domain));
    let written = w.written();
    keep(out, start, written);
}

/// Append the fields of `w` and the object's closing `}`: by hand, as the
/// record's own fields (the same text `serde_json` writes for
/// [`WebWhere`], tested), one link at a time on the web archive path.
fn write_web_json(w: &WebWhere, out: &mut Vec<u8>) {
    json_opt(out, b",\"found\":", w.found.as_deref());
    json_opt(out, b",\"source\":", Some(w.source));
    json_opt(out, b",\"source_name\":", w.source_name.as_deref());
    json_opt(out, b",\"warc_target_uri\":", w.warc_target_uri.as_deref());
    json_opt(out, b",\"warc_record_id\":", w.warc_record_id.as_deref());
    json_opt(out, b",\"warc_date\":", w.warc_date.as_deref());
    json_opt(out, b",\"warc_type\":", w.warc_type.as_deref());
    match w.warc_offset {
        Some(o) => json_raw(
            out,
            b",\"warc_offset\":",
            itoa::Buffer::new().format(o).as_bytes(),
        ),
        None => json_raw(out, b",\"warc_offset\":", b"null"),
    }
    let mut n = itoa::Buffer::new();
    for (key, v) in [
        (&b",\"warc_length\":"[..], w.warc_length),
        (b",\"http_status\":", w.http_status.map(u64::from)),
    ] {
        match v {
            Some(v) => json_raw(out, key, n.format(v).as_bytes()),
            None => json_raw(out, key, b"null"),
        }
    }
    json_opt(out, b",\"rel\":", w.rel.as_deref());
    out.push(b'}');
}

/// One CSV/TSV row being written into `out`. CSV quotes as RFC 4180 asks
/// where it is needed: a field with a `,`, `"`, CR or LF is put in quotes,
/// its quotes doubled (what csv-core's `QuoteStyle::Necessary` writes,
/// tested). TSV has no quoting: tabs and line breaks inside a field become
/// spaces.
struct CsvRow<'w> {
    out: &'w mut Vec<u8>,
    tsv: bool,
    first: bool,
}

/// True if CSV must quote a field holding `b` (`,`, `"`, CR or LF), or TSV
/// must replace a byte of it (tab, CR or LF).
fn csv_special(b: &[u8], tsv: bool) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero = |w: u64| w.wrapping_sub(ONES) & !w & HIGH;
    let (x, y) = if tsv { (b'\t', b'\t') } else { (b',', b'"') };
    let has = |w: u64| {
        zero(w ^ (u64::from(x) * ONES))
            | zero(w ^ (u64::from(y) * ONES))
            | zero(w ^ (u64::from(b'\n') * ONES))
            | zero(w ^ (u64::from(b'\r') * ONES))
    };
    let mut acc = 0;
    let mut words = b.chunks_exact(8);
    for c in &mut words {
        let mut a = [0u8; 8];
        a.copy_from_slice(c);
        acc |= has(u64::from_le_bytes(a));
    }
    acc != 0
        || words
            .remainder()
            .iter()
            .any(|&c| c == x || c == y || c == b'\n' || c == b'\r')
}

/// Write the header row (with a `normalized` column if `normalize`, a
/// `key` column if `key`).
fn csv_header(mut row: CsvRow<'_>, normalize: bool, key: bool) {
    for h in header_fields(normalize, key) {
        row.field(h);
    }
    row.end();
}

impl<'w> CsvRow<'w> {
    /// A new row into `out`.
    fn new(out: &'w mut Vec<u8>, tsv: bool) -> Self {
        CsvRow {
            out,
            tsv,
            first: true,
        }
    }

    /// The delimiter before a field but the first.
    #[inline]
    fn delimiter(&mut self) {
        if !self.first {
            self.out.push(if self.tsv { b'\t' } else { b',' });
        }
        self.first = false;
    }

    /// Append one field.
    fn field(&mut self, s: &str) {
        self.field_checked(s, csv_special(s.as_bytes(), self.tsv));
    }

    /// Append one field known to hold nothing to quote or replace when not
    /// `special`.
    #[inline]
    fn field_checked(&mut self, s: &str, special: bool) {
        self.delimiter();
        let b = s.as_bytes();
        if !special || !csv_special(b, self.tsv) {
            self.out.extend_from_slice(b);
        } else if self.tsv {
            self.out.extend(b.iter().map(|&c| {
                if matches!(c, b'\t' | b'\n' | b'\r') {
                    b' '
                } else {
                    c
                }
            }));
        } else {
            self.out.reserve(b.len() + 2);
            self.out.push(b'"');
            for &c in b {
                if c == b'"' {
                    self.out.push(b'"');
                }
                self.out.push(c);
            }
            self.out.push(b'"');
        }
    }

    /// Append `n` empty fields.
    fn empty(&mut self, n: usize) {
        if n == 0 {
            return;
        }
        let d = if self.tsv { b'\t' } else { b',' };
        let extra = usize::from(!self.first);
        self.first = false;
        let at = self.out.len();
        self.out.resize(at + n - 1 + extra, d);
    }

    /// End the row.
    fn end(self) {
        self.out.push(b'\n');
    }
}

/// The number of web columns: the CSV/TSV columns a record not from a web
/// page leaves empty.
fn web_columns() -> usize {
    static N: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *N.get_or_init(|| fields::fields(&[fields::Group::Web]).count())
}

/// Write the CSV/TSV row of `rec`: the JSON fields in the same order, the
/// mail fields left out, the web fields always there (empty for a record
/// that is not a web link: one fixed set of columns, whatever the input),
/// `null` as an empty field.
///
/// `plain_name`: the file name holds nothing to quote or replace.
fn write_csv(
    mut row: CsvRow<'_>,
    rec: &Record<'_, '_>,
    f: &Fields<'_>,
    extra: Extra<'_>,
    plain_name: bool,
) {
    let mut n = itoa::Buffer::new();
    let tf = |b: bool| if b { "true" } else { "false" };
    // The URL's components are pieces of its text: one check for them all.
    let clean = if row.tsv { f.bytes.tsv } else { f.bytes.csv };
    let special = !clean && csv_special(f.text, row.tsv);
    if !special
        && f.plain()
        && extra.normalized.is_none()
        && extra.key.is_none()
        && rec.web.is_none()
        && row.first
        && plain_name
    {
        return write_csv_clean(row.out, row.tsv, rec, f);
    }
    let part = |row: &mut CsvRow<'_>, v: Option<&str>| row.field_checked(v.unwrap_or(""), special);
    row.field(rec.file);
    row.field_checked(n.format(rec.m.start), false);
    row.field_checked(n.format(rec.m.end), false);
    row.field_checked(n.format(rec.line), false);
    part(&mut row, Some(&f.url()));
    if let Some(v) = extra.normalized {
        row.field(v.as_deref().unwrap_or(""));
    }
    if let Some(v) = extra.key {
        row.field(v.as_deref().unwrap_or(""));
    }
    row.field_checked(<&str>::from(rec.m.style), false);
    row.field_checked(<&str>::from(rec.m.kind), false);
    row.field_checked(tf(f.valid), false);
    row.field_checked(tf(rec.m.ambiguous), false);
    part(&mut row, f.scheme().as_deref());
    part(&mut row, f.userinfo().as_deref());
    part(&mut row, f.host().as_deref());
    row.field_checked(f.host_kind.unwrap_or(""), false);
    part(&mut row, f.port().as_deref());
    part(&mut row, Some(&f.path()));
    part(&mut row, f.query().as_deref());
    part(&mut row, f.fragment().as_deref());
    // Borrowed, these are pieces of the URL too.
    let (ha, dom) = (&f.host_ascii, &f.domain);
    row.field_checked(ha.as_deref().unwrap_or(""), special || !borrowed(ha));
    row.field_checked(dom.as_deref().unwrap_or(""), special || !borrowed(dom));
    match rec.web {
        Some(w) => {
            row.field(w.found.as_deref().unwrap_or(""));
            row.field(w.source);
            row.field(w.source_name.as_deref().unwrap_or(""));
            row.field(w.warc_target_uri.as_deref().unwrap_or(""));
            row.field(w.warc_record_id.as_deref().unwrap_or(""));
            row.field(w.warc_date.as_deref().unwrap_or(""));
            row.field(w.warc_type.as_deref().unwrap_or(""));
            match w.warc_offset {
                Some(off) => row.field_checked(n.format(off), false),
                None => row.field_checked("", false),
            }
            match w.warc_length {
                Some(len) => row.field_checked(n.format(len), false),
                None => row.field_checked("", false),
            }
            match w.http_status {
                Some(s) => row.field_checked(n.format(s), false),
                None => row.field_checked("", false),
            }
            row.field(w.rel.as_deref().unwrap_or(""));
        }
        None => row.empty(web_columns()),
    }
    row.end();
}

/// [`write_csv`] for a UTF-8 row with nothing to quote, not from a web
/// page, whose `host_ascii` and `domain` are pieces of the URL, without
/// `normalized` and `key`: the same bytes, the pieces copied as they are,
/// written into space reserved once for the whole row.
fn write_csv_clean(out: &mut Vec<u8>, tsv: bool, rec: &Record<'_, '_>, f: &Fields<'_>) {
    let start = out.len();
    let mut w = Cursor::new(out, f.bound(rec.file.len()));
    let d = if tsv { b'\t' } else { b',' };
    let mut n = itoa::Buffer::new();
    let u = &f.u;
    // A field after its delimiter: the names and flags copied as
    // constants, an empty piece not copied at all.
    let flag = |w: &mut Cursor<'_>, b: bool| {
        w.byte(d);
        if b { w.put(b"true") } else { w.put(b"false") }
    };
    let piece = |w: &mut Cursor<'_>, v: Option<&[u8]>| {
        w.byte(d);
        if let Some(v) = v.filter(|v| !v.is_empty()) {
            w.put(v);
        }
    };
    w.put(rec.file.as_bytes());
    for v in [rec.m.start as u64, rec.m.end as u64, rec.line] {
        w.byte(d);
        w.put(n.format(v).as_bytes());
    }
    piece(&mut w, Some(f.url));
    piece(&mut w, Some(<&str>::from(rec.m.style).as_bytes()));
    piece(&mut w, Some(<&str>::from(rec.m.kind).as_bytes()));
    flag(&mut w, f.valid);
    flag(&mut w, rec.m.ambiguous);
    piece(&mut w, u.scheme());
    piece(&mut w, u.userinfo());
    piece(&mut w, u.host());
    piece(&mut w, f.host_kind.map(str::as_bytes));
    piece(&mut w, u.port());
    piece(&mut w, Some(u.path()));
    piece(&mut w, u.query());
    piece(&mut w, u.fragment());
    piece(&mut w, f.host_ascii.as_deref().map(str::as_bytes));
    piece(&mut w, f.domain.as_deref().map(str::as_bytes));
    // The empty web columns: their delimiters in one constant copy (the
    // bytes past them overwritten or cut off), and the end of the row.
    let runs: [&[u8; 16]; 2] = [b",,,,,,,,,,,,,,,,", b"\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t"];
    let mut web = web_columns();
    while web > 0 {
        let k = web.min(16);
        w.put(runs[usize::from(tsv)]);
        w.at -= 16 - k;
        web -= k;
    }
    w.put(b"\n");
    let written = w.written();
    keep(out, start, written);
}

/// Append the row of `rec` ([`Format::Rows`]): every field of
/// [`fields::FIELDS`], in order, one line per field (a field added there is
/// a line here). The mail fields are null for a record not from mail, the
/// web fields for one not from a web page, as in JSON.
fn write_row(
    rec: &Record<'_, '_>,
    f: &Fields<'_>,
    [normalized, key]: [Option<&str>; 2],
    out: &mut Vec<u8>,
) -> io::Result<()> {
    let mut r = rows::RowWriter::new(out);
    r.text(Some(rec.file));
    r.int(Some(rec.m.start as u64));
    r.int(Some(rec.m.end as u64));
    r.int(Some(rec.line));
    r.text(Some(&f.url()));
    r.text(normalized);
    r.text(key);
    r.text(Some(<&str>::from(rec.m.style)));
    r.text(Some(<&str>::from(rec.m.kind)));
    r.bool(Some(f.valid));
    r.bool(Some(rec.m.ambiguous));
    r.text(f.scheme().as_deref());
    r.text(f.userinfo().as_deref());
    r.text(f.host().as_deref());
    r.text(f.host_kind);
    r.text(f.port().as_deref());
    r.text(Some(&f.path()));
    r.text(f.query().as_deref());
    r.text(f.fragment().as_deref());
    r.text(f.host_ascii.as_deref());
    r.text(f.domain.as_deref());
    let mail = rec.mail;
    r.int(mail.map(|m| m.message));
    r.text(mail.and_then(|m| m.message_id.as_deref()));
    r.int(mail.map(|m| m.message_offset));
    r.int(mail.map(|m| u64::from(m.part)));
    r.text(mail.map(|m| m.content_type.as_str()));
    r.int(mail.map(|m| m.part_offset));
    r.int(mail.map(|m| m.part_start));
    r.int(mail.map(|m| m.part_line));
    // JSON has the web fields only for a record not from mail.
    let web = rec.web.filter(|_| mail.is_none());
    r.text(web.and_then(|w| w.found.as_deref()));
    r.text(web.map(|w| w.source));
    r.text(web.and_then(|w| w.source_name.as_deref()));
    r.text(web.and_then(|w| w.warc_target_uri.as_deref()));
    r.text(web.and_then(|w| w.warc_record_id.as_deref()));
    r.text(web.and_then(|w| w.warc_date.as_deref()));
    r.text(web.and_then(|w| w.warc_type.as_deref()));
    r.int(web.and_then(|w| w.warc_offset));
    r.int(web.and_then(|w| w.warc_length));
    r.int(web.and_then(|w| w.http_status.map(u64::from)));
    r.text(web.and_then(|w| w.rel.as_deref()));
    r.end()
}

/// The CSV/TSV columns: the record's fields (with `normalized` if
/// `normalize`, `key` if `key`), then the web fields, always.
fn header_fields(normalize: bool, key: bool) -> Vec<&'static str> {
    use fields::Group;
    let mut groups = vec![Group::Record, Group::Web];
    if normalize {
        groups.push(Group::Normalized);
    }
    if key {
        groups.push(Group::Key);
    }
    fields::names(&groups).collect()
}

/// Write the CSV/TSV header row that `opts` asks for (nothing for other formats).
pub(crate) fn write_header(opts: &Options, out: &mut dyn Write) -> io::Result<()> {
    let tsv = match opts.format {
        Format::Csv => false,
        Format::Tsv => true,
        _ => return Ok(()),
    };
    let mut buf = Vec::new();
    csv_header(
        CsvRow::new(&mut buf, tsv),
        opts.normalize,
        opts.key_field.is_some(),
    );
    out.write_all(&buf)
}

/// The key `--count-by` counts `m` under: the URL at the de-duplication
/// `level` (see [`dedup::key`]), its lower-cased host, or its lower-cased
/// scheme (`www` URLs count as `http`). `None` when the URL has nothing to
/// count (no host for `--count-by host`).
///
/// ```
/// use urlsift_printer::dedup::KeyLevel;
/// use urlsift_printer::{CountBy, count_key};
/// let m = &urlsift_core::find(b"see HTTP://Example.COM:80/a").collect::<Vec<_>>()[0];
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
        Some(CountBy::Domain) => Cow::Owned(domain_key(m)?),
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
pub(crate) fn host_key(m: &Match<'_>) -> Option<Vec<u8>> {
    host_key_into(m, &mut Vec::new(), &mut Vec::new()).map(<[u8]>::to_vec)
}

/// [`host_key`] into `out`, with `buf` as scratch (no allocation once they
/// have grown).
pub(crate) fn host_key_into<'o>(
    m: &'o Match<'_>,
    buf: &'o mut Vec<u8>,
    out: &'o mut Vec<u8>,
) -> Option<&'o [u8]> {
    let h = UriRef::host_of(split_text(m, buf)).filter(|h| !h.is_empty())?;
    if !has_upper(h) {
        // Already lower case: the host itself, not a copy.
        return Some(h);
    }
    out.clear();
    out.extend(h.iter().map(u8::to_ascii_lowercase));
    Some(out)
}

/// True if `b` holds an ASCII upper-case letter. Eight bytes at a time:
/// for a byte below 0x80, `b + 0x3F` has its top bit set iff `b >= 0x41`
/// and `b + 0x25` iff `b >= 0x5B` (no carry crosses a byte below 0x80;
/// bytes at or above 0x80 are masked out).
fn has_upper(b: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut acc = 0;
    let mut words = b.chunks_exact(8);
    for c in &mut words {
        let mut a = [0u8; 8];
        a.copy_from_slice(c);
        let w = u64::from_le_bytes(a);
        let low = w & !HIGH;
        acc |= (low + 0x3F * ONES) & !(low + 0x25 * ONES) & !w & HIGH;
    }
    acc != 0 || words.remainder().iter().any(u8::is_ascii_uppercase)
}

/// The registrable domain of `m`'s host (eTLD+1 by the Public Suffix List,
/// in ASCII form), `None` when it has none (no host, an IP address, a
/// public suffix, an invalid host).
pub(crate) fn domain_key(m: &Match<'_>) -> Option<Vec<u8>> {
    let parts = Parts::new(m);
    let u = parts.uri();
    if u.host_kind() != Some(urlsift_uri::HostKind::RegName) {
        return None;
    }
    let ascii = urlsift_keys::host_ascii(u.host()?)?;
    Some(
        urlsift_keys::host::registrable_domain(&ascii)?
            .as_bytes()
            .to_vec(),
    )
}

/// Write one `--count-by` row: the count right-aligned in 7 columns, a
/// space, the key (like `uniq -c`).
pub(crate) fn write_count_row(out: &mut dyn Write, count: u64, key: &[u8]) -> io::Result<()> {
    let mut n = itoa::Buffer::new();
    let digits = n.format(count).as_bytes();
    // `{count:>7} `, one write.
    let mut line = [b' '; 32];
    let pad = 7usize.saturating_sub(digits.len());
    line[pad..pad + digits.len()].copy_from_slice(digits);
    let head = pad + digits.len() + 1;
    if key.len() + head < line.len() {
        line[head..head + key.len()].copy_from_slice(key);
        line[head + key.len()] = b'\n';
        return out.write_all(&line[..head + key.len() + 1]);
    }
    out.write_all(&line[..head])?;
    out.write_all(key)?;
    out.write_all(b"\n")
}

impl CountBy {
    /// What is counted, as a JSON field name: `url`, `host`, `scheme` or `domain`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            CountBy::Url => "url",
            CountBy::Host => "host",
            CountBy::Scheme => "scheme",
            CountBy::Domain => "domain",
        }
    }
}

/// Write one `--count-by` row in `format`: text as [`write_count_row`];
/// JSON Lines as an object with the key under the name of what is counted
/// and its `count`.
pub(crate) fn write_count_row_as(
    out: &mut dyn Write,
    format: Format,
    by: CountBy,
    count: u64,
    key: &[u8],
) -> io::Result<()> {
    if format != Format::Json {
        return write_count_row(out, count, key);
    }
    out.write_all(&json_count_line(
        by.name(),
        &String::from_utf8_lossy(key),
        count,
    ))
}

/// A JSON Lines row `{"NAME":"VALUE","count":N}` for the count tables.
fn json_count_line(name: &str, value: &str, count: u64) -> Vec<u8> {
    let mut line = Vec::with_capacity(name.len() + value.len() + 32);
    line.push(b'{');
    json_str(&mut line, name);
    line.push(b':');
    json_str(&mut line, value);
    line.extend_from_slice(b",\"count\":");
    line.extend_from_slice(itoa::Buffer::new().format(count).as_bytes());
    line.extend_from_slice(b"}\n");
    line
}

#[cfg(test)]
mod tests;

/// The examples of items private to the crate.
#[cfg(test)]
mod examples {
    #[test]
    fn domain_key() {
        let m =
            &urlsift_core::find("see http://NEWS.例子.测试/a".as_bytes()).collect::<Vec<_>>()[0];
        assert_eq!(crate::domain_key(m).unwrap(), b"xn--fsqu00a.xn--0zwm56d");
    }
    #[test]
    fn write_count_row() {
        let mut out = Vec::new();
        crate::write_count_row(&mut out, 42, b"a.example").unwrap();
        crate::write_count_row(&mut out, 123_456_789, b"b.example").unwrap();
        assert_eq!(out, b"     42 a.example\n123456789 b.example\n");
    }
    #[test]
    fn write_count_row_as() {
        use crate::{CountBy, Format, write_count_row_as};
        let mut out = Vec::new();
        write_count_row_as(&mut out, Format::Json, CountBy::Host, 2, b"a.example").unwrap();
        assert_eq!(out, b"{\"host\":\"a.example\",\"count\":2}\n");
    }
}
