//! The classification algorithms, written once over a 64-byte [`Vector`] block.
//!
//! Each ISA implements [`Vector`] with `#[inline(always)]` methods and wraps
//! these functions in one `#[target_feature]` entry point each, so the whole
//! block loop is compiled for that ISA (the memchr layout).
//!
//! # Block state
//!
//! A block yields `u64` masks, bit `i` for byte `i`. Two facts cross a block
//! edge, and they are carried explicitly ([`Carry`]), never re-read:
//!
//! - whether the byte before the block is a scheme character (for `x:`);
//! - the `w` mask of the previous block (for `www.` that straddles the edge).
//!
//! `www.` is found by its *last* byte, `dot & w<<1 & w<<2 & w<<3`, so it
//! needs only look-behind. A `www.` ending in bits 0..3 of a block starts in
//! the previous block; those anchors are emitted before the block's own, which
//! keeps the output ascending (no other anchor can lie inside `www.`).

use super::Masks;
use super::tables::{self, CANDIDATE, ClassTable, DELIMS, STOPS};

/// A 64-byte block in vector registers, with the few operations the
/// algorithms need.
///
/// Every method is `#[inline(always)]` in the implementations and must be
/// called only from a function compiled with the ISA's target features.
pub(crate) trait Vector: Copy {
    /// A [`ClassTable`] prepared for this ISA (tables broadcast into registers).
    type Tables: Copy;

    /// Prepare `t`.
    ///
    /// # Safety
    /// The CPU supports the ISA of the implementation.
    unsafe fn tables(t: &'static ClassTable) -> Self::Tables;

    /// Load 64 bytes from `p`.
    ///
    /// # Safety
    /// `p..p+64` is readable, and the CPU supports the ISA.
    unsafe fn load(p: *const u8) -> Self;

    /// Replace each byte by its class byte in `t`'s encoding.
    ///
    /// # Safety
    /// The CPU supports the ISA.
    unsafe fn classify(self, t: &Self::Tables) -> Self;

    /// The bytes of a classified block that belong to class `k` of `t`.
    ///
    /// # Safety
    /// The CPU supports the ISA.
    unsafe fn mask(self, t: &Self::Tables, k: usize) -> u64;
}

/// State carried from one block to the next.
#[derive(Clone, Copy)]
struct Carry {
    /// Bit 0: the byte before the block is a scheme character.
    scheme: u64,
    /// The `w` mask of the previous block (0 before the first).
    w: u64,
    /// The `www` mask (bit i: bytes i-2..=i are `w`) of the previous block.
    www: u64,
}

/// The candidate masks of one block.
#[derive(Clone, Copy)]
struct CandidateBits {
    colon: u64,
    scheme: u64,
    /// `:` after a scheme character.
    colon_anchor: u64,
    /// The last byte (`.`) of each `www.`.
    www_end: u64,
}

/// Classify one loaded block for candidates and advance the carry.
///
/// The `.` mask is only computed where `www` precedes it (rare in text).
#[inline(always)]
unsafe fn candidate_bits<V: Vector>(v: V, t: &V::Tables, carry: &mut Carry) -> CandidateBits {
    // SAFETY: the caller runs with the ISA's features (this function's contract).
    let (c, colon, scheme, w) = unsafe {
        let c = v.classify(t);
        (
            c,
            c.mask(t, tables::COLON),
            c.mask(t, tables::SCHEME),
            c.mask(t, tables::W),
        )
    };
    let colon_anchor = colon & ((scheme << 1) | carry.scheme);
    // SAFETY: as above.
    let www_end = unsafe { www_end_bits(c, t, w, carry) };
    carry.scheme = scheme >> 63;
    CandidateBits {
        colon,
        scheme,
        colon_anchor,
        www_end,
    }
}

/// The last byte (`.`) of each `www.` in the classified block `c` whose `w`
/// mask is `w`; advances the `w`/`www` carry.
///
/// # Safety
/// The CPU supports `V`'s ISA.
#[inline(always)]
unsafe fn www_end_bits<V: Vector>(c: V, t: &V::Tables, w: u64, carry: &mut Carry) -> u64 {
    let pw = carry.w;
    // Bit i: bytes i-2, i-1 and i are all `w`.
    let www = w & ((w << 1) | (pw >> 63)) & ((w << 2) | (pw >> 62));
    // Bit i: bytes i-3..i are `www`, so `.` at i ends `www.`.
    let www_dot = (www << 1) | (carry.www >> 63);
    carry.w = w;
    carry.www = www;
    if www_dot != 0 {
        // SAFETY: ISA support is this function's contract.
        www_dot & unsafe { c.mask(t, tables::DOT) }
    } else {
        0
    }
}

/// The candidate pass's block classification: only `:` and `www.`. Whether
/// the byte before a colon is a scheme character is checked later, per
/// colon, with the byte after it ([`filter_colons`]): that is cheaper than a
/// third mask for every block, since half the blocks of text have no colon.
#[inline(always)]
unsafe fn candidate_bits_fast<V: Vector>(v: V, t: &V::Tables, carry: &mut Carry) -> CandidateBits {
    // SAFETY: the caller runs with the ISA's features (this function's contract).
    let (c, colon, w) = unsafe {
        let c = v.classify(t);
        (c, c.mask(t, tables::COLON), c.mask(t, tables::W))
    };
    // SAFETY: as above.
    let www_end = unsafe { www_end_bits(c, t, w, carry) };
    CandidateBits {
        colon,
        scheme: 0,
        colon_anchor: colon,
        www_end,
    }
}

/// Mask of the low `n` bits (all 64 for `n >= 64`).
#[inline(always)]
fn low_bits(n: usize) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

/// The most anchors one block can emit: 3 `www.` from the block before, 64 own.
const MAX_PER_BLOCK: usize = 67;

/// For each byte value: [`NEXT_BODY`] if it may follow the colon of a scheme
/// used without `//` ([`super::naive::may_follow_colon`]), [`NEXT_SLASH`] if
/// it is `/`, [`PREV_SCHEME`] if it is a scheme character, [`PREV_ALPHA`] if
/// it is a letter.
static AROUND: [u8; 256] = {
    use super::naive::{is_scheme_char, may_follow_colon};
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        if may_follow_colon(c) {
            t[b] |= NEXT_BODY;
        }
        if c == b'/' {
            t[b] |= NEXT_SLASH;
        }
        if is_scheme_char(c) {
            t[b] |= PREV_SCHEME;
        }
        if c.is_ascii_alphabetic() {
            t[b] |= PREV_ALPHA;
        }
        b += 1;
    }
    t
};
const NEXT_BODY: u8 = 1;
const NEXT_SLASH: u8 = 2;
const PREV_SCHEME: u8 = 4;
const PREV_ALPHA: u8 = 8;

