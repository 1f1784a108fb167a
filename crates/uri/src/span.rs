//! Runs of one byte class, 16 bytes at a time: the URI engine's validator
//! skips over a component with [`Spans::span`] instead of a table lookup per byte.
//!
//! Code generic over [`Spans`] runs under [`dispatch`], which compiles it
//! once per ISA (the SSSE3 copy inside a `#[target_feature]` function, so
//! the kernels inline into the caller's loop and the CPU feature test is
//! done once per call of the URI engine, not per component).
//!
//! The choice is made once per process: the vector kernels when the CPU has
//! them, unless `URLSIFT_ISA=scalar` or [`crate::use_scalar_kernels`] asks
//! for the scalar ones (the command line's `--isa scalar`).
//!
//! A class is given as two 16-entry nibble tables ([`NibbleClass`]): byte `b`
//! is in it when `lo[b & 15] & hi[b >> 4] != 0`, the lookup that `pshufb`
//! (SSSE3) and `tbl` (NEON) do for 16 bytes at once. [`span_scalar`] is the
//! reference, and [`span_dots_scalar`] that of [`Spans::span_dots`]; every vector
//! kernel gives exactly their answers (tests below, at every start offset
//! and length, and through [`dispatch`]).
//!
//! A URL is short (45 bytes on average in `datasets/urls.txt`), so the
//! kernels work on one 16-byte vector at a time and finish with one load of
//! the last 16 bytes of the text (overlapping what was already checked)
//! rather than a byte loop; texts under 16 bytes use the scalar loop.

use std::sync::atomic::{AtomicU8, Ordering};

/// A byte class as nibble tables: `b` is in the class when
/// `lo[b & 15] & hi[b >> 4] != 0`.
///
/// Built from a 256-entry class table by [`NibbleClass::new`], which checks
/// at compile time that the nibble form is exact.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NibbleClass {
    lo: [u8; 16],
    hi: [u8; 16],
}

impl NibbleClass {
    /// The class `{b : table[b] & class != 0}`.
    ///
    /// High nibbles `0x2..=0x7` (printable ASCII) get one bit each; `0x0`
    /// and `0x1` (controls) share one, and `0x8..=0xF` (non-ASCII) share
    /// another. That is exact when the controls are all in or all out of
    /// the class for each low nibble, and so are the non-ASCII bytes: true
    /// of every URI class (no control is in one; bytes >= 0x80 are all in or
    /// all out). Panics (at compile time, in a `const`) otherwise.
    pub(crate) const fn new(table: &[u8; 256], class: u8) -> NibbleClass {
        const fn group(h: usize) -> u8 {
            match h {
                0 | 1 => 1 << 6,
                2..=7 => 1 << (h - 2),
                _ => 1 << 7,
            }
        }
        let mut lo = [0u8; 16];
        let mut hi = [0u8; 16];
        let mut h = 0;
        while h < 16 {
            hi[h] = group(h);
            let mut l = 0;
            while l < 16 {
                if table[h << 4 | l] & class != 0 {
                    lo[l] |= group(h);
                }
                l += 1;
            }
            h += 1;
        }
        // Exactness: the lookup must agree with the table for every byte.
        let mut b = 0;
        while b < 256 {
            let nib = lo[b & 15] & hi[b >> 4] != 0;
            assert!(nib == (table[b] & class != 0), "class not exact as nibbles");
            b += 1;
        }
        NibbleClass { lo, hi }
    }

    /// True if `b` is in the class.
    #[inline(always)]
    pub(crate) fn contains(&self, b: u8) -> bool {
        self.lo[(b & 15) as usize] & self.hi[(b >> 4) as usize] != 0
    }
}

/// The index of the first byte of `text[from..]` not in `class`, or
/// `text.len()` (also when `from >= text.len()`). The reference.
#[inline]
pub(crate) fn span_scalar(text: &[u8], from: usize, class: &NibbleClass) -> usize {
    let rest = text.get(from..).unwrap_or_default();
    from + rest
        .iter()
        .position(|&b| !class.contains(b))
        .unwrap_or(rest.len())
}

