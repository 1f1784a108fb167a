//! The SSSE3 span kernels: one `__m128i` at a time, `pshufb` nibble
//! lookups, `pmovmskb` masks.
//!
//! Pure SSE2 has no byte shuffle, so these need SSSE3 (every x86-64 CPU
//! since Intel Core 2 and AMD Bobcat/Bulldozer has it). Where SSSE3 is
//! missing, [`is_available`] is false and dispatch uses the scalar twin.

use std::arch::x86_64::*;

use super::{NibbleClass, Spans, WithSpans, span_dots_scalar, span_scalar};

/// The SSSE3 kernels. A value exists only inside [`run`], after SSSE3 was
/// detected (the field is private to this module).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ssse3(());

impl Spans for Ssse3 {
    #[inline(always)]
    fn span(self, text: &[u8], from: usize, class: &NibbleClass) -> usize {
        if text.len() < 16 || from >= text.len() {
            return span_scalar(text, from, class);
        }
        // SAFETY: an `Ssse3` exists only after SSSE3 was detected (`run`).
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

/// True if this CPU can run the kernels.
pub(crate) fn is_available() -> bool {
    is_x86_feature_detected!("sse2") && is_x86_feature_detected!("ssse3")
}

/// [`WithSpans::run`] compiled with SSSE3 enabled.
///
/// # Safety
/// The CPU must support SSE2 and SSSE3.
#[target_feature(enable = "sse2,ssse3")]
pub(crate) unsafe fn run<W: WithSpans>(work: W) -> W::Output {
    work.run(Ssse3(()))
}

/// The kernel of [`Spans::span`]; needs `text.len() >= 16` and `from < text.len()`.
///
/// # Safety
/// The CPU must support SSE2 and SSSE3.
#[target_feature(enable = "sse2,ssse3")]
pub(crate) unsafe fn span(text: &[u8], from: usize, class: &NibbleClass) -> usize {
    debug_assert!(text.len() >= 16 && from < text.len());
    let len = text.len();
    let p = text.as_ptr();
    // SAFETY (whole block): the tables are 16 readable bytes each; every load
    // reads 16 bytes at `p + i` with `i + 16 <= len`, or at `p + len - 16`
    // with `len >= 16` (the caller's contract); SSSE3 is the caller's contract.
    unsafe {
        let lo_t = _mm_loadu_si128(class.lo.as_ptr().cast());
        let hi_t = _mm_loadu_si128(class.hi.as_ptr().cast());
        let nib = _mm_set1_epi8(0x0F);
        let zero = _mm_setzero_si128();
        // Bit k set: byte k of `v` is not in the class.
        let outside = |v: __m128i| -> u32 {
            let lo = _mm_shuffle_epi8(lo_t, _mm_and_si128(v, nib));
            let hi = _mm_shuffle_epi8(hi_t, _mm_and_si128(_mm_srli_epi16(v, 4), nib));
            _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(lo, hi), zero)) as u32
        };
        let mut i = from;
        while i + 16 <= len {
            let m = outside(_mm_loadu_si128(p.add(i).cast()));
            if m != 0 {
                return i + m.trailing_zeros() as usize;
            }
            i += 16;
        }
        if i == len {
            return len;
        }
        // The last 16 bytes; lanes before `i` were checked already.
        let m = outside(_mm_loadu_si128(p.add(len - 16).cast())) >> (i - (len - 16));
        if m != 0 {
            i + m.trailing_zeros() as usize
        } else {
            len
        }
    }
}

/// The kernel of [`Spans::span_dots`]; needs `text.len() >= 16` and
/// `from < text.len()`.
///
/// # Safety
/// The CPU must support SSE2 and SSSE3.
#[target_feature(enable = "sse2,ssse3")]
pub(crate) unsafe fn span_dots(text: &[u8], from: usize, class: &NibbleClass) -> usize {
    debug_assert!(text.len() >= 16 && from < text.len());
    let len = text.len();
    let p = text.as_ptr();
    // SAFETY (whole block): as in `span`: 16-byte loads at `p + i`
    // with `i + 16 <= len`, or at `p + len - 16` with `len >= 16`.
    unsafe {
        let lo_t = _mm_loadu_si128(class.lo.as_ptr().cast());
        let hi_t = _mm_loadu_si128(class.hi.as_ptr().cast());
        let nib = _mm_set1_epi8(0x0F);
        let zero = _mm_setzero_si128();
        let dot = _mm_set1_epi8(b'.' as i8);
        let slash = _mm_set1_epi8(b'/' as i8);
        // (bytes not in the class, dots, slashes) as bitmasks.
        let masks = |v: __m128i| -> (u32, u32, u32) {
            let lo = _mm_shuffle_epi8(lo_t, _mm_and_si128(v, nib));
            let hi = _mm_shuffle_epi8(hi_t, _mm_and_si128(_mm_srli_epi16(v, 4), nib));
            (
                _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(lo, hi), zero)) as u32,
                _mm_movemask_epi8(_mm_cmpeq_epi8(v, dot)) as u32,
                _mm_movemask_epi8(_mm_cmpeq_epi8(v, slash)) as u32,
            )
        };
        // Bit 0: the byte before the next vector is a `/` (not before `from`).
        let mut carry = 0u32;
        let mut i = from;
        while i + 16 <= len {
            let (out, dots, slashes) = masks(_mm_loadu_si128(p.add(i).cast()));
            let m = out | (dots & (slashes << 1 | carry));
            if m != 0 {
                return i + m.trailing_zeros() as usize;
            }
            carry = slashes >> 15;
            i += 16;
        }
        if i == len {
            return len;
        }
        // The last 16 bytes; lanes before `i` were checked already, and a
        // slash before `from` does not count.
        let base = len - 16;
        let (out, dots, slashes) = masks(_mm_loadu_si128(p.add(base).cast()));
        let slashes = slashes & (u32::MAX << (from.max(base) - base));
        let m = (out | (dots & (slashes << 1))) >> (i - base);
        if m != 0 {
            i + m.trailing_zeros() as usize
        } else {
            len
        }
    }
}
