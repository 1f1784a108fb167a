//! Byte classes of a short URL as bitmasks (bit `i` for byte `i`), 16
//! bytes at a time: the fast paths find a URL's parts and check them with
//! a few bit operations instead of a table lookup per byte. A URL of up to
//! 64 bytes has its masks in `u64`s, one of up to 128 bytes in `u128`s.
//!
//! [`scalar`] is the reference; on x86-64 the SSE2 kernel (part of the
//! architecture's baseline, so no feature test) gives exactly its answers
//! (tested on every URL of `datasets/urls.txt` and on any bytes).

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
    /// The 16-bit pieces `c`, `c[0]` lowest (as many as fit).
    fn from_chunks(c: &[u16; 8]) -> Self;
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
            #[inline]
            fn from_chunks(c: &[u16; 8]) -> Self {
                let mut bytes = [0u8; std::mem::size_of::<$t>()];
                for (b, x) in bytes.chunks_exact_mut(2).zip(c) {
                    b.copy_from_slice(&x.to_le_bytes());
                }
                Self::from_le_bytes(bytes)
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

/// The masks of `s`, or `None` when it is longer than `W::BITS` bytes.
#[inline]
pub(crate) fn masks<W: Bits>(s: &[u8]) -> Option<Masks<W>> {
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
pub(crate) fn scalar<W: Bits>(s: &[u8]) -> Option<Masks<W>> {
    if s.len() > W::BITS {
        return None;
    }
    let mut m = Masks::<W>::default();
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

/// [`masks`] by SSE2, 16 bytes at a time, each chunk's 16 bits of each
/// class stored in its place (no shifts of a wide word); the last 16
/// bytes loaded once more (overlapping what was done, the bits already
/// found shifted out) where the length is not a multiple of 16, and a
/// text under 16 bytes through a zero-padded copy.
#[cfg(target_arch = "x86_64")]
#[inline]
fn sse2<W: Bits>(s: &[u8]) -> Option<Masks<W>> {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_cmplt_epi8, _mm_loadu_si128,
        _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
    };
    /// The eight classes' bits of 16 bytes.
    #[inline(always)]
    fn classes(chunk: &[u8; 16]) -> [u16; 8] {
        // SAFETY: SSE2 is part of the x86-64 baseline; the load reads the
        // 16 bytes of `chunk`, unaligned loads allowed.
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
    // Class by class, chunk by chunk.
    let mut bits = [[0u16; 8]; 8];
    let full = n / 16;
    for (k, chunk) in s.chunks_exact(16).enumerate() {
        let c = classes(chunk.try_into().ok()?);
        for i in 0..8 {
            bits[i][k] = c[i];
        }
    }
    let rem = n % 16;
    if rem != 0 {
        if n >= 16 {
            // The last 16 bytes: the bits of the bytes done already out.
            let c = classes(s.get(n - 16..)?.try_into().ok()?);
            for i in 0..8 {
                bits[i][full] = c[i] >> (16 - rem);
            }
        } else {
            let mut padded = [0u8; 16];
            padded[..n].copy_from_slice(s);
            let c = classes(&padded);
            for i in 0..8 {
                bits[i][0] = c[i];
            }
            // The padding's zeros are not part of the text.
            bits[0][0] &= (1u16 << n) - 1;
        }
    }
    Some(Masks {
        bad: W::from_chunks(&bits[0]),
        host_end: W::from_chunks(&bits[1]),
        stop: W::from_chunks(&bits[2]),
        slash: W::from_chunks(&bits[3]),
        dot: W::from_chunks(&bits[4]),
        host_bad: W::from_chunks(&bits[5]),
        paren: W::from_chunks(&bits[6]),
        upper: W::from_chunks(&bits[7]),
    })
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
            assert_eq!(masks::<u64>(u.as_bytes()), scalar(u.as_bytes()), "{u}");
            assert_eq!(masks::<u128>(u.as_bytes()), scalar(u.as_bytes()), "{u}");
        }
        let long = [b'a'; MAX + 1];
        assert_eq!(masks::<u128>(&long), None);
        assert!(masks::<u128>(&long[..MAX]).is_some());
        assert_eq!(masks::<u64>(&long[..65]), None);
        assert!(masks::<u64>(&long[..64]).is_some());
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
            prop_assert_eq!(masks::<u64>(&b), scalar(&b));
            prop_assert_eq!(masks::<u128>(&b), scalar(&b));
        }
    }
}
