//! One message: parse it (mail-parser), then scan its unfolded headers and
//! every text part after transfer and charset decoding.

use std::borrow::Cow;
use std::ops::Range;

use mail_parser::decoders::charsets::map::charset_decoder;
use mail_parser::{HeaderName, Message, MessageParser, MessagePart, MimeHeaders, PartType};
use memchr::memmem;

use super::charset;
use super::decode::{self, Base64End};
use super::mime;
use super::rfc2047;
use super::simple::{self, Cte};

use super::mbox::{Unquoted, unquote};
use super::{Found, MailWhere, Problem, Scanned};
use urlsift_core::Match;

use crate::part::{PartKind, PartReader, PartText};

/// The content type reported for a message's header block.
pub(crate) const HEADER_TYPE: &str = "header";

/// The parser: Content-Type, Content-Disposition and Message-ID parsed, every
/// other header skipped (headers are scanned from the raw, unfolded text).
/// Content-Transfer-Encoding is left out on purpose, so mail-parser hands
/// back part bodies undecoded (borrowed) and [`decode`] decodes them: its
/// byte-at-a-time decoders were 75% of the time.
pub(crate) fn parser() -> MessageParser {
    MessageParser::new()
        .header_content_type(HeaderName::ContentType)
        .header_content_type(HeaderName::ContentDisposition)
        .with_message_ids()
        .default_header_ignore()
}

/// Read Content-Transfer-Encoding from the raw header block of `part`.
fn transfer_encoding(raw: &[u8], part: &MessagePart<'_>) -> Cte {
    let s = part.offset_header as usize;
    let e = (part.offset_body as usize).min(raw.len());
    raw.get(s..e).map_or(Cte::Identity, block_transfer_encoding)
}

/// Read Content-Transfer-Encoding from a raw header block: the first line
/// that starts with the field name, as written on that line.
fn block_transfer_encoding(block: &[u8]) -> Cte {
    const NAME: &[u8] = b"content-transfer-encoding:";
    let mut at = 0;
    while at + NAME.len() <= block.len() {
        let line_end = memchr::memchr(b'\n', &block[at..]).map_or(block.len(), |n| at + n);
        let line = &block[at..line_end];
        if line.len() >= NAME.len() && line[..NAME.len()].eq_ignore_ascii_case(NAME) {
            return Cte::from_value(&line[NAME.len()..]);
        }
        at = line_end + 1;
    }
    Cte::Identity
}

struct Walk<'a> {
    ex: &'a dyn PartReader,
    uq: &'a Unquoted<'a>,
    file_offset: u64,
    index: u64,
    message_id: Option<String>,
    next_part: u32,
    out: &'a mut Scanned,
    problems: usize,
    /// Reused buffers: transfer-decoded and reference-decoded text.
    buf: Vec<u8>,
    /// Where the text placed so far (header blocks, leaf part bodies, and
    /// the text between them, scanned by [`Walk::gap`]) ends.
    covered: usize,
    /// Bytes the boundary checks may still search ([`Walk::check_boundary`]).
    boundary_budget: usize,
}

impl<'a> Walk<'a> {
    /// A walk over the message `uq` (the `index`-th of its file, at
    /// `file_offset`), its parts numbered from `next_part`.
    fn new(
        ex: &'a dyn PartReader,
        uq: &'a Unquoted<'a>,
        (file_offset, index): (u64, u64),
        message_id: Option<String>,
        next_part: u32,
        out: &'a mut Scanned,
    ) -> Self {
        Walk {
            ex,
            uq,
            file_offset,
            index,
            message_id,
            next_part,
            out,
            problems: 0,
            buf: Vec::new(),
            covered: 0,
            boundary_budget: boundary_budget(uq.text.len()),
        }
    }
}

/// The bytes the boundary checks of a message of `len` bytes may search:
/// a few times the message. Each check searches its part, and nested parts
/// lie within one another, so on multiparts nested ever deeper that never
/// close, the checks alone would take time quadratic in the message.
fn boundary_budget(len: usize) -> usize {
    len.saturating_mul(8).saturating_add(1 << 20)
}

