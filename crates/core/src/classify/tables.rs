//! The byte classes, written once, and the lookup tables derived from them.
//!
//! Every class is a [`ByteSet`]. A [`ClassTable`] groups up to eight classes
//! and derives, by `const fn`, two encodings of them:
//!
//! - `scalar`: a 256-entry table with bit `k` set for the bytes of class `k`;
//! - `lo` / `hi`: two 16-entry nibble tables for `pshufb` / `tbl` (Teddy,
//!   simdjson stage 1). A byte `x` gets the class byte
//!   `lo[x & 15] & hi[x >> 4]`, and it belongs to class `k` iff that byte
//!   shares a bit with `bits[k]`.
//!
//! The nibble derivation splits each class by *row* (high nibble): rows with
//! the same set of low nibbles share one bit, so a class costs one bit per
//! distinct row pattern. Bits with identical rows and columns are shared
//! between classes. More than eight bits in one table is a compile error.
//! A unit test checks both encodings against each other and against the
//! naive predicates for all 256 byte values.

/// A set of byte values, as a 256-bit bitmap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ByteSet([u64; 4]);

impl ByteSet {
    /// No bytes.
    pub(crate) const EMPTY: ByteSet = ByteSet([0; 4]);

    /// The bytes `lo..=hi`.
    pub(crate) const fn range(lo: u8, hi: u8) -> ByteSet {
        let mut s = ByteSet::EMPTY;
        let mut b = lo as usize;
        while b <= hi as usize {
            s.0[b >> 6] |= 1 << (b & 63);
            b += 1;
        }
        s
    }

    /// The bytes listed in `bytes`.
    pub(crate) const fn of(bytes: &[u8]) -> ByteSet {
        let mut s = ByteSet::EMPTY;
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i] as usize;
            s.0[b >> 6] |= 1 << (b & 63);
            i += 1;
        }
        s
    }

    /// The bytes in `self` or in `other`.
    pub(crate) const fn union(self, other: ByteSet) -> ByteSet {
        ByteSet([
            self.0[0] | other.0[0],
            self.0[1] | other.0[1],
            self.0[2] | other.0[2],
            self.0[3] | other.0[3],
        ])
    }

    /// True if `b` is in the set.
    pub(crate) const fn contains(&self, b: u8) -> bool {
        self.0[(b >> 6) as usize] & (1 << (b & 63)) != 0
    }
}

/// The class definitions. Everything else in `classify` is derived from these.
pub(crate) mod class {
    use super::ByteSet;

    /// Bytes that end a bare URL: controls, space, DEL, `" < > \ ^ ` { | }`, non-ASCII.
    pub(crate) const STOP: ByteSet = ByteSet::range(0x00, 0x20)
        .union(ByteSet::of(b"\x7F\"<>\\^`{|}"))
        .union(ByteSet::range(0x80, 0xFF));
    /// `)` and `]`: the closing brackets a bare URL keeps only when balanced.
    pub(crate) const CLOSER: ByteSet = ByteSet::of(b")]");
}

/// Up to eight classes in two encodings: scalar (one bit per class) and
/// nibble tables (see the module docs).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ClassTable {
    /// The classes, in order.
    pub(crate) sets: [ByteSet; 8],
    /// How many entries of `sets` are used.
    #[cfg_attr(not(test), allow(dead_code, reason = "read by the table tests"))]
    pub(crate) len: usize,
    /// Low-nibble table.
    pub(crate) lo: [u8; 16],
    /// High-nibble table.
    pub(crate) hi: [u8; 16],
    /// For class `k`, the nibble-encoding bits that make it up.
    pub(crate) bits: [u8; 8],
    /// For byte `x`, bit `k` set iff `x` is in class `k`.
    pub(crate) scalar: [u8; 256],
    /// No class holds a byte `>= 0x80`, so `pshufb` (which gives 0 for an
    /// index with its top bit set) may take the raw byte as the low index.
    pub(crate) ascii_only: bool,
}

