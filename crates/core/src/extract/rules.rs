//! The delimiting rules, applied at one candidate anchor.
//!
//! Everything here is scalar, branchy and bounded: the look-behind is at most
//! [`MAX_SCHEME`] + [`MAX_CONTEXT`] bytes, and a wrapped (`<...>` or `"..."`)
//! URL may span at most [`MAX_WRAPPED`] bytes of input. A bare URL runs to its
//! first stop byte, so the work per candidate is proportional to the URL's
//! length, and candidates inside a URL already found are never re-examined.

use super::schemes;
use super::unicode;
use super::{Kind, Style};
use crate::classify::naive;

/// The longest scheme looked for, in bytes (the registered ones are shorter).
pub(crate) const MAX_SCHEME: usize = 32;
/// The most whitespace allowed between an opening `<` (or `URL:`) and the URL.
pub(crate) const MAX_CONTEXT: usize = 16;
/// The furthest the rules look back from a candidate anchor, in bytes: the
/// scheme, then `URL:` and an opening delimiter with whitespace around them.
/// A scan that starts at any offset needs only this much context before it.
pub const MAX_LOOK_BEHIND: usize = 128;
/// The most input bytes one URL wrapped across lines inside `<...>` or `"..."`
/// may span. Longer, and the text is scanned as bare URLs instead; this keeps
/// the look-back that a chunked scan needs bounded.
pub(crate) const MAX_WRAPPED: usize = 4096;

/// A URL found at a candidate, before it is turned into a [`super::Match`].
pub(crate) struct Found {
    pub start: usize,
    pub end: usize,
    /// The pieces of a URL joined across whitespace; `None` when it is `start..end`.
    pub joined: Option<Vec<u8>>,
    pub style: Style,
    pub kind: Kind,
    pub ambiguous: bool,
    /// Candidates before this offset lie inside this URL or its delimiters.
    pub resume: usize,
}

/// What the scanner needs from stage 1: the next stop byte at or after
/// `from`, and with it the first closing bracket before it
/// ([`crate::classify::Classifier::find_run`]).
pub(crate) trait Stops {
    fn find_stop(&self, hay: &[u8], from: usize) -> usize;
    fn find_run(&self, hay: &[u8], from: usize) -> (usize, usize);
}

#[inline]
fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c')
}

/// [`naive::is_stop`] as a table.
static STOP: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = naive::is_stop(b as u8);
        b += 1;
    }
    t
};

/// [`naive::is_scheme_char`] as a table: [`SCHEME`] for a scheme
/// character, and [`SCHEME_DOT`] too for `.`; 0 otherwise.
static SCHEME_CHAR: [u8; 256] = {
    let mut t = [0; 256];
    let mut b = 0;
    while b < 256 {
        if naive::is_scheme_char(b as u8) {
            t[b] = SCHEME;
        }
        b += 1;
    }
    t[b'.' as usize] |= SCHEME_DOT;
    t
};
const SCHEME: u8 = 1;
const SCHEME_DOT: u8 = 2;