/// Scan the message `raw` (the `index`-th of its file, at `file_offset`).
/// `mboxrd`: undo `>From ` quoting first. Never fails: problems are recorded
/// in `out` and what can be scanned is scanned.
///
/// A message longer than `cap` bytes is mail to its last line end within
/// the cap ([`head_len`]); the rest is one more part, `text/plain`, read
/// by the text rules as it is stored, in pieces of at most `cap` bytes cut
/// the same way ([`scan_rest`]), and a problem says where it starts. So the
/// memory a message takes is bounded by `cap`, whatever its size.
pub(crate) fn scan_message(
    ex: &dyn PartReader,
    parser: &MessageParser,
    raw: &[u8],
    (file_offset, index, mboxrd): (u64, u64, bool),
    cap: usize,
    out: &mut Scanned,
) {
    if raw.len() <= cap {
        scan_head(ex, parser, raw, (file_offset, index, mboxrd), None, out);
        return;
    }
    let head = head_len(raw, cap);
    let mut rest = scan_head(
        ex,
        parser,
        &raw[..head],
        (file_offset, index, mboxrd),
        Some(cap),
        out,
    );
    scan_rest(ex, &raw[head..], &mut rest, cap, out);
}

/// How much of a message (or of its rest) longer than `cap` bytes is read
/// as one piece: to the last line end within `cap` bytes, or `cap` bytes
/// when there is none. It depends on the first `cap` bytes alone.
pub(crate) fn head_len(raw: &[u8], cap: usize) -> usize {
    let cap = cap.max(1).min(raw.len());
    memchr::memrchr(b'\n', &raw[..cap]).map_or(cap, |n| n + 1)
}

/// The rest of a message longer than the cap, past its head: where its
/// URLs are reported, and how much of it was read.
#[derive(Clone, Debug)]
pub(crate) struct Rest {
    index: u64,
    message_id: Option<String>,
    message_offset: u64,
    part: u32,
    /// The file offset of the rest's first byte.
    offset: u64,
    /// Bytes of the rest read so far, and their newlines.
    read: u64,
    lines: u64,
}

/// Scan the head of a message: all of it (`cap` `None`), or the first
/// [`head_len`] bytes of one longer than `cap` (then a problem says where
/// its rest starts, and the rest is counted as a text part). Returns the
/// rest's place, for [`scan_rest`].
pub(crate) fn scan_head(
    ex: &dyn PartReader,
    parser: &MessageParser,
    raw: &[u8],
    (file_offset, index, mboxrd): (u64, u64, bool),
    cap: Option<usize>,
    out: &mut Scanned,
) -> Rest {
    out.stats.messages += 1;
    let uq = if mboxrd {
        unquote(raw)
    } else {
        Unquoted::borrowed(raw)
    };
    let rest_at = file_offset + raw.len() as u64;
    let overlong = cap.map(|cap| {
        (
            rest_at,
            format!(
                "message longer than {cap} bytes: the rest, from byte {rest_at}, \
                 is read as plain text"
            ),
        )
    });
    let (message_id, part) =
        scan_unquoted(ex, parser, &uq, file_offset, index, out, true, overlong);
    Rest {
        index,
        message_id,
        message_offset: file_offset,
        part,
        offset: rest_at,
        read: 0,
        lines: 0,
    }
}

/// Scan `text`, the next bytes of the rest of a message longer than `cap`
/// ([`scan_head`]), by the text rules, in pieces of at most `cap` bytes
/// ([`head_len`]), as part [`Rest`] says; `rest` then says how much of it
/// was read. Whether `text` comes whole or in pieces cut by [`head_len`]
/// (a stream), the URLs are the same.
pub(crate) fn scan_rest(
    ex: &dyn PartReader,
    text: &[u8],
    rest: &mut Rest,
    cap: usize,
    out: &mut Scanned,
) {
    let mut at = 0;
    while at < text.len() {
        let left = &text[at..];
        let n = if left.len() > cap {
            head_len(left, cap)
        } else {
            left.len()
        };
        scan_rest_piece(ex, &left[..n], rest, out);
        at += n;
    }
}

/// One piece of a message's rest, by the text rules.
fn scan_rest_piece(ex: &dyn PartReader, piece: &[u8], rest: &mut Rest, out: &mut Scanned) {
    let mut lines = crate::FileLines::new(0);
    let mut where_at: Option<usize> = None;
    let (read, before) = (rest.read, rest.lines);
    let text = PartText {
        text: piece,
        kind: PartKind::Text,
    };
    ex.read(text, &mut |m| {
        let wi = *where_at.get_or_insert_with(|| {
            out.wheres.push(MailWhere {
                message: rest.index,
                message_id: rest.message_id.clone(),
                message_offset: rest.message_offset,
                part: rest.part,
                content_type: "text/plain".into(),
                part_offset: rest.offset,
                part_start: 0,
                part_line: 0,
            });
            out.wheres.len() - 1
        });
        let line = before + lines.line_at(piece, m.start);
        let mut m = owned(m);
        let len = m.end - m.start;
        m.start += read as usize;
        m.end = m.start + len;
        out.found.push(Found {
            part: wi,
            line,
            file_start: rest.offset + m.start as u64,
            m,
        });
    });
    rest.read += piece.len() as u64;
    rest.lines += urlsift_core::newlines(piece);
    out.stats.decoded_bytes += piece.len() as u64;
}

