//! A fast path for single-part messages (most of any archive): the header
//! fields that matter (Content-Type with its charset, Content-Transfer-
//! Encoding, Message-ID) are read straight from the header block, and the
//! body is decoded without building a MIME tree. Multipart and `message/*`
//! messages, and anything unusual, go to mail-parser instead.

use memchr::memmem;

/// A part's Content-Transfer-Encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cte {
    /// 7bit, 8bit, binary, or none given.
    Identity,
    /// quoted-printable.
    QuotedPrintable,
    /// base64.
    Base64,
}

impl Cte {
    /// From a header value.
    pub(crate) fn from_value(v: &[u8]) -> Cte {
        let v = v.trim_ascii();
        if v.eq_ignore_ascii_case(b"base64") {
            Cte::Base64
        } else if v.eq_ignore_ascii_case(b"quoted-printable") {
            Cte::QuotedPrintable
        } else {
            Cte::Identity
        }
    }
}

/// What the fast path needs from a single-part message.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Simple {
    /// Where the body starts (after the blank line).
    pub body: usize,
    /// Where the header block ends (before the blank line).
    pub header_end: usize,
    /// `type/subtype`, lower case (`text/plain` when absent).
    pub content_type: String,
    /// The charset parameter.
    pub charset: Option<String>,
    /// The transfer encoding.
    pub cte: Cte,
    /// The Message-ID, without `<>`.
    pub message_id: Option<String>,
}

/// Read a single-part message's header block; `None` when the message is
/// multipart, `message/*`, has no blank line after its headers, or has a
/// header the fast path does not handle (encoded words in those fields).
pub(crate) fn parse(msg: &[u8]) -> Option<Simple> {
    let lf = memmem::find(msg, b"\n\n").map(|i| (i + 1, i + 2));
    // A CRLF blank line can only come first if it starts before the LF one.
    let lim = lf.map_or(msg.len(), |(e, _)| (e + 3).min(msg.len()));
    let crlf = memmem::find(&msg[..lim], b"\r\n\r\n").map(|i| (i + 2, i + 4));
    let (header_end, body) = match (lf, crlf) {
        (Some(a), Some(b)) => a.min(b),
        (a, b) => a.or(b)?,
    };
    let block = &msg[..header_end];
    if block.first().is_none_or(|&b| b == b' ' || b == b'\t') {
        return None;
    }
    let mut s = Simple {
        body,
        header_end,
        content_type: "text/plain".to_owned(),
        charset: None,
        cte: Cte::Identity,
        message_id: None,
    };
    for (name, value) in fields(block) {
        if name.eq_ignore_ascii_case(b"content-type") {
            let v = String::from_utf8_lossy(&value).into_owned();
            let mut it = v.split(';');
            let ty = it.next()?.trim().to_ascii_lowercase();
            if ty.starts_with("multipart/") || ty.starts_with("message/") || !ty.contains('/') {
                return None;
            }
            s.content_type = ty;
            for p in it {
                if let Some((k, v)) = p.split_once('=')
                    && k.trim().eq_ignore_ascii_case("charset")
                {
                    s.charset = Some(v.trim().trim_matches('"').to_owned());
                }
            }
        } else if name.eq_ignore_ascii_case(b"content-transfer-encoding") {
            s.cte = Cte::from_value(&value);
        } else if name.eq_ignore_ascii_case(b"message-id") {
            let v = String::from_utf8_lossy(value.trim_ascii()).into_owned();
            let v = v.trim_start_matches('<');
            let v = v.split('>').next().unwrap_or(v);
            if !v.is_empty() {
                s.message_id = Some(v.to_owned());
            }
        }
    }
    Some(s)
}

/// The fields of a header block: (name, unfolded value). Only the values
/// of the fields asked about are needed, so folded values are joined lazily.
fn fields(block: &[u8]) -> impl Iterator<Item = (&[u8], Vec<u8>)> {
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < block.len() {
            let start = at;
            // The field runs to a line end not followed by a space or tab.
            let mut end = start;
            loop {
                match memchr::memchr(b'\n', &block[end..]) {
                    Some(n) => {
                        end += n + 1;
                        if !matches!(block.get(end), Some(b' ' | b'\t')) {
                            break;
                        }
                    }
                    None => {
                        end = block.len();
                        break;
                    }
                }
            }
            at = end;
            let field = &block[start..end];
            let Some(colon) = memchr::memchr(b':', field) else {
                continue;
            };
            let name = field[..colon].trim_ascii();
            let wanted: &[&[u8]] = &[b"content-type", b"content-transfer-encoding", b"message-id"];
            if !wanted.iter().any(|w| name.eq_ignore_ascii_case(w)) {
                continue;
            }
            let value: Vec<u8> = field[colon + 1..]
                .iter()
                .copied()
                .filter(|&b| b != b'\r' && b != b'\n')
                .collect();
            return Some((name, value));
        }
        None
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_single_part_headers() {
        let m = b"Message-ID: <a@b>\r\nContent-Type: text/html;\r\n\tcharset=\"ISO-8859-1\"\r\nContent-Transfer-Encoding: Base64\r\n\r\nbody";
        let s = parse(m).unwrap();
        assert_eq!(s.content_type, "text/html");
        assert_eq!(s.charset.as_deref(), Some("ISO-8859-1"));
        assert_eq!(s.cte, Cte::Base64);
        assert_eq!(s.message_id.as_deref(), Some("a@b"));
        assert_eq!(&m[s.body..], b"body");
        assert!(parse(b"Content-Type: multipart/mixed; boundary=x\n\n--x\n").is_none());
        assert!(parse(b"Subject: no body separator").is_none());
        let s = parse(b"Subject: x\n\nb").unwrap();
        assert_eq!(
            (s.content_type.as_str(), s.cte),
            ("text/plain", Cte::Identity)
        );
    }
}
