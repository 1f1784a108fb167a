//! The 256-bit kernel: two `__m256i` per block, `vpshufb` nibble lookups,
//! `vpmovmskb` masks. BMI1/BMI2/POPCNT are enabled too (`tzcnt`, `blsr`,
//! `shlx`, `popcnt` in the mask loops) and required at run time.

use core::arch::x86_64::*;

use crate::classify::generic::{self, Vector};
use crate::classify::tables::ClassTable;

/// 64 bytes in two AVX registers.
#[derive(Clone, Copy)]
pub(crate) struct Block([__m256i; 2]);

/// A [`ClassTable`] in registers (each 16-byte table in both lanes).
#[derive(Clone, Copy)]
pub(crate) struct Tables {
    lo: __m256i,
    hi: __m256i,
    bits: [u8; 8],
    ascii_only: bool,
}

impl Vector for Block {
    type Tables = Tables;

    #[inline(always)]
    unsafe fn tables(t: &'static ClassTable) -> Tables {
        // SAFETY: the tables are 16 readable bytes; AVX2 is the caller's contract.
        unsafe {
            Tables {
                lo: _mm256_broadcastsi128_si256(_mm_loadu_si128(t.lo.as_ptr().cast())),
                hi: _mm256_broadcastsi128_si256(_mm_loadu_si128(t.hi.as_ptr().cast())),
                bits: t.bits,
                ascii_only: t.ascii_only,
            }
        }
    }

    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: the caller guarantees 64 readable bytes at `p` and AVX2.
        unsafe {
            Block([
                _mm256_loadu_si256(p.cast()),
                _mm256_loadu_si256(p.add(32).cast()),
            ])
        }
    }

    #[inline(always)]
    unsafe fn classify(self, t: &Tables) -> Self {
        // SAFETY: the caller guarantees AVX2.
        unsafe {
            let nib = _mm256_set1_epi8(0x0F);
            // `vpshufb` gives 0 for an index with bit 7 set: right for ASCII-only classes.
            let [a, b] = self.0;
            let (lo_a, lo_b) = if t.ascii_only {
                (a, b)
            } else {
                (_mm256_and_si256(a, nib), _mm256_and_si256(b, nib))
            };
            let hi_a = _mm256_and_si256(_mm256_srli_epi16(a, 4), nib);
            let hi_b = _mm256_and_si256(_mm256_srli_epi16(b, 4), nib);
            Block([
                _mm256_and_si256(
                    _mm256_shuffle_epi8(t.lo, lo_a),
                    _mm256_shuffle_epi8(t.hi, hi_a),
                ),
                _mm256_and_si256(
                    _mm256_shuffle_epi8(t.lo, lo_b),
                    _mm256_shuffle_epi8(t.hi, hi_b),
                ),
            ])
        }
    }

    #[inline(always)]
    unsafe fn mask(self, t: &Tables, k: usize) -> u64 {
        // SAFETY: the caller guarantees AVX2.
        unsafe {
            let bits = t.bits[k];
            let [a, b] = self.0;
            let (ma, mb) = if bits.is_power_of_two() {
                // One bit: shift it to the top of each byte, `vpmovmskb` reads it.
                let count = _mm_cvtsi32_si128(bits.leading_zeros() as i32);
                (
                    _mm256_movemask_epi8(_mm256_sll_epi16(a, count)),
                    _mm256_movemask_epi8(_mm256_sll_epi16(b, count)),
                )
            } else {
                let bits = _mm256_set1_epi8(bits as i8);
                let zero = _mm256_setzero_si256();
                (
                    !_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_and_si256(a, bits), zero)),
                    !_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_and_si256(b, bits), zero)),
                )
            };
            u64::from(ma as u32) | (u64::from(mb as u32) << 32)
        }
    }

    #[inline(always)]
    unsafe fn events(p: *const u8) -> u64 {
        // SAFETY: the caller guarantees `p - 1 .. p + 65` readable and AVX2.
        unsafe { u64::from(events32(p)) | (u64::from(events32(p.add(32))) << 32) }
    }
}

