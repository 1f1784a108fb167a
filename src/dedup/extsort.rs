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
//! Written here rather than taken from a crate because de-duplication needs
//! exactly this (stable order, byte keys, runs that were already combined
//! before they were written), and it is about 150 lines.
//!
//! Memory: the limit bounds the arena and the index; a merge holds one
//! 64 KiB read buffer per run, and there are at most [`MAX_RUNS`] runs (when
//! there would be more, they are merged into one first). A run file stores each record as
//! `u32 key length, u32 payload length, key, payload` (little-endian).
//!
//! ```
//! use urlsift::dedup::extsort::ExtSorter;
//! // A limit of 64 bytes forces a spill every few records.
//! let mut s = ExtSorter::new(64, None);
//! for (k, p) in [("b", "1"), ("a", "2"), ("c", "3"), ("a", "4"), ("b", "5")] {
//!     s.push(k.as_bytes(), p.as_bytes()).unwrap();
//! }
//! let mut out = Vec::new();
//! s.merge(|k, p| {
//!     out.push(format!("{}{}", std::str::from_utf8(k).unwrap(), std::str::from_utf8(p).unwrap()));
//!     Ok(())
//! })
//! .unwrap();
//! assert_eq!(out, ["a2", "a4", "b1", "b5", "c3"]);
//! ```

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

/// Read buffer per run during a merge.
const READ_BUF: usize = 64 << 10;

/// Runs kept before they are merged into one (open files, read buffers).
pub const MAX_RUNS: usize = 64;

/// Bytes of index per record in memory (offset, key length, payload length).
const INDEX_BYTES: usize = 12;

/// A bounded-memory sorter of byte records (see the module docs).
pub struct ExtSorter {
    limit: usize,
    dir: Option<PathBuf>,
    index: Vec<(u32, u32, u32)>,
    arena: Vec<u8>,
    runs: Vec<File>,
    spills: usize,
    spilled_bytes: u64,
}

impl ExtSorter {
    /// A sorter that keeps at most about `limit` bytes of records in memory
    /// and spills runs into `dir` (the system's temporary directory when
    /// `None`).
    pub fn new(limit: usize, dir: Option<PathBuf>) -> Self {
        ExtSorter {
            limit: limit.max(1),
            dir,
            index: Vec::new(),
            arena: Vec::new(),
            runs: Vec::new(),
            spills: 0,
            spilled_bytes: 0,
        }
    }

    /// Bytes of memory the records held now take (arena plus index).
    pub fn bytes(&self) -> usize {
        self.arena.capacity() + self.index.capacity() * INDEX_BYTES
    }

    /// Records held in memory now.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// True when no record is held in memory.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// Runs written to disk so far (before any were merged).
    pub fn runs(&self) -> usize {
        self.spills
    }

    /// Bytes written to disk so far.
    pub fn spilled_bytes(&self) -> u64 {
        self.spilled_bytes
    }

    /// Add one record. Spills a run first when the record would take the
    /// memory held past the limit. A record longer than 4 GiB is refused.
    pub fn push(&mut self, key: &[u8], payload: &[u8]) -> io::Result<()> {
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
    /// happens when memory holds no record). Memory is kept for reuse.
    pub fn spill(&mut self) -> io::Result<()> {
        if self.index.is_empty() {
            return Ok(());
        }
        self.sort();
        let mut w = BufWriter::with_capacity(256 << 10, self.temp_file()?);
        for r in &self.index {
            let (k, p) = self.record(r);
            write_record(&mut w, k, p)?;
            self.spilled_bytes += 8 + (k.len() + p.len()) as u64;
        }
        let mut file = w.into_inner().map_err(|e| e.into_error())?;
        file.seek(SeekFrom::Start(0))?;
        self.runs.push(file);
        self.spills += 1;
        if self.runs.len() >= MAX_RUNS {
            self.compact()?;
        }
        self.index.clear();
        self.arena.clear();
        Ok(())
    }

    /// Hand every record to `f` in key order (equal keys in push order).
    pub fn merge(mut self, mut f: impl FnMut(&[u8], &[u8]) -> io::Result<()>) -> io::Result<()> {
        if self.runs.is_empty() {
            self.sort();
            for r in &self.index {
                let (k, p) = self.record(r);
                f(k, p)?;
            }
            return Ok(());
        }
        self.spill()?;
        merge_runs(std::mem::take(&mut self.runs), f)
    }

    /// Merge every run into one, so that no more than [`MAX_RUNS`] files
    /// are open (a two-level merge: each record is written twice more).
    fn compact(&mut self) -> io::Result<()> {
        let mut w = BufWriter::with_capacity(256 << 10, self.temp_file()?);
        let mut bytes = 0u64;
        merge_runs(std::mem::take(&mut self.runs), |k, p| {
            bytes += 8 + (k.len() + p.len()) as u64;
            write_record(&mut w, k, p)
        })?;
        self.spilled_bytes += bytes;
        let mut file = w.into_inner().map_err(|e| e.into_error())?;
        file.seek(SeekFrom::Start(0))?;
        self.runs.push(file);
        Ok(())
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

/// K-way merge of sorted runs; equal keys go to the earlier run first.
fn merge_runs(
    runs: Vec<File>,
    mut f: impl FnMut(&[u8], &[u8]) -> io::Result<()>,
) -> io::Result<()> {
    let mut readers: Vec<RunReader> = runs
        .into_iter()
        .map(|f| RunReader {
            r: BufReader::with_capacity(READ_BUF, f),
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
