//! Stage 2: the delimiting rules of RFC 3986 Appendix C and RFC 2396 Appendix E,
//! applied at the candidates that [`crate::classify`] finds.
//!
//! ```
//! let text = b"Yes, Jim, I found it under \"http://www.w3.org/Addressing/\", but you
//! can probably pick it up from <ftp://foo.example.com/rfc/>.  Note the
//! warning in <http://www.ics.uci.edu/pub/ietf/uri/historical.html#WARNING>.";
//! let urls: Vec<_> = urlsift_core::find(text)
//!     .map(|m| String::from_utf8_lossy(&m.url).into_owned())
//!     .collect();
//! assert_eq!(urls, [
//!     "http://www.w3.org/Addressing/",
//!     "ftp://foo.example.com/rfc/",
//!     "http://www.ics.uci.edu/pub/ietf/uri/historical.html#WARNING",
//! ]);
//! ```
//!
//! # The rules
//!
//! - A URL starts at any RFC 3986 scheme followed by `://`, at a scheme of
//!   [`schemes::SCHEMES_WITHOUT_SLASHES`] followed by `:` and a URI character, or
//!   at `www.` that begins a word (RFC 2396bis Appendix F, reported as [`Kind::Www`]).
//! - Right after `<` (optionally `<URL:`, optionally with whitespace), the URL
//!   runs to the closing `>`, and whitespace inside is removed: long URLs are
//!   wrapped across lines there. A hyphen that ends a line is kept and the match
//!   is flagged [`Match::ambiguous`]. A blank line, a stop character or more than
//!   [`rules::MAX_WRAPPED`] bytes without `>` means the URL is not wrapped after
//!   all, and it is delimited as a bare URL.
//! - Right after `"`, the URL runs to the closing `"`. When the quoted text holds
//!   nothing but a URL broken at line breaks (mail clients do this inside HTML
//!   attributes), the pieces are joined the same way; a space without a line
//!   break inside the quotes means it is not a wrapped URL.
//! - A bare URL ends before whitespace, a control, `<`, `>`, `"`, one of
//!   `\ ^ ` { | }`, Unicode whitespace, CJK/full-width punctuation or a
//!   typographic quote; then trailing `. , : ; ! ? '` and `"` are trimmed, and a
//!   closing `)` or `]` is kept only when it balances an opening one in the URL.
//! - `URL:` before a URL (with or without a space) is a delimiter, not part of it.
//!
//! The look-behind at a candidate is bounded ([`rules::MAX_SCHEME`],
//! [`rules::MAX_CONTEXT`]), so a scan can start at any offset.

use std::borrow::Cow;

use crate::classify::{Classifier, Isa, IsaError};

pub(crate) mod rules;
pub(crate) mod schemes;
pub(crate) mod unicode;

/// How a URL was delimited in the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Style {
    /// No delimiter: the URL ends at whitespace or a stop character.
    Bare,
    /// Inside double quotes: `"http://example.com/"`.
    Quoted,
    /// Inside angle brackets: `<http://example.com/>`.
    Angle,
    /// With the `URL:` prefix, as in `<URL:http://example.com/>` or `URL: http://...`.
    UrlPrefix,
}

/// The name used in JSON output: `bare`, `quoted`, `angle` or `url-prefix`.
///
/// ```
/// use urlsift_core::Style;
/// assert_eq!(<&str>::from(Style::UrlPrefix), "url-prefix");
/// ```
impl From<Style> for &'static str {
    fn from(style: Style) -> &'static str {
        match style {
            Style::Bare => "bare",
            Style::Quoted => "quoted",
            Style::Angle => "angle",
            Style::UrlPrefix => "url-prefix",
        }
    }
}

/// What was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A URI with a scheme.
    Uri,
    /// An abbreviated `www.` URI (RFC 2396bis Appendix F), no scheme.
    Www,
}

/// The name used in JSON output: `uri` or `www`.
///
/// ```
/// use urlsift_core::Kind;
/// assert_eq!(<&str>::from(Kind::Www), "www");
/// ```
impl From<Kind> for &'static str {
    fn from(kind: Kind) -> &'static str {
        match kind {
            Kind::Uri => "uri",
            Kind::Www => "www",
        }
    }
}

