//! A bounded-memory external sort of `(key, payload)` byte records.
//!
//! Records are kept in one arena until it reaches the memory limit, then
//! sorted by key (a stable sort: equal keys keep their push order) and
//! written to an unnamed temporary file, a *run*. [`ExtSorter::merge`] hands
//! every record back in key order: from memory if nothing was spilled,
//! otherwise by a k-way merge of the runs (ties go to the earlier run, so the
//! whole sort stays stable and the result is the same with or without
//! spilling).
//!
//! # Merge tree
//!
//! A merge reads at most `F` runs at once, the fan-in ([`fan_in`]: as wide as
//! the memory limit allows, 4 to 64). The runs form a tree of levels: a
//! spilled run is at level 0, and a run merged from the `F` runs of level
//! `l` is at level `l + 1`. They are kept oldest first, each holding one
//! stretch of the input, with levels never rising toward the newest. When a
//! run arrives at a level that holds `F` runs already, those `F` (adjacent,
//! so the merge stays stable) are first merged into one run of the next
//! level, which may fill that level in turn. No level holds more than `F`
//! runs, and a record is written once when spilled and once per level it
//! climbs: for `N` spilled runs, about `1 + log_F(N / F)` times (rounded
//! up; once when `N <= F`). The bytes written grow as `n log n` in the
//! input, the open files as `F log_F(N)`.
//!
//! At the end, while more than `F` runs are left, the newest (smallest) are
//! merged into one: first just enough of them that each later merge takes
//! `F`. The last `F` runs are merged into the caller's function, not
//! written.
//!
//! A combiner ([`ExtSorter::with_combine`]) may fold a record into the one
//! before it whenever a run is written, which shrinks runs where keys repeat
//! (counts added up, later duplicates dropped).
//!
//! # Memory and files
//!
//! The limit bounds the arena and the index. A merge frees them first and
//! holds `F` read buffers and one write buffer of `B` bytes each, with
//! `(F + 1) B` within the limit (at least [`MIN_FAN_IN`] + 1 buffers of
//! [`MIN_BUF`], 40 KiB, whatever the limit), plus two records per input. A
//! spill holds the arena and the index and one write buffer. Open files:
//! at most `F` runs per level, over `log_F(N)` levels, and two more (the
//! newest run and a merge's output) while a merge runs.
//!
//! A run file stores each record as `u32 key length, u32 payload length,
//! key, payload` (little-endian).
//!
//! Written here rather than taken from a crate because de-duplication needs
//! exactly this (stable order, byte keys, runs combined as they are written).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

/// The smallest read or write buffer of a merge.
pub(crate) const MIN_BUF: usize = 8 << 10;

/// The largest read or write buffer of a merge.
pub(crate) const MAX_BUF: usize = 1 << 20;

/// The narrowest merge, whatever the limit.
pub(crate) const MIN_FAN_IN: usize = 4;

/// The widest merge (open files per level of the merge tree).
pub(crate) const MAX_FAN_IN: usize = 64;

/// Bytes of index per record in memory (offset, key length, payload length).
const INDEX_BYTES: usize = 12;

/// The merge fan-in `F` and the buffer size `B` for a memory limit: as many
/// inputs as buffers of [`MIN_BUF`] fit in the limit next to the output's,
/// between [`MIN_FAN_IN`] and [`MAX_FAN_IN`]; then the limit shared among
/// the `F + 1` buffers, between [`MIN_BUF`] and [`MAX_BUF`].
pub(crate) fn fan_in(limit: usize) -> (usize, usize) {
    let f = (limit / MIN_BUF)
        .saturating_sub(1)
        .clamp(MIN_FAN_IN, MAX_FAN_IN);
    (f, ((limit / (f + 1)) & !4095).clamp(MIN_BUF, MAX_BUF))
}

