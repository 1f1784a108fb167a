//! HTML in one forward pass: tags and attributes are tokenised as the WHATWG
//! tokenizer does (no tree, no DOM), text between tags is gathered for the
//! text scanner, and URL attributes are collected for resolution.
//!
//! - Comments (`<!-- ... -->`), doctypes, `<? ... >` and `<![CDATA[...]]>`
//!   are skipped.
//! - `script`, `style`, `xmp`, `iframe`, `noembed` and `noframes` hold raw
//!   text: skipped by default (see [`crate::LinkOptions::scan_scripts`]), or
//!   scanned as text without character references. `title` and `textarea`
//!   hold text with character references, scanned like other text.
//!   `noscript` is read as markup (its links are what a crawler without
//!   scripts follows). `plaintext` makes the rest of the document text.
//! - Each stretch of text between two tags is decoded and appended to one
//!   text buffer, with a NUL between stretches: a control character ends a
//!   URL, so text on either side of a tag never joins into one URL.

use std::borrow::Cow;

use crate::entities::decode_char_refs;

/// An attribute holding a URL (or, for `srcset` and meta refresh, URLs).
pub(crate) struct AttrUrl<'a> {
    /// The tag name, lowercased ([`tag_name`]).
    pub tag: Cow<'static, str>,
    /// The attribute name as reported.
    pub attr: &'static str,
    /// Offset in the document of the value as written (for a `srcset`
    /// candidate or a refresh URL, of that part when the attribute holds no
    /// character reference, else of the whole attribute value).
    pub raw_start: usize,
    /// Offset one past the value (or part) as written.
    pub raw_end: usize,
    /// The value with character references decoded.
    pub value: Cow<'a, [u8]>,
    /// A CSS `url()` (or `@import` string): in a `style` attribute (`attr`
    /// is `"style"`) or a `<style>` element (`attr` is `""`).
    pub css: bool,
    /// The `rel` of the tag ([`rel_value`]), for a URL attribute's value.
    pub rel: Option<String>,
}

/// What a stretch of the gathered text is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stretch {
    /// Text between tags (and `title`, `textarea`, `plaintext`, `xmp`,
    /// `iframe`, `noembed`, `noframes` contents).
    Text,
    /// A `script` element's contents.
    Script,
    /// A `style` element's contents.
    Style,
    /// A comment, doctype, `<?...>` or `<![CDATA[...]]>`.
    Comment,
    /// The value of an attribute that is not read as a URL: the spans of
    /// its tag name and its attribute name in the document.
    Attr {
        tag: (usize, usize),
        name: (usize, usize),
    },
}

/// What a pass over a document has gathered and not yet handed on: the
/// URL attributes and text of the document so far, since the last
/// [`Window`] was handed on.
#[derive(Default)]
pub(crate) struct Scanned<'a> {
    /// URL attributes, in document order.
    pub attrs: Vec<AttrUrl<'a>>,
    /// The first `<base href>`, decoded.
    pub base: Option<Vec<u8>>,
    /// The text between tags, decoded, stretches separated by NUL: the
    /// text from text offset [`Scanned::text_base`] on (the text before it
    /// was handed on and let go).
    pub text: Vec<u8>,
    /// The text offset of `text[0]`.
    pub text_base: usize,
    /// `(text offset, document offset)` pairs: the text from each text offset
    /// on comes from the document offset on (until the next pair).
    pub map: Vec<(usize, usize)>,
    /// `(text offset, kind)` of each stretch of `text`, in order.
    pub stretches: Vec<(usize, Stretch)>,
}

impl Scanned<'_> {
    /// Let go of the text before the last `keep` bytes, and of the map
    /// pairs only that text needs.
    pub(crate) fn keep_text(&mut self, keep: usize) {
        let cut = self.text.len().saturating_sub(keep);
        if cut == 0 {
            return;
        }
        self.text.drain(..cut);
        self.text_base += cut;
        let first = self.map.partition_point(|&(x, _)| x <= self.text_base);
        self.map.drain(..first.saturating_sub(1));
        let first = self
            .stretches
            .partition_point(|&(x, _)| x <= self.text_base);
        self.stretches.drain(..first.saturating_sub(1));
    }

    /// The kind of the stretch that holds text offset `t`.
    pub(crate) fn stretch_at(&self, t: usize) -> Stretch {
        let i = self.stretches.partition_point(|&(x, _)| x <= t);
        i.checked_sub(1)
            .and_then(|i| self.stretches.get(i))
            .map_or(Stretch::Text, |&(_, k)| k)
    }
}

/// The document offset of text offset `t`, by `map` ([`Scanned::map`]).
pub(crate) fn doc_offset(map: &[(usize, usize)], t: usize) -> usize {
    let i = map.partition_point(|&(x, _)| x <= t);
    match i.checked_sub(1).and_then(|i| map.get(i)) {
        Some(&(x, d)) => d + (t - x),
        None => t,
    }
}

/// How much a pass gathers before it hands it on: at least this many URL
/// attributes or this many bytes of text.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Window {
    pub attrs: usize,
    pub text: usize,
}

impl Window {
    /// A few thousand links' worth: a typical page is one window, and a
    /// page of millions of links is held a window at a time.
    pub(crate) const DEFAULT: Window = Window {
        attrs: 1024,
        text: 64 << 10,
    };
}