/// One URL found in the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Match<'h> {
    /// Byte offset of the first byte of the URL in the input (delimiters excluded).
    pub start: usize,
    /// Byte offset one past the last byte of the URL in the input (delimiters excluded).
    pub end: usize,
    /// The URL text: borrowed from the input unless whitespace had to be removed.
    pub url: Cow<'h, [u8]>,
    /// How the URL was delimited.
    pub style: Style,
    /// Whether it has a scheme or is an abbreviated `www.` URI.
    pub kind: Kind,
    /// True when the result depends on a guess (a hyphen at a line break was kept).
    pub ambiguous: bool,
}

impl Match<'_> {
    /// The URL as text (lossy if the input was not UTF-8).
    pub fn url_str(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(&self.url)
    }
}

/// Candidates are gathered this many bytes at a time, then delimited.
const WINDOW: usize = 32 * 1024;

/// The extraction engine: the stage-1 classifier of one ISA (SIMD kernels
/// that mark candidate anchors and stop bytes) plus the delimiting rules.
///
/// ```
/// use urlsift_core::Extractor;
/// let text = b"docs at https://docs.rs/memchr/ (and www.rust-lang.org).";
/// let scalar = Extractor::choose(Some("scalar")).unwrap();
/// let mut urls = Vec::new();
/// scalar.scan(text, 0, text.len(), 0, |m| urls.push(m.url_str().into_owned()));
/// assert_eq!(urls, ["https://docs.rs/memchr/", "www.rust-lang.org"]);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Extractor {
    classifier: Classifier,
}

impl Default for Extractor {
    fn default() -> Self {
        Extractor::new()
    }
}

impl rules::Stops for Classifier {
    #[inline]
    fn find_stop(&self, hay: &[u8], from: usize) -> usize {
        Classifier::find_stop(self, hay, from)
    }

    #[inline]
    fn find_run(&self, hay: &[u8], from: usize) -> (usize, usize) {
        Classifier::find_run(self, hay, from)
    }
}

/// A match with the scanner state around it, for stitching chunks together.
#[derive(Debug)]
pub(crate) struct RawMatch<'h> {
    pub m: Match<'h>,
    /// The candidate anchor that produced it.
    pub anchor: usize,
    /// Candidates before this offset are inside the match or its delimiters.
    pub resume: usize,
}

impl Extractor {
    /// An extractor with the process-wide classifier: the best ISA for this
    /// CPU, unless `URLSIFT_ISA` forces one (as [`Extractor::choose`] reads
    /// it, decided once; a bad value there falls back to the best ISA).
    pub fn new() -> Self {
        Extractor {
            classifier: Classifier::auto(),
        }
    }

    /// An extractor forced to `isa`, or `None` if this CPU cannot run it.
    pub(crate) fn with_isa(isa: Isa) -> Option<Self> {
        Classifier::new(isa).map(|classifier| Extractor { classifier })
    }

    /// The extractor for a user's choice of ISA: `Some` of `--isa`'s value
    /// (`auto` or empty for the fastest ISA this CPU can run, else an [`Isa::name`], case and
    /// surrounding blanks ignored), or `None` for what the `URLSIFT_ISA`
    /// environment variable asks for (the best ISA when it is unset, empty
    /// or `auto`). Errors say why the value cannot be used. An [`Isa`]
    /// is chosen by its [`Isa::name`].
    ///
    /// ```
    /// use urlsift_core::{Extractor, Isa, IsaError};
    /// assert_eq!(Extractor::choose(Some("scalar")).unwrap().isa(), Isa::Scalar);
    /// assert!(Extractor::choose(Some(" Auto ")).unwrap().isa().is_available());
    /// assert_eq!(Extractor::choose(Some("mmx")).unwrap_err(), IsaError::Unknown("mmx".into()));
    /// for isa in Isa::ALL.into_iter().filter(|i| i.is_available()) {
    ///     assert_eq!(Extractor::choose(Some(isa.name())).unwrap().isa(), isa);
    /// }
    /// ```
    pub fn choose(isa: Option<&str>) -> Result<Self, IsaError> {
        let classifier = match isa {
            Some(name) => Classifier::from_name(name)?,
            None => Classifier::from_env()?,
        };
        Ok(Extractor { classifier })
    }

