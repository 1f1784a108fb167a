//! HTML character references (`&amp;`, `&#38;`, `&#x26;`), decoded before a
//! text/html part is scanned, so `href="...?a=1&amp;b=2"` gives `...?a=1&b=2`.
//!
//! The rule: a reference must end with `;`. Numeric references in range give
//! their character (a surrogate, zero or out-of-range value gives U+FFFD);
//! named references from [`NAMED`] (the ones that turn up in mail) give their
//! character; anything else is left as it is. The decoded text is never longer
//! than the input, and one pass over it is linear.

use std::borrow::Cow;

/// The named references decoded (the rest are left as written).
pub const NAMED: &[(&str, &str)] = &[
    ("amp", "&"),
    ("lt", "<"),
    ("gt", ">"),
    ("quot", "\""),
    ("apos", "'"),
    ("nbsp", "\u{a0}"),
    ("sol", "/"),
    ("colon", ":"),
    ("equals", "="),
    ("quest", "?"),
    ("num", "#"),
    ("percnt", "%"),
    ("period", "."),
    ("lowbar", "_"),
    ("tilde", "~"),
    ("hyphen", "\u{2010}"),
    ("copy", "\u{a9}"),
    ("reg", "\u{ae}"),
    ("trade", "\u{2122}"),
    ("hellip", "\u{2026}"),
    ("ndash", "\u{2013}"),
    ("mdash", "\u{2014}"),
    ("lsquo", "\u{2018}"),
    ("rsquo", "\u{2019}"),
    ("ldquo", "\u{201c}"),
    ("rdquo", "\u{201d}"),
    ("laquo", "\u{ab}"),
    ("raquo", "\u{bb}"),
    ("bull", "\u{2022}"),
    ("middot", "\u{b7}"),
    ("euro", "\u{20ac}"),
    ("zwnj", "\u{200c}"),
    ("zwj", "\u{200d}"),
    ("shy", "\u{ad}"),
];

/// The longest reference looked at, `&` and `;` included.
const MAX_REF: usize = 12;

/// Decode the character references of `b` (references give UTF-8; other
/// bytes are kept as they are); borrows when there are none.
pub fn decode_refs(b: &[u8]) -> Cow<'_, [u8]> {
    let Some(first) = memchr::memchr(b'&', b) else {
        return Cow::Borrowed(b);
    };
    let mut out = Vec::with_capacity(b.len());
    out.extend_from_slice(&b[..first]);
    let mut i = first;
    while i < b.len() {
        // `i` is at an `&`.
        let (text, used) = reference(&b[i..]);
        match text {
            Some(t) => {
                out.extend_from_slice(t.as_bytes());
                i += used;
            }
            None => {
                out.push(b'&');
                i += 1;
            }
        }
        let next = memchr::memchr(b'&', &b[i..]).map_or(b.len(), |n| i + n);
        out.extend_from_slice(&b[i..next]);
        i = next;
    }
    Cow::Owned(out)
}

/// The text of the reference at the start of `b` (which starts with `&`),
/// and its length; `None` when it is not one.
fn reference(b: &[u8]) -> (Option<Cow<'static, str>>, usize) {
    let lim = b.len().min(MAX_REF);
    let Some(semi) = memchr::memchr(b';', &b[..lim]) else {
        return (None, 0);
    };
    let body = &b[1..semi];
    if let Some(num) = body.strip_prefix(b"#") {
        let v = match num.first() {
            Some(b'x' | b'X') => parse_num(&num[1..], 16),
            _ => parse_num(num, 10),
        };
        let Some(v) = v else {
            return (None, 0);
        };
        let c = char::from_u32(v)
            .filter(|&c| c != '\0')
            .unwrap_or('\u{fffd}');
        return (Some(Cow::Owned(c.to_string())), semi + 1);
    }
    for &(name, text) in NAMED {
        if body == name.as_bytes() {
            return (Some(Cow::Borrowed(text)), semi + 1);
        }
    }
    (None, 0)
}

fn parse_num(digits: &[u8], radix: u32) -> Option<u32> {
    if digits.is_empty() {
        return None;
    }
    let mut v: u32 = 0;
    for &d in digits {
        let x = (d as char).to_digit(radix)?;
        v = v.saturating_mul(radix).saturating_add(x);
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(s: &str) -> String {
        String::from_utf8(decode_refs(s.as_bytes()).into_owned()).unwrap()
    }

    #[test]
    fn decodes_references() {
        assert_eq!(decode("a=1&amp;b=2"), "a=1&b=2");
        assert_eq!(decode("&#38;&#x26;&#X3d;"), "&&=");
        assert_eq!(
            decode("&unknown; & &amp &#;&#xzz;"),
            "&unknown; & &amp &#;&#xzz;"
        );
        assert_eq!(
            decode("&#0;&#xD800;&#99999999;"),
            "\u{fffd}\u{fffd}\u{fffd}"
        );
        assert_eq!(decode("K&ouml;ln &lt;x&gt;"), "K&ouml;ln <x>");
        assert!(matches!(decode_refs(b"no refs"), Cow::Borrowed(_)));
        assert_eq!(decode("&&&amp;"), "&&&");
        assert_eq!(decode("é&amp;é"), "é&é");
    }
}