/// The first `needle` in `hay`. Most stretches between tags, and most
/// attribute values, are short, and a `memchr` call costs more than it saves
/// there: the first 16 bytes are looked at 8 at a time in a word (a zero
/// byte of `word ^ needle` is a match), then `memchr` takes the rest.
#[inline]
fn find(needle: u8, hay: &[u8]) -> Option<usize> {
    let rep = crate::words::splat(needle);
    let mut i = 0;
    while i < 16 {
        let Some(w) = hay.get(i..i + 8).and_then(|w| <[u8; 8]>::try_from(w).ok()) else {
            // Fewer than 8 bytes left.
            let tail = hay.get(i..).unwrap_or_default();
            return tail.iter().position(|&b| b == needle).map(|p| p + i);
        };
        let x = u64::from_le_bytes(w) ^ rep;
        // The lowest set bit marks the first zero byte of `x`.
        let m = crate::words::zero_bytes(x);
        if m != 0 {
            return Some(i + (m.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    memchr::memchr(needle, hay.get(i..).unwrap_or_default()).map(|p| p + i)
}

fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | 0x0c | b'\r' | b' ')
}

/// Bytes that end a tag or attribute name: whitespace, `/`, `>` (bit 0),
/// and `=` (bit 1, for attribute names); bytes that end an unquoted
/// attribute value: whitespace and `>` (bit 2); bytes a short text
/// stretch needs for a URL ([`may_hold_url`]): `:`, `&`, `.` (bit 3).
const STOPS: [u8; 256] = {
    let mut t = [0u8; 256];
    let ws = [b'\t', b'\n', 0x0c, b'\r', b' '];
    let mut k = 0;
    while k < ws.len() {
        t[ws[k] as usize] = 1 | 2 | 4;
        k += 1;
    }
    t[b'/' as usize] = 1 | 2;
    t[b'>' as usize] = 1 | 2 | 4;
    t[b'=' as usize] = 2;
    t[b':' as usize] = 8;
    t[b'&' as usize] = 8;
    t[b'.' as usize] = 8;
    t
};

/// The first index at or after `i` whose byte has a `mask` bit in [`STOPS`].
#[inline]
fn run_to(html: &[u8], mut i: usize, mask: u8) -> usize {
    while let Some(&b) = html.get(i) {
        if STOPS[b as usize] & mask != 0 {
            break;
        }
        i += 1;
    }
    i
}

/// `tag` (lowercase) as a name: borrowed for the elements that define URL
/// attributes, so most links allocate nothing for it; made for others.
pub(crate) fn tag_name(tag: &[u8]) -> Cow<'static, str> {
    macro_rules! known {
        ($($t:literal),* $(,)?) => {
            match tag {
                $(t if t == $t.as_bytes() => return Cow::Borrowed($t),)*
                _ => {}
            }
        };
    }
    known!(
        "a",
        "img",
        "link",
        "script",
        "source",
        "area",
        "iframe",
        "form",
        "input",
        "button",
        "video",
        "audio",
        "embed",
        "track",
        "frame",
        "blockquote",
        "q",
        "del",
        "ins",
        "body",
        "table",
        "td",
        "th",
        "tr",
        "object",
        "html",
        "meta",
        "image",
        "use",
        "svg",
        "style",
        "div",
        "span",
        "p",
        "li",
    );
    Cow::Owned(crate::links::owned(tag))
}

/// Which URL attribute `name` is on `tag`, if any. Most attribute names
/// are rejected by their length and first letter alone.
fn url_attr(tag: &[u8], name: &[u8]) -> Option<&'static str> {
    let first = name.first()?.to_ascii_lowercase();
    let cand: &'static str = match (name.len(), first) {
        (4, b'h') => "href",
        (3, b's') => "src",
        (6, b'a') => "action",
        (10, b'f') => "formaction",
        (4, b'c') => "cite",
        (6, b'p') => "poster",
        (10, b'b') => "background",
        (8, b'l') => "longdesc",
        (6, b's') => "srcset",
        (4, b'd') if tag == b"object" => "data",
        (8, b'm') if tag == b"html" => "manifest",
        (10, b'x') => "xlink:href",
        (4, b'p') => "ping",
        (8, b'i') => "itemtype",
        (6, b'i') => "itemid",
        _ => return None,
    };
    name.eq_ignore_ascii_case(cand.as_bytes()).then_some(cand)
}

/// A bit for each name a URL attribute is taken by ([`url_attr`], `style`,
/// a `<meta>`'s `content`): names that differ only in case are the same
/// attribute, and map to the same name, so to the same bit.
fn attr_bit(attr: &'static str) -> u32 {
    let k = match (attr.len(), attr.as_bytes().first().copied().unwrap_or(0)) {
        (4, b'h') => 0,
        (3, b's') => 1,
        (6, b'a') => 2,
        (10, b'f') => 3,
        (4, b'c') => 4,
        (6, b'p') => 5,
        (10, b'b') => 6,
        (8, b'l') => 7,
        (6, b's') => 8,
        (4, b'd') => 9,
        (8, b'm') => 10,
        (10, b'x') => 11,
        (4, b'p') => 12,
        (8, b'i') => 13,
        (6, b'i') => 14,
        (7, b'c') => 15,
        (5, b's') => 16,
        _ => 31,
    };
    1 << k
}

/// What a pass over a document gathers.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Gather {
    /// The text between tags.
    pub text: bool,
    /// The contents of `script`, `style` and the other raw text elements,
    /// as text (without character references).
    pub scripts: bool,
    /// The values of attributes not read as URLs, and comments and other
    /// markup declarations, as text.
    pub markup: bool,
    /// Only the first `<base href>`: no attributes, no text, and the pass
    /// ends once it is found.
    pub base_only: bool,
}

/// The first `<base href>` of `html`, decoded: a pass that ends there,
/// taken only when some `<base` tag name is written in the document.
pub(crate) fn base_href(html: &[u8]) -> Option<Vec<u8>> {
    // `<b` and `<B` are rarer than `<`: two searches for them cost less
    // than a stop at every tag.
    let named = [&b"<b"[..], b"<B"].iter().any(|start| {
        memchr::memmem::find_iter(html, start).any(|lt| {
            html.get(lt + 1..lt + 5)
                .is_some_and(|n| n.eq_ignore_ascii_case(b"base"))
                && html
                    .get(lt + 5)
                    .is_some_and(|&b| STOPS[b as usize] & 1 != 0)
        })
    });
    if !named {
        return None;
    }
    let gather = Gather {
        text: false,
        scripts: false,
        markup: false,
        base_only: true,
    };
    scan(html, gather, Window::DEFAULT, &mut |_| true).base
}

/// Scan `html` once, in document order, gathering its URL attributes,
/// first base and text into a [`Scanned`]. Whenever a [`Window`]'s worth
/// is gathered, between two tags, `flush` is handed what was gathered, to
/// take the attributes and the text it is done with; it returns false to
/// end the pass there. Returns the rest, gathered after the last `flush`.
pub(crate) fn scan<'a>(
    html: &'a [u8],
    gather: Gather,
    window: Window,
    flush: &mut dyn FnMut(&mut Scanned<'a>) -> bool,
) -> Scanned<'a> {
    let want_text = gather.text && !gather.base_only;
    let want_markup = gather.markup && !gather.base_only;
    let scan_scripts = gather.scripts && !gather.base_only;
    // Room for the links and text stretches of a typical page (about one
    // link per 250 bytes, one stretch per 30): no growing on the way.
    let mut s = Scanned {
        attrs: Vec::with_capacity((html.len() / 256).min(window.attrs)),
        map: Vec::with_capacity(if want_text {
            (html.len() / 32).min(window.text / 16)
        } else {
            0
        }),
        ..Scanned::default()
    };
    let mut i = 0;
    let mut text_from = 0;
    while let Some(p) = find(b'<', html.get(i..).unwrap_or_default()) {
        if gather.base_only && s.base.is_some() {
            return s;
        }
        if (s.attrs.len() >= window.attrs || s.text.len() >= window.text) && !flush(&mut s) {
            return s;
        }
        let lt = i + p;
        let next = html.get(lt + 1).copied();
        let after_markup = match next {
            Some(b'!') => {
                let rest = html.get(lt + 2..).unwrap_or_default();
                if rest.starts_with(b"--") {
                    comment(&mut s, html, lt, &mut text_from, (want_text, want_markup))
                } else {
                    let end = to_gt(html, lt + 2);
                    declaration(
                        &mut s,
                        html,
                        (lt, end),
                        &mut text_from,
                        (want_text, want_markup),
                    )
                }
            }
            Some(b'?') => {
                let end = to_gt(html, lt + 2);
                declaration(
                    &mut s,
                    html,
                    (lt, end),
                    &mut text_from,
                    (want_text, want_markup),
                )
            }
            Some(b'/') => match html.get(lt + 2) {
                // An end tag's attributes are dropped: skip to its `>` (a
                // `>` inside a quoted attribute of an end tag ends it early).
                Some(c) if c.is_ascii_alphabetic() => to_gt(html, lt + 3),
                Some(b'>') => lt + 3,
                Some(_) => to_gt(html, lt + 2),
                None => html.len(),
            },
            Some(c) if c.is_ascii_alphabetic() => {
                if want_text {
                    push_text(&mut s, html, text_from, lt, true);
                    text_from = lt;
                }
                let wants = (want_text, want_markup, scan_scripts, gather.base_only);
                // (The text before the tag is flushed: the step after the
                // match pushes nothing more.)
                match start_tag(&mut s, html, lt, wants, window, flush) {
                    None => return s,
                    Some(after) => after,
                }
            }
            _ => {
                // A `<` that starts no markup is text.
                i = lt + 1;
                continue;
            }
        };
        if want_text && text_from < lt {
            push_text(&mut s, html, text_from, lt, true);
        }
        i = after_markup;
        text_from = after_markup;
    }
    if want_text {
        push_text(&mut s, html, text_from, html.len(), true);
    }
    s
}

