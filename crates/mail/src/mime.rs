//! A fast path for well-formed multipart messages: the MIME tree is walked
//! here, with `memmem` jumping from boundary to boundary, instead of being
//! built by mail-parser (which reads every body byte by byte and converts
//! every text body from its charset before urlsift decodes it again; that was
//! about 45% of the `--mail` time).
//!
//! The walk gives exactly the parts, offsets and content types mail-parser
//! gives (as configured in [`super::message::parser`]), because it accepts
//! only a strict subset of MIME where the two must agree, and gives up
//! (returns `None`, and the message goes to mail-parser) on anything else:
//!
//! - header blocks of `Name: value` lines (a name of printable ASCII, no
//!   spaces) and continuation lines holding more than blanks, ended by an
//!   empty line; CR only just before LF;
//! - one Content-Type per part, `type/subtype` then `; name=value`
//!   parameters (a token or a quoted string without `\`), ASCII, no comments,
//!   no RFC 2231 (`*`) or RFC 2047 (`=?`) parameters;
//! - at most one Message-ID in the message's own header block, exactly
//!   `<id>`;
//! - every multipart (not `multipart/digest`) has a boundary, each boundary
//!   delimiter is followed by a line end or (closing) `--`, every part is
//!   ended by a delimiter and every multipart by its closing delimiter;
//! - no `message/rfc822` or `message/global` parts; at most [`MAX_DEPTH`]
//!   nested multiparts.
//!
//! As in mail-parser, a delimiter is `--boundary` anywhere (not only at a line
//! start), found by the first match; a part's body ends before the line end
//! that precedes its delimiter (when the delimiter starts a line).

use std::ops::Range;

use memchr::memmem;

/// Deepest nesting of multiparts walked here.
pub(crate) const MAX_DEPTH: usize = 32;

/// What a part is, for scanning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A multipart container (its parts follow it).
    Multipart,
    /// A text part other than HTML (`text/*`, a report read as text:
    /// [`is_textual_message`], or no Content-Type).
    Text,
    /// A text/html part.
    Html,
    /// Anything else: skipped.
    Other,
}

/// Whether `message/SUBTYPE` (subtype in lower case) is a report whose body
/// is text a reader is shown, read as a text part: an RFC 3464 delivery
/// status, an RFC 8098 disposition notification, an RFC 5965 feedback
/// report, their RFC 6533 `global-` forms, and a returned message's header
/// block (`text/rfc822-headers`, which some mailers label
/// `message/rfc822-headers`, and `message/global-headers`). URLs in them
/// are what a bounce points to (`Diagnostic-Code: smtp; 550 see
/// https://...`).
pub(crate) fn is_textual_message(subtype: &str) -> bool {
    matches!(
        subtype,
        "delivery-status"
            | "global-delivery-status"
            | "disposition-notification"
            | "global-disposition-notification"
            | "feedback-report"
            | "rfc822-headers"
            | "global-headers"
    )
}

/// One part, in depth-first order (containers before their parts).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Part {
    /// The part's header block (for a message's root part, from its first
    /// header to the start of the body, blank line included).
    pub header: Range<usize>,
    /// The raw (still transfer-encoded) body.
    pub body: Range<usize>,
    /// What it is.
    pub kind: Kind,
    /// `type/subtype`, lower case (`text/plain` when absent).
    pub content_type: String,
    /// The first `charset` parameter, as written (quotes removed).
    pub charset: Option<String>,
    /// The multipart holding it (an index into [`Walked::parts`]); `None`
    /// for the message itself.
    pub parent: Option<usize>,
}

/// A multipart message walked.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Walked {
    /// Its parts; the first is the message itself (a multipart).
    pub parts: Vec<Part>,
    /// The Message-ID, without `<>`.
    pub message_id: Option<String>,
}

/// Walk the multipart message `msg`; `None` when it is not multipart or
/// leaves the subset described in the module docs.
pub(crate) fn walk(msg: &[u8]) -> Option<Walked> {
    let head = head(msg, 0, true)?;
    let ct = head.content_type?;
    if ct.ctype != "multipart" {
        return None;
    }
    let mut parts = Vec::with_capacity(8);
    let message_id = head.message_id;
    multipart(msg, 0..head.body, &ct, &mut parts, None, 0)?;
    Some(Walked { parts, message_id })
}