/// The colons of `colons` (block at `pos`) that are candidates: `x:/` with a
/// scheme character `x`, or `a:b` with a letter `a` and a body byte `b`. Two
/// table lookups per colon.
#[inline(always)]
fn filter_colons(hay: &[u8], pos: usize, mut colons: u64) -> u64 {
    let mut keep = 0u64;
    while colons != 0 {
        let bit = colons.trailing_zeros() as usize;
        colons &= colons - 1;
        let i = pos + bit;
        let next = AROUND[*hay.get(i + 1).unwrap_or(&0) as usize];
        let prev = match i.checked_sub(1) {
            Some(j) => AROUND[hay[j] as usize],
            None => 0,
        };
        let slash = (next & NEXT_SLASH != 0) & (prev & PREV_SCHEME != 0);
        let body = (next & NEXT_BODY != 0) & (prev & PREV_ALPHA != 0);
        keep |= ((slash | body) as u64) << bit;
    }
    keep
}

/// Push the anchors of the block at `pos`: first `www.` that started in the
/// previous block (`www_end` bits 0..3), then the block's own.
#[inline(always)]
fn emit(out: &mut Vec<usize>, hay: &[u8], pos: usize, b: CandidateBits, colon_limit: u64) {
    let early = b.www_end & 0b111;
    let colons = b.colon_anchor & colon_limit;
    let colons = if colons != 0 {
        filter_colons(hay, pos, colons)
    } else {
        0
    };
    let own = colons | (b.www_end >> 3);
    if early | own == 0 {
        return;
    }
    // Room for a whole block's anchors, then plain stores into the spare
    // capacity: no capacity check per anchor.
    out.reserve(MAX_PER_BLOCK);
    let len = out.len();
    let spare = &mut out.spare_capacity_mut()[..MAX_PER_BLOCK];
    let mut n = 0;
    let mut m = early;
    while m != 0 {
        // `early` is non-zero only after a previous block, so `pos >= 64`.
        spare[n].write(pos - 3 + m.trailing_zeros() as usize);
        n += 1;
        m &= m - 1;
    }
    let mut m = own;
    while m != 0 {
        spare[n].write(pos + m.trailing_zeros() as usize);
        n += 1;
        m &= m - 1;
    }
    // SAFETY: the `n` slots after `len` were initialised above, and
    // `len + n <= capacity` (`n <= MAX_PER_BLOCK`, reserved).
    unsafe { out.set_len(len + n) }
}