/// [`span_scalar`], with the fastest kernel this CPU has (chosen per call
/// from a cached feature test; the URI engine uses [`dispatch`] instead).
#[cfg(test)]
pub(crate) fn span(text: &[u8], from: usize, class: &NibbleClass) -> usize {
    if text.len() < 16 || from >= text.len() {
        return span_scalar(text, from, class);
    }
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("ssse3") {
            // SAFETY: SSSE3 (and so SSE2) was just detected.
            return unsafe { span_ssse3(text, from, class) };
        }
    }
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    {
        // SAFETY: NEON is enabled at compile time for this target.
        return unsafe { span_neon(text, from, class) };
    }
    #[allow(unreachable_code)]
    span_scalar(text, from, class)
}

/// The index of the first byte of `text[from..]` that is not in `class` or
/// is a `.` right after a `/` (at `i > from`: the byte before `from` does not
/// count), or `text.len()`. The reference for [`Spans::span_dots`].
///
/// The normalizer asks this of everything after the host: a `.` that starts
/// a segment may be a dot-segment to remove.
#[inline]
pub(crate) fn span_dots_scalar(text: &[u8], from: usize, class: &NibbleClass) -> usize {
    let mut slash = false;
    let mut i = from;
    while let Some(&b) = text.get(i) {
        if !class.contains(b) || (b == b'.' && slash) {
            return i;
        }
        slash = b == b'/';
        i += 1;
    }
    text.len().max(from)
}

/// [`span_dots_scalar`], with the fastest kernel this CPU has.
#[cfg(test)]
pub(crate) fn span_dots(text: &[u8], from: usize, class: &NibbleClass) -> usize {
    if text.len() < 16 || from >= text.len() {
        return span_dots_scalar(text, from, class);
    }
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("ssse3") {
            // SAFETY: SSSE3 (and so SSE2) was just detected.
            return unsafe { span_dots_ssse3(text, from, class) };
        }
    }
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    {
        // SAFETY: NEON is enabled at compile time for this target.
        return unsafe { span_dots_neon(text, from, class) };
    }
    #[allow(unreachable_code)]
    span_dots_scalar(text, from, class)
}

/// The span operations for one ISA, as a zero-sized value: code generic
/// over `S: Spans` is compiled once per ISA by [`dispatch`], with the kernels
/// inlined into it (the feature test and the table loads happen once per
/// [`dispatch`], not once per scan).
pub(crate) trait Spans: Copy {
    /// [`span_scalar`]'s answer.
    fn span(self, text: &[u8], from: usize, class: &NibbleClass) -> usize;
    /// [`span_dots_scalar`]'s answer.
    fn span_dots(self, text: &[u8], from: usize, class: &NibbleClass) -> usize;
}

/// The portable kernels.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scalar;

impl Spans for Scalar {
    #[inline(always)]
    fn span(self, text: &[u8], from: usize, class: &NibbleClass) -> usize {
        span_scalar(text, from, class)
    }
    #[inline(always)]
    fn span_dots(self, text: &[u8], from: usize, class: &NibbleClass) -> usize {
        span_dots_scalar(text, from, class)
    }
}

/// The SSSE3 kernels. A value exists only inside [`dispatch`], after SSSE3
/// was detected (the field is private to this module).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ssse3(());

#[cfg(target_arch = "x86_64")]
impl Spans for Ssse3 {
    #[inline(always)]
    fn span(self, text: &[u8], from: usize, class: &NibbleClass) -> usize {
        if text.len() < 16 || from >= text.len() {
            return span_scalar(text, from, class);
        }
        // SAFETY: an `Ssse3` exists only after SSSE3 was detected (`dispatch`).
        unsafe { span_ssse3(text, from, class) }
    }
    #[inline(always)]
    fn span_dots(self, text: &[u8], from: usize, class: &NibbleClass) -> usize {
        if text.len() < 16 || from >= text.len() {
            return span_dots_scalar(text, from, class);
        }
        // SAFETY: as above.
        unsafe { span_dots_ssse3(text, from, class) }
    }
}