/// [`scan_message`] after unquoting; `fast`: try the multipart walk
/// ([`mime`]) before mail-parser (tests compare both ways). With
/// `overlong`, the message is the head of a longer one: that problem is
/// recorded, at that offset, and its rest is counted as a text part.
/// Returns the Message-ID and the first part number not given.
#[allow(clippy::too_many_arguments)]
pub(super) fn scan_unquoted(
    ex: &dyn PartReader,
    parser: &MessageParser,
    uq: &Unquoted<'_>,
    file_offset: u64,
    index: u64,
    out: &mut Scanned,
    fast: bool,
    overlong: Option<(u64, String)>,
) -> (Option<String>, u32) {
    let end = |mut w: Walk<'_>| {
        if let Some((at, what)) = overlong {
            w.problem(at, what);
            w.out.stats.parts_scanned += 1;
        }
        if w.problems > 0 {
            w.out.stats.problem_messages += 1;
        }
        (w.message_id, w.next_part)
    };
    if let Some(sm) = simple::parse(&uq.text) {
        let mut w = Walk::new(ex, uq, (file_offset, index), sm.message_id.clone(), 2, out);
        w.simple(&uq.text, &sm);
        return end(w);
    }
    if let Some(walked) = mime::walk(&uq.text).filter(|_| fast) {
        let mut w = Walk::new(
            ex,
            uq,
            (file_offset, index),
            walked.message_id.clone(),
            1,
            out,
        );
        w.walked(&uq.text, &walked);
        return end(w);
    }
    // mail-parser panics on some malformed messages: such a message is
    // scanned as plain text, with a warning, and the run goes on.
    let (msg, parser_failed) = match crate::contain::catch(|| parser.parse(&uq.text[..])) {
        Some(m) => (m, false),
        None => (None, true),
    };
    let mut w = Walk::new(
        ex,
        uq,
        (file_offset, index),
        msg.as_ref().and_then(|m| m.message_id()).map(str::to_owned),
        1,
        out,
    );
    match &msg {
        Some(m) => {
            // mail-parser gives the offsets of nested messages' parts in
            // the top-level message, so one `raw` serves them all.
            let raw = &uq.text[..];
            w.headers(raw, m, 0);
            w.parts(raw, m);
        }
        None => {
            // Not even a header block, or a parser that failed: scan the
            // bytes as they are.
            let what = if parser_failed {
                "the MIME parser failed on this message; scanned as plain text"
            } else {
                "no message headers; scanned as plain text"
            };
            w.problem(file_offset, what.into());
            let (text, ty) = (&uq.text[..], "text/plain".into());
            w.scan(text, 0, ty, file_offset, Origin::Same(text));
        }
    }
    let ended = end(w);
    if let Some(m) = msg {
        dismantle(m);
    }
    ended
}

/// Drop a parsed message one nested message at a time: dropping it whole
/// recurses once per `message/rfc822` level, and the nesting is as deep as
/// the input makes it.
fn dismantle(m: Message<'_>) {
    let mut stack = vec![m];
    while let Some(mut m) = stack.pop() {
        for part in &mut m.parts {
            if let PartType::Message(inner) = std::mem::take(&mut part.body) {
                stack.push(inner);
            }
        }
    }
}

/// A message being walked by [`Walk::parts`]: the next part to visit, the
/// numbers given to its parts, and the multipart holding each.
struct Frame<'m, 'x> {
    m: &'m Message<'x>,
    /// The next part to visit.
    next: usize,
    /// The number given to each part visited.
    numbers: Vec<u32>,
    /// The multipart holding each part (an index into `m.parts`).
    parents: Vec<Option<usize>>,
    /// The `message/rfc822` part holding this message, and its number.
    holder: Option<(&'m MessagePart<'x>, u32)>,
}

impl<'m, 'x> Frame<'m, 'x> {
    fn new(m: &'m Message<'x>, holder: Option<(&'m MessagePart<'x>, u32)>) -> Self {
        let mut parents = vec![None; m.parts.len()];
        for (i, part) in m.parts.iter().enumerate() {
            if let PartType::Multipart(ids) = &part.body {
                for &id in ids {
                    let id = id as usize;
                    if id > i
                        && let Some(p @ None) = parents.get_mut(id)
                    {
                        *p = Some(i);
                    }
                }
            }
        }
        Frame {
            m,
            next: 0,
            numbers: vec![0; m.parts.len()],
            parents,
            holder,
        }
    }
}

