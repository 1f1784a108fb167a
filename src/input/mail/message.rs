//! One message: parse it (mail-parser), then scan its unfolded headers and
//! every text part after transfer and charset decoding.

use std::borrow::Cow;

use mail_parser::decoders::base64::base64_decode;
use mail_parser::decoders::charsets::map::charset_decoder;
use mail_parser::decoders::quoted_printable::quoted_printable_decode;
use mail_parser::{Encoding, Message, MessageParser, MessagePart, MimeHeaders, PartType};
use memchr::memmem;

use super::html::decode_refs;
use super::mbox::{Unquoted, unquote};
use super::{Found, MailWhere, Problem, Scanned};
use crate::extract::{Extractor, Match};
use crate::parallel::LineCounter;

/// The content type reported for a message's header block.
pub const HEADER_TYPE: &str = "header";

/// The parser: MIME headers and Message-ID parsed, every other header skipped
/// (headers are scanned from the raw, unfolded text instead).
pub fn parser() -> MessageParser {
    MessageParser::new()
        .with_mime_headers()
        .with_message_ids()
        .default_header_ignore()
}

/// Where a (possibly nested) message lies in the file.
#[derive(Clone, Copy)]
struct Base {
    /// Offset of the nested message in the unquoted top-level message, when
    /// every enclosing part was stored without transfer encoding.
    at: Option<usize>,
    /// The file offset to report when `at` is `None`: the enclosing part's body.
    fallback: u64,
}

struct Walk<'a> {
    ex: &'a Extractor,
    uq: &'a Unquoted<'a>,
    file_offset: u64,
    index: u64,
    message_id: Option<String>,
    next_part: u32,
    out: &'a mut Scanned,
    problems: usize,
}

/// Scan the message `raw` (the `index`-th of its file, at `file_offset`).
/// `mboxrd`: undo `>From ` quoting first. Never fails: problems are recorded
/// in `out` and what can be scanned is scanned.
pub fn scan_message(
    ex: &Extractor,
    parser: &MessageParser,
    raw: &[u8],
    file_offset: u64,
    index: u64,
    mboxrd: bool,
    out: &mut Scanned,
) {
    out.stats.messages += 1;
    let uq = if mboxrd {
        unquote(raw)
    } else {
        Unquoted::borrowed(raw)
    };
    let msg = parser.parse(&uq.text[..]);
    let mut w = Walk {
        ex,
        uq: &uq,
        file_offset,
        index,
        message_id: msg
            .as_ref()
            .and_then(|m| m.message_id())
            .map(str::to_owned),
        next_part: 1,
        out,
        problems: 0,
    };
    match &msg {
        Some(m) => {
            let base = Base {
                at: Some(0),
                fallback: file_offset,
            };
            w.headers(m, 0, base);
            w.parts(m, base);
        }
        None => {
            // Not even a header block: scan the bytes as they are.
            w.problem(0, "no message headers; scanned as plain text".into());
            w.scan(&uq.text, 0, "text/plain".into(), file_offset);
        }
    }
    if w.problems > 0 {
        w.out.stats.problem_messages += 1;
    }
}