/// Load `hay[pos..end]` padded with `pad` into a stack block.
#[inline(always)]
unsafe fn load_padded<V: Vector>(hay: &[u8], pos: usize, end: usize, pad: u8) -> V {
    let mut buf = [pad; 64];
    buf[..end - pos].copy_from_slice(&hay[pos..end]);
    // SAFETY: `buf` is 64 readable bytes; ISA support is the caller's contract.
    unsafe { V::load(buf.as_ptr()) }
}

/// Append every candidate anchor in `start..end` to `out`, ascending.
/// Same contract as [`super::naive::candidates`].
///
/// # Safety
/// The CPU supports `V`'s ISA.
#[inline(always)]
pub(crate) unsafe fn candidates<V: Vector>(
    hay: &[u8],
    start: usize,
    end: usize,
    out: &mut Vec<usize>,
) {
    let end = end.min(hay.len());
    if start >= end {
        return;
    }
    // `www.` starting before `end` may end up to 3 bytes later.
    let scan_end = (end + 3).min(hay.len());
    let scheme_before =
        start > 0 && CANDIDATE.scalar[hay[start - 1] as usize] & (1 << tables::SCHEME) != 0;
    let mut carry = Carry {
        scheme: scheme_before as u64,
        w: 0,
        www: 0,
    };
    // SAFETY: ISA support is this function's contract.
    let t = unsafe { V::tables(&CANDIDATE) };
    let p = hay.as_ptr();
    let mut pos = start;
    // Two whole blocks at a time before `end` (every colon in them counts):
    // one test skips both when neither holds a candidate, as in most text.
    while pos + 128 <= end {
        // SAFETY: `pos + 128 <= end <= hay.len()`.
        let (v0, v1) = unsafe { (V::load(p.add(pos)), V::load(p.add(pos + 64))) };
        // SAFETY: ISA support is this function's contract.
        let (b0, b1) = unsafe {
            let b0 = candidate_bits_fast(v0, &t, &mut carry);
            (b0, candidate_bits_fast(v1, &t, &mut carry))
        };
        if (b0.colon_anchor | b0.www_end | b1.colon_anchor | b1.www_end) != 0 {
            emit(out, hay, pos, b0, u64::MAX);
            emit(out, hay, pos + 64, b1, u64::MAX);
        }
        pos += 128;
    }
    // At most one more whole block before `end`.
    while pos + 64 <= end {
        // SAFETY: `pos + 64 <= end <= hay.len()`.
        let v = unsafe { V::load(p.add(pos)) };
        // SAFETY: ISA support is this function's contract.
        let b = unsafe { candidate_bits_fast(v, &t, &mut carry) };
        emit(out, hay, pos, b, u64::MAX);
        pos += 64;
    }
    // The rest, up to 66 bytes: at most one whole block and one padded block.
    while pos < scan_end {
        let v = if pos + 64 <= scan_end {
            // SAFETY: `pos + 64 <= scan_end <= hay.len()`.
            unsafe { V::load(p.add(pos)) }
        } else {
            // SAFETY: `pos < scan_end <= hay.len()`; ISA support is our contract.
            // Zero bytes are in no candidate class.
            unsafe { load_padded(hay, pos, scan_end, 0) }
        };
        // SAFETY: ISA support is this function's contract.
        let b = unsafe { candidate_bits_fast(v, &t, &mut carry) };
        emit(out, hay, pos, b, low_bits(end.saturating_sub(pos)));
        pos += 64;
    }
}

/// The first `i >= from` with a stop byte at `hay[i]`, else `hay.len()`
/// (`from` itself if it is past the end). Same as [`super::naive::find_stop`].
///
/// # Safety
/// The CPU supports `V`'s ISA.
#[inline(always)]
pub(crate) unsafe fn find_stop<V: Vector>(hay: &[u8], from: usize) -> usize {
    let len = hay.len();
    if from >= len {
        return from;
    }
    // SAFETY: ISA support is this function's contract.
    let t = unsafe { V::tables(&STOPS) };
    let p = hay.as_ptr();
    let mut pos = from;
    while pos + 64 <= len {
        // SAFETY: `pos + 64 <= len`; ISA support is our contract.
        let m = unsafe { V::load(p.add(pos)).classify(&t).mask(&t, tables::STOP) };
        if m != 0 {
            return pos + m.trailing_zeros() as usize;
        }
        pos += 64;
    }
    if pos == len {
        return len;
    }
    let m = if len >= 64 {
        // One overlapping final load, shifted so bit 0 is `pos`.
        let base = len - 64;
        // SAFETY: `base + 64 == len`; ISA support is our contract.
        let m = unsafe { V::load(p.add(base)).classify(&t).mask(&t, tables::STOP) };
        m >> (pos - base)
    } else {
        // Shorter than a block: pad with NUL, a stop byte, so the search ends at `len`.
        // SAFETY: `pos < len`; ISA support is our contract.
        unsafe {
            load_padded::<V>(hay, pos, len, 0)
                .classify(&t)
                .mask(&t, tables::STOP)
        }
    };
    if m == 0 {
        len
    } else {
        (pos + m.trailing_zeros() as usize).min(len)
    }
}