impl Walk<'_> {
    /// A multipart message walked by [`mime::walk`] (no structure problems:
    /// the walk accepts only well-formed structure; a part may still fail to
    /// decode).
    fn walked(&mut self, raw: &[u8], walked: &mime::Walked) {
        let first = self.next_part;
        for (k, p) in walked.parts.iter().enumerate() {
            let n = self.next_part;
            self.next_part += 1;
            if let Some(i) = p.parent {
                let c = &walked.parts[i];
                self.gap(raw, p.header.start, first + i as u32, || {
                    c.content_type.clone()
                });
            }
            self.covered = self.covered.max(p.header.end);
            // The root's block is the message's own header block, part 0.
            self.header_block(raw, p.header.clone(), if k == 0 { 0 } else { n });
            let at = self.file_pos(p.body.start);
            if p.kind != mime::Kind::Multipart {
                self.covered = self.covered.max(p.body.end);
            }
            match p.kind {
                mime::Kind::Multipart => {}
                mime::Kind::Text | mime::Kind::Html => {
                    let cte = block_transfer_encoding(&raw[p.header.clone()]);
                    let cs = p.charset.as_deref().unwrap_or("us-ascii");
                    let html = p.kind == mime::Kind::Html;
                    let body = &raw[p.body.clone()];
                    self.text(body, cte, cs, html, n, p.content_type.clone(), at);
                }
                mime::Kind::Other => self.out.stats.parts_skipped += 1,
            }
        }
        if let Some(root) = walked.parts.first() {
            self.gap(raw, raw.len(), first, || root.content_type.clone());
        }
    }

    /// Scan the text from the end of what is placed so far up to `to`, as it
    /// is, as part `n` (the multipart or `message/rfc822` part holding it) of
    /// content type `ty`: a multipart's preamble and epilogue, its delimiter
    /// lines, and any text the structure leaves out (before a wrong boundary
    /// line, after a missing one).
    fn gap(&mut self, raw: &[u8], to: usize, n: u32, ty: impl FnOnce() -> String) {
        let to = to.min(raw.len());
        if to <= self.covered {
            return;
        }
        let from = self.covered;
        self.covered = to;
        let at = self.file_pos(from);
        self.scan(&raw[from..to], n, ty(), at, Origin::Same(&raw[from..to]));
    }

    /// A single-part message read by [`simple::parse`].
    fn simple(&mut self, raw: &[u8], sm: &simple::Simple) {
        self.header_block(raw, 0..sm.header_end, 0);
        let body = &raw[sm.body..];
        let at = self.file_pos(sm.body);
        if sm.content_type.starts_with("text/") {
            let html = sm.content_type == "text/html";
            let cs = sm.charset.as_deref().unwrap_or("us-ascii");
            self.text(body, sm.cte, cs, html, 1, sm.content_type.clone(), at);
        } else {
            self.out.stats.parts_skipped += 1;
        }
    }

    fn file_pos(&self, off: usize) -> u64 {
        self.file_offset + self.uq.original(off) as u64
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
    fn headers(&mut self, raw: &[u8], m: &Message<'_>, part: u32) {
        let Some(root) = m.parts.first() else { return };
        let block = root.offset_header as usize..root.offset_body as usize;
        self.header_block(raw, block, part);
    }

    /// Scan the header block `raw[block]`, unfolded ([`header_text`]), as
    /// part `n` with content type `header`: a message's own block (part 0,
    /// or a `message/rfc822` part's number), or a body part's block, where
    /// `Content-Location:`, `Content-Base:` and `message/external-body`'s
    /// `URL=` parameter hold URLs.
    fn header_block(&mut self, raw: &[u8], block: Range<usize>, n: u32) {
        let Some(bytes) = raw.get(block.start..block.end.min(raw.len())) else {
            return;
        };
        let text = header_text(bytes);
        let at = self.file_pos(block.start);
        self.scan(
            &text,
            n,
            HEADER_TYPE.to_owned(),
            at,
            Origin::Decoded(bytes, Cte::Identity),
        );
    }

    /// Walk the parts of `top` in order (depth first, into `message/rfc822`
    /// parts with an explicit stack: the nesting is as deep as the input
    /// makes it), scanning text parts, the header blocks of all parts but
    /// the root (`top`'s own headers, scanned by [`Self::headers`]), and the
    /// text between them ([`Self::gap`]).
    fn parts(&mut self, raw: &[u8], top: &Message<'_>) {
        let first = self.next_part;
        let mut stack = vec![Frame::new(top, None)];
        while let Some(f) = stack.last_mut() {
            let k = f.next;
            let Some(part) = f.m.parts.get(k) else {
                stack.pop();
                continue;
            };
            f.next += 1;
            let n = self.next_part;
            self.next_part += 1;
            f.numbers[k] = n;
            let holder = match f.parents[k] {
                Some(i) => Some((&f.m.parts[i], f.numbers[i])),
                None => f.holder,
            };
            if let Some((c, cn)) = holder {
                self.gap(raw, part.offset_header as usize, cn, || content_type(c));
            }
            self.covered = self.covered.max(part.offset_body as usize);
            if k > 0 {
                let block = part.offset_header as usize..part.offset_body as usize;
                self.header_block(raw, block, n);
            }
            let body_at = self.file_pos(part.offset_body as usize);
            let ty = content_type(part);
            if ty.starts_with("multipart/") {
                self.check_boundary(raw, part, n, body_at);
            }
            if part.is_encoding_problem {
                self.problem(
                    body_at,
                    format!("part {n} ({ty}): could not be parsed; scanned as it is"),
                );
            }
            match &part.body {
                PartType::Text(_) | PartType::Html(_) => {
                    let html = matches!(part.body, PartType::Html(_));
                    let end = (part.offset_end as usize).min(raw.len());
                    self.covered = self.covered.max(end);
                    let body = raw.get(part.offset_body as usize..end).unwrap_or_default();
                    // A part that mail-parser could not parse is text to it,
                    // whatever its type; one that is not text (an attachment
                    // cut short) is scanned as it is, not decoded.
                    let cte = if part.is_encoding_problem
                        && !ty.starts_with("text/")
                        && !read_as_text(&ty)
                    {
                        Cte::Identity
                    } else {
                        transfer_encoding(raw, part)
                    };
                    let cs = part
                        .content_type()
                        .and_then(|ct| ct.attribute("charset"))
                        .unwrap_or("us-ascii");
                    self.text(body, cte, cs, html, n, ty, body_at)
                }
                PartType::Multipart(_) => {}
                PartType::Message(inner) => {
                    self.headers(raw, inner, n);
                    stack.push(Frame::new(inner, Some((part, n))));
                }
                PartType::Binary(_) | PartType::InlineBinary(_) => {
                    let end = (part.offset_end as usize).min(raw.len());
                    self.covered = self.covered.max(end);
                    if read_as_text(&ty) {
                        let body = raw.get(part.offset_body as usize..end).unwrap_or_default();
                        let cte = transfer_encoding(raw, part);
                        let cs = part
                            .content_type()
                            .and_then(|ct| ct.attribute("charset"))
                            .unwrap_or("us-ascii");
                        self.text(body, cte, cs, false, n, ty, body_at);
                    } else {
                        self.out.stats.parts_skipped += 1;
                    }
                }
            }
        }
        if let Some(root) = top.parts.first() {
            self.gap(raw, raw.len(), first, || content_type(root));
        }
    }

    /// Decode (transfer encoding, charset, HTML references) and scan one
    /// text part.
    #[allow(clippy::too_many_arguments)]
    fn text(
        &mut self,
        body: &[u8],
        cte: Cte,
        charset: &str,
        html: bool,
        n: u32,
        ty: String,
        at: u64,
    ) {
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        let mut undecoded = false;
        let transfer: &[u8] = match cte {
            Cte::Identity => body,
            Cte::QuotedPrintable => {
                decode::quoted_printable(body, &mut buf);
                &buf
            }
            Cte::Base64 => {
                match decode::base64(body, &mut buf) {
                    Base64End::Complete => {}
                    Base64End::Truncated => self.problem(
                        at,
                        format!(
                            "part {n} ({ty}): truncated base64; scanned the {} bytes that decode",
                            buf.len()
                        ),
                    ),
                    Base64End::Invalid(i) => {
                        self.problem(
                            at + i as u64,
                            format!(
                                "part {n} ({ty}): invalid base64; scanned the {} bytes before it, and the part as it is",
                                buf.len()
                            ),
                        );
                        // Text that does not decode is scanned as it is: base64
                        // holds no `:` or `.`, so no URL is found twice.
                        undecoded = true;
                    }
                }
                &buf
            }
        };
        let text = match in_utf8(transfer, charset) {
            Some(t) => t,
            None => {
                // Unknown charset: the transfer-decoded bytes, as they are.
                self.out.stats.unknown_charset += 1;
                Cow::Borrowed(transfer)
            }
        };
        self.out.stats.parts_scanned += 1;
        self.out.stats.decoded_bytes += text.len() as u64;
        let origin = if matches!(&text, Cow::Borrowed(t) if t.as_ptr() == body.as_ptr() && t.len() == body.len())
        {
            Origin::Same(body)
        } else {
            Origin::Decoded(body, cte)
        };
        let read = if html { PartKind::Html } else { PartKind::Text };
        if undecoded {
            self.read(&text, (n, ty.clone(), at), origin, read);
            self.scan(body, n, ty, at, Origin::Same(body));
        } else {
            self.read(&text, (n, ty, at), origin, read);
        }
        drop(text);
        self.buf = buf;
    }

    /// Report a multipart whose boundary is missing, or never found, or
    /// not closed. The delimiters are looked for within the part (up to
    /// where mail-parser ended it), the closing one from the end, where a
    /// well-formed multipart has it: nested multiparts are not read again
    /// for every level. A multipart not closed is searched to its end,
    /// though, and so are those nested in it: once the checks have searched
    /// [`boundary_budget`] bytes, the message's other multiparts are not
    /// checked (one problem says so).
    fn check_boundary(&mut self, raw: &[u8], part: &MessagePart<'_>, n: u32, at: u64) {
        let Some(b) = part.content_type().and_then(|ct| ct.attribute("boundary")) else {
            self.problem(at, format!("part {n}: multipart without a boundary"));
            return;
        };
        if self.boundary_budget == 0 {
            return;
        }
        let from = (part.offset_body as usize).min(raw.len());
        let end = match part.offset_end as usize {
            e if e > from => e.min(raw.len()),
            _ => raw.len(),
        };
        let hay = &raw[from..end];
        if hay.len() > self.boundary_budget {
            self.boundary_budget = 0;
            self.problem(
                at,
                format!("part {n}: multiparts nested too deep: their boundaries are not checked"),
            );
            return;
        }
        let mut delim = Vec::with_capacity(b.len() + 4);
        delim.extend_from_slice(b"--");
        delim.extend_from_slice(b.as_bytes());
        let Some(first) = memmem::find(hay, &delim) else {
            self.boundary_budget -= hay.len();
            self.problem(at, format!("part {n}: MIME boundary {b:?} not found"));
            return;
        };
        delim.extend_from_slice(b"--");
        let closing = memmem::rfind(&hay[first..], &delim);
        // What the two searches read: up to the first delimiter, and back
        // from the end to the closing one.
        let read = first + delim.len() + (hay.len() - first - closing.unwrap_or(0));
        self.boundary_budget = self.boundary_budget.saturating_sub(read);
        if closing.is_none() {
            self.problem(
                at,
                format!("part {n}: closing MIME boundary {b:?} missing (truncated?)"),
            );
        }
    }

    /// Scan `text` (part `part` of type `ty`, at file offset `at`), made
    /// from the message's bytes as `origin` says: each URL also gets its
    /// position in the file ([`Found::file_start`]).
    fn scan(&mut self, text: &[u8], part: u32, ty: String, at: u64, origin: Origin<'_>) {
        self.read(text, (part, ty, at), origin, PartKind::Text);
    }

    /// [`Walk::scan`], with the text read as `reading` says.
    fn read(
        &mut self,
        text: &[u8],
        (part, ty, at): (u32, String, u64),
        origin: Origin<'_>,
        kind: PartKind,
    ) {
        // (An HTML reading's offsets may go back: then counted again.)
        let (mut pos, mut line) = (0, 1);
        let mut line_at = |at: usize| {
            let at = at.min(text.len());
            if at < pos {
                (pos, line) = (0, 1);
            }
            line += urlsift_core::newlines(&text[pos..at]);
            pos = at;
            line
        };
        let mut where_at: Option<usize> = None;
        let out = &mut *self.out;
        let first = out.found.len();
        let mut ty = Some(ty);
        let message_id = &self.message_id;
        let (index, message_offset) = (self.index, self.file_offset);
        self.ex.read(PartText { text, kind }, &mut |m| {
            let wi = *where_at.get_or_insert_with(|| {
                out.wheres.push(MailWhere {
                    message: index,
                    message_id: message_id.clone(),
                    message_offset,
                    part,
                    content_type: ty.take().unwrap_or_default(),
                    part_offset: at,
                    part_start: 0,
                    part_line: 0,
                });
                out.wheres.len() - 1
            });
            let line = line_at(m.start);
            out.found.push(Found {
                part: wi,
                line,
                m: owned(m),
                file_start: at,
            });
        });
        // Where each URL is in the message, then in the file.
        let raw = origin.bytes();
        let base = self.uq.index_of(raw);
        let mut map = RawMap::default();
        let (uq, file_offset) = (&self.uq, self.file_offset);
        for f in &mut self.out.found[first..] {
            let k = map.position(text, &f.m, origin);
            f.file_start = match base {
                Some(b) => file_offset + uq.original(b + k) as u64,
                None => at + k as u64,
            };
        }
    }
}