/// A comment at `lt` (`<!--`): its text gathered as a stretch (with
/// `markup`), and the text before it flushed (with `text`). Returns the
/// byte after it: `<!-->` and `<!--->` end at once, else `-->` (or EOF).
#[inline]
fn comment<'a>(
    s: &mut Scanned<'a>,
    html: &'a [u8],
    lt: usize,
    text_from: &mut usize,
    (text, markup): (bool, bool),
) -> usize {
    let body = lt + 4;
    if html.get(body) == Some(&b'>') {
        return body + 1;
    }
    if html.get(body..body + 2) == Some(b"->") {
        return body + 2;
    }
    let end = memchr::memmem::find(html.get(body..).unwrap_or_default(), b"-->")
        .map_or(html.len(), |q| body + q);
    if text {
        push_text(s, html, *text_from, lt, true);
        *text_from = lt;
    }
    if markup {
        push_stretch(s, html, (body, end), None, Stretch::Comment);
    }
    (end + 3).min(html.len())
}

/// A start tag at `lt`: its attributes gathered (handed on a window's
/// worth at a time, even inside one tag, so a tag of millions of
/// attributes is never held whole), then the raw text of `script`,
/// `style` and the like. Returns the byte to go on from, after the tag
/// and its raw text (the input's end where the tag runs to it), or `None`
/// where `flush` ended the pass.
#[inline]
fn start_tag<'a>(
    s: &mut Scanned<'a>,
    html: &'a [u8],
    lt: usize,
    (want_text, want_markup, scan_scripts, base_only): (bool, bool, bool, bool),
    window: Window,
    flush: &mut dyn FnMut(&mut Scanned<'a>) -> bool,
) -> Option<usize> {
    let name_end = run_to(html, lt + 1, 1);
    let name = html.get(lt + 1..name_end).unwrap_or_default();
    let mut lower = [0u8; 16];
    let lname = lowercase(name, &mut lower);
    let ended = if html.get(name_end) == Some(&b'>') {
        // No attributes: nothing to read.
        TagEnd::End(name_end + 1)
    } else if !base_only || lname == b"base" {
        let mut st = StartTag::new(html, (lname, lt + 1, name_end), want_markup);
        st.first = s.attrs.len();
        let mut text_first = s.text.len();
        tag(html, name_end, |a| {
            st.attr(s, a);
            if !(s.attrs.len() >= window.attrs || s.text.len() >= window.text) {
                return true;
            }
            // A tag that may have a `rel` is handed on at its end, so that
            // a `rel` after its URLs reaches them, unless it holds more
            // than a few windows' worth.
            if st.rel_capable
                && s.attrs.len() - st.first < 4 * window.attrs
                && s.text.len().saturating_sub(text_first) < 4 * window.text
            {
                return true;
            }
            let go = flush(s);
            st.first = s.attrs.len();
            text_first = s.text.len();
            go
        })
    } else {
        tag(html, name_end, |_| true)
    };
    match ended {
        TagEnd::Stopped => None,
        TagEnd::End(end) => Some(raw_text(
            s,
            html,
            lname,
            end,
            (want_text, scan_scripts, base_only),
        )),
        TagEnd::Eof => Some(html.len()),
    }
}

/// `name` lowercased, into `buf` when it has an upper case letter (names
/// longer than it are not ones we match).
fn lowercase<'b>(name: &'b [u8], buf: &'b mut [u8; 16]) -> &'b [u8] {
    if name.len() > buf.len() {
        return &[];
    }
    if !name.iter().any(u8::is_ascii_uppercase) {
        return name;
    }
    let out = buf.get_mut(..name.len()).unwrap_or_default();
    for (o, &b) in out.iter_mut().zip(name) {
        *o = b.to_ascii_lowercase();
    }
    out
}

/// Offset past the next `>` at or after `from` (or the end).
fn to_gt(html: &[u8], from: usize) -> usize {
    find(b'>', html.get(from..).unwrap_or_default()).map_or(html.len(), |q| from + q + 1)
}

/// A doctype, `<?...>` or `<![CDATA[...]]>` at `lt..end`: the text before
/// it is handed on, and its inside gathered as a [`Stretch::Comment`].
/// Returns `end`.
fn declaration(
    s: &mut Scanned<'_>,
    html: &[u8],
    (lt, end): (usize, usize),
    text_from: &mut usize,
    (text, markup): (bool, bool),
) -> usize {
    if text && *text_from < lt {
        push_text(s, html, *text_from, lt, true);
    }
    *text_from = lt;
    if markup {
        let inner_end = if html.get(end.wrapping_sub(1)) == Some(&b'>') {
            end - 1
        } else {
            end
        };
        push_stretch(s, html, (lt + 2, inner_end), None, Stretch::Comment);
    }
    end
}

/// Append text `html[from..to]`, character references decoded when
/// `decode` (NUL-separated from what came before).
#[inline(always)]
fn push_text(s: &mut Scanned<'_>, html: &[u8], from: usize, to: usize, decode: bool) {
    push_stretch(s, html, (from, to), decode.then_some(false), Stretch::Text);
}

