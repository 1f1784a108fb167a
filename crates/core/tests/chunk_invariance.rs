//! The chunked parallel scan gives exactly the sequential result, for every
//! chunk size (from 1 byte up) and thread count (1 to 4).

use proptest::prelude::*;
use urlsift_core::{Extractor, Finder, Found, Match, Report};

const TOKENS: &[&str] = &[
    "http://a.example/x",
    "https://b.example/p?q=1#f",
    "<",
    ">",
    "<URL:",
    "URL: ",
    "\"",
    " ",
    "\n",
    "\n\n",
    "\t",
    "www.",
    "www.c.example",
    "(",
    ")",
    "[",
    "]",
    ".",
    ",",
    ":",
    "-\n",
    "mailto:",
    "news:x",
    "ftp://",
    "://",
    "x",
    "abc",
    "\u{a0}",
    "。",
    "é",
    "\u{3000}",
    "http",
    "s",
    ";",
    "<http://d.example/a-\n  b/c>",
    "\"http://e.example/a\n  b\"",
    "'",
    "\r\n",
    "\x00",
    "\u{ff}",
];

fn build(ix: &[usize]) -> Vec<u8> {
    let mut v = Vec::new();
    for &i in ix {
        v.extend_from_slice(TOKENS[i % TOKENS.len()].as_bytes());
    }
    v
}

fn sequential(hay: &[u8]) -> Vec<Match<'_>> {
    let mut v = Vec::new();
    Extractor::new().scan(hay, 0, hay.len(), 0, |m| v.push(m));
    v
}

/// Every match of `hay`, in order, scanned in chunks on the rayon pool.
fn scan_all<'h>(finder: Finder, hay: &'h [u8]) -> Vec<Match<'h>> {
    let mut v = Vec::new();
    finder.scan(hay, |f: Found<'h>| {
        v.push(f.m);
        true
    });
    v
}

fn chunked(hay: &[u8], chunk: usize, threads: usize) -> Vec<Match<'_>> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let mut v = Vec::new();
    pool.install(|| v = scan_all(Finder::new().chunk_size(chunk), hay));
    v
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if std::env::var("CI").is_ok() { 1500 } else { 400 }))]

    #[test]
    fn tokens_any_chunking(ix in prop::collection::vec(0usize..1000, 0..200), chunk in 1usize..300, threads in 1usize..=4) {
        let hay = build(&ix);
        prop_assert_eq!(chunked(&hay, chunk, threads), sequential(&hay));
    }

    #[test]
    fn random_bytes_any_chunking(hay in prop::collection::vec(any::<u8>(), 0..2000), chunk in 1usize..100, threads in 1usize..=4) {
        prop_assert_eq!(chunked(&hay, chunk, threads), sequential(&hay));
    }
}

/// Long wrapped URLs and URLs right before every cut: the stitching paths.
#[test]
fn wrapped_urls_across_every_cut() {
    let mut hay = Vec::new();
    for i in 0..300 {
        hay.extend_from_slice(format!("<URL:http://h{i}.example/a-\n  b/c{i}\n d> http://x{i}.example/.\n\"http://q.example/{i}\"").as_bytes());
    }
    let seq = sequential(&hay);
    assert_eq!(seq.len(), 900);
    for chunk in [1, 5, 13, 40, 97, 256, 4096] {
        for threads in 1..=4 {
            assert_eq!(
                chunked(&hay, chunk, threads),
                seq,
                "chunk {chunk} threads {threads}"
            );
        }
    }
}

/// The project's own datasets, if present, at several chunk sizes.
#[test]
fn datasets_any_chunking() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../datasets");
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "txt" || x == "mbox") {
            let hay = std::fs::read(&p).unwrap();
            let seq = sequential(&hay);
            for chunk in [1, 100, 4096, 65536] {
                assert_eq!(
                    chunked(&hay, chunk, 3),
                    seq,
                    "{} chunk {chunk}",
                    p.display()
                );
            }
        }
    }
}

/// A reader that hands out its bytes in pieces of the given sizes, cycling.
struct Pieces<'a> {
    data: &'a [u8],
    sizes: Vec<usize>,
    k: usize,
    /// The source pauses after every piece (see `fill_or_pause`).
    pauses: bool,
    paused: bool,
}