/// What a scanned text was made from: bytes of the message, and how.
#[derive(Clone, Copy)]
pub(crate) enum Origin<'r> {
    /// The text is these bytes, as they are.
    Same(&'r [u8]),
    /// The text was decoded from these bytes: their transfer encoding, and
    /// perhaps a charset, HTML character references or header unfolding.
    Decoded(&'r [u8], Cte),
}

impl<'r> Origin<'r> {
    fn bytes(self) -> &'r [u8] {
        match self {
            Origin::Same(b) | Origin::Decoded(b, _) => b,
        }
    }
}

/// Maps positions in a decoded text back to the bytes it came from, for
/// URLs in order: a URL written there as it is gets its exact position;
/// one that exists only after decoding gets the start of its encoded line.
/// Each call moves forward from the last, so a part costs one pass.
#[derive(Default)]
struct RawMap {
    /// Raw offset reached, and the decoded offset (for base64: the base64
    /// characters) it stands for.
    raw: usize,
    dec: usize,
    /// After the last URL found as it is: its raw end and decoded end.
    found_raw: usize,
    found_dec: usize,
    /// Line starts searched up to `seen`; the last one found.
    seen: usize,
    line: usize,
}

impl RawMap {
    /// The offset in the raw bytes of the URL `m` of `text`.
    fn position(&mut self, text: &[u8], m: &Match<'_>, origin: Origin<'_>) -> usize {
        let span = text.get(m.start..m.end).unwrap_or_default();
        let (raw, cte) = match origin {
            Origin::Same(raw) => return m.start.min(raw.len()),
            Origin::Decoded(raw, cte) => (raw, cte),
        };
        let r = match cte {
            Cte::QuotedPrintable => self.qp(raw, m.start),
            Cte::Base64 => self.base64(raw, m.start),
            Cte::Identity => {
                // Unfolding and references shorten the text, a charset may
                // lengthen it: look for the URL near where it should be.
                let gap = m.start.saturating_sub(self.found_dec);
                let from = self.found_raw.min(raw.len());
                let to = from
                    .saturating_add(2 * gap + span.len() + 256)
                    .min(raw.len());
                if let Some(i) = memchr::memmem::find(&raw[from..to], span) {
                    self.found_raw = from + i + span.len();
                    self.found_dec = m.end;
                    return from + i;
                }
                (from + gap).min(raw.len())
            }
        };
        if !span.is_empty() && raw.get(r..).is_some_and(|t| t.starts_with(span)) {
            return r;
        }
        // Only after decoding: the start of its encoded line.
        self.line_start(raw, r.min(raw.len()))
    }

