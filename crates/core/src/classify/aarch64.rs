//! The NEON kernel: four `uint8x16_t` per block, `tbl` nibble lookups.
//!
//! NEON has no `movemask`. A mask is built for all 64 bytes at once, the
//! simdjson way: `cmtst` gives 0xFF per matching byte, an AND keeps one bit
//! weight per byte (1, 2, 4, ... 128, repeating), and three rounds of pairwise
//! add (`addp`) fold the four vectors into the 8 bytes of the `u64`.
//! (For a single 16-byte vector the narrowing shift `shrn #4`, 4 bits per
//! byte, is the usual trick; a whole block folds cheaper with `addp`.)

use core::arch::aarch64::*;

use crate::classify::generic::{self, Vector};
use crate::classify::tables::ClassTable;

/// 64 bytes in four NEON registers.
#[derive(Clone, Copy)]
pub(crate) struct Block([uint8x16_t; 4]);

/// A [`ClassTable`] in registers.
#[derive(Clone, Copy)]
pub(crate) struct Tables {
    lo: uint8x16_t,
    hi: uint8x16_t,
    bits: [u8; 8],
}

/// One bit weight per byte, for folding a compare into a bitmask.
const WEIGHTS: [u8; 16] = [1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128];

impl Vector for Block {
    type Tables = Tables;

    #[inline(always)]
    unsafe fn tables(t: &'static ClassTable) -> Tables {
        // SAFETY: the tables are 16 readable bytes; NEON is the caller's contract.
        unsafe {
            Tables {
                lo: vld1q_u8(t.lo.as_ptr()),
                hi: vld1q_u8(t.hi.as_ptr()),
                bits: t.bits,
            }
        }
    }

    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: the caller guarantees 64 readable bytes at `p` and NEON.
        unsafe {
            Block([
                vld1q_u8(p),
                vld1q_u8(p.add(16)),
                vld1q_u8(p.add(32)),
                vld1q_u8(p.add(48)),
            ])
        }
    }

    #[inline(always)]
    unsafe fn classify(self, t: &Tables) -> Self {
        // SAFETY: the caller guarantees NEON.
        unsafe {
            let nib = vdupq_n_u8(0x0F);
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
        // SAFETY: the caller guarantees NEON; `WEIGHTS` is 16 readable bytes.
        unsafe {
            let bits = vdupq_n_u8(t.bits[k]);
            let w = vld1q_u8(WEIGHTS.as_ptr());
            let [a, b, c, d] = self.0;
            let a = vandq_u8(vtstq_u8(a, bits), w);
            let b = vandq_u8(vtstq_u8(b, bits), w);
            let c = vandq_u8(vtstq_u8(c, bits), w);
            let d = vandq_u8(vtstq_u8(d, bits), w);
            let ab = vpaddq_u8(a, b);
            let cd = vpaddq_u8(c, d);
            let abcd = vpaddq_u8(ab, cd);
            let folded = vpaddq_u8(abcd, abcd);
            vgetq_lane_u64::<0>(vreinterpretq_u64_u8(folded))
        }
    }

    #[inline(always)]
    unsafe fn events(p: *const u8) -> u64 {
        // SAFETY: the caller guarantees `p - 1 .. p + 65` readable and NEON;
        // `WEIGHTS` is 16 readable bytes.
        unsafe {
            let w = vld1q_u8(WEIGHTS.as_ptr());
            let a = vandq_u8(events16(p), w);
            let b = vandq_u8(events16(p.add(16)), w);
            let c = vandq_u8(events16(p.add(32)), w);
            let d = vandq_u8(events16(p.add(48)), w);
            let ab = vpaddq_u8(a, b);
            let cd = vpaddq_u8(c, d);
            let abcd = vpaddq_u8(ab, cd);
            let folded = vpaddq_u8(abcd, abcd);
            vgetq_lane_u64::<0>(vreinterpretq_u64_u8(folded))
        }
    }
}

/// [`Vector::events`] of the 16 bytes at `p`, 0xFF per event byte.
///
/// # Safety
/// `p - 1 .. p + 17` is readable, and the CPU supports NEON.
#[inline(always)]
unsafe fn events16(p: *const u8) -> uint8x16_t {
    // SAFETY: the caller guarantees the bytes and NEON.
    unsafe {
        let v = vld1q_u8(p);
        let next = vld1q_u8(p.add(1));
        let prev = vld1q_u8(p.sub(1));
        let lower = vorrq_u8(prev, vdupq_n_u8(0x20));
        // `lower` in `0x61..=0x7F`: above 0x60 as a signed byte (one
        // compare; the unsigned pair `> 0x60` and `< 0x80` took three
        // operations after LLVM).
        let after_letter = vcgtq_s8(vreinterpretq_s8_u8(lower), vdupq_n_s8(0x60));
        let body = vbicq_u8(
            vandq_u8(vcgtq_u8(next, vdupq_n_u8(0x20)), after_letter),
            vceqq_u8(next, vdupq_n_u8(b':')),
        );
        let colon = vandq_u8(
            vceqq_u8(v, vdupq_n_u8(b':')),
            vorrq_u8(vceqq_u8(next, vdupq_n_u8(b'/')), body),
        );
        let w_dot = vandq_u8(
            vceqq_u8(v, vdupq_n_u8(b'.')),
            vceqq_u8(lower, vdupq_n_u8(b'w')),
        );
        vorrq_u8(colon, w_dot)
    }
}

/// The class bytes of one vector (see [`Vector::classify`]).
///
/// # Safety
/// The CPU supports NEON.
#[inline(always)]
unsafe fn classify1(v: uint8x16_t, nib: uint8x16_t, t: &Tables) -> uint8x16_t {
    // SAFETY: the caller guarantees NEON.
    unsafe {
        // `tbl` gives 0 for an index >= 16, so the low nibble must be masked.
        let lo = vqtbl1q_u8(t.lo, vandq_u8(v, nib));
        let hi = vqtbl1q_u8(t.hi, vshrq_n_u8::<4>(v));
        vandq_u8(lo, hi)
    }
}

/// True if this CPU can run the kernel (NEON is part of every aarch64 CPU).
pub(crate) fn is_available() -> bool {
    std::arch::is_aarch64_feature_detected!("neon")
}

generic::entry_points!("neon", "NEON");
