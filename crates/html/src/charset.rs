//! The character encoding of an HTML page, as browsers decide it (the WHATWG
//! HTML Standard's "determining the character encoding", with the WHATWG
//! Encoding Standard's labels and decoders from `encoding_rs`), and pages
//! that are not UTF-8 decoded to UTF-8 with a map back to their bytes.

use encoding_rs::{CoderResult, Encoding, UTF_8, UTF_16BE, UTF_16LE, WINDOWS_1252};

/// How many bytes the `<meta charset>` prescan looks at.
pub const PRESCAN_LEN: usize = 1024;

/// The encoding of a page, and where it was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageEncoding {
    /// The encoding (UTF-8 when nothing says otherwise).
    pub encoding: &'static Encoding,
    /// The length of the byte order mark the page starts with (0 if none).
    pub bom: usize,
}

/// The encoding of `page`, as browsers decide it: a byte order mark, then
/// the HTTP `Content-Type` charset (`http`: the header's value, if any),
/// then a `<meta charset>` or `<meta http-equiv=content-type>` in the first
/// [`PRESCAN_LEN`] bytes, else UTF-8. Returns the encoding, and a label
/// that named no encoding (in the header or a `<meta>`), if any: the page
/// is then read by what comes next.
///
/// ```
/// use urlsift_html::page_encoding;
/// let (e, unknown) = page_encoding(b"<meta charset=windows-1251><a href=x>", None);
/// assert_eq!((e.encoding.name(), unknown), ("windows-1251", None));
/// let (e, _) = page_encoding(b"\xff\xfe<\0a\0", Some("text/html; charset=iso-8859-1"));
/// assert_eq!((e.encoding.name(), e.bom), ("UTF-16LE", 2));
/// let (e, unknown) = page_encoding(b"<p>", Some("text/html; charset=klingon"));
/// assert_eq!((e.encoding.name(), unknown.as_deref()), ("UTF-8", Some("klingon")));
/// ```
pub fn page_encoding(page: &[u8], http: Option<&str>) -> (PageEncoding, Option<String>) {
    if let Some((encoding, bom)) = Encoding::for_bom(page) {
        return (PageEncoding { encoding, bom }, None);
    }
    let mut unknown = None;
    if let Some(label) = http.and_then(content_type_charset) {
        match Encoding::for_label(label.as_bytes()) {
            Some(e) => return (found(e), None),
            None => unknown = Some(label),
        }
    }
    match prescan(page.get(..PRESCAN_LEN).unwrap_or(page)) {
        Some(label) => match Encoding::for_label(&label) {
            // A page that says it is UTF-16 but has no byte order mark is
            // ASCII-compatible: UTF-8 (WHATWG); x-user-defined is
            // windows-1252.
            Some(e) if e == UTF_16LE || e == UTF_16BE => (found(UTF_8), unknown),
            Some(e) if e.name() == "x-user-defined" => (found(WINDOWS_1252), unknown),
            Some(e) => (found(e), unknown),
            None => (
                found(UTF_8),
                unknown.or_else(|| Some(String::from_utf8_lossy(&label).into_owned())),
            ),
        },
        None => (found(UTF_8), unknown),
    }
}

fn found(encoding: &'static Encoding) -> PageEncoding {
    PageEncoding { encoding, bom: 0 }
}

/// The `charset` parameter of a `Content-Type` value, unquoted.
fn content_type_charset(ct: &str) -> Option<String> {
    charset_param(ct.as_bytes()).map(|c| String::from_utf8_lossy(c).trim().to_owned())
}

/// The value after `charset=` (quoted or not) in `v`, as WHATWG's
/// "algorithm for extracting a character encoding from a meta element"
/// finds it (also the way a `Content-Type` header's parameter reads).
fn charset_param(v: &[u8]) -> Option<&[u8]> {
    let mut i = 0;
    loop {
        let at = i + find_ci(v.get(i..)?, b"charset")?;
        let mut j = at + 7;
        while v.get(j).is_some_and(|b| b.is_ascii_whitespace()) {
            j += 1;
        }
        if v.get(j) != Some(&b'=') {
            i = j;
            continue;
        }
        j += 1;
        while v.get(j).is_some_and(|b| b.is_ascii_whitespace()) {
            j += 1;
        }
        return match v.get(j) {
            Some(&q @ (b'"' | b'\'')) => {
                let rest = v.get(j + 1..)?;
                let e = memchr::memchr(q, rest)?;
                rest.get(..e)
            }
            Some(_) => {
                let rest = v.get(j..)?;
                let e = rest
                    .iter()
                    .position(|&b| b.is_ascii_whitespace() || b == b';')
                    .unwrap_or(rest.len());
                rest.get(..e)
            }
            None => None,
        };
    }
}

