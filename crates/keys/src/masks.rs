//! Byte classes of a short URL as bitmasks (bit `i` for byte `i`), 16
//! bytes at a time: the fast paths find a URL's parts and check them with
//! a few bit operations instead of a table lookup per byte. A URL of up to
//! 64 bytes has its masks in `u64`s, one of up to 128 bytes in `u128`s.
//! The same pass copies the URL in lower case to a buffer on the stack,
//! from which a fast path puts its key together.
//!
//! [`scalar`] is the reference; on x86-64 the SSE2 kernel (part of the
//! architecture's baseline, so no feature test) gives exactly its answers
//! and lower-case copy (tested on every URL of `datasets/urls.txt` and on
//! any bytes).

use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, Not, Shl, Shr};

/// A word of bits, one per byte of a text: `u64` or `u128`.
pub(crate) trait Bits:
    Copy
    + Default
    + Eq
    + std::fmt::Debug
    + BitAnd<Output = Self>
    + BitAndAssign
    + BitOr<Output = Self>
    + BitOrAssign
    + Not<Output = Self>
    + Shl<usize, Output = Self>
    + Shr<usize, Output = Self>
{
    /// The number of bits: the longest text the word takes.
    const BITS: usize;
    /// No bit set.
    const ZERO: Self;
    /// Bit 0 set.
    const ONE: Self;
    /// Every bit set.
    const ALL: Self;
    /// The word of bits `lo`, then `hi` (which a `u64` has no room for:
    /// it must be 0 there).
    fn from_halves(lo: u64, hi: u64) -> Self;
    /// The number of zero bits below the lowest set bit.
    fn trailing_zeros(self) -> u32;
    /// The number of zero bits above the highest set bit.
    fn leading_zeros(self) -> u32;
}

macro_rules! bits {
    ($t:ty) => {
        impl Bits for $t {
            const BITS: usize = <$t>::BITS as usize;
            const ZERO: Self = 0;
            const ONE: Self = 1;
            const ALL: Self = <$t>::MAX;
            #[inline(always)]
            fn from_halves(lo: u64, hi: u64) -> Self {
                <$t>::from(hi).checked_shl(64).unwrap_or(0) | <$t>::from(lo)
            }
            #[inline]
            fn trailing_zeros(self) -> u32 {
                <$t>::trailing_zeros(self)
            }
            #[inline]
            fn leading_zeros(self) -> u32 {
                <$t>::leading_zeros(self)
            }
        }
    };
}
bits!(u64);
bits!(u128);

/// Where each byte class is in a text of at most `W::BITS` bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Masks<W> {
    /// Controls, space, DEL, non-ASCII and `%`.
    pub bad: W,
    /// `/`, `?`, `#`, `:`: where a host name ends.
    pub host_end: W,
    /// `?`, `#`: where a path ends.
    pub stop: W,
    /// `/`.
    pub slash: W,
    /// `.`.
    pub dot: W,
    /// `@`, `[`, `]`.
    pub host_bad: W,
    /// `(`.
    pub paren: W,
    /// `A` to `Z`.
    pub upper: W,
}

/// The length of the buffer [`masks`] copies a text to: the longest text
/// it takes and 16 bytes more, so that 16 bytes can be read from any
/// place in the text.
pub(crate) const LOWER: usize = 128 + 16;

/// The masks of `s`, or `None` when it is longer than `W::BITS` bytes;
/// `lower` gets `s` in ASCII lower case (the bytes after it are not
/// specified).
#[inline]
pub(crate) fn masks<W: Bits>(s: &[u8], lower: &mut [u8; LOWER]) -> Option<Masks<W>> {
    #[cfg(target_arch = "x86_64")]
    {
        sse2(s, lower)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        scalar(s, lower)
    }
}

