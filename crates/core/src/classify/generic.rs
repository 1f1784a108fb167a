//! The classification algorithms, written once over a 64-byte [`Vector`] block.
//!
//! Each ISA implements [`Vector`] with `#[inline(always)]` methods and wraps
//! these functions in one `#[target_feature]` entry point each, so the whole
//! block loop is compiled for that ISA (the memchr layout).
//!
//! # The candidate pass
//!
//! [`candidates`] asks each block for one `u64` of *events* ([`Vector::events`]:
//! `:` before `/` or between a letter and a byte above `0x20`, `.` after
//! `w`), a superset of the anchors' key bytes found with three overlapping
//! loads (the block, one byte back, one byte on), so no state crosses a
//! block edge. Two blocks share one test; each event is then checked
//! exactly, byte by byte ([`anchor_at`]). `www.` is found by its *last* byte,
//! so its anchor is 3 bytes back, possibly in the previous block; no other
//! anchor can lie inside `www.`, so anchors still come out ascending. The
//! loop prefetches [`PREFETCH_AHEAD`] bytes ahead.
//!
use super::tables::{self, ClassTable, STOPS};

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

    /// The candidate *events* of the 64 bytes at `p`: bit `i` is set iff
    /// - `p[i] == b':'` and `p[i + 1] == b'/'`, or
    /// - `p[i] == b':'`, `p[i - 1] | 0x20` is in `0x61..=0x7F` (every ASCII
    ///   letter, and `[ \ ] ^ _ { | } ~` DEL) and `p[i + 1]` is above `0x20`
    ///   (unsigned) and not `:`, or
    /// - `p[i] == b'.'` and `p[i - 1] | 0x20 == b'w'`.
    ///
    /// Every candidate anchor has one (the colon itself; the `.` of `www.`),
    /// and prose has few: most colons are followed by a space or a line end,
    /// or lie between digits. See [`events_scalar`], the definition.
    ///
    /// # Safety
    /// `p - 1 .. p + 65` is readable, and the CPU supports the ISA.
    unsafe fn events(p: *const u8) -> u64;
}

/// [`Vector::events`], byte by byte: the definition, and the scalar kernel.
///
/// # Safety
/// `p - 1 .. p + 65` is readable.
#[inline(always)]
pub(crate) unsafe fn events_scalar(p: *const u8) -> u64 {
    let mut m = 0u64;
    for i in 0..64 {
        // SAFETY: `i - 1 ..= i + 1` lies in `-1 .. 65`, readable (our contract).
        let (q, b, n) = unsafe { (*p.add(i).sub(1), *p.add(i), *p.add(i + 1)) };
        let after_letter = (0x61..=0x7F).contains(&(q | 0x20));
        let colon = b == b':' && (n == b'/' || (after_letter && n > 0x20 && n != b':'));
        let e = colon || (b == b'.' && q | 0x20 == b'w');
        m |= u64::from(e) << i;
    }
    m
}

/// Check `V::events` against [`events_scalar`]: every `prev`, `next` pair
/// around each of a few key bytes, 22 triples per block (`prev key next` at
/// block bytes `3j..3j + 3`, so each block edge has a triple at it), on a
/// pseudo-random background.
///
/// # Safety
/// The CPU supports `V`'s ISA (call it from a function compiled with it).
#[cfg(test)]
#[inline(always)]
pub(crate) unsafe fn check_events<V: Vector>() {
    const BG: &[u8] = b":./wW a0(\x7f\x80";
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut buf = [0u8; 66];
    let check = |buf: &[u8; 66]| {
        // SAFETY: `buf[1..65]` is the block, with one readable byte on each
        // side; ISA support is this function's contract.
        let (got, want) = unsafe {
            let p = buf.as_ptr().add(1);
            (V::events(p), events_scalar(p))
        };
        assert_eq!(got, want, "events of {buf:?}");
    };
    for key in [b':', b'.', b'/', b'w', 0x80] {
        for first in (0..0x1_0000usize).step_by(22) {
            for b in buf.iter_mut() {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                *b = BG[(seed % BG.len() as u64) as usize];
            }
            // Triple j at buf[3j..3j + 3] (block bytes 3j - 1 ..= 3j + 1):
            // the first one straddles the block start, the last its end.
            for (j, pair) in (first..(first + 22).min(0x1_0000)).enumerate() {
                buf[3 * j] = (pair >> 8) as u8;
                buf[3 * j + 1] = key;
                buf[3 * j + 2] = pair as u8;
            }
            check(&buf);
        }
    }
}

