//! HTML character references, decoded as the WHATWG tokenizer does: every
//! HTML5 named reference (the table comes from the `htmlize` crate, generated
//! from WHATWG's `entities.json`), the legacy forms without `;` (`&amp`,
//! `&copy`, ... longest match first), and numeric references with their
//! replacements (0, surrogates and values past U+10FFFF give U+FFFD; 0x80 to
//! 0x9F are read as windows-1252).
//!
//! In an attribute value, a legacy reference followed by `=` or an ASCII
//! alphanumeric is left as written (`?a=1&copy=2` keeps `&copy`).

/// Decode the character references of `input`, appending to `out`. After
/// each reference, `mark(input_pos, out_len)` is called with the input
/// offset just past it and the output length, so that output offsets can be
/// mapped back to the input.
///
/// ```
/// let mut out = Vec::new();
/// urlsift_html::decode_char_refs(b"mailto:a&#37;&#52;&#48;b.org", true, &mut out, |_, _| {});
/// assert_eq!(out, b"mailto:a%40b.org");
/// ```
pub fn decode_char_refs(
    input: &[u8],
    attribute: bool,
    out: &mut Vec<u8>,
    mut mark: impl FnMut(usize, usize),
) {
    let mut i = 0;
    while let Some(p) = memchr::memchr(b'&', input.get(i..).unwrap_or_default()) {
        let amp = i + p;
        out.extend_from_slice(input.get(i..amp).unwrap_or_default());
        match reference(input, amp, attribute, out) {
            Some(end) => {
                i = end;
                mark(end, out.len());
            }
            None => {
                out.push(b'&');
                i = amp + 1;
            }
        }
    }
    out.extend_from_slice(input.get(i..).unwrap_or_default());
}

/// Decode the reference at `input[amp] == b'&'` into `out`; the offset past
/// it, or `None` when there is none (the `&` stays as it is).
fn reference(input: &[u8], amp: usize, attribute: bool, out: &mut Vec<u8>) -> Option<usize> {
    match input.get(amp + 1) {
        Some(b'#') => numeric(input, amp + 2, out),
        Some(c) if c.is_ascii_alphanumeric() => named(input, amp + 1, attribute, out),
        _ => None,
    }
}

fn numeric(input: &[u8], mut i: usize, out: &mut Vec<u8>) -> Option<usize> {
    let hex = matches!(input.get(i), Some(b'x' | b'X'));
    if hex {
        i += 1;
    }
    let radix = if hex { 16 } else { 10 };
    let start = i;
    let mut value: u32 = 0;
    while let Some(d) = input.get(i).and_then(|&b| (b as char).to_digit(radix)) {
        // Saturate past the Unicode range: the value only needs to be "too big".
        value = value.saturating_mul(radix).saturating_add(d).min(0x11_0000);
        i += 1;
    }
    if i == start {
        return None;
    }
    if input.get(i) == Some(&b';') {
        i += 1;
    }
    let c = match value {
        0 | 0xD800..=0xDFFF | 0x11_0000.. => '\u{FFFD}',
        0x80..=0x9F => WINDOWS_1252
            .get(value as usize - 0x80)
            .copied()
            .flatten()
            .unwrap_or_else(|| char::from_u32(value).unwrap_or('\u{FFFD}')),
        v => char::from_u32(v).unwrap_or('\u{FFFD}'),
    };
    let mut b = [0u8; 4];
    out.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
    Some(i)
}

/// The longest legacy name (without `;`) in the table: `middot`, `frac12`, ...
const LEGACY_MAX: usize = 6;

fn named(input: &[u8], start: usize, attribute: bool, out: &mut Vec<u8>) -> Option<usize> {
    // The candidate name: ASCII alphanumerics, bounded by the longest entity.
    let max = htmlize::ENTITY_MAX_LENGTH;
    let mut end = start;
    while end - start < max && input.get(end).is_some_and(u8::is_ascii_alphanumeric) {
        end += 1;
    }
    let mut key = [0u8; 64];
    let name = input.get(start..end).unwrap_or_default();
    let lookup = |key: &mut [u8; 64], n: &[u8], semi: bool| -> Option<&'static [u8]> {
        let len = n.len() + 1 + usize::from(semi);
        let k = key.get_mut(..len)?;
        let (first, rest) = k.split_first_mut()?;
        *first = b'&';
        rest.get_mut(..n.len())?.copy_from_slice(n);
        if semi {
            *rest.last_mut()? = b';';
        }
        htmlize::ENTITIES.get(&k[..]).copied()
    };
    if input.get(end) == Some(&b';')
        && let Some(v) = common(name).or_else(|| lookup(&mut key, name, true))
    {
        out.extend_from_slice(v);
        return Some(end + 1);
    }
    // A legacy name without `;`: the longest prefix that is one.
    for len in (1..=name.len().min(LEGACY_MAX)).rev() {
        let Some(prefix) = name.get(..len) else {
            continue;
        };
        if let Some(v) = lookup(&mut key, prefix, false) {
            let next = input.get(start + len).copied();
            if attribute && next.is_some_and(|b| b == b'=' || b.is_ascii_alphanumeric()) {
                return None;
            }
            out.extend_from_slice(v);
            return Some(start + len);
        }
    }
    None
}