    /// The start of the line holding `raw[r]`, searching back only to the
    /// last line start found (positions mostly move forward: one pass).
    fn line_start(&mut self, raw: &[u8], r: usize) -> usize {
        if r < self.seen {
            (self.seen, self.line) = (0, 0);
        }
        if let Some(i) = memchr::memrchr(b'\n', &raw[self.seen..r]) {
            self.line = self.seen + i + 1;
        }
        self.seen = r;
        self.line
    }

    /// The raw offset of decoded byte `d` of quoted-printable `raw`.
    fn qp(&mut self, raw: &[u8], d: usize) -> usize {
        if d < self.dec {
            (self.raw, self.dec) = (0, 0);
        }
        while self.dec < d && self.raw < raw.len() {
            if raw[self.raw] == b'=' {
                match &raw[self.raw + 1..] {
                    [b'\r', b'\n', ..] => {
                        self.raw += 3;
                        continue;
                    }
                    [b'\n', ..] => {
                        self.raw += 2;
                        continue;
                    }
                    [h, l, ..] if h.is_ascii_hexdigit() && l.is_ascii_hexdigit() => {
                        self.raw += 3;
                        self.dec += 1;
                        continue;
                    }
                    _ => {}
                }
            }
            self.raw += 1;
            self.dec += 1;
        }
        self.raw.min(raw.len())
    }