/// The whitespace character at `hay[j]`, ASCII or Unicode (U+00A0 indents
/// are common in converted text): its length, and whether it breaks a line.
#[inline]
fn ws_at(hay: &[u8], j: usize) -> Option<(usize, bool)> {
    let b = *hay.get(j)?;
    if is_ws(b) {
        return Some((1, b == b'\n'));
    }
    if b < 0x80 {
        return None;
    }
    let (c, len) = unicode::decode(hay, j)?;
    unicode::is_space(c).then_some((len, matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}')))
}

/// A memo of the last run found by [`run_end`] and of the first closing
/// bracket in it. Inside a run (no stop byte, no URL-ending character) every
/// ASCII position has the same run end, so many candidates in one long run
/// (`(http://a)(http://b)...` with no space) cost one scan, not one each.
/// A pure cache: it never changes a result.
#[derive(Default)]
pub(crate) struct RunCache {
    from: usize,
    end: usize,
    /// The first `)` or `]` at or after `closer_from` in the run (`end` if none).
    closer_from: usize,
    closer: usize,
    /// Where the first URL inside `<...>` or `"..."` that the end of the
    /// input left undecided starts: it was read as bare, and more input
    /// could close it.
    pub(crate) open_at_end: Option<usize>,
}

impl RunCache {
    fn run_end<S: Stops>(&mut self, stops: &S, hay: &[u8], s: usize) -> usize {
        if !(self.from <= s && s < self.end) {
            // One vector search finds the first stop byte and any closing
            // bracket before it.
            let (k, closer) = stops.find_run(hay, s);
            self.from = s;
            if k >= hay.len() || hay[k] < 0x80 {
                self.end = k;
                self.closer_from = s;
                self.closer = closer;
            } else {
                // A non-ASCII character: the run may go on (an IRI).
                self.end = run_end(stops, hay, k);
                if closer < k {
                    self.closer_from = s;
                    self.closer = closer;
                } else {
                    self.closer_from = self.end;
                    self.closer = self.end;
                }
            }
        }
        self.end
    }

    /// The first closing bracket in `hay[s..run]`, where `run` is `s`'s run end.
    fn first_closer(&mut self, hay: &[u8], s: usize) -> usize {
        if !(self.closer_from <= s && s <= self.closer) {
            let run = &hay[s..self.end];
            let at = if run.len() < 64 {
                run.iter().position(|&b| b == b')' || b == b']')
            } else {
                memchr::memchr2(b')', b']', run)
            };
            self.closer_from = s;
            self.closer = at.map_or(self.end, |i| s + i);
        }
        self.closer
    }
}

/// The end of the run of URL bytes starting at `from`: the first stop byte that
/// is ASCII, or the first non-ASCII character that ends a URL (or is not UTF-8).
#[inline]
fn run_end<S: Stops>(stops: &S, hay: &[u8], from: usize) -> usize {
    let mut i = from;
    loop {
        // (An IRI's runs between non-ASCII characters are often empty.)
        if i < hay.len() && !STOP[hay[i] as usize] {
            i = stops.find_stop(hay, i + 1);
        }
        match hay.get(i) {
            Some(&b) if b >= 0x80 => match unicode::decode(hay, i) {
                Some((c, len)) if !unicode::ends_url(c) => i += len,
                _ => return i,
            },
            _ => return i,
        }
    }
}

/// Where a bare URL whose run of URL bytes is `hay[start..run]` ends: at the
/// first `)` or `]` that closes nothing opened inside the URL (so
/// `[http://a/x](http://a/y)` and `(see http://a/x)` end there), then before
/// trailing `. , : ; ! ?` and quotes (RFC 3986 Appendix C: the sentence's
/// punctuation is not part of the URL). Returns `(end, cut)`: the URL's end,
/// and where scanning resumes.
#[inline]
fn bare_end(hay: &[u8], start: usize, run: usize, first_closer: usize) -> (usize, usize) {
    let mut cut = run;
    // Most URLs have no closing bracket at all: nothing to balance. Before
    // the first one, a bracket can only be an opening one: start there.
    let (from, scan_to) = if first_closer < run {
        let before = &hay[start..first_closer];
        let opener = if before.len() < 16 {
            before.iter().position(|&b| b == b'(' || b == b'[')
        } else {
            memchr::memchr2(b'(', b'[', before)
        };
        (start + opener.unwrap_or(before.len()), run)
    } else {
        (start, start)
    };
    let (mut paren, mut bracket) = (0usize, 0usize);
    for (i, &b) in hay[from..scan_to].iter().enumerate() {
        let i = from - start + i;
        match b {
            b'(' => paren += 1,
            b'[' => bracket += 1,
            b')' if paren == 0 => {
                cut = start + i;
                break;
            }
            b']' if bracket == 0 => {
                cut = start + i;
                break;
            }
            b')' => paren -= 1,
            b']' => bracket -= 1,
            _ => {}
        }
    }
    let mut end = cut;
    while end > start
        && matches!(
            hay[end - 1],
            b'.' | b',' | b':' | b';' | b'!' | b'?' | b'\'' | b'"'
        )
    {
        end -= 1;
    }
    (end, cut)
}

/// The opening delimiter and `URL:` prefix before a URL starting at `s`.
struct Context {
    style: Style,
    /// `Some(b'<')` or `Some(b'"')` when the URL opens right after that delimiter.
    open: Option<u8>,
}

fn skip_ws_back(hay: &[u8], mut q: usize, floor: usize) -> usize {
    let lo = q.saturating_sub(MAX_CONTEXT).max(floor);
    while q > lo && is_ws(hay[q - 1]) {
        q -= 1;
    }
    q
}

/// `URL:` (any case) ends at `cand`, as a word of its own.
#[inline]
fn url_prefix_at(hay: &[u8], cand: usize, floor: usize) -> bool {
    cand >= floor + 4
        && hay[cand - 1] == b':'
        && hay[cand - 4..cand - 1].eq_ignore_ascii_case(b"URL")
        && (cand == floor + 4 || !hay[cand - 5].is_ascii_alphanumeric())
}

#[inline(always)]
fn context(hay: &[u8], s: usize, floor: usize) -> Context {
    // Only whitespace, `:` (of `URL:`), `<` or `"` right before the URL can
    // make it anything but bare: most URLs stop here.
    if s == floor {
        return Context {
            style: Style::Bare,
            open: None,
        };
    }
    match hay[s - 1] {
        // Right after its delimiter: no `URL:` and no whitespace between.
        b'<' => Context {
            style: Style::Angle,
            open: Some(b'<'),
        },
        b'"' => Context {
            style: Style::Quoted,
            open: Some(b'"'),
        },
        // One whitespace byte after a byte that is none of whitespace,
        // `:` (of `URL:`) and `<`: bare.
        b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c'
            if s >= floor + 2 && !is_ws(hay[s - 2]) && !matches!(hay[s - 2], b':' | b'<') =>
        {
            Context {
                style: Style::Bare,
                open: None,
            }
        }
        b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c' | b':' => context_slow(hay, s, floor),
        _ => Context {
            style: Style::Bare,
            open: None,
        },
    }
}

/// [`context`] after whitespace or `:`: `URL:` and an opening delimiter
/// before them, whitespace around them.
fn context_slow(hay: &[u8], s: usize, floor: usize) -> Context {
    let back = skip_ws_back(hay, s, floor);
    let (prefix, q) = if url_prefix_at(hay, s, floor) {
        (true, s - 4)
    } else if back < s && url_prefix_at(hay, back, floor) {
        (true, back - 4)
    } else {
        (false, s)
    };
    let open = if q > floor && (hay[q - 1] == b'<' || hay[q - 1] == b'"') {
        Some(hay[q - 1])
    } else {
        let q2 = if prefix {
            skip_ws_back(hay, q, floor)
        } else {
            back
        };
        (q2 > floor && q2 < q && hay[q2 - 1] == b'<').then_some(b'<')
    };
    let style = match (prefix, open) {
        (true, _) => Style::UrlPrefix,
        (false, Some(b'<')) => Style::Angle,
        (false, Some(_)) => Style::Quoted,
        (false, None) => Style::Bare,
    };
    Context { style, open }
}

/// A URL found inside `<...>` or `"..."`.
struct Wrapped {
    /// One past its last byte in the input.
    end: usize,
    /// The text with whitespace removed, when it spanned several pieces.
    joined: Option<Vec<u8>>,
    /// The offset of the closing delimiter.
    close_at: usize,
    /// A hyphen ended a line inside it.
    ambiguous: bool,
}

/// The pieces of a URL wrapped across lines inside `<...>` (`close == b'>'`)
/// or `"..."` (`close == b'"'`), and the offset of the closing delimiter.
/// `None` when the text does not close properly within [`MAX_WRAPPED`] bytes:
/// the caller then treats the URL as bare. `at_end` is set to `s` (unless
/// it holds an earlier start) when it is `None` only because the input
/// ended first (more input could close it).
fn wrapped<S: Stops>(
    stops: &S,
    hay: &[u8],
    s: usize,
    close: u8,
    at_end: &mut Option<usize>,
) -> Option<Wrapped> {
    let limit = hay.len().min(s + MAX_WRAPPED);
    let short = limit < s + MAX_WRAPPED;
    let mut joined: Option<Vec<u8>> = None;
    let mut last_end = s;
    let mut ambiguous = false;
    let mut i = s;
    loop {
        // Bounded: a wrapped URL never looks past `limit`.
        let e = run_end(stops, &hay[..limit], i);
        if e > i {
            if i > s {
                // A second piece: only now is the text copied.
                joined
                    .get_or_insert_with(|| hay[s..last_end].to_vec())
                    .extend_from_slice(&hay[i..e]);
            }
            last_end = e;
        }
        if e >= limit {
            if short {
                *at_end = Some(at_end.map_or(s, |a| a.min(s)));
            }
            return None;
        }
        let done = |close_at| {
            Some(Wrapped {
                end: last_end,
                joined: None,
                close_at,
                ambiguous,
            })
        };
        if hay[e] == close {
            return done(e).map(|w| Wrapped { joined, ..w });
        }
        let mut j = e;
        let mut newlines = 0;
        while j < limit
            && let Some((len, newline)) = ws_at(hay, j)
        {
            newlines += usize::from(newline);
            j += len;
        }
        if newlines >= 2 || j == e {
            return None;
        }
        if j >= limit {
            if short {
                *at_end = Some(at_end.map_or(s, |a| a.min(s)));
            }
            return None;
        }
        if hay[j] == close {
            return done(j).map(|w| Wrapped { joined, ..w });
        }
        // In quotes only a line break may split the URL; inside <...> any whitespace may.
        if close == b'"' && newlines == 0 {
            return None;
        }
        if e > i && hay[e - 1] == b'-' && newlines > 0 {
            ambiguous = true;
        }
        i = j;
    }
}

/// Find the scheme that ends at the colon `c`: its first byte, or `None`;
/// and whether the scheme may hold a `.` (false means it has none).
#[inline(always)]
fn scheme_start(hay: &[u8], c: usize, floor: usize) -> Option<(usize, bool)> {
    // The usual schemes, `http` and `https` in lower case, after a byte
    // that is not a scheme character: the answer of the walk below, at once.
    for n in [4, 5] {
        if c >= floor + n
            && hay[c - n..c] == b"https"[..n]
            && (c == floor + n || SCHEME_CHAR[hay[c - n - 1] as usize] == 0)
        {
            return Some((c - n, false));
        }
    }
    scheme_start_walk(hay, c, floor)
}

/// [`scheme_start`], byte by byte.
fn scheme_start_walk(hay: &[u8], c: usize, floor: usize) -> Option<(usize, bool)> {
    let lo = c.saturating_sub(MAX_SCHEME + 1).max(floor);
    let mut j = c;
    let mut seen = 0;
    while j > lo {
        let t = SCHEME_CHAR[hay[j - 1] as usize];
        if t == 0 {
            break;
        }
        seen |= t;
        j -= 1;
    }
    if j == lo && j > floor && SCHEME_CHAR[hay[j - 1] as usize] != 0 {
        return None; // longer than any scheme: a token, not a scheme
    }
    while j < c && !hay[j].is_ascii_alphabetic() {
        j += 1;
    }
    if j == c {
        return None;
    }
    Some((j, seen & SCHEME_DOT != 0))
}

/// Apply the rules at the candidate `c` (see [`crate::classify`]); `floor` is
/// where the previous URL (and its delimiters) ended.
///
/// Always inlined: it has one caller, the scan loop, and returning a
/// [`Found`] through memory from an outlined call costs more than the rules
/// themselves on URL-dense text.
#[inline(always)]
pub(crate) fn match_at<S: Stops>(
    stops: &S,
    cache: &mut RunCache,
    hay: &[u8],
    c: usize,
    floor: usize,
) -> Option<Found> {
    // Where the URL starts, where its body starts, and what it is; then
    // one call to `finish` (inlined once).
    let (s, body, kind, slashes) = if hay[c] == b':' {
        let (mut s, dot) = scheme_start(hay, c, floor)?;
        let slashes = hay.get(c + 1..c + 3) == Some(b"//");
        let scheme = &hay[s..c];
        if slashes {
            // `go.http://`: the text before the dot is not part of the scheme.
            if dot
                && let Some(k) = scheme.iter().rposition(|&b| b == b'.')
                && !schemes::is_common_with_slashes(scheme)
                && schemes::is_common_with_slashes(&scheme[k + 1..])
            {
                s += k + 1;
            }
        } else if !schemes::is_known_without_slashes(scheme)
            || !schemes::plausible_body(scheme, bounded_body(hay, c + 1))
        {
            // (Checked on a bounded prefix first, so a rejected candidate
            // never costs a scan of a long run.)
            return None;
        }
        (s, if slashes { c + 3 } else { c + 1 }, Kind::Uri, slashes)
    } else {
        // `www.`: a word of its own, not the tail of a host or path.
        if c > floor {
            let p = hay[c - 1];
            if p.is_ascii_alphanumeric()
                || matches!(p, b'.' | b'-' | b'_' | b'@' | b'/' | b'%' | b'\\')
            {
                return None;
            }
        }
        (c, c + 4, Kind::Www, false)
    };
    finish(stops, cache, hay, s, body, floor, kind, slashes)
}

/// Delimit the URL starting at `s` whose body (after `scheme:`, `scheme://` or
/// `www.`) starts at `body`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn finish<S: Stops>(
    stops: &S,
    cache: &mut RunCache,
    hay: &[u8],
    s: usize,
    body: usize,
    floor: usize,
    kind: Kind,
    slashes: bool,
) -> Option<Found> {
    let ctx = context(hay, s, floor);
    let mut found = None;
    if let Some(open) = ctx.open {
        let close = if open == b'<' { b'>' } else { b'"' };
        if let Some(w) = wrapped(stops, hay, s, close, &mut cache.open_at_end)
            && w.end > s
        {
            found = Some(Found {
                start: s,
                end: w.end,
                joined: w.joined,
                style: ctx.style,
                kind,
                ambiguous: w.ambiguous,
                resume: w.close_at + 1,
            });
        }
    }
    let found = match found {
        Some(f) => f,
        None => {
            let run = cache.run_end(stops, hay, s);
            let closer = cache.first_closer(hay, s);
            let (end, cut) = bare_end(hay, s, run, closer);
            Found {
                start: s,
                end,
                joined: None,
                style: if ctx.style == Style::UrlPrefix {
                    Style::UrlPrefix
                } else {
                    Style::Bare
                },
                kind,
                ambiguous: false,
                resume: cut,
            }
        }
    };
    let url: &[u8] = match &found.joined {
        Some(v) => v,
        None => &hay[found.start..found.end],
    };
    let body_at = body;
    let body = url.get(body_at - s..).unwrap_or(b"");
    let ok = match kind {
        // `news:*` is a URL; `http://` or `http://...` alone is not.
        Kind::Uri if !slashes => schemes::plausible_body(&url[..body_at - s - 1], body),
        Kind::Uri => body
            .iter()
            .any(|&b| b.is_ascii_alphanumeric() || b >= 0x80 || b == b'['),
        Kind::Www => www_host_ok(url),
    };
    ok.then_some(found)
}