/// Folds the record `(key, payload)` into the record before it in key order,
/// `(prev_key, prev_payload)`, updating that payload in place, and says
/// whether it did (then the record is dropped). See
/// [`ExtSorter::with_combine`].
pub(crate) type Combine =
    fn(prev_key: &[u8], prev_payload: &mut [u8], key: &[u8], payload: &[u8]) -> bool;

/// A run on disk and its level in the merge tree.
struct Run {
    file: File,
    level: u32,
}

/// A bounded-memory sorter of byte records (see the module docs).
pub(crate) struct ExtSorter {
    limit: usize,
    fan_in: usize,
    buf: usize,
    dir: Option<PathBuf>,
    combine: Option<Combine>,
    index: Vec<(u32, u32, u32)>,
    arena: Vec<u8>,
    /// Oldest first; levels never rise toward the end.
    runs: Vec<Run>,
    spills: usize,
    spilled_bytes: u64,
}

impl ExtSorter {
    /// A sorter that keeps at most about `limit` bytes of records in memory
    /// and spills runs into `dir` (the system's temporary directory when
    /// `None`).
    pub(crate) fn new(limit: usize, dir: Option<PathBuf>) -> Self {
        let limit = limit.max(1);
        let (fan_in, buf) = fan_in(limit);
        ExtSorter {
            limit,
            fan_in,
            buf,
            dir,
            combine: None,
            index: Vec::new(),
            arena: Vec::new(),
            runs: Vec::new(),
            spills: 0,
            spilled_bytes: 0,
        }
    }

    /// Fold records with `combine` whenever a run is written (a spill or a
    /// merge into a longer run; not the final merge, nor when nothing was
    /// spilled). It is offered each record after the first of a run with the
    /// last record kept before it, in key order (equal keys: the earlier
    /// record first), and may update that record's payload in place. The
    /// caller of [`ExtSorter::merge`] must get the same result whether or
    /// not any stretch of consecutive records was folded.
    pub(crate) fn with_combine(mut self, combine: Combine) -> Self {
        self.combine = Some(combine);
        self
    }

    /// Bytes of memory the records held now take (arena plus index).
    pub(crate) fn bytes(&self) -> usize {
        self.arena.capacity() + self.index.capacity() * INDEX_BYTES
    }

    /// Runs spilled from memory so far (not counting the runs merged from
    /// them).
    pub(crate) fn runs(&self) -> usize {
        self.spills
    }

    /// Bytes written to disk so far: spilled runs and merged runs.
    #[cfg(test)]
    pub(crate) fn spilled_bytes(&self) -> u64 {
        self.spilled_bytes
    }

    /// Add one record. Spills a run first when the record would take the
    /// memory held past the limit. A record longer than 4 GiB is refused.
    pub(crate) fn push(&mut self, key: &[u8], payload: &[u8]) -> io::Result<()> {
        let (Ok(klen), Ok(plen)) = (u32::try_from(key.len()), u32::try_from(payload.len())) else {
            return Err(io::Error::other("record too long for the external sort"));
        };
        let need_arena = self.arena.len() + key.len() + payload.len();
        if !self.index.is_empty() {
            // Vec growth doubles, and the old buffer lives until the copy is
            // done: spill first if that moment would pass the limit.
            let cap = self.arena.capacity();
            let arena = match need_arena > cap {
                true => cap + need_arena.max(cap * 2),
                false => cap,
            };
            let cap = self.index.capacity();
            let index = match self.index.len() == cap {
                true => cap + (self.index.len() + 1).max(cap * 2),
                false => cap,
            };
            if arena + index * INDEX_BYTES > self.limit || need_arena > u32::MAX as usize {
                self.spill()?;
            }
        }
        let off = self.arena.len() as u32;
        self.arena.extend_from_slice(key);
        self.arena.extend_from_slice(payload);
        self.index.push((off, klen, plen));
        Ok(())
    }

    fn key(&self, r: &(u32, u32, u32)) -> &[u8] {
        &self.arena[r.0 as usize..(r.0 + r.1) as usize]
    }