fn find_ci(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
}

/// The charset label of the first `<meta charset>` or `<meta
/// http-equiv=content-type content="...; charset=...">` of `head`,
/// comments skipped (WHATWG's "prescan a byte stream").
fn prescan(head: &[u8]) -> Option<Vec<u8>> {
    let mut i = 0;
    while let Some(p) = memchr::memchr(b'<', head.get(i..)?) {
        let lt = i + p;
        let rest = head.get(lt..)?;
        if rest.starts_with(b"<!--") {
            i = memchr::memmem::find(head.get(lt + 4..)?, b"-->").map(|q| lt + 4 + q + 3)?;
            continue;
        }
        let is_meta = rest
            .get(1..5)
            .is_some_and(|n| n.eq_ignore_ascii_case(b"meta"))
            && rest
                .get(5)
                .is_some_and(|&b| b.is_ascii_whitespace() || b == b'/');
        if !is_meta {
            i = lt + 1;
            continue;
        }
        let (mut charset, mut http_equiv, mut content) = (None, false, None);
        let end = crate::html::attributes(head, lt + 5, &mut |name, value| {
            if name.eq_ignore_ascii_case(b"charset") && charset.is_none() {
                charset = Some(value.trim_ascii().to_vec());
            } else if name.eq_ignore_ascii_case(b"http-equiv") {
                http_equiv |= value.trim_ascii().eq_ignore_ascii_case(b"content-type");
            } else if name.eq_ignore_ascii_case(b"content") && content.is_none() {
                content = Some(value.to_vec());
            }
        });
        if let Some(c) = charset {
            return Some(c);
        }
        if http_equiv && let Some(c) = content.as_deref().and_then(charset_param) {
            return Some(c.to_vec());
        }
        i = end?;
    }
    None
}

/// A page decoded to UTF-8, with the map of its offsets back to the page's.
pub(crate) struct Decoded {
    /// The page in UTF-8.
    pub text: Vec<u8>,
    /// `(text offset, page offset)`: the text from each text offset on was
    /// decoded from the page from the page offset on.
    map: Vec<(usize, usize)>,
}

impl Decoded {
    /// The page offset of text offset `t` (a character's first byte maps to
    /// the first byte of the sequence it was decoded from).
    pub(crate) fn page_offset(&self, t: usize) -> usize {
        let i = self.map.partition_point(|&(x, _)| x <= t);
        match i.checked_sub(1).and_then(|i| self.map.get(i)) {
            Some(&(x, p)) if x == t => p,
            // Inside an ASCII run: one byte each.
            Some(&(x, p)) => p + (t - x),
            None => t,
        }
    }
}

/// `page` (without its byte order mark of `bom` bytes) decoded from
/// `encoding` to UTF-8 (malformed sequences as U+FFFD), with its map.
///
/// Runs of ASCII after a complete character are decoded at once (in an
/// ASCII-compatible encoding no sequence starts with an ASCII byte), every
/// other byte one at a time, so each character's place in the page is known.
pub(crate) fn decode(page: &[u8], PageEncoding { encoding, bom }: PageEncoding) -> Decoded {
    let mut dec = encoding.new_decoder_without_bom_handling();
    let mut text = Vec::with_capacity(page.len() + page.len() / 2);
    let mut map = Vec::new();
    let ascii_runs = encoding.is_ascii_compatible();
    let mut buf = [0u8; 64];
    let mut i = bom;
    // The first byte fed since the last character came out.
    let mut seq_start = i;
    let mut neutral = true;
    let n = page.len();
    while i < n {
        let ascii = ascii_runs && neutral && page[i] < 0x80;
        let run_end = if ascii {
            page.get(i..)
                .and_then(|r| r.iter().position(|&b| b >= 0x80))
                .map_or(n, |p| i + p)
        } else {
            i + 1
        };
        let piece = page.get(i..run_end).unwrap_or_default();
        let before = text.len();
        if ascii {
            // It decodes to itself, and leaves the decoder as it was.
            text.extend_from_slice(piece);
        } else {
            feed(&mut dec, piece, false, &mut text, &mut buf);
        }
        if text.len() > before {
            map.push((before, seq_start));
            seq_start = run_end;
        }
        neutral = piece.last().is_some_and(|&b| b < 0x80);
        i = run_end;
    }
    let before = text.len();
    feed(&mut dec, &[], true, &mut text, &mut buf);
    if text.len() > before {
        map.push((before, seq_start));
    }
    Decoded { text, map }
}

