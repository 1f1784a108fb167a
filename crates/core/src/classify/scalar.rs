//! The portable twin of the SIMD kernels: the same block algorithm
//! ([`super::generic`]) over a plain 64-byte array and the 256-entry scalar
//! table. It has the same signatures as the SIMD entry points, and it is the
//! fallback where no SIMD ISA is available.

use super::generic::{self, Vector};
use super::tables::ClassTable;

/// 64 bytes in a plain array.
#[derive(Clone, Copy)]
pub(crate) struct Block([u8; 64]);

impl Vector for Block {
    type Tables = &'static ClassTable;

    #[inline(always)]
    unsafe fn tables(t: &'static ClassTable) -> Self::Tables {
        t
    }

    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: the caller guarantees 64 readable bytes at `p`.
        Block(unsafe { p.cast::<[u8; 64]>().read_unaligned() })
    }

    #[inline(always)]
    unsafe fn classify(self, t: &Self::Tables) -> Self {
        Block(self.0.map(|b| t.scalar[b as usize]))
    }

    #[inline(always)]
    unsafe fn mask(self, _t: &Self::Tables, k: usize) -> u64 {
        let mut m = 0u64;
        for (i, &c) in self.0.iter().enumerate() {
            m |= u64::from((c >> k) & 1) << i;
        }
        m
    }

    #[inline(always)]
    unsafe fn events(p: *const u8) -> u64 {
        // SAFETY: the caller guarantees `p - 1 .. p + 65` readable.
        unsafe { generic::events_scalar(p) }
    }
}

/// Append every candidate anchor in `start..end` to `out`. See [`super::naive::candidates`].
pub(crate) fn candidates(hay: &[u8], start: usize, end: usize, out: &mut Vec<usize>) {
    // SAFETY: the scalar block needs no CPU feature.
    unsafe { generic::candidates::<Block>(hay, start, end, out) }
}

/// The first stop byte at or after `from`. See [`super::naive::find_stop`].
pub(crate) fn find_stop(hay: &[u8], from: usize) -> usize {
    // SAFETY: the scalar block needs no CPU feature.
    unsafe { generic::find_stop::<Block>(hay, from) }
}

/// The first stop byte at or after `from`, and the first closing bracket
/// before it. See [`super::naive::find_run`].
pub(crate) fn find_run(hay: &[u8], from: usize) -> (usize, usize) {
    // SAFETY: the scalar block needs no CPU feature.
    unsafe { generic::find_run::<Block>(hay, from) }
}