/// At most [`PRECHECK`] bytes from `at`, up to the first ASCII stop byte:
/// what the cheap checks before delimiting look at.
fn bounded_body(hay: &[u8], at: usize) -> &[u8] {
    let w = &hay[at.min(hay.len())..hay.len().min(at + PRECHECK)];
    let n = w
        .iter()
        .position(|&b| b < 0x80 && STOP[b as usize])
        .unwrap_or(w.len());
    &w[..n]
}

/// How far the checks before delimiting look.
const PRECHECK: usize = 256;

/// An abbreviated URI needs a real host after `www.`: at least one more label
/// and a top-level label of two or more letters (or an IDN / punycode label),
/// then the end of the URL or `/ ? # :`. Only the host is read.
fn www_host_ok(url: &[u8]) -> bool {
    let host_len = url
        .iter()
        .position(|&b| !(b.is_ascii_alphanumeric() || b == b'-' || b == b'.' || b >= 0x80))
        .unwrap_or(url.len());
    if !matches!(url.get(host_len), None | Some(b'/' | b'?' | b'#' | b':')) || host_len <= 4 {
        return false;
    }
    // The labels after `www.`, in one pass: each non-empty, without a
    // hyphen at either end, and at least two of them.
    let rest = &url[4..host_len];
    let label_ok = |l: &[u8]| l.first().is_some_and(|&b| b != b'-') && l.last() != Some(&b'-');
    let mut label = 0;
    let mut dots = 0;
    for (i, &b) in rest.iter().enumerate() {
        if b == b'.' {
            if !label_ok(&rest[label..i]) {
                return false;
            }
            dots += 1;
            label = i + 1;
        }
    }
    let tld = &rest[label..];
    dots > 0
        && label_ok(tld)
        && ((tld.len() >= 2 && tld.iter().all(|b| b.is_ascii_alphabetic()))
            || tld.iter().any(|&b| b >= 0x80)
            || (tld.len() > 4 && tld[..4].eq_ignore_ascii_case(b"xn--")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `scheme_start`'s and `context`'s shortcuts give what the full rules
    /// give, at every offset of texts around `http`, `https`, `<` and `"`.
    #[test]
    fn shortcuts_agree_with_the_full_rules() {
        let texts: [&[u8]; 10] = [
            b"http://a https://b xhttp://c 1http://d .https://e +https://f",
            b"<http://a> \"https://b\" URL:<http://c> <URL: http://d> url:http://e",
            b"ahttps://x Https://y HTTP://z ttps://w ps://v s://u",
            b"\"<http://a\" <\"https://b <\n http://c \" https://d",
            b"0123456789012345678901234567890123http://long",
            b"http://at-start",
            b"https://at-start",
            b"(http://a) [https://b] {http://c}",
            b"a http://b  http://c\thttp://d :\nhttp://e < http://f URL: http://g\n\nhttp://h",
            b" http://a",
        ];
        for t in texts {
            for c in 0..t.len() {
                for floor in [0, c.saturating_sub(5), c.saturating_sub(4), c] {
                    if t[c] == b':' {
                        assert_eq!(
                            scheme_start(t, c, floor),
                            scheme_start_walk(t, c, floor),
                            "{t:?} at {c}, floor {floor}"
                        );
                    }
                    if c > floor {
                        let (a, b) = (context(t, c, floor), context_slow(t, c, floor));
                        assert_eq!((a.style, a.open), (b.style, b.open), "{t:?} at {c}");
                    }
                }
            }
        }
    }

    #[test]
    fn tables_match_the_oracle() {
        for b in 0..=255u8 {
            assert_eq!(STOP[b as usize], naive::is_stop(b), "{b:#x}");
            assert_eq!(
                SCHEME_CHAR[b as usize] != 0,
                naive::is_scheme_char(b),
                "{b:#x}"
            );
            assert_eq!(
                SCHEME_CHAR[b as usize] & SCHEME_DOT != 0,
                b == b'.',
                "{b:#x}"
            );
        }
    }
}