/// [`masks`] a byte at a time: the reference (and the kernel where there
/// is no SSE2).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
pub(crate) fn scalar<W: Bits>(s: &[u8], lower: &mut [u8; LOWER]) -> Option<Masks<W>> {
    if s.len() > W::BITS {
        return None;
    }
    let mut m = Masks::<W>::default();
    for (l, &b) in lower.iter_mut().zip(s) {
        *l = b.to_ascii_lowercase();
    }
    for (i, &b) in s.iter().enumerate() {
        let bit = W::ONE << i;
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

/// [`masks`] by SSE2, 16 bytes at a time, each chunk's bits shifted into
/// place in `u64` registers (see [`half`]); the last 16 bytes loaded once
/// more (overlapping what was done) where the length is not a multiple of
/// 16, and a text under 16 bytes through a zero-padded copy. Each chunk
/// is also stored in lower case to `lower`.
#[cfg(target_arch = "x86_64")]
#[inline]
fn sse2<W: Bits>(s: &[u8], lower: &mut [u8; LOWER]) -> Option<Masks<W>> {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_cmplt_epi8, _mm_loadu_si128,
        _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8, _mm_storeu_si128,
    };
    /// The eight classes' bits of 16 bytes; the bytes in lower case
    /// written to `low`.
    #[inline(always)]
    fn classes(chunk: &[u8; 16], low: &mut [u8; 16]) -> [u16; 8] {
        // SAFETY: SSE2 is part of the x86-64 baseline; the load reads the
        // 16 bytes of `chunk`, the store writes the 16 bytes of `low`,
        // unaligned loads and stores allowed.
        unsafe {
            let v = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
            let mask = |x| _mm_movemask_epi8(x) as u16;
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
            _mm_storeu_si128(
                low.as_mut_ptr().cast::<__m128i>(),
                _mm_or_si128(v, _mm_and_si128(upper, _mm_set1_epi8(0x20))),
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
        }
    }
    let n = s.len();
    if n > W::BITS {
        return None;
    }
    // The first 64 bytes' bits, then the rest's (a `u128`'s halves: wide
    // shifts cost more than two narrow ones).
    let lo = half(s, 0, lower, classes);
    let hi = if n > 64 {
        half(s, 64, lower, classes)
    } else {
        [0; 8]
    };
    let w = |i: usize| W::from_halves(lo[i], hi[i]);
    let m = Masks {
        bad: w(0),
        host_end: w(1),
        stop: w(2),
        slash: w(3),
        dot: w(4),
        host_bad: w(5),
        paren: w(6),
        upper: w(7),
    };
    Some(m)
}

/// The eight classes' bits of the bytes of `s` from `base` to `base + 64`
/// (or the end), bit `i` for byte `base + i`, each chunk's bits put in
/// place in registers (storing 16-bit pieces and reading them back as one
/// word stalls store forwarding). Past 16 bytes the last chunk is the last
/// 16 bytes, its bits overlapping those of the chunk before (the same
/// bits: or-ing them twice changes nothing) or the half before (shifted
/// out).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn half(
    s: &[u8],
    base: usize,
    lower: &mut [u8; LOWER],
    classes: impl Fn(&[u8; 16], &mut [u8; 16]) -> [u16; 8],
) -> [u64; 8] {
    let n = s.len();
    let mut acc = [0u64; 8];
    if n >= 16 {
        let end = n.min(base + 64);
        let mut at = base;
        while at < end {
            let off = at.min(n - 16);
            let (Some(c), Some(low)) = (
                s.get(off..off + 16).and_then(|c| c.try_into().ok()),
                lower.get_mut(off..off + 16).and_then(|l| l.try_into().ok()),
            ) else {
                break;
            };
            let c = classes(c, low);
            for (a, &x) in acc.iter_mut().zip(&c) {
                *a |= if off >= base {
                    u64::from(x) << (off - base)
                } else {
                    u64::from(x) >> (base - off)
                };
            }
            at += 16;
        }
    } else {
        let mut padded = [0u8; 16];
        for (p, &b) in padded.iter_mut().zip(s) {
            *p = b;
        }
        let Some(low) = lower.first_chunk_mut::<16>() else {
            return acc;
        };
        let mut c = classes(&padded, low);
        // The padding's zeros are not part of the text.
        c[0] &= (1u16 << n) - 1;
        for (a, &x) in acc.iter_mut().zip(&c) {
            *a = u64::from(x);
        }
    }
    acc
}

/// The bits below bit `k` (all of them for `k` of `W::BITS` or more).
#[inline]
fn below<W: Bits>(k: usize) -> W {
    if k >= W::BITS { W::ALL } else { !(W::ALL << k) }
}

/// The bits of `[from, to)`.
#[inline]
pub(crate) fn range<W: Bits>(from: usize, to: usize) -> W {
    below::<W>(to) & !below::<W>(from)
}

/// The first set bit of `m` at or after `from`, or `None`.
#[inline]
pub(crate) fn first_from<W: Bits>(m: W, from: usize) -> Option<usize> {
    let m = m & !below::<W>(from);
    (m != W::ZERO).then(|| m.trailing_zeros() as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The longest text [`masks`] takes.
    const MAX: usize = 128;

    #[test]
    fn kernel_matches_the_reference_on_real_urls() {
        for u in include_str!("../../../datasets/urls.txt").lines() {
            agree(u.as_bytes());
        }
        let mut l = [0; LOWER];
        let long = [b'a'; MAX + 1];
        assert_eq!(masks::<u128>(&long, &mut l), None);
        assert!(masks::<u128>(&long[..MAX], &mut l).is_some());
        assert_eq!(masks::<u64>(&long[..65], &mut l), None);
        assert!(masks::<u64>(&long[..64], &mut l).is_some());
        assert_eq!(l[..64], [b'a'; 64]);
        agree(b"HTTP://EXAMPLE.COM/AZ@[]`{");
    }

    /// The kernel gives the reference's masks and lower-case copy.
    fn agree(b: &[u8]) {
        let n = b.len();
        let (mut x, mut y) = ([0xaa; LOWER], [0x55; LOWER]);
        assert_eq!(masks::<u64>(b, &mut x), scalar(b, &mut y), "{b:?}");
        if n <= 64 {
            assert_eq!(x[..n], y[..n], "{b:?}");
            assert_eq!(x[..n], b.to_ascii_lowercase()[..], "{b:?}");
        }
        assert_eq!(masks::<u128>(b, &mut x), scalar(b, &mut y), "{b:?}");
        if n <= MAX {
            assert_eq!(x[..n], y[..n], "{b:?}");
            assert_eq!(x[..n], b.to_ascii_lowercase()[..], "{b:?}");
        }
    }

    #[test]
    fn ranges() {
        assert_eq!(range::<u64>(0, 0), 0);
        assert_eq!(range::<u64>(1, 3), 0b110);
        assert_eq!(range::<u64>(0, 64), u64::MAX);
        assert_eq!(range::<u64>(5, 70), u64::MAX << 5);
        assert_eq!(range::<u128>(0, 128), u128::MAX);
        assert_eq!(range::<u128>(64, 66), 0b11 << 64);
        assert_eq!(first_from(0b1010u64, 2), Some(3));
        assert_eq!(first_from(0b1010u64, 4), None);
        assert_eq!(first_from(1u64 << 63, 63), Some(63));
        assert_eq!(first_from(1u64 << 63, 64), None);
        assert_eq!(first_from(1u128 << 127, 100), Some(127));
        assert_eq!(first_from(1u128 << 127, 128), None);
    }

    proptest! {
        #[test]
        fn kernel_matches_the_reference(b in proptest::collection::vec(any::<u8>(), 0..=MAX)) {
            agree(&b);
        }
    }
}