/// The entry points of an ISA file, for its `Block` under `$features`
/// (`$cpu` names them for the docs): [`candidates`], [`find_stop`] and
/// [`find_run`], each compiled with the features enabled; and its test
/// module: `check_events` run when its `is_available()` says the CPU
/// has them.
macro_rules! entry_points {
    ($features:literal, $cpu:literal) => {
        /// Append every candidate anchor in `start..end` to `out`. See [`crate::classify::naive::candidates`].
        ///
        /// # Safety
        #[doc = concat!("The CPU supports ", $cpu, " ([`is_available`]).")]
        #[target_feature(enable = $features)]
        pub(crate) unsafe fn candidates(
            hay: &[u8],
            start: usize,
            end: usize,
            out: &mut Vec<usize>,
        ) {
            // SAFETY: the features `Block` needs are enabled here and guaranteed by the caller.
            unsafe { generic::candidates::<Block>(hay, start, end, out) }
        }

        /// The first stop byte at or after `from`. See [`crate::classify::naive::find_stop`].
        ///
        /// # Safety
        #[doc = concat!("The CPU supports ", $cpu, " ([`is_available`]).")]
        #[target_feature(enable = $features)]
        pub(crate) unsafe fn find_stop(hay: &[u8], from: usize) -> usize {
            // SAFETY: the features `Block` needs are enabled here and guaranteed by the caller.
            unsafe { generic::find_stop::<Block>(hay, from) }
        }

        /// The first stop byte at or after `from`, and the first closing bracket
        /// before it. See [`crate::classify::naive::find_run`].
        ///
        /// # Safety
        #[doc = concat!("The CPU supports ", $cpu, " ([`is_available`]).")]
        #[target_feature(enable = $features)]
        pub(crate) unsafe fn find_run(hay: &[u8], from: usize) -> (usize, usize) {
            // SAFETY: the features `Block` needs are enabled here and guaranteed by the caller.
            unsafe { generic::find_run::<Block>(hay, from) }
        }

        #[cfg(test)]
        mod tests {
            use super::*;

            /// # Safety
            /// The CPU supports the kernel ([`is_available`]).
            #[target_feature(enable = $features)]
            unsafe fn check_events() {
                // SAFETY: the features are enabled here and guaranteed by the caller.
                unsafe { generic::check_events::<Block>() }
            }

            #[test]
            fn events_match_scalar() {
                if is_available() {
                    // SAFETY: checked just above.
                    unsafe { check_events() }
                }
            }
        }
    };
}
pub(crate) use entry_points;

/// Mask of the low `n` bits (all 64 for `n >= 64`).
#[inline(always)]
fn low_bits(n: usize) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

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

/// The candidate anchor of the event at `j` (see [`Vector::events`]), if it
/// is one: the colon `j` itself (`x:/` with a scheme character `x`, or `a:b`
/// with a letter `a` and a body byte `b`, and `j < end`), or the start
/// `j - 3 >= start` of `www.` ending at `j`.
#[inline(always)]
fn anchor_at(hay: &[u8], start: usize, end: usize, j: usize) -> Option<usize> {
    if hay[j] == b':' {
        let next = AROUND[*hay.get(j + 1).unwrap_or(&0) as usize];
        let prev = match j.checked_sub(1) {
            Some(i) => AROUND[hay[i] as usize],
            None => 0,
        };
        let slash = (next & NEXT_SLASH != 0) & (prev & PREV_SCHEME != 0);
        let body = (next & NEXT_BODY != 0) & (prev & PREV_ALPHA != 0);
        ((slash | body) & (j < end)).then_some(j)
    } else {
        // A `.` after `w`: the anchor is 3 bytes back, if `www.` starts there.
        let i = j.checked_sub(3).filter(|&i| i >= start)?;
        let www = hay[i..=j].eq_ignore_ascii_case(b"www.");
        www.then_some(i)
    }
}

/// Push the anchors of the events `e` of the block at `pos`, ascending.
///
/// An event is a colon (anchor: itself) or the `.` of `www.` (anchor: 3 bytes
/// back). No colon lies inside `www`, so anchors come out in event order.
#[inline(always)]
fn emit_events(out: &mut Vec<usize>, hay: &[u8], start: usize, end: usize, pos: usize, e: u64) {
    let mut m = e;
    while m != 0 {
        let j = pos + m.trailing_zeros() as usize;
        m &= m - 1;
        if let Some(a) = anchor_at(hay, start, end, j) {
            out.push(a);
        }
    }
}

/// [`emit_events`] of two blocks, out of line: the block loop keeps its
/// constants in registers instead of reloading them every step around a
/// call it rarely makes.
#[cold]
#[inline(never)]
fn emit_pair(
    out: &mut Vec<usize>,
    hay: &[u8],
    start: usize,
    end: usize,
    pos: usize,
    e0: u64,
    e1: u64,
) {
    emit_events(out, hay, start, end, pos, e0);
    emit_events(out, hay, start, end, pos + 64, e1);
}

