//! A run over many inputs: files spread over worker threads, output in input order.
//!
//! # The ordered pipeline
//!
//! `threads` workers take the inputs in order, one file at a time. A worker
//! scans its file (a big mapped file with the chunked [`crate::parallel`]
//! scan, so one file still uses every core), formats what it finds into byte
//! batches (or aggregation keys), and sends them on that file's own bounded
//! channel. The consumer (the calling thread) reads the files' channels
//! strictly in input order and writes the batches to the one output writer.
//!
//! So the output is byte-identical for every thread count, and memory stays
//! bounded: at most `threads` files are in flight, each with at most
//! [`IN_FLIGHT`] batches of about [`BATCH`] bytes waiting. A worker that runs
//! ahead blocks until the consumer reaches its file; the worker holding the
//! consumer's file never waits on another, so the pipeline cannot deadlock.
//!
//! A write error (a closed pipe) or `--quiet`'s first match stops the run
//! early: workers notice a shared flag between segments of a file.

use std::io::{self, Read, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use super::{
    Aggregate, Format, Options, Parts, Record, Sink, aggregate_key, new_sink, write_header,
};
use crate::classify::naive;
use crate::extract::{Extractor, Match};
use crate::input::{Opened, Source};
use crate::parallel::{self, LineCounter};

/// Bytes per formatted batch sent from a worker to the consumer.
pub const BATCH: usize = 64 << 10;

/// Batches a file may have waiting before its worker blocks.
pub const IN_FLIGHT: usize = 4;

/// Keys per aggregation batch.
const KEY_BATCH: usize = 4096;

/// How a run scans and prints.
pub struct Config<'a> {
    /// Output options (format, prefixes, aggregation).
    pub opts: Options,
    /// Print nothing; stop at the first URL.
    pub quiet: bool,
    /// Only RFC 3986-valid URLs.
    pub strict: bool,
    /// Worker threads (files scanned at once); at least 1.
    pub threads: usize,
    /// Bytes per parallel chunk within a file.
    pub chunk_size: usize,
    /// The extraction engine.
    pub extractor: Extractor,
    /// Called with the number of input bytes done, as they are done.
    pub progress: Option<&'a (dyn Fn(u64) + Sync)>,
    /// `--mail`: read inputs as mail (see [`crate::input::mail`]).
    pub mail: Option<&'a crate::input::mail::MailRun>,
}

/// What a run found.
#[derive(Debug, Default)]
pub struct Summary {
    /// URLs found (after `--strict`).
    pub found: u64,
    /// Inputs that failed (reported on the error writer).
    pub errors: u64,
    /// The output writer failed with this error (a closed pipe included).
    pub write_error: Option<io::Error>,
}

impl Summary {
    /// grep's exit status: 0 found, 1 none found, 2 an error. A closed pipe
    /// is not an error (the reader had what it wanted: 0 unless an input
    /// failed before); with `quiet`, a URL found anywhere wins over errors
    /// elsewhere.
    pub fn exit_code(&self, quiet: bool) -> u8 {
        let broken_pipe = self
            .write_error
            .as_ref()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe);
        let failed = self.write_error.is_some() && !broken_pipe;
        if failed || (self.errors > 0 && !(quiet && self.found > 0)) {
            2
        } else if self.found > 0 || broken_pipe {
            0
        } else {
            1
        }
    }
}

enum Msg {
    Bytes(Vec<u8>),
    Keys(Vec<Vec<u8>>),
    End {
        count: u64,
        opened: bool,
        error: Option<String>,
    },
}

/// Scan `sources` and write the result to `out` in input order; errors go to
/// `err`, one line each (`urlsift: FILE: message`), in input order too.
pub fn run(
    cfg: &Config<'_>,
    sources: &[Source],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Summary {
    let stop = AtomicBool::new(false);
    let threads = cfg.threads.max(1);
    // The claim step hands out the next input and queues its channel, under
    // one lock, so the consumer sees the channels in input order.
    let (order_tx, order_rx) = sync_channel::<(usize, Receiver<Msg>)>(threads);
    let claim = Mutex::new((0usize, Some(order_tx)));
    let mut summary = Summary::default();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                worker(cfg, sources, &claim, &stop);
            });
        }
        summary = consume(cfg, sources, order_rx, out, err, &stop);
        stop.store(true, Ordering::Relaxed);
    });
    summary
}

type Claim = Mutex<(usize, Option<SyncSender<(usize, Receiver<Msg>)>>)>;