    fn record(&self, r: &(u32, u32, u32)) -> (&[u8], &[u8]) {
        let k = r.0 as usize;
        let p = k + r.1 as usize;
        (&self.arena[k..p], &self.arena[p..p + r.2 as usize])
    }

    fn sort(&mut self) {
        let mut index = std::mem::take(&mut self.index);
        index.sort_by(|a, b| self.key(a).cmp(self.key(b)));
        self.index = index;
    }

    /// Sort what is in memory and write it to disk as one run (nothing
    /// happens when memory holds no record), then merge runs where a level
    /// of the merge tree is full (such a merge frees the memory for its
    /// buffers first, and allocates it again after). Memory is kept for
    /// reuse.
    pub(crate) fn spill(&mut self) -> io::Result<()> {
        if self.index.is_empty() {
            return Ok(());
        }
        self.sort();
        let mut w = RunWriter::new(self.temp_file()?, self.buf, self.combine);
        for r in &self.index {
            let (k, p) = self.record(r);
            w.push(k, p)?;
        }
        let (file, bytes) = w.finish()?;
        self.spilled_bytes += bytes;
        self.spills += 1;
        self.index.clear();
        self.arena.clear();
        self.add_run(Run { file, level: 0 })
    }

    /// Put `run` on top of the runs, first merging the `F` runs of its level
    /// into one of the next level (recursively) when that level is full.
    fn add_run(&mut self, run: Run) -> io::Result<()> {
        let n = self.runs.len();
        // Levels never rise toward the top and no level holds more than F
        // runs, so the top F runs are at this level exactly when the F-th
        // from the top is.
        if n >= self.fan_in && self.runs[n - self.fan_in].level == run.level {
            let group = self.runs.split_off(n - self.fan_in);
            // The merge's buffers take the memory, then the arena and the
            // index get their capacity back (so runs keep their size).
            let caps = (self.arena.capacity(), self.index.capacity());
            let merged = self.merge_to_run(group, run.level + 1)?;
            self.arena.reserve_exact(caps.0);
            self.index.reserve_exact(caps.1);
            self.add_run(merged)?;
        }
        self.runs.push(run);
        Ok(())
    }

    /// Merge `group` (adjacent runs, oldest first) into one run at `level`.
    fn merge_to_run(&mut self, group: Vec<Run>, level: u32) -> io::Result<Run> {
        self.release();
        let mut w = RunWriter::new(self.temp_file()?, self.buf, self.combine);
        merge_runs(group, self.buf, |k, p| w.push(k, p))?;
        let (file, bytes) = w.finish()?;
        self.spilled_bytes += bytes;
        Ok(Run { file, level })
    }

    /// Free the arena and the index, for a merge's buffers.
    fn release(&mut self) {
        self.arena = Vec::new();
        self.index = Vec::new();
    }

    /// Hand every record to `f` in key order (equal keys in push order), and
    /// return [`ExtSorter::spilled_bytes`] as it is at the end (the merge
    /// may write runs too).
    pub(crate) fn merge(
        mut self,
        mut f: impl FnMut(&[u8], &[u8]) -> io::Result<()>,
    ) -> io::Result<u64> {
        if self.runs.is_empty() {
            self.sort();
            for r in &self.index {
                let (k, p) = self.record(r);
                f(k, p)?;
            }
            return Ok(0);
        }
        self.spill()?;
        self.release();
        // Down to F runs, merging the newest (smallest) ones: first just
        // enough of them that every later merge takes F, so that each takes
        // one run fewer than the one before and the small ones go first.
        let fan_in = self.fan_in;
        let mut take = match self.runs.len().saturating_sub(fan_in) % (fan_in - 1) {
            0 => fan_in,
            r => r + 1,
        };
        while self.runs.len() > fan_in {
            let group = self.runs.split_off(self.runs.len() - take);
            let run = self.merge_to_run(group, 0)?;
            self.runs.push(run);
            take = fan_in;
        }
        let runs = std::mem::take(&mut self.runs);
        merge_runs(runs, self.buf, f)?;
        Ok(self.spilled_bytes)
    }