/// Decode `src` into `out` (through `buf`).
fn feed(
    dec: &mut encoding_rs::Decoder,
    mut src: &[u8],
    last: bool,
    out: &mut Vec<u8>,
    buf: &mut [u8; 64],
) {
    loop {
        let (res, read, written, _) = dec.decode_to_utf8(src, buf, last);
        out.extend_from_slice(buf.get(..written).unwrap_or_default());
        src = src.get(read..).unwrap_or_default();
        if res == CoderResult::InputEmpty {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(page: &[u8], http: Option<&str>) -> &'static str {
        page_encoding(page, http).0.encoding.name()
    }

    #[test]
    fn bom_then_http_then_meta_then_utf8() {
        let meta = b"<!doctype html><meta charset=\"koi8-r\"><p>";
        assert_eq!(enc(meta, None), "KOI8-R");
        assert_eq!(
            enc(meta, Some("text/html; charset=windows-1251")),
            "windows-1251"
        );
        assert_eq!(
            enc(
                &[b"\xef\xbb\xbf", &meta[..]].concat(),
                Some("text/html; charset=latin1")
            ),
            "UTF-8"
        );
        assert_eq!(enc(b"\xfe\xff\0<", None), "UTF-16BE");
        assert_eq!(enc(b"<p>hi", None), "UTF-8");
        assert_eq!(
            enc(
                b"<META HTTP-EQUIV='Content-Type' CONTENT='text/html; charset=Shift_JIS'>",
                None
            ),
            "Shift_JIS"
        );
        assert_eq!(enc(b"<!-- <meta charset=koi8-r> --><p>", None), "UTF-8");
        assert_eq!(enc(b"<meta charset=utf-16le>", None), "UTF-8");
        // Past the first 1024 bytes, a <meta> is not looked at.
        let late = [&[b' '; 1024][..], b"<meta charset=koi8-r>"].concat();
        assert_eq!(enc(&late, None), "UTF-8");
        let (_, unknown) = page_encoding(b"<meta charset=klingon>", None);
        assert_eq!(unknown.as_deref(), Some("klingon"));
    }

    #[test]
    fn decoded_offsets_map_to_the_page() {
        let cases: [(&'static Encoding, &str); 4] = [
            (
                encoding_rs::WINDOWS_1251,
                "<a href=\"/Путь\">Ссылка http://ex.ru/Путь</a>",
            ),
            (encoding_rs::SHIFT_JIS, "<p>日本語 http://ex.jp/パス x</p>"),
            (UTF_16LE, "<a href=/é>http://a.example/é</a>"),
            (encoding_rs::ISO_2022_JP, "<p>日本 http://b.example/</p>"),
        ];
        for (e, s) in cases {
            let (page, _, bad) = e.encode(s);
            let page: Vec<u8> = if e == UTF_16LE {
                s.encode_utf16().flat_map(|u| u.to_le_bytes()).collect()
            } else {
                assert!(!bad);
                page.into_owned()
            };
            let d = decode(
                &page,
                PageEncoding {
                    encoding: e,
                    bom: 0,
                },
            );
            assert_eq!(std::str::from_utf8(&d.text).unwrap(), s, "{}", e.name());
            // Each character's offset maps to where its encoding starts.
            for (t, c) in s.char_indices() {
                let p = d.page_offset(t);
                let cs = c.to_string();
                let (one, _, _) = e.encode(&cs);
                let one: Vec<u8> = if e == UTF_16LE {
                    c.encode_utf16(&mut [0; 2])
                        .iter()
                        .flat_map(|u| u.to_le_bytes())
                        .collect()
                } else {
                    one.into_owned()
                };
                if e != encoding_rs::ISO_2022_JP {
                    assert_eq!(
                        page.get(p..p + one.len()),
                        Some(&one[..]),
                        "{} {c:?}",
                        e.name()
                    );
                }
            }
        }
    }
}
