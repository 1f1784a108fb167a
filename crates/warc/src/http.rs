//! HTTP messages inside `response` (and `revisit`) records: the status line,
//! the header fields, and the body with its transfer and content codings
//! undone (`chunked`; `gzip`, `deflate` as zlib or raw, `br`, `zstd`).

use std::borrow::Cow;
use std::io::Read;

/// An HTTP response parsed from a record block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpResponse<'a> {
    /// The status code (0 when the status line has none).
    pub status: u16,
    /// Header fields in order: name and value as written, the value trimmed.
    pub headers: Vec<(&'a [u8], &'a [u8])>,
    /// Offset in the block of each header value, parallel to `headers`.
    pub header_offsets: Vec<usize>,
    /// The body as sent (still in its transfer and content codings).
    pub raw_body: &'a [u8],
    /// Offset in the block of the body.
    pub body_offset: usize,
}

/// The status code of an HTTP status line (`HTTP/1.1 301 Moved`), 0 when
/// it has none.
fn status_code(status_line: &[u8]) -> u16 {
    status_line
        .split(|&b| b == b' ')
        .nth(1)
        .and_then(|s| std::str::from_utf8(s).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0)
}

/// The HTTP status of a record: the code of its block's status line, for a
/// `response` or `revisit` record whose block is an HTTP response (as
/// [`crate::payload`] reads it); `None` for other records and for a status
/// line without a code. Reads the status line only.
///
/// ```
/// let rec = urlsift_warc::Record {
///     warc_type: "response".into(),
///     block: b"HTTP/1.1 404 Not Found\r\n\r\n".to_vec(),
///     ..Default::default()
/// };
/// assert_eq!(urlsift_warc::http_status(&rec), Some(404));
/// let req = urlsift_warc::Record { warc_type: "request".into(), ..rec };
/// assert_eq!(urlsift_warc::http_status(&req), None);
/// ```
pub fn http_status(rec: &crate::Record) -> Option<u16> {
    if !matches!(rec.warc_type.as_str(), "response" | "revisit") || !rec.block.starts_with(b"HTTP/")
    {
        return None;
    }
    let head = rec
        .block
        .get(..rec.block.len().min(256))
        .unwrap_or_default();
    let line = head
        .get(..memchr::memchr(b'\n', head).unwrap_or(head.len()))
        .unwrap_or_default();
    Some(status_code(line)).filter(|&c| c != 0)
}

impl<'a> HttpResponse<'a> {
    /// Parse an HTTP/1.x response head: `HTTP/` status line, header fields up
    /// to a blank line (CRLF or LF line ends). `None` when `block` does not
    /// start with `HTTP/`. A head without its blank line takes the whole block.
    ///
    /// ```
    /// let r = urlsift_warc::HttpResponse::parse(b"HTTP/1.1 301 Moved\r\nLocation: /x\r\n\r\n").unwrap();
    /// assert_eq!(r.status, 301);
    /// assert_eq!(r.header("location"), Some(&b"/x"[..]));
    /// ```
    pub fn parse(block: &'a [u8]) -> Option<HttpResponse<'a>> {
        if !block.starts_with(b"HTTP/") {
            return None;
        }
        let line_end = memchr::memchr(b'\n', block).unwrap_or(block.len());
        let status = status_code(block.get(..line_end).unwrap_or_default());
        let mut headers = Vec::new();
        let mut header_offsets = Vec::new();
        let mut at = (line_end + 1).min(block.len());
        let mut body_offset = block.len();
        while at < block.len() {
            let end = memchr::memchr(b'\n', block.get(at..).unwrap_or_default())
                .map_or(block.len(), |p| at + p);
            let line = block.get(at..end).unwrap_or_default();
            // Lenient line ends: CR LF, LF, and CR CR LF as old writers put.
            let line = trim_cr(line);
            if line.is_empty() {
                body_offset = (end + 1).min(block.len());
                break;
            }
            if let Some(c) = memchr::memchr(b':', line) {
                let name = trim(line.get(..c).unwrap_or_default());
                let raw = line.get(c + 1..).unwrap_or_default();
                let lead = raw.len() - raw.trim_ascii_start().len();
                headers.push((name, trim(raw)));
                header_offsets.push(at + c + 1 + lead);
            }
            at = end + 1;
        }
        Some(HttpResponse {
            status,
            headers,
            header_offsets,
            raw_body: block.get(body_offset..).unwrap_or_default(),
            body_offset,
        })
    }

    /// The first header field named `name` (ASCII case-insensitive).
    pub fn header(&self, name: &str) -> Option<&'a [u8]> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name.as_bytes()))
            .map(|&(_, v)| v)
    }