    /// The raw offset of the base64 group that decodes to byte `d`.
    fn base64(&mut self, raw: &[u8], d: usize) -> usize {
        let want = d / 3 * 4;
        if want < self.dec {
            (self.raw, self.dec) = (0, 0);
        }
        let is_b64 = |b: u8| b.is_ascii_alphanumeric() || b == b'+' || b == b'/';
        loop {
            while self.raw < raw.len() && !is_b64(raw[self.raw]) {
                self.raw += 1;
            }
            if self.dec >= want || self.raw >= raw.len() {
                return self.raw.min(raw.len());
            }
            self.raw += 1;
            self.dec += 1;
        }
    }
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

/// Whether a part of type `ty` that mail-parser holds as binary is read as
/// text: a textual report ([`mime::is_textual_message`]), and a multipart
/// without a boundary, which cannot be split into parts, so its body is
/// read as one text.
fn read_as_text(ty: &str) -> bool {
    ty.strip_prefix("message/")
        .is_some_and(mime::is_textual_message)
        || ty.starts_with("multipart/")
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

fn starts_with_ignore_case(s: &str, prefix: &str) -> bool {
    s.len() >= prefix.len() && s.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
}

/// Charsets whose bytes are scanned as they are: UTF-8 and its subset ASCII.
fn is_utf8_compatible(cs: &str) -> bool {
    ["utf-8", "utf8", "us-ascii", "ascii", "ansi_x3.4-1968"]
        .iter()
        .any(|c| cs.eq_ignore_ascii_case(c))
}

/// A header block as it is scanned: unfolded, then RFC 2047 encoded words
/// decoded ([`rfc2047::decode_words`]).
pub(crate) fn header_text(block: &[u8]) -> Cow<'_, [u8]> {
    match unfold(block) {
        Cow::Borrowed(b) => rfc2047::decode_words(b),
        Cow::Owned(v) => {
            let decoded = match rfc2047::decode_words(&v) {
                Cow::Owned(w) => Some(w),
                Cow::Borrowed(_) => None,
            };
            Cow::Owned(decoded.unwrap_or(v))
        }
    }
}

/// RFC 5322 unfolding: a line break followed by a space or tab is removed
/// (the space or tab stays).
pub(crate) fn unfold(block: &[u8]) -> Cow<'_, [u8]> {
    let folded = |i: usize| matches!(block.get(i + 1), Some(b' ' | b'\t'));
    let mut it = memchr::memchr_iter(b'\n', block).filter(|&i| folded(i));
    let Some(first) = it.next() else {
        return Cow::Borrowed(block);
    };
    let mut out = Vec::with_capacity(block.len());
    let mut prev = 0;
    for i in std::iter::once(first).chain(it) {
        let cut = if i > 0 && block[i - 1] == b'\r' {
            i - 1
        } else {
            i
        };
        out.extend_from_slice(&block[prev..cut]);
        prev = i + 1;
    }
    out.extend_from_slice(&block[prev..]);
    Cow::Owned(out)
}