impl Walk<'_> {
    fn file_pos(&self, base: Base, off: usize) -> u64 {
        match base.at {
            Some(b) => self.file_offset + self.uq.original(b + off) as u64,
            None => base.fallback,
        }
    }

    fn problem(&mut self, offset: u64, what: String) {
        self.problems += 1;
        self.out.stats.problems += 1;
        self.out.problems.push(Problem {
            message: self.index,
            offset,
            what,
        });
    }

    /// Scan the (unfolded) header block of `m` as part `part`.
    fn headers(&mut self, m: &Message<'_>, part: u32, base: Base) {
        let Some(root) = m.parts.first() else { return };
        let raw = m.raw_message();
        let (s, e) = (root.offset_header as usize, root.offset_body as usize);
        let Some(block) = raw.get(s..e.min(raw.len())) else {
            return;
        };
        let text = unfold(block);
        let ty = HEADER_TYPE.to_owned();
        let at = self.file_pos(base, s);
        self.scan(&text, part, ty, at);
    }

    /// Walk the parts of `m` in order (depth first), scanning text parts.
    fn parts(&mut self, m: &Message<'_>, base: Base) {
        let raw = m.raw_message();
        for part in &m.parts {
            let n = self.next_part;
            self.next_part += 1;
            let body_at = self.file_pos(base, part.offset_body as usize);
            let ty = content_type(part);
            if part.encoding == Encoding::Base64 {
                self.check_base64(raw, part, n, &ty, body_at);
            }
            if ty.starts_with("multipart/") {
                self.check_boundary(raw, part, n, body_at);
            }
            if part.is_encoding_problem {
                let b64 = part
                    .content_transfer_encoding()
                    .is_some_and(|c| c.trim().eq_ignore_ascii_case("base64"));
                if b64 && let Some(text) = salvage_base64(raw, part) {
                    self.problem(
                        body_at,
                        format!(
                            "part {n} ({ty}): truncated base64; scanned the {} bytes that decode",
                            text.len()
                        ),
                    );
                    self.out.stats.parts_scanned += 1;
                    self.out.stats.decoded_bytes += text.len() as u64;
                    self.scan(&text, n, ty, body_at);
                    continue;
                }
                self.problem(
                    body_at,
                    format!("part {n} ({ty}): could not be decoded; scanned as it is"),
                );
            }
            match &part.body {
                PartType::Text(t) => self.text(raw, part, t, false, n, ty, body_at),
                PartType::Html(t) => self.text(raw, part, t, true, n, ty, body_at),
                PartType::Multipart(_) => {}
                PartType::Message(inner) => {
                    let nested = Base {
                        at: match (base.at, part.encoding) {
                            (Some(b), Encoding::None) => Some(b + part.offset_body as usize),
                            _ => None,
                        },
                        fallback: body_at,
                    };
                    self.headers(inner, n, nested);
                    self.parts(inner, nested);
                }
                PartType::Binary(_) | PartType::InlineBinary(_) => {
                    self.out.stats.parts_skipped += 1;
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn text(
        &mut self,
        raw: &[u8],
        part: &MessagePart<'_>,
        decoded: &str,
        html: bool,
        n: u32,
        ty: String,
        at: u64,
    ) {
        let charset = part
            .content_type()
            .and_then(|ct| ct.attribute("charset"))
            .unwrap_or("us-ascii");
        let bytes: Cow<'_, [u8]> = if known_charset(charset) {
            if html {
                match decode_refs(decoded) {
                    Cow::Borrowed(s) => Cow::Borrowed(s.as_bytes()),
                    Cow::Owned(s) => Cow::Owned(s.into_bytes()),
                }
            } else {
                Cow::Borrowed(decoded.as_bytes())
            }
        } else {
            // Unknown charset: the transfer-decoded bytes, as they are.
            self.out.stats.unknown_charset += 1;
            let body = raw
                .get(part.offset_body as usize..part.offset_end as usize)
                .unwrap_or_default();
            let b = match part.encoding {
                Encoding::None => Some(Cow::Borrowed(body)),
                Encoding::QuotedPrintable => quoted_printable_decode(body).map(Cow::Owned),
                Encoding::Base64 => base64_decode(body).map(Cow::Owned),
            };
            b.unwrap_or(Cow::Borrowed(decoded.as_bytes()))
        };
        self.out.stats.parts_scanned += 1;
        self.out.stats.decoded_bytes += bytes.len() as u64;
        self.scan(&bytes, n, ty, at);
    }

    fn check_base64(&mut self, raw: &[u8], part: &MessagePart<'_>, n: u32, ty: &str, at: u64) {
        let body = raw
            .get(part.offset_body as usize..part.offset_end as usize)
            .unwrap_or_default();
        let mut len = 0usize;
        let mut pad = false;
        for &b in body {
            len += usize::from(!b.is_ascii_whitespace());
            pad |= b == b'=';
        }
        if len % 4 != 0 {
            let what = if pad {
                "malformed base64"
            } else {
                "truncated base64"
            };
            self.problem(at, format!("part {n} ({ty}): {what} ({len} characters)"));
        }
    }

    fn check_boundary(&mut self, raw: &[u8], part: &MessagePart<'_>, n: u32, at: u64) {
        let Some(b) = part.content_type().and_then(|ct| ct.attribute("boundary")) else {
            self.problem(at, format!("part {n}: multipart without a boundary"));
            return;
        };
        let from = (part.offset_body as usize).min(raw.len());
        let hay = &raw[from..];
        let mut delim = Vec::with_capacity(b.len() + 4);
        delim.extend_from_slice(b"--");
        delim.extend_from_slice(b.as_bytes());
        let Some(first) = memmem::find(hay, &delim) else {
            self.problem(at, format!("part {n}: MIME boundary {b:?} not found"));
            return;
        };
        delim.extend_from_slice(b"--");
        if memmem::find(&hay[first..], &delim).is_none() {
            self.problem(
                at,
                format!("part {n}: closing MIME boundary {b:?} missing (truncated?)"),
            );
        }
    }

    /// Scan `text` (part `part` of type `ty`, at file offset `at`).
    fn scan(&mut self, text: &[u8], part: u32, ty: String, at: u64) {
        let mut lines = LineCounter::default();
        let mut where_at: Option<usize> = None;
        let out = &mut *self.out;
        let mut ty = Some(ty);
        let message_id = &self.message_id;
        let (index, message_offset) = (self.index, self.file_offset);
        self.ex.scan(text, 0, text.len(), 0, |m| {
            let wi = *where_at.get_or_insert_with(|| {
                out.wheres.push(MailWhere {
                    message: index,
                    message_id: message_id.clone(),
                    message_offset,
                    part,
                    content_type: ty.take().unwrap_or_default(),
                    part_offset: at,
                });
                out.wheres.len() - 1
            });
            let line = lines.line_at(text, m.start);
            out.found.push(Found {
                part: wi,
                line,
                m: owned(m),
            });
        });
    }
}

/// The base64 body of `part` cut to whole 4-character groups and decoded:
/// what a truncated or damaged base64 part still says.
fn salvage_base64(raw: &[u8], part: &MessagePart<'_>) -> Option<Vec<u8>> {
    let body = raw.get(part.offset_body as usize..part.offset_end as usize)?;
    let mut clean: Vec<u8> = body
        .iter()
        .copied()
        .take_while(|&b| b != b'-')
        .filter(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
        .collect();
    clean.truncate(clean.len() / 4 * 4);
    base64_decode(&clean)
}

fn owned(m: Match<'_>) -> Match<'static> {
    Match {
        start: m.start,
        end: m.end,
        url: Cow::Owned(m.url.into_owned()),
        style: m.style,
        kind: m.kind,
        ambiguous: m.ambiguous,
    }
}

/// `type/subtype` of a part, lower case; `text/plain` when it has none.
fn content_type(part: &MessagePart<'_>) -> String {
    match part.content_type() {
        Some(ct) => {
            let mut s = ct.ctype().to_ascii_lowercase();
            if let Some(sub) = ct.subtype() {
                s.push('/');
                s.push_str(&sub.to_ascii_lowercase());
            }
            s
        }
        None => "text/plain".to_owned(),
    }
}

/// True when the part's text was decoded from a charset mail-parser knows.
fn known_charset(cs: &str) -> bool {
    let l = cs.trim().trim_matches('"');
    l.eq_ignore_ascii_case("utf-8")
        || l.eq_ignore_ascii_case("utf8")
        || l.eq_ignore_ascii_case("us-ascii")
        || charset_decoder(l.as_bytes()).is_some()
}

/// RFC 5322 unfolding: a line break followed by a space or tab is removed
/// (the space or tab stays).
pub fn unfold(block: &[u8]) -> Cow<'_, [u8]> {
    let folded = |i: usize| matches!(block.get(i + 1), Some(b' ' | b'\t'));
    let mut it = memchr::memchr_iter(b'\n', block).filter(|&i| folded(i));
    let Some(first) = it.next() else {
        return Cow::Borrowed(block);
    };
    let mut out = Vec::with_capacity(block.len());
    let mut prev = 0;
    for i in std::iter::once(first).chain(it) {
        let cut = if i > 0 && block[i - 1] == b'\r' { i - 1 } else { i };
        out.extend_from_slice(&block[prev..cut]);
        prev = i + 1;
    }
    out.extend_from_slice(&block[prev..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unfolds_headers() {
        assert_eq!(
            &*unfold(b"List-Unsubscribe:\r\n <http://x/a>,\n\t<mailto:u@x>\nTo: y\n"),
            b"List-Unsubscribe: <http://x/a>,\t<mailto:u@x>\nTo: y\n"
        );
        assert!(matches!(unfold(b"A: b\nC: d\n"), Cow::Borrowed(_)));
    }
}