/// The names of the references pages use most (`&lt;`, `&amp;`, ...),
/// with `;`: what the table gives for them, without a hash look-up.
const COMMON: [(&[u8], &[u8]); 6] = [
    (b"lt", b"<"),
    (b"gt", b">"),
    (b"amp", b"&"),
    (b"quot", b"\""),
    (b"nbsp", "\u{a0}".as_bytes()),
    (b"apos", b"'"),
];

/// The decoding of `&name;` when `name` is one of [`COMMON`].
#[inline]
fn common(name: &[u8]) -> Option<&'static [u8]> {
    if !(2..=4).contains(&name.len()) {
        return None;
    }
    COMMON.iter().find(|(n, _)| *n == name).map(|&(_, v)| v)
}

/// What `&#128;` to `&#159;` mean (HTML's numeric character reference end state).
const WINDOWS_1252: [Option<char>; 32] = [
    Some('\u{20AC}'),
    None,
    Some('\u{201A}'),
    Some('\u{0192}'),
    Some('\u{201E}'),
    Some('\u{2026}'),
    Some('\u{2020}'),
    Some('\u{2021}'),
    Some('\u{02C6}'),
    Some('\u{2030}'),
    Some('\u{0160}'),
    Some('\u{2039}'),
    Some('\u{0152}'),
    None,
    Some('\u{017D}'),
    None,
    None,
    Some('\u{2018}'),
    Some('\u{2019}'),
    Some('\u{201C}'),
    Some('\u{201D}'),
    Some('\u{2022}'),
    Some('\u{2013}'),
    Some('\u{2014}'),
    Some('\u{02DC}'),
    Some('\u{2122}'),
    Some('\u{0161}'),
    Some('\u{203A}'),
    Some('\u{0153}'),
    None,
    Some('\u{017E}'),
    Some('\u{0178}'),
];

#[cfg(test)]
mod tests {
    use super::decode_char_refs;

    fn dec(s: &str, attr: bool) -> String {
        let mut out = Vec::new();
        decode_char_refs(s.as_bytes(), attr, &mut out, |_, _| {});
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn whatwg_examples() {
        assert_eq!(dec("&amp;&lt;&gt;&quot;&apos;", false), "&<>\"'");
        assert_eq!(dec("I'm &notit; I tell you", false), "I'm ¬it; I tell you");
        assert_eq!(dec("I'm &notin; I tell you", false), "I'm ∉ I tell you");
        assert_eq!(
            dec("&times;X &timesX &times= &timesbar;", false),
            "×X ×X ×= ⨱"
        );
        assert_eq!(dec("?a=1&copy=2&copyx&copy;", true), "?a=1&copy=2&copyx©");
        assert_eq!(dec("a&ampb", true), "a&ampb");
        assert_eq!(dec("a&amp b &nosuch; &", true), "a& b &nosuch; &");
        assert_eq!(
            dec("&#x41;&#65&#x;&#;&#0;&#x110000;&#xD800;", false),
            "AA&#x;&#;\u{FFFD}\u{FFFD}\u{FFFD}"
        );
        assert_eq!(
            dec("&#128;&#x9D;&#99999999999999999999;", false),
            "€\u{9D}\u{FFFD}"
        );
        assert_eq!(dec("&NotNestedGreaterGreater;&fjlig;", false), "⪢̸fj");
    }

    #[test]
    fn common_references_decode_as_the_table_says() {
        for (name, value) in super::COMMON {
            let key = [&b"&"[..], name, b";"].concat();
            assert_eq!(htmlize::ENTITIES.get(&key[..]).copied(), Some(value));
            assert_eq!(super::common(name), Some(value));
        }
        assert_eq!(super::common(b"l"), None);
        assert_eq!(super::common(b"LT"), None);
        assert_eq!(dec("&LT;&nbsp;&ampx;&amp", false), "<\u{a0}&x;&");
    }

    #[test]
    fn marks_map_back() {
        let mut marks = Vec::new();
        let mut out = Vec::new();
        decode_char_refs(b"a&amp;b&#x2F;c", false, &mut out, |i, o| {
            marks.push((i, o))
        });
        assert_eq!(out, b"a&b/c");
        assert_eq!(marks, [(6, 2), (13, 4)]);
    }
}
