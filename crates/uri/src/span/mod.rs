//! Runs of one byte class, 16 bytes at a time: the URI engine's validator
//! skips over a component with [`Spans::span`] instead of a table lookup per byte.
//!
//! A class is given as two 16-entry nibble tables ([`NibbleClass`]): byte `b`
//! is in it when `lo[b & 15] & hi[b >> 4] != 0`, the lookup that `pshufb`
//! (SSSE3) and `tbl` (NEON) do for 16 bytes at once. [`span_scalar`] is the
//! reference, and [`span_dots_scalar`] that of [`Spans::span_dots`]; every vector
//! kernel gives exactly their answers (tests in `tests.rs`, at every start
//! offset and length, and through [`dispatch`]).
//!
//! A URL is short (45 bytes on average in `datasets/urls.txt`), so the
//! kernels work on one 16-byte vector at a time and finish with one load of
//! the last 16 bytes of the text (overlapping what was already checked)
//! rather than a byte loop; texts under 16 bytes use the scalar loop.
//!
//! # Layout
//!
//! The layout of the classifier's (`urlsift_core::classify`):
//!
//! - This file: [`NibbleClass`], the [`Spans`] trait, the scalar reference
//!   kernels ([`Scalar`]), [`SpanIsa`] and the one dispatcher, [`dispatch`].
//! - `ssse3`, `neon`: one small file per ISA, each a [`Spans`]
//!   implementation over two `unsafe` kernels, `span` and `span_dots`.
//!
//! Code generic over [`Spans`] runs under [`dispatch`], which compiles it
//! once per ISA (the SSSE3 copy inside a `#[target_feature]` function, so
//! the kernels inline into the caller's loop and the CPU feature test is
//! done once per call of the URI engine, not per component).
//!
//! # Choosing the ISA
//!
//! The choice is made once per process, from the same names as the
//! classifier's (`URLSIFT_ISA`, the command line's `--isa`; see
//! [`SpanIsa::for_choice`]):
//!
//! | choice                       | span kernels                          |
//! |------------------------------|---------------------------------------|
//! | `scalar`                     | [`Scalar`]                            |
//! | `sse2`, `avx2`, `avx512`     | SSSE3 (x86-64)                        |
//! | `neon`                       | NEON (AArch64)                        |
//! | `auto`, unset, other values  | [`SpanIsa::best`]                     |
//!
//! The classifier's `sse2` tier itself needs SSSE3 (`pshufb`), so every
//! vector tier it can run has the SSSE3 span kernels; 256- and 512-bit
//! span kernels would not pay, as a URL component is rarely longer than
//! 16 bytes. A choice this CPU cannot run falls back to [`SpanIsa::best`],
//! as the classifier's `auto` does. [`crate::use_scalar_kernels`] overrides
//! the environment (the command line passes its `--isa` through it).

use std::sync::atomic::{AtomicU8, Ordering};

#[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
mod neon;
#[cfg(target_arch = "x86_64")]
mod ssse3;
#[cfg(test)]
mod tests;

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

/// Work to run with the chosen [`Spans`]; see [`dispatch`].
pub(crate) trait WithSpans {
    /// What the work returns.
    type Output;
    /// Do the work with kernel `s`. Mark the implementation
    /// `#[inline(always)]` so that it is compiled into each ISA's entry point.
    fn run<S: Spans>(self, s: S) -> Self::Output;
}

/// An instruction set the span kernels have a file for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum SpanIsa {
    /// [`Scalar`]: portable code, one byte at a time.
    Scalar = 1,
    /// x86-64, one `__m128i` at a time (SSE2 + SSSE3): `ssse3.rs`.
    Ssse3 = 2,
    /// AArch64, one `uint8x16_t` at a time: `neon.rs`.
    Neon = 3,
}

impl SpanIsa {
    /// True if this build has the kernels and this CPU can run them.
    pub(crate) fn is_available(self) -> bool {
        match self {
            SpanIsa::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            SpanIsa::Ssse3 => ssse3::is_available(),
            #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
            SpanIsa::Neon => true,
            #[allow(unreachable_patterns)]
            _ => false,
        }
    }