/// Push the multipart part whose header block is `header` (held by the
/// multipart `parent`) and its parts; returns the offset after its closing
/// delimiter.
fn multipart(
    msg: &[u8],
    header: Range<usize>,
    ct: &ContentType,
    parts: &mut Vec<Part>,
    parent: Option<usize>,
    depth: usize,
) -> Option<usize> {
    if depth >= MAX_DEPTH || ct.subtype == "digest" {
        return None;
    }
    let boundary = ct.attribute("boundary")?;
    let mut delim = Vec::with_capacity(boundary.len() + 2);
    delim.extend_from_slice(b"--");
    delim.extend_from_slice(boundary.as_bytes());
    let finder = memmem::Finder::new(&delim);
    let body = header.end;
    let me = parts.len();
    parts.push(Part {
        header,
        body: body..body,
        kind: Kind::Multipart,
        content_type: ct.type_subtype(),
        charset: ct.attribute("charset").map(str::to_owned),
        parent,
    });
    let first = body + finder.find(&msg[body..])?;
    let mut pos = line_end(msg, first + delim.len())?;
    loop {
        let head = head(msg, pos, false)?;
        let after = match &head.content_type {
            Some(ct) if ct.ctype == "multipart" => {
                let end = multipart(msg, pos..head.body, ct, parts, Some(me), depth + 1)?;
                end + finder.find(&msg[end..])? + delim.len()
            }
            ct => {
                let (kind, content_type) = match ct {
                    None => (Kind::Text, "text/plain".to_owned()),
                    Some(ct) => match ct.ctype.as_str() {
                        "text" if ct.subtype == "html" => (Kind::Html, ct.type_subtype()),
                        "text" => (Kind::Text, ct.type_subtype()),
                        "message" if ct.subtype == "rfc822" || ct.subtype == "global" => {
                            return None;
                        }
                        "message" if is_textual_message(&ct.subtype) => {
                            (Kind::Text, ct.type_subtype())
                        }
                        _ => (Kind::Other, ct.type_subtype()),
                    },
                };
                let start = head.body;
                let m = start + finder.find(&msg[start..])?;
                let end = if m > start && msg[m - 1] == b'\n' {
                    if m - 1 > start && msg[m - 2] == b'\r' {
                        m - 2
                    } else {
                        m - 1
                    }
                } else {
                    m
                };
                parts.push(Part {
                    header: pos..start,
                    body: start..end,
                    kind,
                    content_type,
                    charset: ct
                        .as_ref()
                        .and_then(|c| c.attribute("charset"))
                        .map(str::to_owned),
                    parent: Some(me),
                });
                m + delim.len()
            }
        };
        // After a delimiter: `--` closes the multipart, a line end starts
        // the next part.
        if msg[after..].starts_with(b"--") {
            return Some(after + 2);
        }
        pos = line_end(msg, after)?;
    }
}

/// The offset after the line end (LF or CRLF) at `at`.
fn line_end(msg: &[u8], at: usize) -> Option<usize> {
    match &msg[at..] {
        [b'\n', ..] => Some(at + 1),
        [b'\r', b'\n', ..] => Some(at + 2),
        _ => None,
    }
}

/// A parsed Content-Type.
#[derive(Debug, PartialEq, Eq)]
struct ContentType {
    /// Lower case.
    ctype: String,
    /// Lower case.
    subtype: String,
    /// Parameters: (lower-case name, value) in order.
    params: Vec<(String, String)>,
}