/// Whether text `t` may hold a URL by the text rules: every URL is anchored
/// at `www.` (ASCII case-insensitive) or at a `:` with a scheme character
/// before it and neither a control, a space nor another `:` after it (a
/// superset of the extractor's anchors), and a character reference (`&`)
/// may stand for any of these. A short stretch without them is not
/// gathered (longer ones always are): the NUL between stretches ends every
/// URL and is no anchor's neighbour, so no URL of another stretch depends
/// on it.
#[inline(always)]
fn may_hold_url(t: &[u8]) -> bool {
    // Longer stretches nearly always hold a `:` or a `.` that needs a
    // look: looking costs more than gathering them (measured).
    const LOOKED_AT: usize = 8;
    if t.len() > LOOKED_AT {
        return true;
    }
    // Most short stretches (a space or a line break between two tags, a
    // word) hold none of `:`, `&` and `.`: one table look-up a byte.
    t.iter().any(|&b| STOPS[b as usize] & 8 != 0) && short_may_hold_url(t)
}

/// [`may_hold_url`] for a short stretch `t` that holds a `:`, `&` or `.`.
fn short_may_hold_url(t: &[u8]) -> bool {
    let www = |i: usize| {
        i >= 3
            && t.get(i - 3..i)
                .is_some_and(|w| w.eq_ignore_ascii_case(b"www"))
    };
    let colon = |i: usize| {
        i > 0
            && t.get(i - 1)
                .is_some_and(|&b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
            && t.get(i + 1).is_some_and(|&b| b > b' ' && b != b':')
    };
    t.iter().enumerate().any(|(i, &b)| match b {
        b':' => colon(i),
        b'&' => true,
        b'.' => www(i),
        _ => false,
    })
}

/// Append `html[from..to]` as a stretch of `kind` (NUL-separated from what
/// came before): with `decode` `Some(in_attribute)`, its character
/// references decoded (as in an attribute value, or in text).
#[inline(always)]
fn push_stretch(
    s: &mut Scanned<'_>,
    html: &[u8],
    (from, to): (usize, usize),
    decode: Option<bool>,
    kind: Stretch,
) {
    // (Between two tags written one after the other: nothing.)
    if from >= to {
        return;
    }
    let Some(t) = html.get(from..to) else {
        return;
    };
    if may_hold_url(t) {
        append_stretch(s, t, (from, html.len()), decode, kind);
    }
}

/// [`push_stretch`] for text `t`, written at `from`, that may hold a URL.
#[inline(never)]
fn append_stretch(
    s: &mut Scanned<'_>,
    t: &[u8],
    (from, doc_len): (usize, usize),
    decode: Option<bool>,
    kind: Stretch,
) {
    if s.text.capacity() == 0 {
        s.text.reserve((doc_len / 2).min(Window::DEFAULT.text * 2));
    }
    if !s.text.is_empty() {
        s.text.push(0);
    }
    let base = s.text_base;
    s.map.push((base + s.text.len(), from));
    if s.stretches.last().is_none_or(|&(_, k)| k != kind) {
        s.stretches.push((base + s.text.len(), kind));
    }
    if let Some(attribute) = decode.filter(|_| find(b'&', t).is_some()) {
        let map = &mut s.map;
        decode_char_refs(t, attribute, &mut s.text, |inp, outp| {
            map.push((base + outp, from + inp));
        });
    } else {
        s.text.extend_from_slice(t);
    }
}

/// Read the attributes of the tag whose name ends at `name_end`, handing
/// each name and value (as written) to `each`; returns the offset past
/// the tag's `>`, or `None` when `html` ends inside the tag.
pub(crate) fn attributes(
    html: &[u8],
    name_end: usize,
    each: &mut dyn FnMut(&[u8], &[u8]),
) -> Option<usize> {
    let slice = |a: usize, b: usize| html.get(a..b).unwrap_or_default();
    match tag(html, name_end, |(a, b, c, d)| {
        each(slice(a, b), slice(c, d));
        true
    }) {
        TagEnd::End(end) => Some(end),
        TagEnd::Eof | TagEnd::Stopped => None,
    }
}

/// An attribute of a start tag: `(name_start, name_end, value_start,
/// value_end)` in the document (value `0..0` when it has none).
type Attr = (usize, usize, usize, usize);

/// How the tokenising of a tag ended.
enum TagEnd {
    /// At its `>`: the offset past it.
    End(usize),
    /// The document ends inside the tag.
    Eof,
    /// The attribute sink said stop.
    Stopped,
}

/// Tokenise the attributes of the tag whose name ends at `name_end`,
/// handing each to `each` (which returns false to stop) as it is read.
#[inline]
fn tag(html: &[u8], name_end: usize, mut each: impl FnMut(Attr) -> bool) -> TagEnd {
    let n = html.len();
    let mut i = name_end;
    loop {
        while i < n && (is_space(html[i]) || html[i] == b'/') {
            i += 1;
        }
        match html.get(i) {
            None => return TagEnd::Eof,
            Some(b'>') => return TagEnd::End(i + 1),
            _ => {}
        }
        let ns = i;
        // The first character may be `=`.
        i = run_to(html, i + 1, 2);
        let ne = i;
        while i < n && is_space(html[i]) {
            i += 1;
        }
        let attr = if html.get(i) != Some(&b'=') {
            (ns, ne, 0, 0)
        } else {
            i += 1;
            while i < n && is_space(html[i]) {
                i += 1;
            }
            match html.get(i) {
                None => return TagEnd::Eof,
                Some(&q @ (b'"' | b'\'')) => {
                    let vs = i + 1;
                    let Some(len) = find(q, html.get(vs..).unwrap_or_default()) else {
                        return TagEnd::Eof;
                    };
                    i = vs + len + 1;
                    (ns, ne, vs, vs + len)
                }
                Some(b'>') => (ns, ne, i, i),
                Some(_) => {
                    let vs = i;
                    i = run_to(html, i, 4);
                    (ns, ne, vs, i)
                }
            }
        };
        if !each(attr) {
            return TagEnd::Stopped;
        }
    }
}

/// The `<meta property>` values whose `content` is a URL (Open Graph).
const OG_URLS: [&[u8]; 10] = [
    b"og:url",
    b"og:image",
    b"og:image:url",
    b"og:image:secure_url",
    b"og:video",
    b"og:video:url",
    b"og:video:secure_url",
    b"og:audio",
    b"og:audio:url",
    b"og:audio:secure_url",
];

/// How a URL attribute's value holds its URLs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Parts {
    /// The whole value.
    Whole,
    /// `srcset` candidates.
    Srcset,
    /// Tokens separated by whitespace (`ping`).
    Tokens,
    /// Tokens separated by whitespace that are absolute URLs (`itemtype`).
    AbsoluteTokens,
    /// A refresh declaration's URL (`<meta http-equiv=refresh content>`).
    Refresh,
    /// CSS `url()`s and `@import` strings (`style`).
    Css,
}