/// The NEON kernels (NEON is part of every aarch64 target this builds for).
#[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Neon;

#[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
impl Spans for Neon {
    #[inline(always)]
    fn span(self, text: &[u8], from: usize, class: &NibbleClass) -> usize {
        if text.len() < 16 || from >= text.len() {
            return span_scalar(text, from, class);
        }
        // SAFETY: NEON is enabled at compile time for this target.
        unsafe { span_neon(text, from, class) }
    }
    #[inline(always)]
    fn span_dots(self, text: &[u8], from: usize, class: &NibbleClass) -> usize {
        if text.len() < 16 || from >= text.len() {
            return span_dots_scalar(text, from, class);
        }
        // SAFETY: as above.
        unsafe { span_dots_neon(text, from, class) }
    }
}

/// Work to run with the best [`Spans`] this CPU has; see [`dispatch`].
pub(crate) trait WithSpans {
    /// What the work returns.
    type Output;
    /// Do the work with kernel `s`. Mark the implementation
    /// `#[inline(always)]` so that it is compiled into each ISA's entry point.
    fn run<S: Spans>(self, s: S) -> Self::Output;
}

/// Which span kernels [`dispatch`] uses: [`UNSET`], [`SCALAR`] or [`VECTOR`].
static CHOICE: AtomicU8 = AtomicU8::new(UNSET);
const UNSET: u8 = 0;
const SCALAR: u8 = 1;
const VECTOR: u8 = 2;

/// Use the scalar kernels (`true`), or the vector kernels when the CPU has
/// them (`false`). See [`crate::use_scalar_kernels`].
pub(crate) fn set_scalar(scalar: bool) {
    let v = !scalar && vector_available();
    CHOICE.store(if v { VECTOR } else { SCALAR }, Ordering::Relaxed);
}

/// Whether this CPU runs the vector kernels (SSSE3 on x86-64, NEON on
/// AArch64).
fn vector_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("ssse3")
    }
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    {
        true
    }
    #[cfg(not(any(
        target_arch = "x86_64",
        all(target_arch = "aarch64", target_feature = "neon")
    )))]
    {
        false
    }
}

/// Whether [`dispatch`] uses the vector kernels: on first use, unless
/// [`set_scalar`] chose, the environment's `URLSIFT_ISA=scalar` (the
/// variable the classifier reads) asks for the scalar ones.
#[inline]
fn use_vector() -> bool {
    match CHOICE.load(Ordering::Relaxed) {
        VECTOR => true,
        SCALAR => false,
        _ => {
            let scalar =
                std::env::var("URLSIFT_ISA").is_ok_and(|v| v.eq_ignore_ascii_case("scalar"));
            set_scalar(scalar);
            CHOICE.load(Ordering::Relaxed) == VECTOR
        }
    }
}

/// Run `work` with the span kernel chosen for the process (see
/// [`use_vector`]): on x86-64 with SSSE3, inside a function compiled for
/// SSSE3 (so the kernels inline into `work`).
#[inline]
pub(crate) fn dispatch<W: WithSpans>(work: W) -> W::Output {
    #[cfg(target_arch = "x86_64")]
    {
        if use_vector() {
            // SAFETY: `use_vector` is true only when SSSE3 (and so SSE2) was
            // detected.
            return unsafe { run_ssse3(work) };
        }
    }
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    {
        if use_vector() {
            return work.run(Neon);
        }
    }
    work.run(Scalar)
}

/// [`WithSpans::run`] compiled with SSSE3 enabled.
///
/// # Safety
/// The CPU must support SSE2 and SSSE3.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2,ssse3")]
unsafe fn run_ssse3<W: WithSpans>(work: W) -> W::Output {
    work.run(Ssse3(()))
}