impl ContentType {
    /// The first parameter called `name`.
    fn attribute(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    fn type_subtype(&self) -> String {
        format!("{}/{}", self.ctype, self.subtype)
    }
}

/// A header block read.
struct Head {
    /// Where the body starts (after the blank line).
    body: usize,
    content_type: Option<ContentType>,
    message_id: Option<String>,
}

/// Read the header block at `at`; `root`: the message's own block (the
/// Message-ID counts, and it must not be empty).
fn head(msg: &[u8], at: usize, root: bool) -> Option<Head> {
    let mut h = Head {
        body: 0,
        content_type: None,
        message_id: None,
    };
    let mut i = at;
    // The field being read: (name, value start) and whether one is open.
    let mut field: Option<(&[u8], usize)> = None;
    let mut seen_id = false;
    loop {
        let nl = i + memchr::memchr(b'\n', &msg[i..])?;
        let mut line = &msg[i..nl];
        if let [rest @ .., b'\r'] = line {
            line = rest;
        }
        if memchr::memchr(b'\r', line).is_some() {
            return None;
        }
        let continuation = matches!(line.first(), Some(b' ' | b'\t'));
        if !continuation && let Some((name, from)) = field.take() {
            // The previous field ends before this line.
            let value = &msg[from..i];
            if name.eq_ignore_ascii_case(b"content-type") {
                if h.content_type.is_some() {
                    return None;
                }
                h.content_type = Some(content_type(value)?);
            } else if root && name.eq_ignore_ascii_case(b"message-id") {
                if seen_id {
                    return None;
                }
                seen_id = true;
                h.message_id = Some(message_id(value)?);
            }
        }
        if line.is_empty() {
            if root && i == at {
                return None;
            }
            h.body = nl + 1;
            return Some(h);
        }
        if continuation {
            // A continuation needs a field before it and more than blanks.
            if i == at || line.trim_ascii().is_empty() {
                return None;
            }
        } else {
            let colon = memchr::memchr(b':', line)?;
            let name = &line[..colon];
            if name.is_empty() || !name.iter().all(|&b| (b'!'..=b'~').contains(&b)) {
                return None;
            }
            let wanted = name.eq_ignore_ascii_case(b"content-type")
                || root && name.eq_ignore_ascii_case(b"message-id");
            if wanted {
                field = Some((name, i + colon + 1));
            }
        }
        i = nl + 1;
    }
}

/// `<id>` (folding blanks around it allowed): the id.
fn message_id(value: &[u8]) -> Option<String> {
    let v = value.trim_ascii();
    let id = v.strip_prefix(b"<")?.strip_suffix(b">")?;
    let ok = !id.is_empty()
        && id
            .iter()
            .all(|&b| (b'!'..=b'~').contains(&b) && !b"<>()".contains(&b));
    ok.then(|| String::from_utf8_lossy(id).into_owned())
}

/// A byte of an RFC 2045 token, as far as both parsers agree on it.
fn token_byte(b: u8) -> bool {
    (b'!'..=b'~').contains(&b) && !b"()<>@,;:\\\"/[]?=*'".contains(&b)
}

/// Skip blanks and folds (a line end followed by a blank).
fn skip_blanks(v: &[u8], mut i: usize) -> usize {
    while i < v.len() {
        match v[i] {
            b' ' | b'\t' | b'\n' => i += 1,
            b'\r' if v.get(i + 1) == Some(&b'\n') => i += 1,
            _ => break,
        }
    }
    i
}

/// Parse a Content-Type value (the field after `:`, line end included).
fn content_type(value: &[u8]) -> Option<ContentType> {
    // Drop the final line end: the rest holds only folds.
    let v = value.strip_suffix(b"\n").unwrap_or(value);
    let v = v.strip_suffix(b"\r").unwrap_or(v);
    if !v.is_ascii() {
        return None;
    }
    let tok = |i: usize| i + v[i..].iter().take_while(|&&b| token_byte(b)).count();
    let mut i = skip_blanks(v, 0);
    let t_end = tok(i);
    if t_end == i || v.get(t_end) != Some(&b'/') {
        return None;
    }
    let ctype = v[i..t_end].to_ascii_lowercase();
    i = t_end + 1;
    let s_end = tok(i);
    if s_end == i {
        return None;
    }
    let subtype = v[i..s_end].to_ascii_lowercase();
    i = skip_blanks(v, s_end);
    let mut params = Vec::new();
    while i < v.len() {
        if v[i] != b';' {
            return None;
        }
        i = skip_blanks(v, i + 1);
        if i == v.len() {
            break;
        }
        let n_end = tok(i);
        if n_end == i || v.get(n_end) != Some(&b'=') {
            return None;
        }
        let name = v[i..n_end].to_ascii_lowercase();
        i = n_end + 1;
        let value = if v.get(i) == Some(&b'"') {
            let len = v[i + 1..]
                .iter()
                .take_while(|&&b| {
                    b == b'\t' || (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\'
                })
                .count();
            let q_end = i + 1 + len;
            if len == 0 || v.get(q_end) != Some(&b'"') {
                return None;
            }
            let value = &v[i + 1..q_end];
            i = q_end + 1;
            value
        } else {
            let len = v[i..]
                .iter()
                .take_while(|&&b| (b'!'..=b'~').contains(&b) && !b";\"\\()".contains(&b))
                .count();
            if len == 0 {
                return None;
            }
            let value = &v[i..i + len];
            i += len;
            value
        };
        if memmem::find(value, b"=?").is_some() {
            return None;
        }
        params.push((
            String::from_utf8_lossy(&name).into_owned(),
            String::from_utf8_lossy(value).into_owned(),
        ));
        i = skip_blanks(v, i);
    }
    Some(ContentType {
        ctype: String::from_utf8_lossy(&ctype).into_owned(),
        subtype: String::from_utf8_lossy(&subtype).into_owned(),
        params,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_content_types() {
        let ct =
            content_type(b" Multipart/Alternative;\r\n\tBoundary=\"--=_x y\"; charset=utf-8\r\n")
                .unwrap();
        assert_eq!(
            (ct.ctype.as_str(), ct.subtype.as_str()),
            ("multipart", "alternative")
        );
        assert_eq!(ct.attribute("boundary"), Some("--=_x y"));
        assert_eq!(ct.attribute("charset"), Some("utf-8"));
        for bad in [
            &b"text\n"[..],
            b"text/plain; name*=x\n",
            b"text/plain (comment)\n",
            b"text/plain; name=\"a\\\"b\"\n",
            b"text/plain; name==?utf-8?q?x?=\n",
            b"multipart/mixed\n boundary=x\n",
            b"text/plain;; a=b\n",
            b"text/plain; a=\"\"\n",
        ] {
            assert_eq!(
                content_type(bad),
                None,
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn walks_nested_multiparts() {
        let m = b"Message-ID: <m@x>\nContent-Type: multipart/mixed; boundary=out\n\npreamble\n--out\nContent-Type: multipart/alternative; boundary=in\n\n--in\n\nplain\n--in\r\nContent-Type: text/html\r\n\r\n<p>x</p>\r\n--in--\nepilogue\n--out\nContent-Type: image/png\n\nPNG\n--out--\n";
        let w = walk(m).unwrap();
        assert_eq!(w.message_id.as_deref(), Some("m@x"));
        let kinds: Vec<_> = w
            .parts
            .iter()
            .map(|p| (p.kind, p.content_type.as_str()))
            .collect();
        assert_eq!(
            kinds,
            [
                (Kind::Multipart, "multipart/mixed"),
                (Kind::Multipart, "multipart/alternative"),
                (Kind::Text, "text/plain"),
                (Kind::Html, "text/html"),
                (Kind::Other, "image/png"),
            ]
        );
        assert_eq!(&m[w.parts[2].body.clone()], b"plain");
        assert_eq!(&m[w.parts[3].body.clone()], b"<p>x</p>");
        assert_eq!(&m[w.parts[4].body.clone()], b"PNG");
        let parents: Vec<_> = w.parts.iter().map(|p| p.parent).collect();
        assert_eq!(parents, [None, Some(0), Some(1), Some(1), Some(0)]);
        // No closing delimiter, a message/rfc822 part, a digest: not here.
        assert!(walk(b"Content-Type: multipart/mixed; boundary=b\n\n--b\n\nx\n--b\n").is_none());
        assert!(walk(b"Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: message/rfc822\n\nA: b\n\nx\n--b--\n").is_none());
        assert!(
            walk(b"Content-Type: multipart/digest; boundary=b\n\n--b\n\nA: b\n\nx\n--b--\n")
                .is_none()
        );
        assert!(walk(b"Content-Type: text/plain\n\nx\n").is_none());
    }
}
