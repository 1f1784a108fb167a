//! The 128-bit kernel: four `__m128i` per block, `pshufb` nibble lookups,
//! `pmovmskb` masks.
//!
//! Pure SSE2 has no byte shuffle, so this tier also needs SSSE3 (every
//! x86-64 CPU since Intel Core 2 and AMD Bobcat/Bulldozer has it). Where
//! SSSE3 is missing, [`is_available`] is false and dispatch uses the scalar twin.

use core::arch::x86_64::*;

use crate::classify::generic::{self, Vector};
use crate::classify::tables::ClassTable;

/// 64 bytes in four SSE registers.
#[derive(Clone, Copy)]
pub(crate) struct Block([__m128i; 4]);

/// A [`ClassTable`] in registers.
#[derive(Clone, Copy)]
pub(crate) struct Tables {
    lo: __m128i,
    hi: __m128i,
    bits: [u8; 8],
    ascii_only: bool,
}

impl Vector for Block {
    type Tables = Tables;

    #[inline(always)]
    unsafe fn tables(t: &'static ClassTable) -> Tables {
        // SAFETY: the tables are 16 readable bytes; SSE2 is the caller's contract.
        unsafe {
            Tables {
                lo: _mm_loadu_si128(t.lo.as_ptr().cast()),
                hi: _mm_loadu_si128(t.hi.as_ptr().cast()),
                bits: t.bits,
                ascii_only: t.ascii_only,
            }
        }
    }

    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: the caller guarantees 64 readable bytes at `p` and SSE2.
        unsafe {
            Block([
                _mm_loadu_si128(p.cast()),
                _mm_loadu_si128(p.add(16).cast()),
                _mm_loadu_si128(p.add(32).cast()),
                _mm_loadu_si128(p.add(48).cast()),
            ])
        }
    }

    #[inline(always)]
    unsafe fn classify(self, t: &Tables) -> Self {
        // SAFETY: the caller guarantees SSE2 and SSSE3.
        unsafe {
            let nib = _mm_set1_epi8(0x0F);
            let [a, b, c, d] = self.0;
            Block([
                classify1(a, nib, t),
                classify1(b, nib, t),
                classify1(c, nib, t),
                classify1(d, nib, t),
            ])
        }
    }

    #[inline(always)]
    unsafe fn mask(self, t: &Tables, k: usize) -> u64 {
        // SAFETY: the caller guarantees SSE2.
        unsafe {
            let [a, b, c, d] = self.0;
            let bits = t.bits[k];
            u64::from(mask16(a, bits))
                | (u64::from(mask16(b, bits)) << 16)
                | (u64::from(mask16(c, bits)) << 32)
                | (u64::from(mask16(d, bits)) << 48)
        }
    }

    #[inline(always)]
    unsafe fn events(p: *const u8) -> u64 {
        // SAFETY: the caller guarantees `p - 1 .. p + 65` readable and SSE2.
        unsafe {
            u64::from(events16(p))
                | (u64::from(events16(p.add(16))) << 16)
                | (u64::from(events16(p.add(32))) << 32)
                | (u64::from(events16(p.add(48))) << 48)
        }
    }
}

/// [`Vector::events`] of the 16 bytes at `p`.
///
/// # Safety
/// `p - 1 .. p + 17` is readable, and the CPU supports SSE2.
#[inline(always)]
unsafe fn events16(p: *const u8) -> u16 {
    // SAFETY: the caller guarantees the bytes and SSE2.
    unsafe {
        let v = _mm_loadu_si128(p.cast());
        let next = _mm_loadu_si128(p.add(1).cast());
        let prev = _mm_loadu_si128(p.sub(1).cast());
        let lower = _mm_or_si128(prev, _mm_set1_epi8(0x20));
        // Only top bits count (the movemask). `next + 0x5F` (saturating) has
        // it iff `next > 0x20`; `lower` is in `0x61..=0x7F` iff it is above
        // 0x60 as a signed byte.
        let body = _mm_andnot_si128(
            _mm_cmpeq_epi8(next, _mm_set1_epi8(b':' as i8)),
            _mm_and_si128(
                _mm_adds_epu8(next, _mm_set1_epi8(0x5F)),
                _mm_cmpgt_epi8(lower, _mm_set1_epi8(0x60)),
            ),
        );
        let colon = _mm_and_si128(
            _mm_cmpeq_epi8(v, _mm_set1_epi8(b':' as i8)),
            _mm_or_si128(_mm_cmpeq_epi8(next, _mm_set1_epi8(b'/' as i8)), body),
        );
        let w_dot = _mm_and_si128(
            _mm_cmpeq_epi8(v, _mm_set1_epi8(b'.' as i8)),
            _mm_cmpeq_epi8(lower, _mm_set1_epi8(b'w' as i8)),
        );
        _mm_movemask_epi8(_mm_or_si128(colon, w_dot)) as u16
    }
}

/// The class bytes of one vector (see [`Vector::classify`]).
///
/// # Safety
/// The CPU supports SSE2 and SSSE3.
#[inline(always)]
unsafe fn classify1(v: __m128i, nib: __m128i, t: &Tables) -> __m128i {
    // SAFETY: the caller guarantees SSE2 and SSSE3.
    unsafe {
        // `pshufb` gives 0 for an index with bit 7 set: right for ASCII-only classes.
        let lo = if t.ascii_only {
            v
        } else {
            _mm_and_si128(v, nib)
        };
        let hi = _mm_and_si128(_mm_srli_epi16(v, 4), nib);
        _mm_and_si128(_mm_shuffle_epi8(t.lo, lo), _mm_shuffle_epi8(t.hi, hi))
    }
}

/// Bit `i` set if byte `i` of `v` shares a bit with `bits`.
///
/// # Safety
/// The CPU supports SSE2.
#[inline(always)]
unsafe fn mask16(v: __m128i, bits: u8) -> u16 {
    // SAFETY: the caller guarantees SSE2.
    unsafe {
        if bits.is_power_of_two() {
            // One bit: shift it to the top of each byte, `pmovmskb` reads it.
            let count = _mm_cvtsi32_si128(bits.leading_zeros() as i32);
            _mm_movemask_epi8(_mm_sll_epi16(v, count)) as u16
        } else {
            let none = _mm_cmpeq_epi8(
                _mm_and_si128(v, _mm_set1_epi8(bits as i8)),
                _mm_setzero_si128(),
            );
            !(_mm_movemask_epi8(none) as u16)
        }
    }
}

/// True if this CPU can run the kernel.
pub(crate) fn is_available() -> bool {
    is_x86_feature_detected!("sse2") && is_x86_feature_detected!("ssse3")
}

generic::entry_points!("sse2,ssse3", "SSE2 and SSSE3");
