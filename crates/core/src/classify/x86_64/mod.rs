//! x86-64 kernels: one small file per ISA, each a [`super::generic::Vector`]
//! implementation plus `#[target_feature]` entry points.
//!
//! | ISA      | vector          | needs at run time                         |
//! |----------|-----------------|-------------------------------------------|
//! | `sse2`   | 4 x `__m128i`   | SSE2 + SSSE3 (`pshufb` for the nibble tables) |
//! | `avx2`   | 2 x `__m256i`   | AVX2, BMI1, BMI2, POPCNT                  |
//! | `avx512` | 1 x `__m512i`   | AVX-512F, AVX-512BW, BMI1, BMI2, POPCNT   |

pub(crate) mod avx2;
pub(crate) mod avx512;
pub(crate) mod sse2;