/// SSSE3 kernel; needs `text.len() >= 16` and `from < text.len()`.
///
/// # Safety
/// The CPU must support SSE2 and SSSE3.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2,ssse3")]
unsafe fn span_ssse3(text: &[u8], from: usize, class: &NibbleClass) -> usize {
    use std::arch::x86_64::*;
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

/// SSSE3 kernel of [`Spans::span_dots`]; needs `text.len() >= 16` and
/// `from < text.len()`.
///
/// # Safety
/// The CPU must support SSE2 and SSSE3.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2,ssse3")]
unsafe fn span_dots_ssse3(text: &[u8], from: usize, class: &NibbleClass) -> usize {
    use std::arch::x86_64::*;
    debug_assert!(text.len() >= 16 && from < text.len());
    let len = text.len();
    let p = text.as_ptr();
    // SAFETY (whole block): as in `span_ssse3`: 16-byte loads at `p + i`
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

/// NEON kernel; needs `text.len() >= 16` and `from < text.len()`.
///
/// # Safety
/// The CPU must support NEON (always true where this is compiled).
#[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
unsafe fn span_neon(text: &[u8], from: usize, class: &NibbleClass) -> usize {
    use std::arch::aarch64::*;
    debug_assert!(text.len() >= 16 && from < text.len());
    let len = text.len();
    let p = text.as_ptr();
    // SAFETY (whole block): as in `span_ssse3`: 16-byte loads at `p + i` with
    // `i + 16 <= len`, or at `p + len - 16` with `len >= 16`; NEON is enabled.
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

/// NEON kernel of [`span_dots`]; needs `text.len() >= 16` and
/// `from < text.len()`.
///
/// # Safety
/// The CPU must support NEON (always true where this is compiled).
#[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
unsafe fn span_dots_neon(text: &[u8], from: usize, class: &NibbleClass) -> usize {
    use std::arch::aarch64::*;
    debug_assert!(text.len() >= 16 && from < text.len());
    let len = text.len();
    let p = text.as_ptr();
    // SAFETY (whole block): as in `span_neon`.
    unsafe {
        let lo_t = vld1q_u8(class.lo.as_ptr());
        let hi_t = vld1q_u8(class.hi.as_ptr());
        let nib = vdupq_n_u8(0x0F);
        let dot = vdupq_n_u8(b'.');
        let slash = vdupq_n_u8(b'/');
        // Four bits per byte, as in `span_neon`.
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A class table like the URI engine's: bit 1 = letters, digits and
    /// `-._~!$&'()*+,;=:@/?`; bit 2 = bit 1 plus every byte >= 0x80;
    /// bit 4 = letters only.
    const fn in_set(c: u8, s: &[u8]) -> bool {
        let mut k = 0;
        while k < s.len() {
            if s[k] == c {
                return true;
            }
            k += 1;
        }
        false
    }

    const fn table() -> [u8; 256] {
        let mut t = [0u8; 256];
        let mut b = 0;
        while b < 256 {
            let c = b as u8;
            let mut v = 0;
            if c.is_ascii_alphanumeric() || in_set(c, b"-._~!$&'()*+,;=:@/?") {
                v |= 3;
            }
            if c >= 0x80 {
                v |= 2;
            }
            if c.is_ascii_alphabetic() {
                v |= 4;
            }
            t[b] = v;
            b += 1;
        }
        t
    }
    const T: [u8; 256] = table();
    const CLASSES: [NibbleClass; 3] = [
        NibbleClass::new(&T, 1),
        NibbleClass::new(&T, 2),
        NibbleClass::new(&T, 4),
    ];

    #[test]
    fn nibble_lookup_is_exact() {
        for (c, bit) in CLASSES.iter().zip([1u8, 2, 4]) {
            for b in 0..=255u8 {
                assert_eq!(c.contains(b), T[b as usize] & bit != 0, "{b:#x}");
            }
        }
    }

    /// Every kernel ([`span`] and [`span_dots`]) against its scalar
    /// reference on `text` from `from`; returns how many vector kernels ran.
    fn check(text: &[u8], from: usize) -> usize {
        let mut n = 0;
        for c in &CLASSES {
            let want = span_scalar(text, from, c);
            let want_dots = span_dots_scalar(text, from, c);
            assert_eq!(span(text, from, c), want, "{text:?} {from}");
            assert_eq!(span_dots(text, from, c), want_dots, "dots {text:?} {from}");
            struct Both<'a>(&'a [u8], usize, &'a NibbleClass);
            impl WithSpans for Both<'_> {
                type Output = (usize, usize);
                fn run<S: Spans>(self, s: S) -> (usize, usize) {
                    (
                        s.span(self.0, self.1, self.2),
                        s.span_dots(self.0, self.1, self.2),
                    )
                }
            }
            assert_eq!(dispatch(Both(text, from, c)), (want, want_dots), "dispatch");
            let direct = text.len() >= 16 && from < text.len();
            #[cfg(target_arch = "x86_64")]
            if direct && std::arch::is_x86_feature_detected!("ssse3") {
                // SAFETY: SSSE3 detected; length and start as required.
                let got = unsafe { (span_ssse3(text, from, c), span_dots_ssse3(text, from, c)) };
                assert_eq!(got, (want, want_dots), "ssse3 {text:?} {from}");
                n += 1;
            }
            #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
            if direct {
                // SAFETY: NEON enabled; length and start as required.
                let got = unsafe { (span_neon(text, from, c), span_dots_neon(text, from, c)) };
                assert_eq!(got, (want, want_dots), "neon {text:?} {from}");
                n += 1;
            }
            let _ = direct;
        }
        n
    }

    /// Every text length 0..=80, every start, a stop byte at every position
    /// (and none), on two fills: one without `/.`, one full of them.
    #[test]
    fn kernels_match_scalar_at_every_offset() {
        let fills: [&[u8]; 2] = [
            b"abcdefghijklmnopqrstuvwxyz0123456789-._~/?:@ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop",
            b"/./a/../b.c/d/.e/f./g//./h/i/j/k.l/m/n/o/p/q/r/s/t/u/v/w/x/y/z/./../././/..//a/b/c/d",
        ];
        let stops = [
            b' ', b'%', b'#', 0u8, 0x80, 0xFF, b'"', b'[', b'7', b'\x7f', b'.', b'/',
        ];
        let mut n = 0;
        for fill in fills {
            for len in 0..=80usize {
                for stop_at in (0..=len).chain([usize::MAX]) {
                    for &stop in &stops {
                        let mut text = fill[..len].to_vec();
                        if let Some(b) = text.get_mut(stop_at) {
                            *b = stop;
                        }
                        for from in 0..=len + 1 {
                            n += check(&text, from);
                        }
                        if stop_at == usize::MAX {
                            break;
                        }
                    }
                }
            }
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("ssse3") {
            assert!(n > 0, "the SSSE3 kernels never ran");
        }
        #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
        assert!(n > 0, "the NEON kernels never ran");
        let _ = n;
    }

    /// Random bytes from a small alphabet that mixes in and out of class.
    #[test]
    fn kernels_match_scalar_on_random_text() {
        let alphabet = b"ab/.-:@?%# \x00\x80\xC3\xA9Z9~";
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = (x % 70) as usize;
            let mut y = x;
            let text: Vec<u8> = (0..len)
                .map(|_| {
                    y = y
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    // Mostly in-class bytes, so runs are long.
                    if (y >> 60) < 13 {
                        b'a'
                    } else {
                        alphabet[(y >> 33) as usize % alphabet.len()]
                    }
                })
                .collect();
            let from = (x >> 40) as usize % (len + 1);
            for c in &CLASSES {
                assert_eq!(
                    span(&text, from, c),
                    span_scalar(&text, from, c),
                    "{text:?} {from}"
                );
            }
        }
    }
}