/// `transfer` (a part's transfer-decoded bytes) in UTF-8 from its
/// `charset`: borrowed where it reads the same (a UTF-8-compatible charset,
/// or ASCII text in an ASCII-compatible one); `None` for a charset that is
/// not known.
fn in_utf8<'t>(transfer: &'t [u8], charset: &str) -> Option<Cow<'t, [u8]>> {
    let charset = charset.trim().trim_matches('"');
    if is_utf8_compatible(charset) {
        return Some(Cow::Borrowed(transfer));
    }
    let dec = charset_decoder(charset.as_bytes())?;
    let ascii_compatible = !["utf-16", "utf-32", "utf-7", "ucs-2", "unicode"]
        .iter()
        .any(|p| starts_with_ignore_case(charset, p));
    Some(if ascii_compatible && transfer.is_ascii() {
        // ASCII reads the same in every ASCII-compatible charset.
        Cow::Borrowed(transfer)
    } else if let Some(table) = charset::Table::new(charset, dec) {
        let mut v = Vec::new();
        table.convert(transfer, &mut v);
        Cow::Owned(v)
    } else {
        Cow::Owned(dec(transfer).into_bytes())
    })
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

#[cfg(test)]
mod doc_tests {
    use super::*;

    #[test]
    fn head_len_ends_at_a_line_end() {
        assert_eq!(head_len(b"ab\ncd\nef", 7), 6);
        assert_eq!(head_len(b"abcdefgh", 4), 4);
        assert_eq!(head_len(b"", 4), 0);
    }
}