/// [`Vector::events`] of the block at `pos`, for a block too close to either
/// end of `hay` to load in place: the bytes `pos - 1 .. pos + 65` that exist
/// are copied into a zeroed stack buffer (a zero byte is in no event).
///
/// # Safety
/// The CPU supports `V`'s ISA.
#[inline(always)]
unsafe fn events_padded<V: Vector>(hay: &[u8], pos: usize) -> u64 {
    // `buf[1 + k]` is `hay[pos + k]`, `buf[0]` the byte before (if any).
    let mut buf = [0u8; 66];
    let from = pos.saturating_sub(1);
    let to = (pos + 65).min(hay.len());
    let at = from + 1 - pos;
    buf[at..at + (to - from)].copy_from_slice(&hay[from..to]);
    // SAFETY: `buf[1..]` is the block; `buf` is `1 + 64 + 1` readable bytes.
    unsafe { V::events(buf.as_ptr().add(1)) }
}

/// Load `hay[pos..end]` padded with `pad` into a stack block.
#[inline(always)]
unsafe fn load_padded<V: Vector>(hay: &[u8], pos: usize, end: usize, pad: u8) -> V {
    let mut buf = [pad; 64];
    buf[..end - pos].copy_from_slice(&hay[pos..end]);
    // SAFETY: `buf` is 64 readable bytes; ISA support is the caller's contract.
    unsafe { V::load(buf.as_ptr()) }
}

/// How far ahead of the block being classified [`candidates`] asks for the
/// cache line: beyond the next 4 KiB page, which the hardware prefetchers
/// do not enter on their own. Measured with a bare AVX2 loop over a mapped
/// 64 MiB prose file on one core (the loop of `scripts/read-floor.sh`):
/// 7.3 GB/s without prefetch, 11.7 GB/s 4 KiB ahead, 13.5 GB/s 8 KiB
/// ahead, 14.1 GB/s 16 KiB ahead; in urlsift 4, 8, 16 and 32 KiB measured
/// the same within the noise.
const PREFETCH_AHEAD: usize = 8 * 1024;

/// Ask for the cache line at `p` (a hint: no effect on results). A prefetch
/// never faults, so `p` may lie past the end of the input.
#[inline(always)]
fn prefetch(p: *const u8) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: PREFETCHT0 only hints the cache; it reads nothing into the
    // program and does not fault on any address. SSE is part of x86-64.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>());
    }
    #[cfg(all(target_arch = "aarch64", not(miri)))]
    // SAFETY: PRFM only hints the cache; it does not fault on any address.
    unsafe {
        core::arch::asm!("prfm pldl1keep, [{0}]", in(reg) p, options(nostack, readonly, preserves_flags));
    }
    #[cfg(any(miri, not(any(target_arch = "x86_64", target_arch = "aarch64"))))]
    let _ = p;
}

/// Append every candidate anchor in `start..end` to `out`, ascending.
/// Same contract as [`super::naive::candidates`].
///
/// One [`Vector::events`] mask per block, two blocks per test: most blocks
/// of prose have no event, and nothing is carried between blocks (the events
/// look at their neighbour bytes through overlapping loads). Each step asks
/// for the cache lines [`PREFETCH_AHEAD`] bytes on.
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
    let len = hay.len();
    let end = end.min(len);
    if start >= end {
        return;
    }
    // `www.` starting before `end` ends (its `.`, the event) up to 3 bytes later.
    let scan_end = (end + 3).min(len);
    let p = hay.as_ptr();
    let mut pos = start;
    if pos == 0 {
        // No byte before the first block.
        // SAFETY: ISA support is this function's contract.
        let e = unsafe { events_padded::<V>(hay, 0) };
        emit_events(out, hay, start, end, 0, e & low_bits(scan_end));
        pos = 64;
    }
    // Two whole blocks at a time, each with a byte before and after it.
    while pos + 128 <= scan_end && pos + 129 <= len {
        prefetch(p.wrapping_add(pos + PREFETCH_AHEAD));
        prefetch(p.wrapping_add(pos + PREFETCH_AHEAD + 64));
        // SAFETY: `1 <= pos` and `pos + 129 <= len`: `pos - 1 .. pos + 129`
        // is inside `hay`; ISA support is this function's contract.
        let (e0, e1) = unsafe { (V::events(p.add(pos)), V::events(p.add(pos + 64))) };
        if e0 | e1 != 0 {
            emit_pair(out, hay, start, end, pos, e0, e1);
        }
        pos += 128;
    }
    // The rest: at most two blocks (and the last may be partial).
    while pos < scan_end {
        let e = if pos + 65 <= len {
            // SAFETY: `1 <= pos` and `pos + 65 <= len`; ISA support as above.
            unsafe { V::events(p.add(pos)) }
        } else {
            // SAFETY: ISA support is this function's contract.
            unsafe { events_padded::<V>(hay, pos) }
        };
        emit_events(out, hay, start, end, pos, e & low_bits(scan_end - pos));
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