impl std::io::Read for Pieces<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.pauses && !self.data.is_empty() && !std::mem::replace(&mut self.paused, true) {
            return Err(std::io::ErrorKind::WouldBlock.into());
        }
        self.paused = false;
        let n = self.sizes[self.k % self.sizes.len()]
            .max(1)
            .min(buf.len())
            .min(self.data.len());
        self.k += 1;
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

fn streamed(
    hay: &[u8],
    block: usize,
    chunk: usize,
    sizes: Vec<usize>,
) -> Vec<(usize, usize, Vec<u8>, u64)> {
    streamed_pausing(hay, block, chunk, sizes, false)
}

fn streamed_pausing(
    hay: &[u8],
    block: usize,
    chunk: usize,
    sizes: Vec<usize>,
    pauses: bool,
) -> Vec<(usize, usize, Vec<u8>, u64)> {
    let mut v = Vec::new();
    let r = Pieces {
        data: hay,
        sizes,
        k: 0,
        pauses,
        paused: false,
    };
    let finder = Finder::new()
        .block_size(block)
        .chunk_size(chunk)
        .lines(true);
    let n = finder
        .scan_reader(r, |f: Found<'_>| {
            v.push((f.m.start, f.m.end, f.m.url.to_vec(), f.line));
            true
        })
        .unwrap();
    assert_eq!(n, hay.len() as u64);
    v
}

fn with_lines(hay: &[u8]) -> Vec<(usize, usize, Vec<u8>, u64)> {
    sequential(hay)
        .into_iter()
        .map(|m| {
            let line = 1 + hay[..m.start].iter().filter(|&&b| b == b'\n').count() as u64;
            (m.start, m.end, m.url.to_vec(), line)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if std::env::var("CI").is_ok() { 300 } else { 60 }))]

    /// Streams of 5-60 KB in blocks from 1 byte up, read in odd pieces: the
    /// carried tail gives exactly the whole-buffer result, with line numbers.
    #[test]
    fn stream_any_block_size(ix in prop::collection::vec(0usize..1000, 500..4000), block in 1usize..20000, chunk in 1usize..5000, sizes in prop::collection::vec(1usize..9000, 1..5)) {
        let hay = build(&ix);
        prop_assert_eq!(streamed(&hay, block, chunk, sizes), with_lines(&hay));
    }

    /// A source that pauses after every piece: each pause scans what no
    /// later byte can change, and the result is the whole-buffer one.
    #[test]
    fn stream_paused_after_every_piece(ix in prop::collection::vec(0usize..1000, 0..3000), block in 1usize..20000, chunk in 1usize..5000, sizes in prop::collection::vec(1usize..3000, 1..5)) {
        let hay = build(&ix);
        prop_assert_eq!(streamed_pausing(&hay, block, chunk, sizes, true), with_lines(&hay));
    }

    /// The same on random bytes, in small pieces.
    #[test]
    fn random_bytes_paused_after_every_piece(hay in prop::collection::vec(any::<u8>(), 0..6000), sizes in prop::collection::vec(1usize..200, 1..5)) {
        prop_assert_eq!(streamed_pausing(&hay, 1 << 16, 512, sizes, true), with_lines(&hay));
    }
}