    fn temp_file(&self) -> io::Result<File> {
        match &self.dir {
            Some(d) => tempfile::tempfile_in(d),
            None => tempfile::tempfile(),
        }
    }
}

fn write_record(w: &mut impl Write, k: &[u8], p: &[u8]) -> io::Result<()> {
    w.write_all(&(k.len() as u32).to_le_bytes())?;
    w.write_all(&(p.len() as u32).to_le_bytes())?;
    w.write_all(k)?;
    w.write_all(p)
}

/// Writes one run, folding records with the combiner if there is one.
struct RunWriter {
    w: BufWriter<File>,
    bytes: u64,
    combine: Option<Combine>,
    /// The last record kept, not written yet (with a combiner).
    pending: bool,
    key: Vec<u8>,
    payload: Vec<u8>,
}

impl RunWriter {
    fn new(file: File, buf: usize, combine: Option<Combine>) -> Self {
        RunWriter {
            w: BufWriter::with_capacity(buf, file),
            bytes: 0,
            combine,
            pending: false,
            key: Vec::new(),
            payload: Vec::new(),
        }
    }

    fn write(&mut self, k: &[u8], p: &[u8]) -> io::Result<()> {
        self.bytes += 8 + (k.len() + p.len()) as u64;
        write_record(&mut self.w, k, p)
    }

    fn push(&mut self, k: &[u8], p: &[u8]) -> io::Result<()> {
        let Some(combine) = self.combine else {
            return self.write(k, p);
        };
        if self.pending {
            if combine(&self.key, &mut self.payload, k, p) {
                return Ok(());
            }
            self.bytes += 8 + (self.key.len() + self.payload.len()) as u64;
            write_record(&mut self.w, &self.key, &self.payload)?;
        }
        self.key.clear();
        self.key.extend_from_slice(k);
        self.payload.clear();
        self.payload.extend_from_slice(p);
        self.pending = true;
        Ok(())
    }

    /// The run, rewound, and the bytes written to it.
    fn finish(mut self) -> io::Result<(File, u64)> {
        if self.pending {
            self.bytes += 8 + (self.key.len() + self.payload.len()) as u64;
            write_record(&mut self.w, &self.key, &self.payload)?;
        }
        let mut file = self.w.into_inner().map_err(|e| e.into_error())?;
        file.seek(SeekFrom::Start(0))?;
        Ok((file, self.bytes))
    }
}

/// K-way merge of sorted runs (oldest first), with a read buffer of `buf`
/// bytes each; equal keys go to the earlier run first.
fn merge_runs(
    runs: Vec<Run>,
    buf: usize,
    mut f: impl FnMut(&[u8], &[u8]) -> io::Result<()>,
) -> io::Result<()> {
    let mut readers: Vec<RunReader> = runs
        .into_iter()
        .map(|run| RunReader {
            r: BufReader::with_capacity(buf, run.file),
            key: Vec::new(),
            payload: Vec::new(),
        })
        .collect();
    let mut heap = BinaryHeap::with_capacity(readers.len());
    for (i, r) in readers.iter_mut().enumerate() {
        if r.next()? {
            heap.push(Reverse((std::mem::take(&mut r.key), i)));
        }
    }
    while let Some(Reverse((key, i))) = heap.pop() {
        let r = &mut readers[i];
        f(&key, &r.payload)?;
        let mut key = key;
        std::mem::swap(&mut key, &mut r.key);
        if r.next()? {
            heap.push(Reverse((std::mem::take(&mut r.key), i)));
        }
        r.key = key; // reuse the allocation
    }
    Ok(())
}

