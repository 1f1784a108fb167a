//! The 512-bit kernel: one `__m512i` per block, `vpshufb` nibble lookups,
//! and `vptestmb`, which hands back the `u64` mask directly (AVX-512BW).

use core::arch::x86_64::*;

use crate::classify::generic::{self, Vector};
use crate::classify::tables::ClassTable;

/// 64 bytes in one AVX-512 register.
#[derive(Clone, Copy)]
pub(crate) struct Block(__m512i);

/// A [`ClassTable`] in registers (each 16-byte table in all four lanes).
#[derive(Clone, Copy)]
pub(crate) struct Tables {
    lo: __m512i,
    hi: __m512i,
    bits: [u8; 8],
    ascii_only: bool,
}

impl Vector for Block {
    type Tables = Tables;

    #[inline(always)]
    unsafe fn tables(t: &'static ClassTable) -> Tables {
        // SAFETY: the tables are 16 readable bytes; AVX-512F is the caller's contract.
        unsafe {
            Tables {
                lo: _mm512_broadcast_i32x4(_mm_loadu_si128(t.lo.as_ptr().cast())),
                hi: _mm512_broadcast_i32x4(_mm_loadu_si128(t.hi.as_ptr().cast())),
                bits: t.bits,
                ascii_only: t.ascii_only,
            }
        }
    }

    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: the caller guarantees 64 readable bytes at `p` and AVX-512F.
        unsafe { Block(_mm512_loadu_si512(p.cast())) }
    }

    #[inline(always)]
    unsafe fn classify(self, t: &Tables) -> Self {
        // SAFETY: the caller guarantees AVX-512F and AVX-512BW.
        unsafe {
            let nib = _mm512_set1_epi8(0x0F);
            let v = self.0;
            // `vpshufb` gives 0 for an index with bit 7 set: right for ASCII-only classes.
            let lo = if t.ascii_only {
                v
            } else {
                _mm512_and_si512(v, nib)
            };
            let hi = _mm512_and_si512(_mm512_srli_epi16(v, 4), nib);
            Block(_mm512_and_si512(
                _mm512_shuffle_epi8(t.lo, lo),
                _mm512_shuffle_epi8(t.hi, hi),
            ))
        }
    }

    #[inline(always)]
    unsafe fn mask(self, t: &Tables, k: usize) -> u64 {
        // SAFETY: the caller guarantees AVX-512BW.
        unsafe { _mm512_test_epi8_mask(self.0, _mm512_set1_epi8(t.bits[k] as i8)) }
    }

    #[inline(always)]
    unsafe fn events(p: *const u8) -> u64 {
        // SAFETY: the caller guarantees `p - 1 .. p + 65` readable, AVX-512F and BW.
        unsafe {
            let v = _mm512_loadu_si512(p.cast());
            let next = _mm512_loadu_si512(p.add(1).cast());
            let prev = _mm512_loadu_si512(p.sub(1).cast());
            let lower = _mm512_or_si512(prev, _mm512_set1_epi8(0x20));
            let colon = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b':' as i8));
            let slash = _mm512_mask_cmpeq_epi8_mask(colon, next, _mm512_set1_epi8(b'/' as i8));
            let body = _mm512_mask_cmpgt_epu8_mask(colon, next, _mm512_set1_epi8(0x20));
            let body = _mm512_mask_cmpneq_epi8_mask(body, next, _mm512_set1_epi8(b':' as i8));
            let body = _mm512_mask_cmpgt_epi8_mask(body, lower, _mm512_set1_epi8(0x60));
            let dot = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'.' as i8));
            let w_dot = _mm512_mask_cmpeq_epi8_mask(dot, lower, _mm512_set1_epi8(b'w' as i8));
            slash | body | w_dot
        }
    }
}

/// True if this CPU can run the kernel.
pub(crate) fn is_available() -> bool {
    is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("avx512bw")
        && is_x86_feature_detected!("bmi1")
        && is_x86_feature_detected!("bmi2")
        && is_x86_feature_detected!("popcnt")
}

generic::entry_points!(
    "avx512f,avx512bw,bmi1,bmi2,popcnt",
    "AVX-512F/BW, BMI1, BMI2 and POPCNT"
);