/// The first stop byte at or after `from` ([`find_stop`]), and the first `)`
/// or `]` from `from` up to it (the stop if there is none). Same as
/// [`super::naive::find_run`].
///
/// # Safety
/// The CPU supports `V`'s ISA.
#[inline(always)]
pub(crate) unsafe fn find_run<V: Vector>(hay: &[u8], from: usize) -> (usize, usize) {
    let len = hay.len();
    if from >= len {
        return (from, from);
    }
    // SAFETY: ISA support is this function's contract.
    let t = unsafe { V::tables(&STOPS) };
    let p = hay.as_ptr();
    let mut closer = usize::MAX;
    let mut pos = from;
    while pos + 64 <= len {
        // SAFETY: `pos + 64 <= len`; ISA support is our contract.
        let (m, cm) = unsafe {
            let c = V::load(p.add(pos)).classify(&t);
            (c.mask(&t, tables::STOP), c.mask(&t, tables::CLOSER))
        };
        if cm != 0 && closer == usize::MAX {
            closer = pos + cm.trailing_zeros() as usize;
        }
        if m != 0 {
            let stop = pos + m.trailing_zeros() as usize;
            return (stop, closer.min(stop));
        }
        pos += 64;
    }
    if pos == len {
        return (len, closer.min(len));
    }
    let (m, cm) = if len >= 64 {
        // One overlapping final load, shifted so bit 0 is `pos`.
        let base = len - 64;
        // SAFETY: `base + 64 == len`; ISA support is our contract.
        let (m, cm) = unsafe {
            let c = V::load(p.add(base)).classify(&t);
            (c.mask(&t, tables::STOP), c.mask(&t, tables::CLOSER))
        };
        (m >> (pos - base), cm >> (pos - base))
    } else {
        // Shorter than a block: pad with NUL, a stop byte and no bracket.
        // SAFETY: `pos < len`; ISA support is our contract.
        unsafe {
            let c = load_padded::<V>(hay, pos, len, 0).classify(&t);
            (c.mask(&t, tables::STOP), c.mask(&t, tables::CLOSER))
        }
    };
    if cm != 0 && closer == usize::MAX {
        closer = pos + cm.trailing_zeros() as usize;
    }
    let stop = if m == 0 {
        len
    } else {
        (pos + m.trailing_zeros() as usize).min(len)
    };
    (stop, closer.min(stop))
}

/// All the masks of one block. See [`Masks`].
///
/// # Safety
/// The CPU supports `V`'s ISA.
#[inline(always)]
pub(crate) unsafe fn masks<V: Vector>(block: &[u8; 64], prev: u8, next: [u8; 3]) -> Masks {
    let mut after = [0u8; 64];
    after[..3].copy_from_slice(&next);
    let scheme_before = CANDIDATE.scalar[prev as usize] & (1 << tables::SCHEME) != 0;
    let mut carry = Carry {
        scheme: scheme_before as u64,
        w: 0,
        www: 0,
    };
    // SAFETY: both buffers are 64 readable bytes; ISA support is our contract.
    unsafe {
        let t = V::tables(&CANDIDATE);
        let b = candidate_bits(V::load(block.as_ptr()), &t, &mut carry);
        let a = candidate_bits(V::load(after.as_ptr()), &t, &mut carry);
        // `www.` starting in bytes 61..63 ends in the bytes after the block.
        let www = (b.www_end >> 3) | (a.www_end << 61);
        let s = V::tables(&STOPS);
        let sc = V::load(block.as_ptr()).classify(&s);
        let d = V::tables(&DELIMS);
        let dc = V::load(block.as_ptr()).classify(&d);
        Masks {
            colon: b.colon,
            scheme: b.scheme,
            anchor: b.colon_anchor | www,
            www,
            stop: sc.mask(&s, tables::STOP),
            non_ascii: sc.mask(&s, tables::NON_ASCII),
            gen_delim: dc.mask(&d, tables::GEN_DELIM),
            sub_delim: dc.mask(&d, tables::SUB_DELIM),
            percent: dc.mask(&d, tables::PERCENT),
        }
    }
}