fn worker(cfg: &Config<'_>, sources: &[Source], claim: &Claim, stop: &AtomicBool) {
    loop {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let (idx, tx) = {
            let mut g = claim.lock().unwrap_or_else(|p| p.into_inner());
            let idx = g.0;
            if idx >= sources.len() {
                break;
            }
            g.0 += 1;
            let (tx, rx) = sync_channel(IN_FLIGHT);
            let Some(order) = g.1.as_ref() else { break };
            if order.send((idx, rx)).is_err() {
                break;
            }
            (idx, tx)
        };
        scan_source(cfg, &sources[idx], &tx, stop);
    }
    // No more claims (all inputs taken, or stopping): once every worker has
    // let go, the consumer's loop over the channels ends.
    claim.lock().unwrap_or_else(|p| p.into_inner()).1 = None;
}

fn consume(
    cfg: &Config<'_>,
    sources: &[Source],
    order: Receiver<(usize, Receiver<Msg>)>,
    out: &mut dyn Write,
    err: &mut dyn Write,
    stop: &AtomicBool,
) -> Summary {
    let opts = &cfg.opts;
    let mut sum = Summary::default();
    let aggregating = !opts.count && (opts.unique || opts.count_by.is_some());
    let mut agg = aggregating.then(|| Aggregate::new(io::sink(), opts));
    let mut header = !matches!(opts.format, Format::Csv | Format::Tsv) || opts.count || aggregating;
    let result = (|| -> io::Result<()> {
        for (idx, rx) in order.iter() {
            let name = sources[idx].name();
            for msg in rx.iter() {
                match msg {
                    Msg::Bytes(b) => {
                        if !header {
                            header = true;
                            write_header(opts, out)?;
                        }
                        out.write_all(&b)?;
                    }
                    Msg::Keys(keys) => {
                        if let Some(a) = agg.as_mut() {
                            keys.into_iter().for_each(|k| a.add(k));
                        }
                    }
                    Msg::End {
                        count,
                        opened,
                        error,
                    } => {
                        sum.found += count;
                        if opts.count && opened && !cfg.quiet {
                            let mut line = Vec::new();
                            let mut c = new_sink(opts, &mut line);
                            c.file_done(&name, count)?;
                            drop(c);
                            out.write_all(&line)?;
                        }
                        if let Some(e) = error {
                            sum.errors += 1;
                            // Keep stdout and stderr in order on a terminal.
                            out.flush()?;
                            let _ = writeln!(err, "urlsift: {e}");
                        }
                        break;
                    }
                }
            }
            if cfg.quiet && sum.found > 0 {
                break;
            }
        }
        if let Some(a) = agg.take() {
            a.write_to(out)?;
        }
        out.flush()
    })();
    if let Err(e) = result {
        stop.store(true, Ordering::Relaxed);
        sum.write_error = Some(e);
    }
    sum
}

/// Collects a worker's formatted bytes and sends them in batches.
struct Batcher<'a> {
    buf: Vec<u8>,
    tx: &'a SyncSender<Msg>,
}

impl Batcher<'_> {
    fn send(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let b = std::mem::replace(&mut self.buf, Vec::with_capacity(BATCH + 1024));
        self.tx
            .send(Msg::Bytes(b))
            .map_err(|_| io::Error::from(io::ErrorKind::BrokenPipe))
    }
}

impl Write for Batcher<'_> {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(b);
        if self.buf.len() >= BATCH {
            self.send()?;
        }
        Ok(b.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Fails every read once the run is stopping, so a stream scan ends early.
struct StopReader<'a, R> {
    inner: R,
    stop: &'a AtomicBool,
}

impl<R: Read> Read for StopReader<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.stop.load(Ordering::Relaxed) {
            return Err(io::Error::other("stopped"));
        }
        self.inner.read(buf)
    }
}

/// Where a worker's matches go: formatted bytes or aggregation keys.
struct Emit<'a, 'w> {
    cfg: &'a Config<'a>,
    file: &'a str,
    sink: Option<Box<dyn Sink + 'w>>,
    keys: Vec<Vec<u8>>,
    tx: &'a SyncSender<Msg>,
    stop: &'a AtomicBool,
    count: u64,
    failed: bool,
}

impl Emit<'_, '_> {
    fn record(&mut self, m: &Match<'_>, line: u64) {
        self.record_in(m, line, None)
    }

