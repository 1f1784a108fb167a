//! The NEON span kernels: one `uint8x16_t` at a time, `tbl` nibble
//! lookups.
//!
//! NEON has no `movemask`: a compare is narrowed to four bits per byte
//! with `shrn #4` (the usual trick for a single 16-byte vector), so a mask
//! bit index divided by 4 is the byte index.

use std::arch::aarch64::*;

use super::{NibbleClass, Spans, span_dots_scalar, span_scalar};

/// The NEON kernels (NEON is part of every aarch64 target this builds for).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Neon;

impl Spans for Neon {
    #[inline(always)]
    fn span(self, text: &[u8], from: usize, class: &NibbleClass) -> usize {
        if text.len() < 16 || from >= text.len() {
            return span_scalar(text, from, class);
        }
        // SAFETY: NEON is enabled at compile time for this target.
        unsafe { span(text, from, class) }
    }
    #[inline(always)]
    fn span_dots(self, text: &[u8], from: usize, class: &NibbleClass) -> usize {
        if text.len() < 16 || from >= text.len() {
            return span_dots_scalar(text, from, class);
        }
        // SAFETY: as above.
        unsafe { span_dots(text, from, class) }
    }
}

/// The kernel of [`Spans::span`]; needs `text.len() >= 16` and `from < text.len()`.
///
/// # Safety
/// The CPU must support NEON (always true where this is compiled).
pub(crate) unsafe fn span(text: &[u8], from: usize, class: &NibbleClass) -> usize {
    debug_assert!(text.len() >= 16 && from < text.len());
    let len = text.len();
    let p = text.as_ptr();
    // SAFETY (whole block): the tables are 16 readable bytes each; every load
    // reads 16 bytes at `p + i` with `i + 16 <= len`, or at `p + len - 16`
    // with `len >= 16` (the caller's contract); NEON is enabled.
    unsafe {
        let lo_t = vld1q_u8(class.lo.as_ptr());
        let hi_t = vld1q_u8(class.hi.as_ptr());
        let nib = vdupq_n_u8(0x0F);
        // Four bits per byte (the `shrn` narrowing trick): nibble k all ones
        // when byte k of `v` is not in the class.
        let outside = |v: uint8x16_t| -> u64 {
            let lo = vqtbl1q_u8(lo_t, vandq_u8(v, nib));
            let hi = vqtbl1q_u8(hi_t, vshrq_n_u8(v, 4));
            let out = vceqzq_u8(vandq_u8(lo, hi));
            vget_lane_u64(
                vreinterpret_u64_u8(vshrn_n_u16(vreinterpretq_u16_u8(out), 4)),
                0,
            )
        };
        let mut i = from;
        while i + 16 <= len {
            let m = outside(vld1q_u8(p.add(i)));
            if m != 0 {
                return i + (m.trailing_zeros() / 4) as usize;
            }
            i += 16;
        }
        if i == len {
            return len;
        }
        let m = outside(vld1q_u8(p.add(len - 16))) >> (4 * (i - (len - 16)));
        if m != 0 {
            i + (m.trailing_zeros() / 4) as usize
        } else {
            len
        }
    }
}

/// The kernel of [`Spans::span_dots`]; needs `text.len() >= 16` and
/// `from < text.len()`.
///
/// # Safety
/// The CPU must support NEON (always true where this is compiled).
pub(crate) unsafe fn span_dots(text: &[u8], from: usize, class: &NibbleClass) -> usize {
    debug_assert!(text.len() >= 16 && from < text.len());
    let len = text.len();
    let p = text.as_ptr();
    // SAFETY (whole block): as in `span`.
    unsafe {
        let lo_t = vld1q_u8(class.lo.as_ptr());
        let hi_t = vld1q_u8(class.hi.as_ptr());
        let nib = vdupq_n_u8(0x0F);
        let dot = vdupq_n_u8(b'.');
        let slash = vdupq_n_u8(b'/');
        // Four bits per byte, as in `span`.
        let narrow = |v: uint8x16_t| -> u64 {
            vget_lane_u64(
                vreinterpret_u64_u8(vshrn_n_u16(vreinterpretq_u16_u8(v), 4)),
                0,
            )
        };
        let masks = |v: uint8x16_t| -> (u64, u64, u64) {
            let lo = vqtbl1q_u8(lo_t, vandq_u8(v, nib));
            let hi = vqtbl1q_u8(hi_t, vshrq_n_u8(v, 4));
            (
                narrow(vceqzq_u8(vandq_u8(lo, hi))),
                narrow(vceqq_u8(v, dot)),
                narrow(vceqq_u8(v, slash)),
            )
        };
        let mut carry = 0u64;
        let mut i = from;
        while i + 16 <= len {
            let (out, dots, slashes) = masks(vld1q_u8(p.add(i)));
            let m = out | (dots & (slashes << 4 | carry));
            if m != 0 {
                return i + (m.trailing_zeros() / 4) as usize;
            }
            carry = slashes >> 60;
            i += 16;
        }
        if i == len {
            return len;
        }
        let base = len - 16;
        let (out, dots, slashes) = masks(vld1q_u8(p.add(base)));
        let slashes = slashes & (u64::MAX << (4 * (from.max(base) - base)));
        let m = (out | (dots & (slashes << 4))) >> (4 * (i - base));
        if m != 0 {
            i + (m.trailing_zeros() / 4) as usize
        } else {
            len
        }
    }
}