/// The attributes of one start tag, read one at a time: its URL
/// attributes (and `<base href>`) recorded, and with `markup`, the values
/// of its other attributes gathered as text.
struct StartTag<'t, 'n> {
    html: &'t [u8],
    /// The lowercased name, and the span of the name as written.
    tag: (&'n [u8], usize, usize),
    markup: bool,
    /// The index of a `<meta>`'s URL `content` attribute, and how it holds
    /// its URL.
    meta_content: Option<(usize, Parts)>,
    /// The URL attributes taken, one bit each ([`attr_bit`]): a duplicate
    /// is dropped (the first one counts).
    seen: u32,
    /// The index of the next attribute.
    k: usize,
    /// Whether the tag can have a `rel` (`a`, `area`, `link`, `form`).
    rel_capable: bool,
    /// The tag's first `rel` ([`rel_value`]), once read.
    rel: Option<String>,
    /// The index in [`Scanned::attrs`] of the first URL of this tag still
    /// held there: a `rel` read after them is theirs too.
    first: usize,
}

/// A `rel` value as reported: its link types, character references
/// decoded, in ASCII lower case, separated by one space.
fn rel_value(v: &[u8]) -> String {
    let v = decode_attr(v);
    let mut out = String::new();
    for (s, e) in tokens(&v) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(
            &String::from_utf8_lossy(v.get(s..e).unwrap_or_default()).to_ascii_lowercase(),
        );
    }
    out
}

impl<'t, 'n> StartTag<'t, 'n> {
    fn new(html: &'t [u8], tag: (&'n [u8], usize, usize), markup: bool) -> StartTag<'t, 'n> {
        let slice = |a: usize, b: usize| html.get(a..b).unwrap_or_default();
        // A `<meta>`'s attributes are read twice: first for what says
        // whether its `content` is a URL.
        let mut meta_content = None;
        if tag.0 == b"meta" {
            let (mut refresh, mut og, mut content) = (None, None, None);
            let mut k = 0;
            self::tag(html, tag.2, |(a, b, c, d)| {
                let name = slice(a, b);
                let value = slice(c, d).trim_ascii();
                if refresh.is_none() && name.eq_ignore_ascii_case(b"http-equiv") {
                    refresh = Some(value.eq_ignore_ascii_case(b"refresh"));
                } else if og.is_none() && name.eq_ignore_ascii_case(b"property") {
                    og = Some(OG_URLS.iter().any(|o| value.eq_ignore_ascii_case(o)));
                } else if content.is_none() && name.eq_ignore_ascii_case(b"content") {
                    content = Some(k);
                }
                k += 1;
                true
            });
            let refresh = refresh == Some(true);
            if refresh || og == Some(true) {
                meta_content = content.map(|k| {
                    (
                        k,
                        if refresh {
                            Parts::Refresh
                        } else {
                            Parts::Whole
                        },
                    )
                });
            }
        }
        StartTag {
            html,
            tag,
            markup,
            meta_content,
            seen: 0,
            k: 0,
            rel_capable: matches!(tag.0, b"a" | b"area" | b"link" | b"form"),
            rel: None,
            first: 0,
        }
    }

    /// Read the next attribute, `(a, b, c, d)`.
    fn attr<'a>(&mut self, s: &mut Scanned<'a>, (a, b, c, d): Attr)
    where
        't: 'a,
    {
        let html = self.html;
        let (tag, name_start, name_end) = self.tag;
        let k = self.k;
        self.k += 1;
        let slice = |a: usize, b: usize| html.get(a..b).unwrap_or_default();
        let name = slice(a, b);
        if self.rel_capable && self.rel.is_none() && name.eq_ignore_ascii_case(b"rel") {
            // The tag's links read before it have it too.
            let rel = rel_value(slice(c, d));
            for u in s.attrs.get_mut(self.first..).unwrap_or_default() {
                if !u.css {
                    u.rel = Some(rel.clone());
                }
            }
            self.rel = Some(rel);
        }
        let link = match self.meta_content {
            Some((m, parts)) if m == k => Some(("content", parts)),
            _ if tag == b"meta" => None,
            _ if name.eq_ignore_ascii_case(b"style") => Some(("style", Parts::Css)),
            _ => url_attr(tag, name).map(|attr| {
                let parts = match attr {
                    "srcset" => Parts::Srcset,
                    "ping" => Parts::Tokens,
                    "itemtype" => Parts::AbsoluteTokens,
                    _ => Parts::Whole,
                };
                (attr, parts)
            }),
        }
        .filter(|&(attr, _)| self.seen & attr_bit(attr) == 0);
        let Some((attr, parts)) = link else {
            if self.markup {
                attr_text(s, html, (name_start, name_end), (a, b), (c, d));
            }
            return;
        };
        self.seen |= attr_bit(attr);
        let value = decode_attr(slice(c, d));
        if tag == b"base" && attr == "href" {
            if s.base.is_none() {
                s.base = Some(value.into_owned());
            }
            return;
        }
        let tag_name = tag_name(tag);
        let rel = &self.rel;
        let borrowed = matches!(value, Cow::Borrowed(_));
        let mut push = |(us, ue): (usize, usize), css: bool| {
            let (raw_start, raw_end) = if parts == Parts::Whole {
                // Where the URL is written: without the leading and
                // trailing C0 controls and spaces URL parsers strip.
                let raw = slice(c, d);
                let s = raw.iter().position(|&b| b > b' ').unwrap_or(raw.len());
                let e = raw.iter().rposition(|&b| b > b' ').map_or(s, |p| p + 1);
                (c + s, c + e)
            } else {
                part_span(borrowed, (c, d), (us, ue))
            };
            s.attrs.push(AttrUrl {
                tag: tag_name.clone(),
                attr,
                raw_start,
                raw_end,
                value: sub(&value, us, ue),
                css,
                rel: if css { None } else { rel.clone() },
            });
        };
        match parts {
            Parts::Whole => push((0, value.len()), false),
            Parts::Srcset => srcset(&value).into_iter().for_each(|p| push(p, false)),
            Parts::Tokens => tokens(&value).for_each(|p| push(p, false)),
            Parts::AbsoluteTokens => tokens(&value)
                .filter(|&(us, ue)| {
                    crate::engine::Base::new(value.get(us..ue).unwrap_or_default()).is_some()
                })
                .for_each(|p| push(p, false)),
            Parts::Refresh => refresh_url(&value).into_iter().for_each(|p| push(p, false)),
            Parts::Css => {
                css_urls(&value).into_iter().for_each(|p| push(p, true));
                // Absolute URLs elsewhere in the declarations are text.
                if self.markup {
                    attr_text(s, html, (name_start, name_end), (a, b), (c, d));
                }
            }
        }
    }
}