    fn record_in(
        &mut self,
        m: &Match<'_>,
        line: u64,
        mail: Option<&crate::input::mail::MailWhere>,
    ) {
        if self.failed || (self.cfg.strict && !Parts::new(m).valid()) {
            return;
        }
        self.count += 1;
        if self.cfg.quiet {
            // Found: the exit status is decided, stop everything.
            self.stop.store(true, Ordering::Relaxed);
            return;
        }
        let opts = &self.cfg.opts;
        if opts.count {
            return;
        }
        if opts.unique || opts.count_by.is_some() {
            if let Some(k) = aggregate_key(m, opts.count_by, opts.normalize) {
                self.keys.push(k);
                if self.keys.len() >= KEY_BATCH {
                    let keys = std::mem::take(&mut self.keys);
                    self.failed |= self.tx.send(Msg::Keys(keys)).is_err();
                }
            }
            return;
        }
        if let Some(s) = self.sink.as_mut() {
            let rec = Record {
                file: self.file,
                line,
                m,
                mail,
            };
            self.failed |= s.record(&rec).is_err();
        }
    }
}

fn scan_source(cfg: &Config<'_>, src: &Source, tx: &SyncSender<Msg>, stop: &AtomicBool) {
    let name = src.name();
    let end = |count, opened, error| {
        let _ = tx.send(Msg::End {
            count,
            opened,
            error,
        });
    };
    let path = match src {
        Source::Error(e) => return end(0, false, Some(e.clone())),
        other => other.path(),
    };
    let opened = match crate::input::open(path) {
        Ok(o) => o,
        Err(e) => return end(0, false, Some(format!("{name}: {e}"))),
    };
    let mut opts = cfg.opts.clone();
    opts.no_header = true;
    let mut batcher = Batcher {
        buf: Vec::with_capacity(BATCH + 1024),
        tx,
    };
    let mut error = None;
    let (count, failed) = {
        let mut emit = Emit {
            cfg,
            file: &name,
            sink: Some(new_sink(&opts, &mut batcher)),
            keys: Vec::new(),
            tx,
            stop,
            count: 0,
            failed: false,
        };
        match opened {
            o if cfg.mail.is_some() => {
                let run = cfg.mail.unwrap_or_else(|| unreachable!());
                error = run.scan(&cfg.extractor, &name, o, |w, line, m| {
                    emit.record_in(m, line, Some(w))
                });
            }
            Opened::Whole(data) => {
                crate::input::mail::hint(&name, &data);
                scan_whole(cfg, &data, &mut emit, stop)
            }
            Opened::Stream(r) => {
                let r = StopReader { inner: r, stop };
                let block = parallel::DEFAULT_BLOCK_SIZE;
                let ex = &cfg.extractor;
                let res = parallel::scan_reader(ex, r, block, cfg.chunk_size, |m, line| {
                    emit.record(m, line)
                });
                match res {
                    Ok(_) => {}
                    Err(_) if stop.load(Ordering::Relaxed) => {}
                    Err(e) => error = Some(format!("{name}: {e}")),
                }
                if let (Some(p), Some(path)) = (cfg.progress, path) {
                    p(std::fs::metadata(path).map_or(0, |m| m.len()));
                }
            }
        }
        if let Some(mut s) = emit.sink.take() {
            emit.failed |= s.finish().is_err();
        }
        if !emit.keys.is_empty() {
            let keys = std::mem::take(&mut emit.keys);
            emit.failed |= tx.send(Msg::Keys(keys)).is_err();
        }
        (emit.count, emit.failed)
    };
    if failed || batcher.send().is_err() {
        return; // the consumer is gone
    }
    end(count, true, error);
}

/// Scan a whole (mapped) file in segments of a few batches of chunks, so a
/// stop request is seen within one segment. Segments end at a stop byte and
/// carry the scan's floor, as [`parallel::scan_reader`] does: the result is
/// that of one scan over the whole file.
fn scan_whole(cfg: &Config<'_>, data: &[u8], emit: &mut Emit<'_, '_>, stop: &AtomicBool) {
    let ex = &cfg.extractor;
    let seg = 4usize
        .saturating_mul(rayon::current_num_threads().max(1))
        .saturating_mul(cfg.chunk_size.max(1))
        .max(64);
    let mut lines = LineCounter::default();
    let (mut start, mut floor) = (0usize, 0usize);
    while start < data.len() {
        if stop.load(Ordering::Relaxed) || emit.failed {
            return;
        }
        let mut end = start.saturating_add(seg).min(data.len());
        while end < data.len() && !(data[end] < 0x80 && naive::is_stop(data[end])) {
            end = ex.classifier().find_stop(data, end + 1);
        }
        floor = parallel::scan_range(ex, data, start, end, floor, cfg.chunk_size, |m| {
            let line = lines.line_at(data, m.start);
            emit.record(&m, line);
        });
        if let Some(p) = cfg.progress {
            p((end - start) as u64);
        }
        start = end;
    }
}