    /// Stage 1 alone: append every candidate anchor `i` with
    /// `start <= i < end` (a byte where a URL may be anchored: a scheme's
    /// `:`, a `www.`) to `out`, in ascending order. Every ISA gives the same
    /// anchors; [`Extractor::scan`] delimits the URLs around them.
    ///
    /// ```
    /// use urlsift_core::{Extractor, Isa};
    /// let text = b"see http://a.example/ and WWW.example.org, not x :y";
    /// let mut anchors = Vec::new();
    /// Extractor::new().candidates(text, 0, text.len(), &mut anchors);
    /// assert_eq!(anchors, [8, 26]);
    /// let mut scalar = Vec::new();
    /// let ex = Extractor::choose(Some(Isa::Scalar.name())).unwrap();
    /// ex.candidates(text, 0, text.len(), &mut scalar);
    /// assert_eq!(scalar, anchors);
    /// ```
    #[inline]
    pub fn candidates(&self, hay: &[u8], start: usize, end: usize, out: &mut Vec<usize>) {
        self.classifier.candidates(hay, start, end, out);
    }

    /// The stage-1 classifier.
    pub(crate) fn classifier(&self) -> Classifier {
        self.classifier
    }

    /// The classifier's ISA.
    pub fn isa(&self) -> Isa {
        self.classifier.isa()
    }

    /// Report, in input order, every URL anchored in `hay[start..end]`.
    ///
    /// `floor` is where the last URL before `start` ended (with its closing
    /// delimiter): pass `start` for a fresh scan. Look-behind and look-ahead
    /// read `hay` outside `start..end` as far as needed; the look-behind is at
    /// most [`rules::MAX_LOOK_BEHIND`] bytes. Returns the new floor: where the
    /// last URL found ended, or `floor` if none was found.
    pub fn scan<'h, F: FnMut(Match<'h>)>(
        &self,
        hay: &'h [u8],
        start: usize,
        end: usize,
        floor: usize,
        mut sink: F,
    ) -> usize {
        self.scan_raw(hay, start, end, floor, |_, _| true, |r| sink(r.m))
            .0
    }

    /// The scanning loop. `go(c, floor)` is asked before each candidate `c`
    /// that is not inside an earlier match; returning false stops the scan
    /// there. Returns the floor and the candidate where it stopped, if it did.
    pub(crate) fn scan_raw<'h>(
        &self,
        hay: &'h [u8],
        start: usize,
        end: usize,
        floor: usize,
        go: impl FnMut(usize, usize) -> bool,
        sink: impl FnMut(RawMatch<'h>),
    ) -> (usize, Option<usize>) {
        let mut cache = rules::RunCache::default();
        self.scan_cached(&mut cache, hay, (start, end, floor), go, sink)
    }

    /// Where the first URL starts that [`Extractor::scan`] of
    /// `hay[start..end]` from `floor` may find otherwise once more bytes
    /// follow `hay`; `None` when the scan's URLs, and the floor it ends at,
    /// are the same whatever follows. A URL is undecided when it is in
    /// `<...>` or `"..."` and `hay` ends before it closes; all are when `hay`
    /// ends inside a character (`Some(start)`). `end` must be a cut point
    /// ([`crate::parallel::is_cut`]) when it is before `hay`'s end: only a
    /// wrapped URL runs across one. This is how a stream that pauses is
    /// scanned up to the pause without waiting for more.
    pub(crate) fn undecided_from(
        &self,
        hay: &[u8],
        start: usize,
        end: usize,
        floor: usize,
    ) -> Option<usize> {
        if ends_inside_char(hay) {
            // What the character cut at the end is decides.
            return Some(start);
        }
        let mut cache = rules::RunCache::default();
        self.scan_cached(&mut cache, hay, (start, end, floor), |_, _| true, |_| {});
        cache.open_at_end
    }

    /// [`Extractor::scan_raw`] with `cache` as its memo.
    fn scan_cached<'h>(
        &self,
        cache: &mut rules::RunCache,
        hay: &'h [u8],
        (start, end, floor): (usize, usize, usize),
        mut go: impl FnMut(usize, usize) -> bool,
        mut sink: impl FnMut(RawMatch<'h>),
    ) -> (usize, Option<usize>) {
        let end = end.min(hay.len());
        let mut consumed = floor;
        let mut cands = Vec::with_capacity(1024);
        let mut w = start.max(consumed.min(end));
        while w < end {
            let w_end = end.min(w + WINDOW);
            cands.clear();
            self.classifier.candidates(hay, w, w_end, &mut cands);
            for &c in &cands {
                if c < consumed {
                    continue;
                }
                if !go(c, consumed) {
                    return (consumed, Some(c));
                }
                if let Some(f) = rules::match_at(&self.classifier, cache, hay, c, consumed) {
                    consumed = f.resume;
                    let url = match f.joined {
                        Some(v) => Cow::Owned(v),
                        None => Cow::Borrowed(&hay[f.start..f.end]),
                    };
                    sink(RawMatch {
                        m: Match {
                            start: f.start,
                            end: f.end,
                            url,
                            style: f.style,
                            kind: f.kind,
                            ambiguous: f.ambiguous,
                        },
                        anchor: c,
                        resume: f.resume,
                    });
                }
            }
            w = w_end.max(consumed);
        }
        (consumed, None)
    }
}

