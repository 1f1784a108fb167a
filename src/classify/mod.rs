//! Stage 1: one classification pass over the input, 64 bytes at a time.
//!
//! The classifier finds *candidate anchors* (places where a URL may be
//! anchored) and *stop bytes* (bytes that end a bare URL). Stage 2
//! ([`crate::extract`]) applies the delimiting rules only at candidates.
//!
//! # Contract (every ISA gives exactly the same answers as [`naive`])
//!
//! A **candidate anchor** is an offset `i` into the whole haystack where either
//! - `hay[i] == b':'` and `i > 0` and `hay[i-1]` is a scheme character
//!   (`ALPHA / DIGIT / "+" / "-" / "."`), or
//! - `hay[i..i+4]` equals `www.` ASCII case-insensitively.
//!
//! A **stop byte** is an ASCII control (`0x00..=0x20`, `0x7F`, so space too),
//! one of `" < > \ ^ ` { | }`, or any byte `>= 0x80` (non-ASCII, which stage 2
//! decodes to decide whether it ends the URL).
//!
//! Placeholder until the SIMD kernels land: only the naive reference exists.

/// The naive reference loops: the oracle every other implementation is tested against.
pub mod naive {
    /// True if `b` may appear in an RFC 3986 scheme after its first letter.
    #[inline]
    pub fn is_scheme_char(b: u8) -> bool {
        b.is_ascii_alphanumeric() || b == b'+' || b == b'-' || b == b'.'
    }

    /// True if `b` is a stop byte (see the module docs).
    #[inline]
    pub fn is_stop(b: u8) -> bool {
        b <= 0x20
            || b >= 0x7F
            || matches!(b, b'"' | b'<' | b'>' | b'\\' | b'^' | b'`' | b'{' | b'|' | b'}')
    }

    /// Append every candidate anchor `i` with `start <= i < end` to `out`.
    /// Look-behind and look-ahead may read `hay` outside `start..end`.
    pub fn candidates(hay: &[u8], start: usize, end: usize, out: &mut Vec<usize>) {
        let end = end.min(hay.len());
        for i in start..end {
            let b = hay[i];
            if b == b':' && i > 0 && is_scheme_char(hay[i - 1]) {
                out.push(i);
            } else if (b | 0x20) == b'w'
                && i + 4 <= hay.len()
                && hay[i..i + 4].eq_ignore_ascii_case(b"www.")
            {
                out.push(i);
            }
        }
    }

    /// The first `i >= from` with a stop byte at `hay[i]`, or `hay.len()`.
    pub fn find_stop(hay: &[u8], from: usize) -> usize {
        let mut i = from;
        while i < hay.len() && !is_stop(hay[i]) {
            i += 1;
        }
        i.max(from.min(hay.len()))
    }
}