    /// The body with `Transfer-Encoding: chunked` and every
    /// `Content-Encoding` undone, at most `max` bytes. On framing or a
    /// coding that fails part-way, the bytes decoded before the break and a
    /// message naming the first failure and how many bytes that is.
    ///
    /// ```
    /// let r = urlsift_warc::HttpResponse::parse(
    ///     b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nzz\r\n",
    /// ).unwrap();
    /// let (body, problem) = r.body(1 << 20);
    /// assert_eq!(&body[..], b"hello");
    /// assert_eq!(problem.as_deref(), Some("malformed chunked body: the 5 bytes decoded before the break are read"));
    /// ```
    pub fn body(&self, max: usize) -> (Cow<'a, [u8]>, Option<String>) {
        // The first failure, and whether the body is cut there (else it is
        // left as is).
        let (body, mut problem) = self.transfer_decoded();
        let body = self.content_decoded(body, max, &mut problem);
        let body = capped(body, max, &mut problem);
        let problem = problem.map(|(what, cut)| {
            if body.is_empty() {
                format!("{what}: nothing decoded before the break")
            } else if cut {
                format!(
                    "{what}: the {} bytes decoded before the break are read",
                    body.len()
                )
            } else {
                format!("{what}: body left as is")
            }
        });
        (body, problem)
    }

    /// The body with its transfer coding (chunked) undone, and the problem
    /// met (with whether the body is cut there).
    fn transfer_decoded(&self) -> (Cow<'a, [u8]>, Option<(String, bool)>) {
        let te = self.header("Transfer-Encoding").unwrap_or_default();
        if !contains_token(te, b"chunked") || self.raw_body.is_empty() {
            return (Cow::Borrowed(self.raw_body), None);
        }
        if !starts_chunked(self.raw_body) {
            // Stored de-chunked with the header kept (as some archivers
            // write it): the body is read as it is.
            let what = "Transfer-Encoding chunked, but the body does not start with a chunk size";
            return (Cow::Borrowed(self.raw_body), Some((what.to_owned(), false)));
        }
        let (b, ok) = dechunk(self.raw_body);
        let problem = (!ok).then(|| ("malformed chunked body".to_owned(), true));
        (Cow::Owned(b), problem)
    }

    /// `body` with its content codings undone (in reverse order of listing),
    /// up to `max` bytes each; the first problem kept in `problem`.
    fn content_decoded(
        &self,
        mut body: Cow<'a, [u8]>,
        max: usize,
        problem: &mut Option<(String, bool)>,
    ) -> Cow<'a, [u8]> {
        let ce = self.header("Content-Encoding").unwrap_or_default();
        for coding in ce.rsplit(|&b| b == b',') {
            let coding = trim(coding).to_ascii_lowercase();
            if coding.is_empty() || coding == b"identity" || body.is_empty() {
                continue;
            }
            let name = String::from_utf8_lossy(&coding);
            match decode(&coding, &body, max) {
                Some(Ok(b)) => body = Cow::Owned(b),
                Some(Err((b, e))) => {
                    // Nothing decoded: the body may not be coded at all
                    // (a wrong header), so it is read as it is.
                    let cut = !b.is_empty();
                    problem.get_or_insert((format!("Content-Encoding {name}: {e}"), cut));
                    if cut {
                        body = Cow::Owned(b);
                    }
                    break;
                }
                None => {
                    problem
                        .get_or_insert((format!("Content-Encoding {name} not supported"), false));
                    break;
                }
            }
        }
        body
    }
}