/// [`Vector::events`] of the 32 bytes at `p`, in assembly.
///
/// Written with intrinsics ([`events32`] under Miri, which cannot run
/// assembly), LLVM turns the one `vpaddusb` into `vpmaxub` + `vpcmpeqb` (it
/// makes a full-byte `next > 0x20`, where only the top bit is read), runs out
/// of the 16 registers when it merges the two blocks' tests, and spills and
/// reloads constants in the loop: 18 vector operations per 32 bytes instead
/// of these 14 (`llvm-mca`: 25.4 against 20.7 cycles per 128 bytes). The
/// assembly is 9-18% faster on text (docs/performance.md).
///
/// # Safety
/// `p - 1 .. p + 33` is readable, and the CPU supports AVX2.
#[cfg(not(miri))]
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn events32(p: *const u8) -> u32 {
    let r: u32;
    // SAFETY: reads `p - 1 .. p + 33` (readable: the caller's contract) and
    // nothing else; AVX2 is the caller's contract; touches no stack or flags.
    unsafe {
        core::arch::asm!(
            "vmovdqu {v}, ymmword ptr [{p}]",
            "vmovdqu {n}, ymmword ptr [{p} + 1]",
            // lower = prev | 0x20
            "vpor {l}, {k20}, ymmword ptr [{p} - 1]",
            // body = (next + 0x5F saturating: top bit iff next > 0x20)
            //        & !(next == ':') & (lower > 0x60, signed)
            "vpcmpeqb {t1}, {n}, {kcolon}",
            "vpaddusb {t2}, {n}, {k5f}",
            "vpandn {t2}, {t1}, {t2}",
            "vpcmpgtb {t1}, {l}, {k60}",
            "vpand {t2}, {t2}, {t1}",
            // colon = (v == ':') & (next == '/' | body)
            "vpcmpeqb {t1}, {n}, {kslash}",
            "vpor {t2}, {t2}, {t1}",
            "vpcmpeqb {t1}, {v}, {kcolon}",
            "vpand {t2}, {t2}, {t1}",
            // w_dot = (v == '.') & (lower == 'w')
            "vpcmpeqb {v}, {v}, {kdot}",
            "vpcmpeqb {l}, {l}, {kw}",
            "vpand {v}, {v}, {l}",
            "vpor {t2}, {t2}, {v}",
            "vpmovmskb {r:e}, {t2}",
            p = in(reg) p,
            k20 = in(ymm_reg) _mm256_set1_epi8(0x20),
            kcolon = in(ymm_reg) _mm256_set1_epi8(b':' as i8),
            kslash = in(ymm_reg) _mm256_set1_epi8(b'/' as i8),
            k5f = in(ymm_reg) _mm256_set1_epi8(0x5F),
            k60 = in(ymm_reg) _mm256_set1_epi8(0x60),
            kdot = in(ymm_reg) _mm256_set1_epi8(b'.' as i8),
            kw = in(ymm_reg) _mm256_set1_epi8(b'w' as i8),
            v = out(ymm_reg) _,
            n = out(ymm_reg) _,
            l = out(ymm_reg) _,
            t1 = out(ymm_reg) _,
            t2 = out(ymm_reg) _,
            r = lateout(reg) r,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    r
}

/// [`Vector::events`] of the 32 bytes at `p`, with intrinsics: the same
/// operations as the assembly above, for Miri.
///
/// # Safety
/// `p - 1 .. p + 33` is readable, and the CPU supports AVX2.
#[cfg(miri)]
#[inline(always)]
unsafe fn events32(p: *const u8) -> u32 {
    // SAFETY: the caller guarantees the bytes and AVX2.
    unsafe {
        let v = _mm256_loadu_si256(p.cast());
        let next = _mm256_loadu_si256(p.add(1).cast());
        let prev = _mm256_loadu_si256(p.sub(1).cast());
        let lower = _mm256_or_si256(prev, _mm256_set1_epi8(0x20));
        // Only top bits count (the movemask). `next + 0x5F` (saturating) has
        // it iff `next > 0x20`; `lower` is in `0x61..=0x7F` iff it is above
        // 0x60 as a signed byte.
        let body = _mm256_andnot_si256(
            _mm256_cmpeq_epi8(next, _mm256_set1_epi8(b':' as i8)),
            _mm256_and_si256(
                _mm256_adds_epu8(next, _mm256_set1_epi8(0x5F)),
                _mm256_cmpgt_epi8(lower, _mm256_set1_epi8(0x60)),
            ),
        );
        let colon = _mm256_and_si256(
            _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b':' as i8)),
            _mm256_or_si256(_mm256_cmpeq_epi8(next, _mm256_set1_epi8(b'/' as i8)), body),
        );
        let w_dot = _mm256_and_si256(
            _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'.' as i8)),
            _mm256_cmpeq_epi8(lower, _mm256_set1_epi8(b'w' as i8)),
        );
        _mm256_movemask_epi8(_mm256_or_si256(colon, w_dot)) as u32
    }
}

/// True if this CPU can run the kernel.
pub(crate) fn is_available() -> bool {
    is_x86_feature_detected!("avx2")
        && is_x86_feature_detected!("bmi1")
        && is_x86_feature_detected!("bmi2")
        && is_x86_feature_detected!("popcnt")
}

generic::entry_points!("avx2,bmi1,bmi2,popcnt", "AVX2, BMI1, BMI2 and POPCNT");
