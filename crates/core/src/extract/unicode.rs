//! Non-ASCII bytes in a URL: IRIs (RFC 3987) are kept whole, while Unicode
//! whitespace, C1 controls, CJK/full-width punctuation and typographic quotes end
//! a URL. Invalid UTF-8 ends a URL too: it is
//! binary or a legacy 8-bit charset, and never part of an IRI.

/// Decode the UTF-8 scalar at `hay[i..]`: `Some((char, len))`, or `None` when the
/// bytes there are not well-formed UTF-8.
#[inline]
pub(crate) fn decode(hay: &[u8], i: usize) -> Option<(char, usize)> {
    let b0 = *hay.get(i)?;
    let len = match b0 {
        0x00..=0x7F => return Some((b0 as char, 1)),
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return None,
    };
    let bytes = hay.get(i..i + len)?;
    let s = std::str::from_utf8(bytes).ok()?;
    s.chars().next().map(|c| (c, len))
}

/// True if `c` (non-ASCII) is Unicode whitespace (White_Space=yes).
pub(crate) fn is_space(c: char) -> bool {
    matches!(
        c as u32,
        0x85 | 0xA0 | 0x1680 | 0x2000..=0x200A | 0x2028 | 0x2029 | 0x202F | 0x205F | 0x3000
    )
}

/// True if the Unicode scalar `c` (non-ASCII) ends a URL.
pub(crate) fn ends_url(c: char) -> bool {
    let u = c as u32;
    matches!(u,
        // C1 controls, NEL, NBSP
        0x80..=0xA0
        // « » and the soft hyphen (never visible in a URL)
        | 0xAB | 0xBB | 0xAD
        // Ogham space, the General Punctuation spaces, ZW space/joiners, LS, PS,
        // (not ZWNJ/ZWJ, U+200C/U+200D: they occur inside words and emoji),
        // directional marks, narrow NBSP, medium math space, word joiner, BOM
        | 0x1680 | 0x2000..=0x200B | 0x200E | 0x200F | 0x2028..=0x202F | 0x205F..=0x2064 | 0xFEFF
        // typographic quotes and ellipsis: ‘ ’ ‚ ‛ “ ” „ ‟ … ‹ ›
        | 0x2018..=0x201F | 0x2026 | 0x2039 | 0x203A
        // CJK symbols and punctuation: ideographic space, 、 。 〃, brackets 〈 〉 《 》 「 」 『 』 【 】 〔 〕 ...
        | 0x3000..=0x3003 | 0x3008..=0x3011 | 0x3014..=0x301F
        // full-width forms: ！ ＂ （ ） ， ． ： ； ＜ ＞ ？ ［ ］ ｛ ｝ and half-width 。「」、
        | 0xFF01 | 0xFF02 | 0xFF08 | 0xFF09 | 0xFF0C | 0xFF0E | 0xFF1A | 0xFF1B
        | 0xFF1C | 0xFF1E | 0xFF1F | 0xFF3B | 0xFF3D | 0xFF5B..=0xFF5D | 0xFF5F..=0xFF65
        // the replacement character: text that was already broken
        | 0xFFFD
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_and_classifies() {
        assert_eq!(decode("ö".as_bytes(), 0), Some(('ö', 2)));
        assert_eq!(decode(b"\xff", 0), None);
        assert_eq!(decode(b"\xe3\x80", 0), None);
        assert!(ends_url('。'));
        assert!(ends_url('\u{3000}'));
        assert!(ends_url('”'));
        assert!(!ends_url('ö'));
        assert!(!ends_url('中'));
    }
}