/// `body` cut to `max` bytes, with a problem saying so when it was longer.
fn capped<'a>(
    body: Cow<'a, [u8]>,
    max: usize,
    problem: &mut Option<(String, bool)>,
) -> Cow<'a, [u8]> {
    if body.len() <= max {
        return body;
    }
    problem.get_or_insert((
        format!("decoded body longer than the cap of {max} bytes"),
        true,
    ));
    match body {
        Cow::Borrowed(b) => Cow::Borrowed(b.get(..max).unwrap_or_default()),
        Cow::Owned(mut v) => {
            v.truncate(max);
            Cow::Owned(v)
        }
    }
}

/// `line` without the CRs at its end.
pub(crate) fn trim_cr(line: &[u8]) -> &[u8] {
    let n = line.iter().rposition(|&b| b != b'\r').map_or(0, |p| p + 1);
    line.get(..n).unwrap_or_default()
}

fn trim(s: &[u8]) -> &[u8] {
    s.trim_ascii()
}

fn contains_token(list: &[u8], token: &[u8]) -> bool {
    list.split(|&b| b == b',')
        .any(|t| trim(t).eq_ignore_ascii_case(token))
}

/// True when `s` starts with a chunk-size line: hex digits (at most 15),
/// then optional whitespace and a `;` extension, then a line end.
fn starts_chunked(s: &[u8]) -> bool {
    let Some(nl) = memchr::memchr(b'\n', s) else {
        return false;
    };
    let line = s.get(..nl).unwrap_or_default();
    let size = trim(line.split(|&b| b == b';').next().unwrap_or_default());
    !size.is_empty() && size.len() <= 15 && size.iter().all(u8::is_ascii_hexdigit)
}

/// Undo `Transfer-Encoding: chunked`. Lenient: a malformed or truncated
/// body (one that ends before its last, zero-size, chunk included) gives
/// the chunks read so far and `false`.
///
/// ```
/// use urlsift_warc::dechunk;
/// assert_eq!(dechunk(b"5\r\nhello\r\n0\r\n\r\n"), (b"hello".to_vec(), true));
/// assert_eq!(dechunk(b"5\r\nhello\r\n"), (b"hello".to_vec(), false));
/// assert_eq!(dechunk(b"5\r\nhel"), (b"hel".to_vec(), false));
/// ```
pub fn dechunk(mut s: &[u8]) -> (Vec<u8>, bool) {
    let mut out = Vec::with_capacity(s.len());
    loop {
        let Some(nl) = memchr::memchr(b'\n', s) else {
            return (out, false);
        };
        let line = s.get(..nl).unwrap_or_default();
        // The size, before any `;` chunk extension.
        let size_txt = line.split(|&b| b == b';').next().unwrap_or_default();
        let size_txt = trim(size_txt);
        if size_txt.is_empty() || size_txt.len() > 15 {
            return (out, false);
        }
        let mut size: usize = 0;
        for &b in size_txt {
            let Some(d) = (b as char).to_digit(16) else {
                return (out, false);
            };
            size = size * 16 + d as usize;
        }
        s = s.get(nl + 1..).unwrap_or_default();
        if size == 0 {
            return (out, true);
        }
        let Some(chunk) = s.get(..size) else {
            out.extend_from_slice(s);
            return (out, false);
        };
        out.extend_from_slice(chunk);
        s = s.get(size..).unwrap_or_default();
        s = s.strip_prefix(b"\r").unwrap_or(s);
        s = s.strip_prefix(b"\n").unwrap_or(s);
    }
}

thread_local! {
    static INFLATER: std::cell::RefCell<libdeflater::Decompressor> =
        std::cell::RefCell::new(libdeflater::Decompressor::new());
}