struct RunReader {
    r: BufReader<File>,
    key: Vec<u8>,
    payload: Vec<u8>,
}

impl RunReader {
    /// Read the next record into `key`/`payload`; false at the end of the run.
    fn next(&mut self) -> io::Result<bool> {
        let mut len = [0u8; 8];
        match self.r.read_exact(&mut len[..1]) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(false),
            Err(e) => return Err(e),
        }
        self.r.read_exact(&mut len[1..])?;
        let klen = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
        let plen = u32::from_le_bytes([len[4], len[5], len[6], len[7]]) as usize;
        self.key.resize(klen, 0);
        self.r.read_exact(&mut self.key)?;
        self.payload.resize(plen, 0);
        self.r.read_exact(&mut self.payload)?;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Recs = Vec<(Vec<u8>, Vec<u8>)>;

    fn sorted(limit: usize, recs: &[(Vec<u8>, Vec<u8>)]) -> (Recs, usize) {
        let mut s = ExtSorter::new(limit, None);
        for (k, p) in recs {
            s.push(k, p).unwrap();
        }
        let runs = s.runs();
        let mut out = Vec::new();
        s.merge(|k, p| {
            out.push((k.to_vec(), p.to_vec()));
            Ok(())
        })
        .unwrap();
        (out, runs)
    }

    #[test]
    fn spilling_gives_the_in_memory_order() {
        let mut x = 12345u64;
        let recs: Recs = (0..5000u32)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let k = format!("{:x}", x % 700).into_bytes();
                (k, i.to_le_bytes().to_vec())
            })
            .collect();
        let (mem, runs0) = sorted(usize::MAX, &recs);
        assert_eq!(runs0, 0);
        let mut expect = recs.clone();
        expect.sort_by(|a, b| a.0.cmp(&b.0)); // stable, like the sorter
        assert_eq!(mem, expect);
        for limit in [1, 100, 4096, 65536] {
            let (disk, runs) = sorted(limit, &recs);
            assert!(runs > 0, "limit {limit} spilled");
            assert_eq!(disk, expect, "limit {limit}");
        }
    }

    /// Bytes written for `n` distinct records (pushed in a scrambled order)
    /// under a 4 KiB limit, once everything is on disk.
    fn spilled(n: u32) -> u64 {
        let mut s = ExtSorter::new(4096, None);
        for i in 0..n {
            let k = i.wrapping_mul(0x9E37_79B9).rotate_left(7);
            s.push(&k.to_be_bytes(), &i.to_le_bytes()).unwrap();
        }
        s.spill().unwrap();
        s.spilled_bytes()
    }

    #[test]
    fn spilled_bytes_grow_as_n_log_n() {
        // About 100 and 400 runs of the narrowest merge tree (fan-in 4): each
        // record is written about 1 + log4(runs / 4) times.
        let one = spilled(8_000);
        let four = spilled(32_000);
        assert!(one >= 8_000 * 16, "{one}");
        assert!(
            four <= 6 * one,
            "4x the records wrote {four} bytes, 1x {one}"
        );
    }

    #[test]
    fn open_runs_stay_few() {
        let mut s = ExtSorter::new(1, None);
        for i in 0..3000u32 {
            s.push(&i.to_be_bytes(), &[]).unwrap();
        }
        s.spill().unwrap();
        assert_eq!(s.runs(), 3000);
        // At most F runs per level, log4(3000) < 6 levels.
        assert!(s.runs.len() <= MIN_FAN_IN * 6, "{} runs open", s.runs.len());
    }

    #[test]
    fn combining_gives_the_in_memory_result() {
        // Sum the u32 payloads of equal keys; the first payload's tail stays.
        fn add(pk: &[u8], pp: &mut [u8], k: &[u8], p: &[u8]) -> bool {
            if pk != k {
                return false;
            }
            let a = u32::from_le_bytes(pp[..4].try_into().unwrap());
            let b = u32::from_le_bytes(p[..4].try_into().unwrap());
            pp[..4].copy_from_slice(&(a + b).to_le_bytes());
            true
        }
        let recs: Recs = (0..6000u32)
            .map(|i| {
                let k = format!("{}", (i * 7919) % 450).into_bytes();
                let mut p = (i % 5 + 1).to_le_bytes().to_vec();
                p.extend_from_slice(&i.to_be_bytes());
                (k, p)
            })
            .collect();
        let totals = |limit: usize| {
            let mut s = ExtSorter::new(limit, None).with_combine(add);
            for (k, p) in &recs {
                s.push(k, p).unwrap();
            }
            let spills = s.runs();
            let mut out: Recs = Vec::new();
            s.merge(|k, p| {
                match out.last_mut() {
                    Some((lk, lp)) if lk.as_slice() == k => {
                        add(k, lp, k, p);
                    }
                    _ => out.push((k.to_vec(), p.to_vec())),
                }
                Ok(())
            })
            .unwrap();
            (out, spills)
        };
        let (mem, spills) = totals(usize::MAX);
        assert_eq!(spills, 0);
        assert_eq!(mem.len(), 450);
        for limit in [1, 300, 4096, 50_000] {
            let (disk, spills) = totals(limit);
            assert!(spills > 1, "limit {limit}");
            assert_eq!(disk, mem, "limit {limit}");
        }
    }

    #[test]
    fn empty_and_empty_records() {
        let (out, _) = sorted(1, &[]);
        assert!(out.is_empty());
        let recs = vec![
            (vec![], vec![]),
            (b"a".to_vec(), vec![]),
            (vec![], b"p".to_vec()),
        ];
        let (out, runs) = sorted(1, &recs);
        assert!(runs >= 2);
        assert_eq!(
            out,
            vec![
                (vec![], vec![]),
                (vec![], b"p".to_vec()),
                (b"a".to_vec(), vec![])
            ]
        );
    }
}

