//! Byte classes of a short URL as bitmasks (bit `i` for byte `i`), 16
//! bytes at a time: the fast paths find a URL's parts and check them with
//! a few bit operations instead of a table lookup per byte.
//!
//! [`scalar`] is the reference; on x86-64 the SSE2 kernel (part of the
//! architecture's baseline, so no feature test) gives exactly its answers
//! (tested on every URL of `datasets/urls.txt` and on any bytes).

/// The longest text [`masks`] takes.
pub(crate) const MAX: usize = 64;

/// Where each byte class is in a text of at most [`MAX`] bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Masks {
    /// Controls, space, DEL, non-ASCII and `%`.
    pub bad: u64,
    /// `/`, `?`, `#`, `:`: where a host name ends.
    pub host_end: u64,
    /// `?`, `#`: where a path ends.
    pub stop: u64,
    /// `/`.
    pub slash: u64,
    /// `.`.
    pub dot: u64,
    /// `@`, `[`, `]`.
    pub host_bad: u64,
    /// `(`.
    pub paren: u64,
    /// `A` to `Z`.
    pub upper: u64,
}

/// The masks of `s`, or `None` when it is longer than [`MAX`].
#[inline]
pub(crate) fn masks(s: &[u8]) -> Option<Masks> {
    #[cfg(target_arch = "x86_64")]
    {
        sse2(s)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        scalar(s)
    }
}

/// [`masks`] a byte at a time: the reference (and the kernel where there
/// is no SSE2).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
pub(crate) fn scalar(s: &[u8]) -> Option<Masks> {
    if s.len() > MAX {
        return None;
    }
    let mut m = Masks::default();
    for (i, &b) in s.iter().enumerate() {
        let bit = 1u64 << i;
        match b {
            0..=0x20 | 0x7f..=0xff | b'%' => m.bad |= bit,
            b'/' => {
                m.slash |= bit;
                m.host_end |= bit;
            }
            b'?' | b'#' => {
                m.stop |= bit;
                m.host_end |= bit;
            }
            b':' => m.host_end |= bit,
            b'.' => m.dot |= bit,
            b'@' | b'[' | b']' => m.host_bad |= bit,
            b'(' => m.paren |= bit,
            b'A'..=b'Z' => m.upper |= bit,
            _ => {}
        }
    }
    Some(m)
}

/// [`masks`] by SSE2, 16 bytes at a time; the last 16 bytes loaded
/// once more (overlapping what was done) where the length is not a
/// multiple of 16, and a text under 16 bytes through a zero-padded copy.
#[cfg(target_arch = "x86_64")]
#[inline]
fn sse2(s: &[u8]) -> Option<Masks> {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_cmplt_epi8, _mm_loadu_si128,
        _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
    };
    let n = s.len();
    if n > MAX {
        return None;
    }
    let mut padded = [0u8; 16];
    let (text, len) = if n < 16 {
        padded[..n].copy_from_slice(s);
        (&padded[..], n)
    } else {
        (s, n)
    };
    let mut m = Masks::default();
    let mut at = 0;
    loop {
        // The chunk at `at`, or the last 16 bytes.
        let from = at.min(text.len() - 16);
        let Some(chunk) = text.get(from..from + 16) else {
            break;
        };
        // SAFETY: SSE2 is part of the x86-64 baseline; the load reads the
        // 16 bytes of `chunk`, unaligned loads allowed.
        let bits = unsafe {
            let v = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
            let mask = |x| u64::from(_mm_movemask_epi8(x) as u16);
            let eq = |c: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8));
            // Signed compares: bytes >= 0x80 are negative, so below 0x21.
            let bad = _mm_or_si128(
                _mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(0x21)), eq(0x7f)),
                eq(b'%'),
            );
            let upper = _mm_and_si128(
                _mm_cmpgt_epi8(v, _mm_set1_epi8(b'A' as i8 - 1)),
                _mm_cmplt_epi8(v, _mm_set1_epi8(b'Z' as i8 + 1)),
            );
            let slash = eq(b'/');
            let stop = _mm_or_si128(eq(b'?'), eq(b'#'));
            [
                mask(bad),
                mask(_mm_or_si128(_mm_or_si128(slash, stop), eq(b':'))),
                mask(stop),
                mask(slash),
                mask(eq(b'.')),
                mask(_mm_or_si128(_mm_or_si128(eq(b'@'), eq(b'[')), eq(b']'))),
                mask(eq(b'(')),
                mask(upper),
            ]
        };
        let [bad, host_end, stop, slash, dot, host_bad, paren, upper] = bits.map(|b| b << from);
        m.bad |= bad;
        m.host_end |= host_end;
        m.stop |= stop;
        m.slash |= slash;
        m.dot |= dot;
        m.host_bad |= host_bad;
        m.paren |= paren;
        m.upper |= upper;
        at += 16;
        if at >= len {
            break;
        }
    }
    if n < 16 {
        // The padding's zeros are not part of the text.
        m.bad &= range(0, n);
    }
    Some(m)
}

/// The bits of `[from, to)` (`to` at most [`MAX`]).
#[inline]
pub(crate) fn range(from: usize, to: usize) -> u64 {
    let below = |k: usize| {
        if k >= MAX { u64::MAX } else { (1u64 << k) - 1 }
    };
    below(to) & !below(from)
}

/// The first set bit of `m` at or after `from`, or `None`.
#[inline]
pub(crate) fn first_from(m: u64, from: usize) -> Option<usize> {
    let m = m & range(from, MAX);
    (m != 0).then(|| m.trailing_zeros() as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn kernel_matches_the_reference_on_real_urls() {
        for u in include_str!("../../../datasets/urls.txt").lines() {
            assert_eq!(masks(u.as_bytes()), scalar(u.as_bytes()), "{u}");
        }
        let long = [b'a'; MAX + 1];
        assert_eq!(masks(&long), None);
        assert!(masks(&long[..MAX]).is_some());
    }

    #[test]
    fn ranges() {
        assert_eq!(range(0, 0), 0);
        assert_eq!(range(1, 3), 0b110);
        assert_eq!(range(0, MAX), u64::MAX);
        assert_eq!(first_from(0b1010, 2), Some(3));
        assert_eq!(first_from(0b1010, 4), None);
        assert_eq!(first_from(1 << 63, 63), Some(63));
    }

    proptest! {
        #[test]
        fn kernel_matches_the_reference(b in proptest::collection::vec(any::<u8>(), 0..=MAX)) {
            prop_assert_eq!(masks(&b), scalar(&b));
        }
    }
}