/// An attribute value with its character references decoded (borrowed
/// when it has none).
fn decode_attr(v: &[u8]) -> Cow<'_, [u8]> {
    if find(b'&', v).is_none() {
        return Cow::Borrowed(v);
    }
    let mut out = Vec::with_capacity(v.len());
    decode_char_refs(v, true, &mut out, |_, _| {});
    Cow::Owned(out)
}

/// The part `a..b` of a value, borrowed as the value is.
fn sub<'a>(v: &Cow<'a, [u8]>, a: usize, b: usize) -> Cow<'a, [u8]> {
    match v {
        Cow::Borrowed(x) => Cow::Borrowed(x.get(a..b).unwrap_or_default()),
        Cow::Owned(x) => Cow::Owned(x.get(a..b).unwrap_or_default().to_vec()),
    }
}

/// Gather the value `c..d` of the attribute named at `name` on the tag
/// named at `tag` as text, when it can hold a URL (a `:`, or a character
/// reference that may stand for one).
fn attr_text(
    s: &mut Scanned<'_>,
    html: &[u8],
    tag: (usize, usize),
    name: (usize, usize),
    (c, d): (usize, usize),
) {
    let v = html.get(c..d).unwrap_or_default();
    if !colon_or_amp(v) {
        return;
    }
    push_stretch(s, html, (c, d), Some(true), Stretch::Attr { tag, name });
}

/// Whether `v` holds a `:` or a `&`. Most attribute values (`class`, `id`,
/// `title`) are short and hold neither: eight bytes at a time tell them.
#[inline]
fn colon_or_amp(v: &[u8]) -> bool {
    use crate::words::{any_word, splat, zero_bytes};
    if v.len() > 32 {
        return memchr::memchr2(b':', b'&', v).is_some();
    }
    let hit = |w: u64| zero_bytes(w ^ splat(b':')) | zero_bytes(w ^ splat(b'&')) != 0;
    any_word(v, hit, |b| b == b':' || b == b'&')
}

/// The tokens of `v` separated by ASCII whitespace, as spans.
fn tokens(v: &[u8]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        while v.get(i).is_some_and(|&b| is_space(b)) {
            i += 1;
        }
        let start = i;
        while v.get(i).is_some_and(|&b| !is_space(b)) {
            i += 1;
        }
        (i > start).then_some((start, i))
    })
}

/// The spans of the URLs of CSS text: each `url(...)` (quoted or not) and
/// each `@import` string, outside comments and other strings. CSS escapes
/// are left as written.
pub(crate) fn css_urls(v: &[u8]) -> Vec<(usize, usize)> {
    let n = v.len();
    let mut out = Vec::new();
    // The end of the string opened by quote `q` at `i` (past its closing
    // quote, or the end).
    let string_end = |i: usize, q: u8| {
        let mut j = i + 1;
        while j < n {
            match v[j] {
                b'\\' => j += 2,
                b if b == q => return (j, j + 1),
                b'\n' => return (j, j),
                _ => j += 1,
            }
        }
        (n, n)
    };
    let mut i = 0;
    while i < n {
        match v[i] {
            b'/' if v.get(i + 1) == Some(&b'*') => {
                i = memchr::memmem::find(v.get(i + 2..).unwrap_or_default(), b"*/")
                    .map_or(n, |p| i + 2 + p + 2);
            }
            q @ (b'"' | b'\'') => i = string_end(i, q).1,
            b'u' | b'U'
                if v.get(i..i + 4)
                    .is_some_and(|u| u.eq_ignore_ascii_case(b"url("))
                    && (i == 0 || !(v[i - 1].is_ascii_alphanumeric() || v[i - 1] == b'-')) =>
            {
                let mut j = i + 4;
                while j < n && is_space(v[j]) {
                    j += 1;
                }
                match v.get(j) {
                    Some(&q @ (b'"' | b'\'')) => {
                        let (close, next) = string_end(j, q);
                        if close > j + 1 {
                            out.push((j + 1, close));
                        }
                        i = next;
                    }
                    _ => {
                        let close = memchr::memchr(b')', v.get(j..).unwrap_or_default())
                            .map_or(n, |p| j + p);
                        let mut e = close;
                        while e > j && is_space(v[e - 1]) {
                            e -= 1;
                        }
                        if e > j {
                            out.push((j, e));
                        }
                        i = close + 1;
                    }
                }
            }
            b'@' if v
                .get(i..i + 7)
                .is_some_and(|u| u.eq_ignore_ascii_case(b"@import")) =>
            {
                let mut j = i + 7;
                while j < n && is_space(v[j]) {
                    j += 1;
                }
                if let Some(&q @ (b'"' | b'\'')) = v.get(j) {
                    let (close, next) = string_end(j, q);
                    if close > j + 1 {
                        out.push((j + 1, close));
                    }
                    i = next;
                } else {
                    i = j;
                }
            }
            _ => i += 1,
        }
    }
    out
}

/// Where the part `us..ue` of an attribute value (written at `c..d`) is
/// written: exactly, when the value needed no decoding (it is `borrowed`
/// from the document); else the whole value's span (decoding moved the
/// part's bytes).
fn part_span(borrowed: bool, (c, d): (usize, usize), (us, ue): (usize, usize)) -> (usize, usize) {
    if borrowed { (c + us, c + ue) } else { (c, d) }
}

/// After a start tag that opens raw text, skip it to its end tag, or (when
/// the text is gathered, and for `script` and the like with `scripts`)
/// gather it as text. Returns where markup resumes.
fn raw_text<'a>(
    s: &mut Scanned<'a>,
    html: &'a [u8],
    tag: &[u8],
    from: usize,
    (text, scripts, base_only): (bool, bool, bool),
) -> usize {
    // The names below are 3 to 9 letters long, and start with one of
    // these: most tags are passed over at once.
    if !(3..=9).contains(&tag.len())
        || !matches!(tag.first(), Some(b's' | b'x' | b'i' | b'n' | b't' | b'p'))
    {
        return from;
    }
    let (decode, gather, kind) = match tag {
        b"script" => (false, scripts, Stretch::Script),
        b"style" => (false, scripts, Stretch::Style),
        b"xmp" | b"iframe" | b"noembed" | b"noframes" => (false, text && scripts, Stretch::Text),
        b"title" | b"textarea" => (true, text, Stretch::Text),
        b"plaintext" => {
            if text {
                push_text(s, html, from, html.len(), false);
            }
            return html.len();
        }
        _ => return from,
    };
    let end = find_end_tag(html, from, tag);
    if tag == b"style" && !base_only {
        let css = html.get(from..end).unwrap_or_default();
        for (us, ue) in css_urls(css) {
            s.attrs.push(AttrUrl {
                tag: Cow::Borrowed("style"),
                attr: "",
                raw_start: from + us,
                raw_end: from + ue,
                value: Cow::Borrowed(css.get(us..ue).unwrap_or_default()),
                css: true,
                rel: None,
            });
        }
    }
    if gather {
        push_stretch(s, html, (from, end), decode.then_some(false), kind);
    }
    end
}