/// At each pause of its source, a stream of lines has handed on every URL
/// of the lines given so far (as `tail -f` output is wanted), and the
/// whole is the whole-buffer result; wrapped URLs wait for their close.
#[test]
fn a_paused_stream_hands_on_what_it_has() {
    let lines = numbered_lines(3000);
    let mut hay = lines.clone();
    hay.extend_from_slice(b"see <http://w.example/a\n b> and \"http://q.example/\n r\" end\n");
    hay.extend_from_slice(&lines);
    let want = with_lines(&hay);
    // Pieces of whole lines.
    let line_len = lines.iter().position(|&b| b == b'\n').unwrap() + 1;
    let mut r = Pieces {
        data: &hay,
        sizes: vec![line_len * 7],
        k: 0,
        pauses: true,
        paused: false,
    };
    let given = std::sync::atomic::AtomicUsize::new(0);
    let counting = std::io::Read::by_ref(&mut r);
    struct Given<'a, R>(R, &'a std::sync::atomic::AtomicUsize);
    impl<R: std::io::Read> std::io::Read for Given<'_, R> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.0.read(buf)?;
            self.1.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
            Ok(n)
        }
    }
    let seen = std::cell::RefCell::new(Vec::new());
    let mut pauses = 0;
    let mut behind = 0;
    let finder = Finder::new()
        .block_size(1 << 20)
        .chunk_size(4096)
        .lines(true);
    let found = |f: Found<'_>| {
        seen.borrow_mut()
            .push((f.m.start, f.m.end, f.m.url.to_vec(), f.line));
        true
    };
    finder
        .scan_reader(
            Given(counting, &given),
            Pausing(found, || {
                pauses += 1;
                // Every URL that ends before the last whole line given, unless
                // it is inside the wrapped ones (whose close comes later).
                let upto = given.load(std::sync::atomic::Ordering::Relaxed);
                let owed = want.iter().filter(|w| w.1 < upto).count();
                if seen.borrow().len() < owed {
                    behind += 1;
                }
                true
            }),
        )
        .unwrap();
    assert_eq!(*seen.borrow(), want);
    assert!(pauses > 100, "{pauses} pauses");
    // Only the pauses inside the two wrapped URLs' pieces may be behind.
    assert!(behind <= 2, "{behind} pauses were behind");
}

/// A stream with no stop byte for longer than a block still gives the same result.
#[test]
fn stream_long_run_without_stops() {
    let mut hay = b"x http://a.example/".to_vec();
    hay.extend(std::iter::repeat_n(b'a', 50_000));
    hay.extend_from_slice(b" <http://b.example/\n c> end");
    assert_eq!(streamed(&hay, 100, 64, vec![777]), with_lines(&hay));
}

/// A URL of two-byte characters, streamed in blocks of every size: however
/// a block's end splits a character, the URL is found whole.
#[test]
fn stream_blocks_end_inside_a_character() {
    let mut hay = b"word ".repeat(2000);
    hay.extend_from_slice(b"x http://a.example/");
    hay.extend("\u{ff}é".repeat(1500).bytes());
    hay.extend_from_slice(b" end http://b.example/\n");
    let want = with_lines(&hay);
    assert_eq!(want.len(), 2);
    for block in (1..300).step_by(3) {
        assert_eq!(streamed(&hay, block, 64, vec![97]), want, "block {block}");
    }
}

/// A reader of `data` in pieces of `piece` bytes that fails at byte
/// `fail_at` (if any), counting what it gave.
struct Failing<'a> {
    data: &'a [u8],
    piece: usize,
    fail_at: Option<usize>,
    given: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl std::io::Read for Failing<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        use std::sync::atomic::Ordering;
        let at = self.given.load(Ordering::Relaxed);
        if self.fail_at == Some(at) {
            return Err(std::io::Error::other("boom"));
        }
        let limit = self.fail_at.unwrap_or(self.data.len()).min(self.data.len());
        let n = self.piece.min(buf.len()).min(limit - at);
        buf[..n].copy_from_slice(&self.data[at..at + n]);
        self.given.store(at + n, Ordering::Relaxed);
        Ok(n)
    }
}

fn numbered_lines(n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| format!("see http://h{i}.example/p{i} and more text\n"))
        .collect::<String>()
        .into_bytes()
}

/// A stream that breaks after many blocks (each read ahead while the one
/// before is scanned) gives the matches of what came before the break, as
/// if it ended there, and an error naming the byte it broke at.
#[test]
fn a_stream_broken_midway_gives_what_came_before() {
    let data = numbered_lines(8000);
    let fail_at = 200_003;
    for threads in [1, 3] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let r = Failing {
            data: &data,
            piece: 7000,
            fail_at: Some(fail_at),
            given: Default::default(),
        };
        let mut v = Vec::new();
        let res = pool.install(|| {
            let finder = Finder::new().block_size(64 << 10).chunk_size(4096);
            finder.lines(true).scan_reader(r, |f: Found<'_>| {
                v.push((f.m.start, f.m.end, f.m.url.to_vec(), f.line));
                true
            })
        });
        let e = res.unwrap_err().to_string();
        assert!(e.contains(&format!("at byte {fail_at}")), "{e}");
        assert_eq!(v, with_lines(&data[..fail_at]), "{threads} threads");
    }
}