/// A gzip body of one member, inflated whole by libdeflate: `None` (and the
/// streaming decoder then) unless `data` is exactly one member (no other
/// gzip magic after its header, and it ends with the trailer its inflated
/// bytes match) of at most `max` bytes.
fn inflate_single(data: &[u8], max: usize) -> Option<Vec<u8>> {
    if memchr::memmem::find(data.get(10..)?, b"\x1f\x8b\x08").is_some() {
        return None;
    }
    let size = data.len().checked_sub(4).and_then(|k| data.get(k..))?;
    let size = u32::from_le_bytes(<[u8; 4]>::try_from(size).ok()?);
    if usize::try_from(size).ok()? > max {
        return None;
    }
    let mut out = Vec::new();
    let n = INFLATER.with(|d| crate::source::inflate_exact(&mut d.borrow_mut(), data, &mut out))?;
    out.truncate(n);
    Some(out)
}

type Decoded = Result<Vec<u8>, (Vec<u8>, std::io::Error)>;

/// Decode one content coding, at most `max` bytes (a zip bomb stops there).
/// `None` for a coding this crate does not know.
fn decode(coding: &[u8], data: &[u8], max: usize) -> Option<Decoded> {
    // One byte more than the cap, to tell a body cut there from one that
    // ends there.
    let limit = (max as u64).saturating_add(1);
    let read = |r: &mut dyn Read| -> Decoded {
        let mut out = Vec::with_capacity(data.len().saturating_mul(4).min(max));
        match r.take(limit).read_to_end(&mut out) {
            Ok(_) => Ok(out),
            Err(e) => Err((out, e)),
        }
    };
    Some(match coding {
        b"gzip" | b"x-gzip" => match inflate_single(data, max) {
            Some(out) => Ok(out),
            None => read(&mut flate2::bufread::MultiGzDecoder::new(data)),
        },
        b"deflate" => {
            // "deflate" is zlib (RFC 9110), but servers also send raw deflate.
            let zlib = matches!(data, [a, b, ..] if a & 0x0f == 8 && (u16::from(*a) << 8 | u16::from(*b)) % 31 == 0);
            if zlib {
                read(&mut flate2::bufread::ZlibDecoder::new(data))
            } else {
                read(&mut flate2::bufread::DeflateDecoder::new(data))
            }
        }
        b"br" => read(&mut brotli_decompressor::Decompressor::new(data, 64 * 1024)),
        b"zstd" => match zstd::stream::read::Decoder::with_buffer(data) {
            Ok(mut d) => read(&mut d),
            Err(e) => Err((Vec::new(), e)),
        },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn streamed(data: &[u8], max: usize) -> Decoded {
        let mut out = Vec::new();
        let r = flate2::bufread::MultiGzDecoder::new(data)
            .take(max as u64)
            .read_to_end(&mut out);
        match r {
            Ok(_) => Ok(out),
            Err(e) => Err((out, e)),
        }
    }

    /// The body decoder agrees with flate2's streaming one on one member,
    /// several, trailing bytes, a cap and damage.
    #[test]
    fn gzip_bodies_decode_as_streamed() {
        let a = gz(b"<a href=x>one</a>");
        let b = gz(b"two \x1f\x8b\x08 two");
        let empty = gz(b"");
        let mut bad_crc = a.clone();
        let k = bad_crc.len() - 8;
        bad_crc[k] ^= 1;
        let cases: Vec<Vec<u8>> = vec![
            a.clone(),
            b.clone(),
            [a.clone(), b.clone()].concat(),
            [a.clone(), a.clone()].concat(),
            [a.clone(), b"junk".to_vec()].concat(),
            [a.clone(), vec![0; 8]].concat(),
            empty,
            bad_crc,
            a[..a.len() - 3].to_vec(),
        ];
        for (n, data) in cases.iter().enumerate() {
            for max in [usize::MAX, 5] {
                let got = decode(b"gzip", data, max).unwrap();
                // `decode` reads one byte past the cap, to tell a cut.
                let want = streamed(data, max.saturating_add(1));
                match (got, want) {
                    (Ok(g), Ok(w)) => assert_eq!(g, w, "case {n}"),
                    (Err((g, _)), Err((w, _))) => assert_eq!(g, w, "case {n}"),
                    (g, w) => panic!("case {n}: {g:?} vs {w:?}"),
                }
            }
        }
    }
}