/// The offset of `</tag` (ASCII case-insensitive, then a space, `/` or `>`)
/// at or after `from`, or the end of the document.
fn find_end_tag(html: &[u8], from: usize, tag: &[u8]) -> usize {
    let mut i = from;
    while let Some(p) = memchr::memmem::find(html.get(i..).unwrap_or_default(), b"</") {
        let at = i + p;
        let name = html.get(at + 2..at + 2 + tag.len()).unwrap_or_default();
        if name.eq_ignore_ascii_case(tag)
            && html
                .get(at + 2 + tag.len())
                .is_none_or(|&b| is_space(b) || b == b'/' || b == b'>')
        {
            return at;
        }
        i = at + 2;
    }
    html.len()
}

/// The URL of a `<meta http-equiv=refresh content="5; url=...">` value, as
/// the WHATWG "shared declarative refresh steps" find it: after the delay,
/// `;` or `,`, then optional `url=`, optionally quoted.
pub(crate) fn refresh_url(c: &[u8]) -> Option<(usize, usize)> {
    let n = c.len();
    let mut i = 0;
    while i < n && is_space(c[i]) {
        i += 1;
    }
    while i < n && (c[i].is_ascii_digit() || c[i] == b'.') {
        i += 1;
    }
    while i < n && is_space(c[i]) {
        i += 1;
    }
    if i < n && (c[i] == b';' || c[i] == b',') {
        i += 1;
    } else if i < n {
        return None;
    }
    while i < n && is_space(c[i]) {
        i += 1;
    }
    if i >= n {
        return None;
    }
    let rest = c.get(i..).unwrap_or_default();
    if rest.len() >= 3
        && rest
            .get(..3)
            .is_some_and(|u| u.eq_ignore_ascii_case(b"url"))
    {
        let mut j = i + 3;
        while j < n && is_space(c[j]) {
            j += 1;
        }
        if c.get(j) == Some(&b'=') {
            j += 1;
            while j < n && is_space(c[j]) {
                j += 1;
            }
            i = j;
        }
    }
    let mut end = n;
    if let Some(&q @ (b'"' | b'\'')) = c.get(i) {
        i += 1;
        end = memchr::memchr(q, c.get(i..).unwrap_or_default()).map_or(n, |p| i + p);
    }
    (i < end).then_some((i, end))
}

/// The URL of each `srcset` candidate (WHATWG "parse a srcset attribute"):
/// candidates are separated by commas; a URL runs to whitespace, and a
/// comma that ends it is not part of it; descriptors run to the next comma
/// outside parentheses.
pub(crate) fn srcset(v: &[u8]) -> Vec<(usize, usize)> {
    let n = v.len();
    let mut out = Vec::new();
    let mut i = 0;
    loop {
        while i < n && (is_space(v[i]) || v[i] == b',') {
            i += 1;
        }
        if i >= n {
            return out;
        }
        let us = i;
        while i < n && !is_space(v[i]) {
            i += 1;
        }
        let mut ue = i;
        let mut had_comma = false;
        while ue > us && v[ue - 1] == b',' {
            ue -= 1;
            had_comma = true;
        }
        if ue > us {
            out.push((us, ue));
        }
        if had_comma {
            continue;
        }
        // Descriptors: to a comma outside parentheses.
        let mut depth = 0u32;
        while i < n {
            match v[i] {
                b'(' => depth += 1,
                b')' => depth = depth.saturating_sub(1),
                b',' if depth == 0 => break,
                _ => {}
            }
            i += 1;
        }
    }
}

/// How many bytes of a resource MIME sniffing looks at (WHATWG's "resource
/// header": at most 1445 bytes).
pub const SNIFF_LEN: usize = 1445;

/// Does `bytes` start like an HTML document? WHATWG MIME sniffing ("rules
/// for identifying an unknown MIME type", the HTML patterns): in the first
/// [`SNIFF_LEN`] bytes, after leading whitespace (tab, LF, FF, CR, space),
/// one of `<!DOCTYPE HTML`, `<HTML`, `<HEAD`, `<SCRIPT`, `<IFRAME`, `<H1`,
/// `<DIV`, `<FONT`, `<TABLE`, `<A`, `<STYLE`, `<TITLE`, `<B`, `<BODY`,
/// `<BR`, `<P` or `<!--`, ASCII case-insensitive, followed by a space or
/// `>`.
///
/// One deliberate difference: a byte order mark before the whitespace is
/// skipped (WHATWG's table ranks the BOM's own row below the HTML rows and
/// calls such a resource `text/plain`; editors write one in front of many
/// HTML files). After a UTF-16 one, the patterns are looked for in UTF-16.
///
/// ```
/// use urlsift_html::sniff_html;
/// assert!(sniff_html(b"\xef\xbb\xbf\n  <!doctype html><p>hi"));
/// assert!(sniff_html(b"<a href=x>"));
/// assert!(!sniff_html(b"<abbr>"));
/// assert!(!sniff_html(b"hello <html>"));
/// ```
pub fn sniff_html(bytes: &[u8]) -> bool {
    const PATTERNS: [&[u8]; 17] = [
        b"<!DOCTYPE HTML",
        b"<HTML",
        b"<HEAD",
        b"<SCRIPT",
        b"<IFRAME",
        b"<H1",
        b"<DIV",
        b"<FONT",
        b"<TABLE",
        b"<A",
        b"<STYLE",
        b"<TITLE",
        b"<B",
        b"<BODY",
        b"<BR",
        b"<P",
        b"<!--",
    ];
    let b = bytes.get(..SNIFF_LEN).unwrap_or(bytes);
    let utf16 = match b.get(..2) {
        Some([0xff, 0xfe]) => Some(true),
        Some([0xfe, 0xff]) => Some(false),
        _ => None,
    };
    if let Some(le) = utf16 {
        // Its ASCII characters, up to the first other one.
        let ascii: Vec<u8> = b
            .get(2..)
            .unwrap_or_default()
            .chunks_exact(2)
            .map_while(|c| {
                let (lo, hi) = if le { (c[0], c[1]) } else { (c[1], c[0]) };
                (hi == 0 && lo < 0x80).then_some(lo)
            })
            .collect();
        return sniff_patterns(&ascii, &PATTERNS);
    }
    let b = b.strip_prefix(b"\xef\xbb\xbf").unwrap_or(b);
    sniff_patterns(b, &PATTERNS)
}

/// Whether `b` starts, after whitespace, with one of `patterns` followed
/// by a space or `>`.
fn sniff_patterns(b: &[u8], patterns: &[&[u8]]) -> bool {
    let start = b.iter().position(|&c| !is_space(c)).unwrap_or(b.len());
    let b = b.get(start..).unwrap_or_default();
    patterns.iter().any(|p| {
        b.get(..p.len()).is_some_and(|h| h.eq_ignore_ascii_case(p))
            && matches!(b.get(p.len()), Some(b' ' | b'>'))
    })
}

