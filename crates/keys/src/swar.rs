//! Eight bytes at a time: whether a text holds any byte of a small set
//! (the fast paths' first look at a URL).

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// Lanes of `w` that are zero, as their high bit (exact for every lane:
/// `(w - 1) & !w` has a lane's high bit only where that lane is zero or a
/// borrow came in, and a borrow only comes from a zero lane below).
#[inline(always)]
fn zero_lanes(w: u64) -> u64 {
    w.wrapping_sub(ONES) & !w & HIGH
}

/// True if `s` holds a byte at or below `max` (`max < 0x80`), at or above
/// 0x7f, or equal to one of `set`.
#[inline]
pub(crate) fn any_of(s: &[u8], max: u8, set: &[u8]) -> bool {
    let mut words = s.chunks_exact(8);
    for c in &mut words {
        let mut a = [0u8; 8];
        a.copy_from_slice(c);
        let w = u64::from_le_bytes(a);
        // High bit set (>= 0x80), or w + 1 has it (0x7f), or below max + 1.
        let mut hit = (w | w.wrapping_add(ONES)) & HIGH;
        hit |= w.wrapping_sub(ONES * (u64::from(max) + 1)) & !w & HIGH;
        for &b in set {
            hit |= zero_lanes(w ^ (ONES * u64::from(b)));
        }
        if hit != 0 {
            return true;
        }
    }
    words
        .remainder()
        .iter()
        .any(|&b| b <= max || b >= 0x7f || set.contains(&b))
}

#[cfg(test)]
mod tests {
    use super::any_of;

    #[test]
    fn matches_the_scalar_test() {
        let set = b"%\"^";
        for len in 0..20 {
            for at in 0..len {
                for b in 0..=255u8 {
                    let mut s = vec![b'a'; len];
                    s[at] = b;
                    let want = b <= b' ' || b >= 0x7f || set.contains(&b);
                    assert_eq!(any_of(&s, b' ', set), want, "{b:#x} at {at} of {len}");
                }
            }
        }
    }
}
