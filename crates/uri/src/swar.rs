//! Eight bytes at a time in a `u64` ("SIMD within a register"), for the
//! scans that decide whether a component can be copied unchanged.
//!
//! Each helper returns a mask with `0x80` in every byte lane that matches
//! and `0` in the others. They are exact (no lane borrows from or carries
//! into its neighbour), so a mask's `trailing_zeros() / 8` is the index of
//! the first match in a little-endian word.

/// Every lane set to `b`.
#[inline(always)]
const fn splat(b: u8) -> u64 {
    u64::from_ne_bytes([b; 8])
}

const LOW7: u64 = splat(0x7F);
const HIGH: u64 = splat(0x80);

/// The 8 bytes of `s` from `i` as a little-endian word, if there are 8.
#[inline(always)]
pub(crate) fn word(s: &[u8], i: usize) -> Option<u64> {
    s.get(i..)
        .and_then(<[u8]>::first_chunk::<8>)
        .map(|w| u64::from_le_bytes(*w))
}

/// Lanes of `x` that are zero.
#[inline(always)]
pub(crate) fn zero(x: u64) -> u64 {
    // Adding 0x7F to the low 7 bits sets bit 7 unless they are all 0; the
    // sum never leaves the lane.
    !(((x & LOW7).wrapping_add(LOW7)) | x | LOW7)
}

/// Lanes of `x` equal to `b`.
#[inline(always)]
pub(crate) fn eq(x: u64, b: u8) -> u64 {
    zero(x ^ splat(b))
}

/// Lanes of `x` that are >= 0x80 (not ASCII).
#[inline(always)]
pub(crate) fn non_ascii(x: u64) -> u64 {
    x & HIGH
}

/// Lanes of `x` that are ASCII upper-case letters `A`..=`Z`.
#[inline(always)]
pub(crate) fn upper(x: u64) -> u64 {
    let low = x & LOW7;
    // Bit 7 of each lane: low >= 'A', and low > 'Z' (never carries out of a lane).
    let ge_a = low.wrapping_add(splat(0x80 - b'A'));
    let gt_z = low.wrapping_add(splat(0x80 - b'Z' - 1));
    ge_a & !gt_z & !x & HIGH
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every helper against its one-byte definition, for every byte in
    /// every lane, next to neighbours that would expose a carry.
    #[test]
    fn lanes_match_the_byte_predicates() {
        type Lanes = fn(u64) -> u64;
        type Pred = fn(u8) -> bool;
        let checks: [(Lanes, Pred); 5] = [
            (zero, |b| b == 0),
            (|x| eq(x, b'%'), |b| b == b'%'),
            (|x| eq(x, b'/'), |b| b == b'/'),
            (non_ascii, |b| b >= 0x80),
            (upper, |b| b.is_ascii_uppercase()),
        ];
        for (f, p) in checks {
            for b in 0..=255u8 {
                for lane in 0..8 {
                    for fill in [
                        0u8, 0x01, b'%', b'/', b'@', b'A', b'Z', b'[', 0x7F, 0x80, 0xFF,
                    ] {
                        let mut w = [fill; 8];
                        w[lane] = b;
                        let got = f(u64::from_le_bytes(w)).to_le_bytes();
                        for (k, (&g, &v)) in got.iter().zip(&w).enumerate() {
                            assert_eq!(g, if p(v) { 0x80 } else { 0 }, "byte {v:#x} lane {k}");
                        }
                    }
                }
            }
        }
        assert_eq!(word(b"abcdefgh", 0), Some(u64::from_le_bytes(*b"abcdefgh")));
        assert_eq!(word(b"abcdefgh", 1), None);
    }
}