/// A scan asked to stop stops reading too: the block read ahead is the
/// last, not the stream.
#[test]
fn a_stopped_stream_reads_no_further() {
    use std::sync::atomic::Ordering;
    let data = numbered_lines(100_000);
    let given = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let r = Failing {
        data: &data,
        piece: 4096,
        fail_at: None,
        given: given.clone(),
    };
    let block = 64 << 10;
    let mut batches = 0;
    Finder::new()
        .block_size(block)
        .chunk_size(8192)
        .map_reader(
            r,
            |c| c.matches().len(),
            |_: usize| {
                batches += 1;
                false
            },
        )
        .unwrap();
    assert_eq!(batches, 1);
    let read = given.load(Ordering::Relaxed);
    assert!(data.len() > 40 * block);
    assert!(read <= 3 * block, "read {read} bytes of {}", data.len());
}

/// A stream that gives its bytes, then waits as a pipe that went quiet,
/// until its read is abandoned (or, failing that, ends after 20 s).
struct Quiet<'a> {
    data: &'a [u8],
    at: usize,
    gave_up: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// Set once it waits.
    waiting: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl std::io::Read for Quiet<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.at < self.data.len() {
            let n = buf.len().min(self.data.len() - self.at).min(4096);
            buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
            self.at += n;
            return Ok(n);
        }
        self.waiting
            .store(true, std::sync::atomic::Ordering::Relaxed);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while std::time::Instant::now() < deadline {
            if urlsift_core::stream::read_abandoned() {
                self.gave_up
                    .store(true, std::sync::atomic::Ordering::Relaxed);
                return Err(std::io::Error::other("abandoned"));
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        Ok(0)
    }
}

/// A scan its sink stops abandons the block read ahead, which waits on a
/// quiet stream: the scan ends at once, not when the stream does.
#[test]
fn a_sink_that_stops_abandons_a_waiting_read() {
    use std::sync::atomic::Ordering;
    // A block and a little more: the read ahead gets the little, then waits.
    let data = numbered_lines(2500);
    let block = 64 << 10;
    assert!(data.len() > block + block / 8 + 5000 && data.len() < 2 * block);
    let gave_up = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let waiting = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let r = Quiet {
        data: &data,
        at: 0,
        gave_up: gave_up.clone(),
        waiting: waiting.clone(),
    };
    let mut seen = Vec::new();
    let t = std::time::Instant::now();
    let finder = Finder::new().block_size(block).chunk_size(4096).lines(true);
    finder
        .scan_reader(r, |f: Found<'_>| {
            seen.push((f.m.start, f.line));
            if seen.len() < 3 {
                return true;
            }
            // The stop comes once the read ahead waits (on a loaded
            // machine its thread may start late).
            let by = std::time::Instant::now() + std::time::Duration::from_secs(10);
            while !waiting.load(Ordering::Relaxed) && std::time::Instant::now() < by {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            false
        })
        .unwrap();
    assert_eq!(seen.len(), 3);
    assert!(
        gave_up.load(Ordering::Relaxed),
        "the read ahead was never abandoned"
    );
    assert!(t.elapsed() < std::time::Duration::from_secs(15));
    // Not read ahead in the one-read case: the same matches.
    assert_eq!(
        &seen[..],
        &with_lines(&data)[..3]
            .iter()
            .map(|w| (w.0, w.3))
            .collect::<Vec<_>>()[..]
    );
}