/// Whether `hay` ends inside a UTF-8 character: its last lead byte wants
/// more continuation bytes than follow it. (Bytes that are not UTF-8
/// whatever follows do not count: no later byte changes what they are.)
fn ends_inside_char(hay: &[u8]) -> bool {
    let tail = &hay[hay.len().saturating_sub(4)..];
    let Some(lead) = tail.iter().rposition(|&b| !(0x80..0xC0).contains(&b)) else {
        return false; // four continuation bytes: not UTF-8 whatever follows
    };
    let want = match tail[lead] {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => 1,
    };
    tail.len() - lead < want
}

/// Small enough for Miri (`scripts/miri.sh`): extraction on short inputs,
/// every ISA against scalar, and chunked against whole.
#[cfg(test)]
mod small_tests {
    use super::*;

    #[test]
    fn a_character_cut_at_the_end_is_told_from_a_whole_one() {
        for (t, cut) in [
            (&b""[..], false),
            (b"abc", false),
            ("café".as_bytes(), false),
            (b"caf\xc3", true),
            ("中".as_bytes(), false),
            (b"\xe4\xb8", true),
            (b"\xe4", true),
            (b"\xf0\x9f\x98", true),
            ("😀".as_bytes(), false),
            (b"\xff", false),
            (b"\x80\x80\x80\x80", false),
            (b"a\x80", false),
        ] {
            assert_eq!(ends_inside_char(t), cut, "{t:?}");
        }
    }

    #[test]
    fn small_inputs_agree_across_isas_and_restarts() {
        let texts: [&[u8]; 4] = [
            b"<URL:http://a.example/very-\n   long> and \"http://b.example/q?x=1\".",
            b"(see www.c.example/(x)) \xff\xfe news:comp.lang.rust, <mailto:d@e.example>",
            b"http://[2001:db8::1]:80/p \xe3\x80\x8chttps://f.example/\xe3\x80\x8d http://",
            b"<<<<((((http://g.example/)))) www. www.h.example. Note: 10:30",
        ];
        let scalar = Extractor::with_isa(Isa::Scalar).expect("scalar always runs");
        let isas: Vec<Extractor> = crate::classify::Isa::ALL
            .iter()
            .filter_map(|&i| Extractor::with_isa(i))
            .collect();
        for t in texts {
            let want: Vec<(usize, usize, Vec<u8>)> = {
                let mut v = Vec::new();
                scalar.scan(t, 0, t.len(), 0, |m| {
                    v.push((m.start, m.end, m.url.to_vec()))
                });
                v
            };
            assert!(!want.is_empty());
            for e in &isas {
                let mut got = Vec::new();
                e.scan(t, 0, t.len(), 0, |m| {
                    got.push((m.start, m.end, m.url.to_vec()))
                });
                assert_eq!(got, want, "{:?}", e.isa());
            }
            // Chunked (cut at stop bytes, stitched) gives the whole, on two
            // threads (a one-thread pool scans without chunks). Not under
            // Miri: rayon's crossbeam-epoch trips Stacked Borrows (a known
            // false alarm there), even in idle worker threads; this module
            // has no unsafe code of its own.
            if cfg!(miri) {
                continue;
            }
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(2)
                .build()
                .expect("a thread pool");
            for chunk in [1, 7, 16] {
                let mut got = Vec::new();
                pool.install(|| {
                    crate::parallel::scan_range(&scalar, t, 0, t.len(), 0, chunk, |m| {
                        got.push((m.start, m.end, m.url.to_vec()))
                    })
                });
                assert_eq!(got, want, "chunk size {chunk}");
            }
        }
    }
}

#[cfg(test)]
mod doc_tests {
    use super::*;

    #[test]
    fn undecided_from_finds_open_wrappers() {
        let ex = Extractor::new();
        let done = b"see http://a.example/\n";
        assert_eq!(ex.undecided_from(done, 0, done.len(), 0), None);
        // The closing `>` may come on the next line.
        let open = b"see http://a.example/ <http://b.example/\n";
        assert_eq!(ex.undecided_from(open, 0, open.len(), 0), Some(23));
    }
}
