//! Bytes looked for eight at a time in a `u64` word: most attribute
//! values and references are short, and a `memchr` call costs more than it
//! saves there.

/// A `0x01` in every byte.
const LO: u64 = u64::from_ne_bytes([0x01; 8]);
/// A `0x80` in every byte.
const HI: u64 = u64::from_ne_bytes([0x80; 8]);

/// `b` in every byte of a word.
pub(crate) const fn splat(b: u8) -> u64 {
    u64::from_ne_bytes([b; 8])
}

/// The top bit of each zero byte of `x` set. A borrow only runs upwards,
/// so bits above a zero byte may be set wrongly, never below it: the lowest
/// set bit is the first zero byte, and the word is zero-free iff this is 0.
#[inline]
pub(crate) fn zero_bytes(x: u64) -> u64 {
    x.wrapping_sub(LO) & !x & HI
}

/// Whether `hit` holds for a word of `v`: its words in turn, then the word
/// that ends it (which may overlap the last one looked at). A `v` under 8
/// bytes is looked at one byte at a time, by `byte`.
#[inline]
pub(crate) fn any_word(v: &[u8], hit: impl Fn(u64) -> bool, byte: impl Fn(u8) -> bool) -> bool {
    let mut words = v.chunks_exact(8);
    for w in &mut words {
        if let Ok(w) = <[u8; 8]>::try_from(w)
            && hit(u64::from_le_bytes(w))
        {
            return true;
        }
    }
    match v.last_chunk::<8>() {
        Some(&w) => hit(u64::from_le_bytes(w)),
        None => v.iter().any(|&b| byte(b)),
    }
}