impl ClassTable {
    /// Derive both encodings from up to eight classes.
    ///
    /// Panics (a compile error in a `const`) if the classes need more than
    /// eight nibble bits.
    pub(crate) const fn new(classes: &[ByteSet]) -> ClassTable {
        assert!(classes.len() <= 8, "at most 8 classes per table");
        let mut t = ClassTable {
            sets: [ByteSet::EMPTY; 8],
            len: classes.len(),
            lo: [0; 16],
            hi: [0; 16],
            bits: [0; 8],
            scalar: [0; 256],
            ascii_only: true,
        };
        // Nibble bits allocated so far: the rows (high nibbles) and columns
        // (low nibbles) of each, as 16-bit sets.
        let mut rows = [0u16; 8];
        let mut cols = [0u16; 8];
        let mut nbits = 0;
        let mut k = 0;
        while k < classes.len() {
            let set = classes[k];
            t.sets[k] = set;
            let pattern = row_pattern(&set);
            let mut x = 0;
            while x < 256 {
                if pattern[x >> 4] & (1 << (x & 15)) != 0 {
                    t.scalar[x] |= 1 << k;
                    if x >= 0x80 {
                        t.ascii_only = false;
                    }
                }
                x += 1;
            }
            // One bit per distinct non-empty pattern, covering every row with it.
            let mut done = 0u16;
            let mut h = 0;
            while h < 16 {
                if pattern[h] != 0 && done & (1 << h) == 0 {
                    let col = pattern[h];
                    let mut row = 0u16;
                    let mut r = h;
                    while r < 16 {
                        if pattern[r] == col {
                            row |= 1 << r;
                        }
                        r += 1;
                    }
                    done |= row;
                    let mut bit = 0;
                    while bit < nbits && !(rows[bit] == row && cols[bit] == col) {
                        bit += 1;
                    }
                    if bit == nbits {
                        assert!(nbits < 8, "the classes need more than 8 nibble bits");
                        rows[bit] = row;
                        cols[bit] = col;
                        nbits += 1;
                    }
                    // Bits are handed out from the top: the first class gets bit 7,
                    // which SSE2/AVX2 `movemask` reads without a shift.
                    t.bits[k] |= 1 << (7 - bit);
                }
                h += 1;
            }
            k += 1;
        }
        (t.lo, t.hi) = nibble_tables(&rows, &cols, nbits);
        t
    }

    /// The class byte of `x` in the nibble encoding.
    #[cfg(test)]
    pub(crate) const fn nibble_class(&self, x: u8) -> u8 {
        self.lo[(x & 15) as usize] & self.hi[(x >> 4) as usize]
    }
}

/// The row pattern of a class: for each high nibble, the set of low
/// nibbles whose byte is in the class.
const fn row_pattern(set: &ByteSet) -> [u16; 16] {
    let mut pattern = [0u16; 16];
    let mut x = 0;
    while x < 256 {
        if set.contains(x as u8) {
            pattern[x >> 4] |= 1 << (x & 15);
        }
        x += 1;
    }
    pattern
}

/// The low- and high-nibble lookup tables of `nbits` nibble bits, bit `b`
/// covering the low nibbles `cols[b]` in the rows `rows[b]` (handed out
/// from the top bit down).
const fn nibble_tables(rows: &[u16; 8], cols: &[u16; 8], nbits: usize) -> ([u8; 16], [u8; 16]) {
    let (mut lo, mut hi) = ([0u8; 16], [0u8; 16]);
    let mut bit = 0;
    while bit < nbits {
        let mut n = 0;
        while n < 16 {
            if cols[bit] & (1 << n) != 0 {
                lo[n] |= 1 << (7 - bit);
            }
            if rows[bit] & (1 << n) != 0 {
                hi[n] |= 1 << (7 - bit);
            }
            n += 1;
        }
        bit += 1;
    }
    (lo, hi)
}

/// The classes that end a URL, and the closing brackets that may.
pub(crate) const STOPS: ClassTable = ClassTable::new(&[class::STOP, class::CLOSER]);
/// Index of [`class::STOP`] in [`STOPS`].
pub(crate) const STOP: usize = 0;
/// Index of [`class::CLOSER`] in [`STOPS`].
pub(crate) const CLOSER: usize = 1;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::naive;

    const TABLES: [&ClassTable; 1] = [&STOPS];

    /// For all 256 bytes, the scalar table, the nibble tables and the class
    /// definitions agree.
    #[test]
    fn nibble_and_scalar_tables_agree_on_all_bytes() {
        for t in TABLES {
            for x in 0..=255u8 {
                for k in 0..t.len {
                    let def = t.sets[k].contains(x);
                    let scalar = t.scalar[x as usize] & (1 << k) != 0;
                    let nibble = t.nibble_class(x) & t.bits[k] != 0;
                    assert_eq!(def, scalar, "class {k} byte {x:#04x} (scalar)");
                    assert_eq!(def, nibble, "class {k} byte {x:#04x} (nibble)");
                }
                for k in t.len..8 {
                    assert_eq!(t.scalar[x as usize] & (1 << k), 0);
                    assert_eq!(t.bits[k], 0);
                }
            }
            let ascii_only = (0x80..=0xFF).all(|x| t.scalar[x as usize] == 0);
            assert_eq!(t.ascii_only, ascii_only);
        }
    }

    /// The class definitions match the naive reference predicates.
    #[test]
    fn classes_match_naive_predicates() {
        for x in 0..=255u8 {
            assert_eq!(class::STOP.contains(x), naive::is_stop(x), "{x:#04x}");
            assert_eq!(class::CLOSER.contains(x), x == b')' || x == b']');
        }
    }
}