#[cfg(test)]
mod tests {
    use super::sniff_html;
    use proptest::prelude::*;

    /// WHATWG's HTML patterns, as its table writes them.
    const TABLE: [&str; 17] = [
        "<!DOCTYPE HTML",
        "<HTML",
        "<HEAD",
        "<SCRIPT",
        "<IFRAME",
        "<H1",
        "<DIV",
        "<FONT",
        "<TABLE",
        "<A",
        "<STYLE",
        "<TITLE",
        "<B",
        "<BODY",
        "<BR",
        "<P",
        "<!--",
    ];

    #[test]
    fn sniff_matches_each_pattern_in_any_case_before_space_or_gt() {
        for p in TABLE {
            for case in [p.to_owned(), p.to_ascii_lowercase(), mixed(p)] {
                for tt in [" ", ">"] {
                    let doc = format!("{case}{tt}rest");
                    assert!(sniff_html(doc.as_bytes()), "{doc:?}");
                }
                // Followed by anything else, or by nothing, it is no match.
                for other in ["", "x", "1", "\t", "\n", "/", "-"] {
                    let doc = format!("{case}{other}");
                    assert!(!sniff_html(doc.as_bytes()), "{doc:?}");
                }
            }
        }
    }

    fn mixed(p: &str) -> String {
        p.chars()
            .enumerate()
            .map(|(i, c)| {
                if i % 2 == 0 {
                    c.to_ascii_lowercase()
                } else {
                    c
                }
            })
            .collect()
    }

    #[test]
    fn stretches_that_may_hold_urls() {
        for t in [
            &b"see http://a"[..],
            b"mailto:x",
            b"WWW.example",
            b"a &amp; b",
            b"x:y",
        ] {
            assert!(super::may_hold_url(t), "{t:?}");
        }
        for t in [
            &b""[..],
            b"  \n ",
            b"Note: x",
            b"10 :30",
            b"a::b",
            b"www",
            b"end.",
        ] {
            assert!(!super::may_hold_url(t), "{t:?}");
        }
    }

    #[test]
    fn duplicate_url_attributes_count_once_whatever_their_case() {
        let page = b"<a HREF=/a href=/b Src=/c src=/d style='background:url(/e)' STYLE='x:url(/f)'><base href=/x>";
        let mut got = Vec::new();
        crate::html_links(
            page,
            Some("http://h/"),
            &crate::LinkOptions::links_only(),
            |l| got.push(l.url),
        );
        assert_eq!(got, ["http://h/a", "http://h/c", "http://h/e"]);
    }

    #[test]
    fn tag_names_are_borrowed_for_url_elements() {
        use std::borrow::Cow;
        for t in ["a", "img", "link", "meta", "use"] {
            assert!(matches!(super::tag_name(t.as_bytes()), Cow::Borrowed(n) if n == t));
        }
        let n = super::tag_name(b"my-el");
        assert!(matches!(&n, Cow::Owned(n) if n == "my-el"));
    }

    #[test]
    fn sniff_skips_whitespace_and_a_bom() {
        for lead in ["", " ", "\t\n\x0c\r ", "\u{feff}", "\u{feff}\r\n  "] {
            let doc = format!("{lead}<html><p>x");
            assert!(sniff_html(doc.as_bytes()), "{doc:?}");
        }
        // A vertical tab is not whitespace here; a BOM after whitespace
        // is not skipped.
        for doc in [
            &b"\x0b<html>"[..],
            b" \xef\xbb\xbf<html>",
            b"<\0h\0t\0m\0l\0>\0",
        ] {
            assert!(!sniff_html(doc), "{doc:?}");
        }
        // After a UTF-16 BOM, the patterns in UTF-16.
        for doc in [
            &b"\xff\xfe<\0h\0t\0m\0l\0>\0"[..],
            b"\xfe\xff\0<\0h\0t\0m\0l\0>",
            b"\xff\xfe \0\n\0<\0P\0 \0",
        ] {
            assert!(sniff_html(doc), "{doc:?}");
        }
        assert!(!sniff_html(b"\xff\xfe<\0h\0t\0m\0l\0x\0"));
    }

    #[test]
    fn sniff_rejects_other_starts() {
        for doc in [
            &b"<htmlx>"[..],
            b"<abbr>",
            b"<br/>",
            b"<h2>",
            b"<!DOCTYPE html5>",
            b"<!DOCTYPEHTML>",
            b"<!- x>",
            b"hello <html>",
            b"<?xml version='1.0'?><html>",
            b"",
            b"<",
            b"   ",
        ] {
            assert!(!sniff_html(doc), "{doc:?}");
        }
    }

    #[test]
    fn sniff_looks_at_the_resource_header_only() {
        let mut doc = vec![b' '; super::SNIFF_LEN - 3];
        doc.extend_from_slice(b"<p>");
        assert!(sniff_html(&doc));
        doc.extend_from_slice(b" x");
        assert!(sniff_html(&doc));
        doc.insert(0, b' ');
        assert!(!sniff_html(&doc), "the `>` is past the 1445th byte");
    }

    proptest! {
        /// A stretch not gathered holds no URL the extractor finds, alone
        /// or between NULs as gathered stretches are.
        #[test]
        fn a_stretch_left_out_holds_no_url(t in proptest::collection::vec(prop::sample::select(vec![
            &b"a"[..], b"W", b"w", b"www", b".", b":", b"/", b"//", b"&", b" ", b"\n", b"1", b"+", b"-",
            b"http", b"mailto", b"x@y", b"\xc3\xa9", b"\"", b"<", b">", b"URL", b"\0",
        ]), 0..12)) {
            let t = t.concat();
            if !super::may_hold_url(&t) {
                for text in [t.clone(), [&b"\0"[..], &t, b"\0"].concat()] {
                    let mut n = 0;
                    crate::engine::scan_text(&text, |_| n += 1);
                    prop_assert_eq!(n, 0, "{:?}", String::from_utf8_lossy(&text));
                }
            }
        }

        #[test]
        fn colon_or_amp_is_any(v in proptest::collection::vec(prop::sample::select(vec![b':', b'a', b'&', 0xba, 0xa6, b'9', 0x3b]), 0..80)) {
            prop_assert_eq!(super::colon_or_amp(&v), v.iter().any(|&b| b == b':' || b == b'&'));
        }

        #[test]
        fn find_is_position(hay in proptest::collection::vec(prop::sample::select(vec![b'<', b'a', b'&', 0x80, 0xbc, 0x3d]), 0..80), needle in prop::sample::select(vec![b'<', b'&', 0xbc])) {
            prop_assert_eq!(super::find(needle, &hay), hay.iter().position(|&b| b == needle));
        }
    }
}