/// The examples of items private to the crate.
#[cfg(test)]
mod examples {
    #[test]
    fn module() {
        use crate::dedup::extsort::ExtSorter;
        // A limit of 64 bytes forces a spill every few records.
        let mut s = ExtSorter::new(64, None);
        for (k, p) in [("b", "1"), ("a", "2"), ("c", "3"), ("a", "4"), ("b", "5")] {
            s.push(k.as_bytes(), p.as_bytes()).unwrap();
        }
        let mut out = Vec::new();
        s.merge(|k, p| {
            out.push(format!(
                "{}{}",
                std::str::from_utf8(k).unwrap(),
                std::str::from_utf8(p).unwrap()
            ));
            Ok(())
        })
        .unwrap();
        assert_eq!(out, ["a2", "a4", "b1", "b5", "c3"]);
    }
    #[test]
    fn fan_in() {
        use crate::dedup::extsort::fan_in;
        assert_eq!(fan_in(512 << 10), (63, 8 << 10));
        assert_eq!(fan_in(1), (4, 8 << 10));
        assert_eq!(fan_in(1 << 30), (64, 1 << 20));
    }
    #[test]
    fn with_combine() {
        use crate::dedup::extsort::ExtSorter;
        // Keep only the first record of each key.
        let mut s = ExtSorter::new(1, None).with_combine(|pk, _, k, _| pk == k);
        for (k, p) in [("b", "1"), ("a", "2"), ("b", "3"), ("a", "4")] {
            s.push(k.as_bytes(), p.as_bytes()).unwrap();
        }
        let mut out = Vec::new();
        s.merge(|k, p| {
            out.push((k.to_vec(), p.to_vec()));
            Ok(())
        })
        .unwrap();
        out.dedup_by(|b, a| a.0 == b.0);
        assert_eq!(
            out,
            [
                (b"a".to_vec(), b"2".to_vec()),
                (b"b".to_vec(), b"1".to_vec())
            ]
        );
    }
}