/// `scan_segments_map` over `hay` on a pool of `threads`: each chunk's
/// matches as (start, end, url, line), lines 0 unless counted.
fn mapped(
    hay: &[u8],
    (target, chunk, threads): (usize, usize, usize),
    count_lines: bool,
    stop_after: Option<usize>,
) -> Vec<(usize, usize, Vec<u8>, u64)> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let mut v = Vec::new();
    let mut taken = 0;
    pool.install(|| {
        let finder = Finder::new().segment_size(target).chunk_size(chunk);
        finder.lines(count_lines).map(
            hay,
            |c| {
                let all: Vec<_> = c
                    .matches_with_lines()
                    .map(|(m, l)| (m.start, m.end, m.url.to_vec(), l))
                    .map(|(s, e, u, l)| (s, e, u, if count_lines { l } else { 0 }))
                    .collect();
                assert!(all.first().is_none_or(|f| c.start <= f.0));
                all
            },
            |part: Vec<_>| {
                v.extend(part);
                taken += 1;
                stop_after.is_none_or(|n| taken < n)
            },
        )
    });
    v
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if std::env::var("CI").is_ok() { 1000 } else { 250 }))]

    /// The chunks' work on the pool (with and without lines, stitched or
    /// not) sees exactly the sequential matches, in order, for every
    /// segment and chunk size and thread count.
    #[test]
    fn segments_map_any_chunking(ix in prop::collection::vec(0usize..1000, 0..300), target in 1usize..2000, chunk in 1usize..300, threads in 1usize..=4, lines in any::<bool>()) {
        let hay = build(&ix);
        let mut want = with_lines(&hay);
        if !lines {
            want.iter_mut().for_each(|w| w.3 = 0);
        }
        prop_assert_eq!(mapped(&hay, (target, chunk, threads), lines, None), want.clone());
        // Stopping after the first result gives a prefix.
        let first = mapped(&hay, (target, chunk, threads), lines, Some(1));
        prop_assert_eq!(&want[..first.len()], &first[..]);
    }
}

/// A chunk's work that panics ends the scan with that panic, on a pool's
/// thread or outside the pool, never a hang.
#[test]
fn a_panicking_chunk_ends_the_scan() {
    let hay = build(&(0..20_000).collect::<Vec<_>>());
    for threads in [0, 2, 4] {
        let (tx, rx) = std::sync::mpsc::channel();
        let hay = hay.clone();
        std::thread::spawn(move || {
            let half = hay.len() / 2;
            let scan = || {
                let finder = Finder::new().segment_size(8192).chunk_size(512);
                finder.lines(threads == 4).map(
                    &hay,
                    |c| {
                        assert!(c.start < half, "a bug in a chunk's work");
                        c.matches().len()
                    },
                    |_: usize| true,
                )
            };
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                if threads == 0 {
                    scan(); // the global pool, from outside it
                } else {
                    let pool = rayon::ThreadPoolBuilder::new()
                        .num_threads(threads)
                        .build()
                        .unwrap();
                    pool.install(scan);
                }
            }));
            tx.send(r.is_err()).unwrap();
        });
        let died = rx.recv_timeout(std::time::Duration::from_secs(120));
        assert_eq!(died, Ok(true), "threads {threads}");
    }
}

/// Runs with no cut point for more than `MAX_RUN` bytes end segments at
/// forced cuts, and the chunks of the segments after them are in flight
/// at once: every thread count, segment and chunk size gives what one
/// thread gives, lines included.
#[test]
fn segments_map_across_forced_cuts() {
    let run = 4 << 20; // the crate's MAX_RUN
    let mut hay = build(&(0..3000).collect::<Vec<_>>());
    hay.extend_from_slice(b"see http://run.example/");
    hay.extend(std::iter::repeat_n(b'x', 2 * run + 12_345));
    hay.extend_from_slice(b" <http://after.example/\n  wrapped> ");
    hay.extend("\u{4e00}http://cjk.example/".repeat(run / 20).as_bytes());
    hay.extend(build(&(0..3000).rev().collect::<Vec<_>>()));
    let want = mapped(&hay, (1 << 20, 1 << 20, 1), true, None);
    assert!(want.iter().any(|m| m.2 == b"http://after.example/wrapped"));
    for (target, chunk) in [(64 << 10, 4096), (1 << 20, 300_000), (16 << 20, 1 << 20)] {
        for threads in [2, 3] {
            let got = mapped(&hay, (target, chunk, threads), true, None);
            assert!(
                got == want,
                "target {target} chunk {chunk} threads {threads}"
            );
        }
    }
}

/// A [`Report`] of matches whose source pauses: `take` is the first
/// closure, `paused` the second.
struct Pausing<F, P>(F, P);

impl<'b, F: FnMut(Found<'b>) -> bool, P: FnMut() -> bool> Report<Found<'b>> for Pausing<F, P> {
    fn take(&mut self, item: Found<'b>) -> bool {
        (self.0)(item)
    }

    fn paused(&mut self) -> bool {
        (self.1)()
    }
}