    /// The fastest available kernels: the vector ones when this CPU has
    /// them (SSSE3 on x86-64, NEON on AArch64), else [`SpanIsa::Scalar`].
    pub(crate) fn best() -> SpanIsa {
        [SpanIsa::Ssse3, SpanIsa::Neon]
            .into_iter()
            .find(|isa| isa.is_available())
            .unwrap_or(SpanIsa::Scalar)
    }

    /// The kernels for a classifier ISA name (`URLSIFT_ISA`, `--isa`; ASCII
    /// case-insensitive, surrounding blanks ignored), by the table in the
    /// module docs.
    pub(crate) fn for_choice(name: &str) -> SpanIsa {
        let name = name.trim();
        let wanted = if name.eq_ignore_ascii_case("scalar") {
            SpanIsa::Scalar
        } else if ["sse2", "avx2", "avx512"]
            .iter()
            .any(|n| name.eq_ignore_ascii_case(n))
        {
            SpanIsa::Ssse3
        } else if name.eq_ignore_ascii_case("neon") {
            SpanIsa::Neon
        } else {
            return SpanIsa::best();
        };
        if wanted.is_available() {
            wanted
        } else {
            SpanIsa::best()
        }
    }

    /// The kernels `URLSIFT_ISA` asks for ([`SpanIsa::best`] when it is
    /// unset or not UTF-8).
    fn from_env() -> SpanIsa {
        match std::env::var("URLSIFT_ISA") {
            Ok(name) => SpanIsa::for_choice(&name),
            Err(_) => SpanIsa::best(),
        }
    }
}

/// The [`SpanIsa`] that [`dispatch`] uses, as its `u8`; [`UNSET`] until
/// chosen.
static CHOICE: AtomicU8 = AtomicU8::new(UNSET);
const UNSET: u8 = 0;
const SSSE3: u8 = SpanIsa::Ssse3 as u8;
const NEON: u8 = SpanIsa::Neon as u8;

/// Use the scalar kernels (`true`), or [`SpanIsa::best`] (`false`). See
/// [`crate::use_scalar_kernels`].
pub(crate) fn set_scalar(scalar: bool) {
    set(if scalar {
        SpanIsa::Scalar
    } else {
        SpanIsa::best()
    });
}

/// Make [`dispatch`] use `isa` (which must be available).
fn set(isa: SpanIsa) {
    debug_assert!(isa.is_available());
    CHOICE.store(isa as u8, Ordering::Relaxed);
}

/// The kernels [`dispatch`] uses: on first use, unless [`set_scalar`]
/// chose, those the environment's `URLSIFT_ISA` asks for.
#[inline]
pub(crate) fn chosen() -> SpanIsa {
    match CHOICE.load(Ordering::Relaxed) {
        SSSE3 => SpanIsa::Ssse3,
        NEON => SpanIsa::Neon,
        UNSET => choose(),
        _ => SpanIsa::Scalar,
    }
}

/// [`chosen`] on its first use: the kernels the environment asks for,
/// remembered. Out of line, so that [`chosen`] inlines into [`dispatch`].
#[cold]
#[inline(never)]
fn choose() -> SpanIsa {
    let isa = SpanIsa::from_env();
    set(isa);
    isa
}

/// Run `work` with the span kernels chosen for the process (see
/// [`chosen`]): on x86-64 with SSSE3, inside a function compiled for
/// SSSE3 (so the kernels inline into `work`).
#[inline]
pub(crate) fn dispatch<W: WithSpans>(work: W) -> W::Output {
    match chosen() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `chosen` returns only available ISAs: SSSE3 (and so SSE2)
        // was detected.
        SpanIsa::Ssse3 => unsafe { ssse3::run(work) },
        #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
        SpanIsa::Neon => work.run(neon::Neon),
        _ => work.run(Scalar),
    }
}
