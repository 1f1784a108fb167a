//! `urlsift bench`: a quick, self-contained throughput report for this machine.
//!
//! It scans a deterministic corpus (generated in memory, or `--input FILE`)
//! with every available ISA, on one thread and on all threads, and sets the
//! results against the machine's memory read bandwidth (a sequential read-sum
//! of a buffer at least four times the last-level cache), which is the ceiling
//! for any scan of data that is not already in cache. Every configuration must
//! find the same number of URLs; a mismatch is an error (exit status 2).
//!
//! With `--sweep`, the fastest ISA on all threads also scans on every thread
//! count in between: the scaling curve (its share of the memory bandwidth is
//! that of all threads).
//!
//! Timings are medians of a few repetitions; each configuration runs for at
//! least `--min-time` seconds (default 0.1) or `--reps` passes, whichever is more.

use std::io::{self, Write};
use std::time::{Duration, Instant};

use urlsift_core::{Extractor, Finder, Found, Isa};

/// The options of `urlsift bench`.
#[derive(clap::Args, Debug, Clone)]
pub struct BenchOpts {
    /// Scan this file instead of the generated corpus.
    #[arg(long, value_name = "FILE")]
    pub input: Option<std::path::PathBuf>,
    /// Size of the generated corpus in MiB.
    #[arg(long = "size", value_name = "MIB", default_value_t = 32)]
    pub size_mib: usize,
    /// Thread count for the multi-threaded runs (default: all cores).
    #[arg(short = 'j', long, value_name = "N")]
    pub threads: Option<usize>,
    /// Only these ISAs, comma-separated (default: all available).
    #[arg(long = "isa", value_name = "ISA", value_delimiter = ',')]
    pub isas: Vec<String>,
    /// Minimum passes per configuration (the median is reported).
    #[arg(long, default_value_t = 3)]
    pub reps: usize,
    /// Minimum time per configuration, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 0.1)]
    pub min_time: f64,
    /// JSON output instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Also scan with the fastest ISA on every thread count between 1 and
    /// the parallel runs' (the scaling curve).
    #[arg(long)]
    pub sweep: bool,
}

/// One measured configuration.
struct Row {
    isa: Isa,
    threads: usize,
    what: &'static str,
    secs: f64,
    matches: u64,
}

/// Run the benchmark, print the report; returns the exit status.
pub fn bench_cmd(opts: &BenchOpts) -> u8 {
    match run(opts) {
        Ok(code) => code,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => 0,
        Err(e) => {
            urlsift_core::report_error!("bench: {e}");
            2
        }
    }
}

fn run(opts: &BenchOpts) -> io::Result<u8> {
    let (hay, source) = load_input(opts)?;
    let all = opts
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let isas = chosen_isas(opts)?;
    let llc = llc_bytes();
    let mem_size = (4 * llc.unwrap_or(32 << 20)).clamp(64 << 20, 512 << 20);
    let (bw1, bw_all) = memory_bandwidth(mem_size, all, opts);
    let mut rows = extract_rows(opts, &hay, &isas, all)?;
    // Stage 1 alone (candidates), one thread: how much of the time the classifier takes.
    for &isa in &isas {
        rows.push(classify_row(opts, &hay, isa));
    }
    let expected = rows
        .iter()
        .find(|r| r.what == "extract")
        .map_or(0, |r| r.matches);
    let mismatch = rows
        .iter()
        .any(|r| r.what == "extract" && r.matches != expected);
    let report = Report {
        cpu: cpu_model(),
        all,
        llc,
        source,
        bytes: hay.len(),
        expected,
        mismatch,
        bw1,
        bw_all,
        mem_size,
        rows,
    };
    let stdout = io::stdout();
    let mut out = stdout.lock();
    if opts.json {
        write_json(&mut out, &report)?;
    } else {
        write_text(&mut out, &report)?;
    }
    out.flush()?;
    Ok(if report.mismatch { 2 } else { 0 })
}

/// The input to measure: the file `--input` names, or a generated corpus;
/// and how the report names it.
fn load_input(opts: &BenchOpts) -> io::Result<(Vec<u8>, String)> {
    Ok(match &opts.input {
        Some(p) => (
            std::fs::read(p)
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", p.display())))?,
            p.display().to_string(),
        ),
        None => (
            corpus(opts.size_mib.max(1) << 20),
            format!(
                "generated (mixed prose, link lists, mail, CJK; {} MiB)",
                opts.size_mib.max(1)
            ),
        ),
    })
}

/// The ISAs to measure: those asked for (all by default) that this
/// machine has.
fn chosen_isas(opts: &BenchOpts) -> io::Result<Vec<Isa>> {
    let mut isas = Vec::new();
    for isa in Isa::ALL {
        let wanted =
            opts.isas.is_empty() || opts.isas.iter().any(|n| isa.name().eq_ignore_ascii_case(n));
        if wanted && isa.is_available() {
            isas.push(isa);
        }
    }
    if isas.is_empty() {
        return Err(io::Error::other("no available ISA selected"));
    }
    Ok(isas)
}

/// The extract stage of each ISA on 1 and on `all` threads; with
/// `--sweep`, the fastest on each thread count between.
fn extract_rows(opts: &BenchOpts, hay: &[u8], isas: &[Isa], all: usize) -> io::Result<Vec<Row>> {
    let mut thread_counts = vec![1];
    if all > 1 {
        thread_counts.push(all);
    }
    let mut rows = Vec::new();
    for &threads in &thread_counts {
        for &isa in isas {
            rows.push(extract(opts, hay, isa, threads)?);
        }
    }
    if opts.sweep && all > 2 {
        // The ISA fastest on all threads, on each thread count between.
        let best = rows
            .iter()
            .filter(|r| r.threads == all)
            .min_by(|a, b| a.secs.total_cmp(&b.secs))
            .map_or(isas[0], |r| r.isa);
        for threads in 2..all {
            rows.push(extract(opts, hay, best, threads)?);
        }
        // In thread order (stable: the ISAs stay in their order).
        rows.sort_by_key(|r| r.threads);
    }
    Ok(rows)
}

/// Stage 1 alone with `isa` on one thread: its count is candidates.
fn classify_row(opts: &BenchOpts, hay: &[u8], isa: Isa) -> Row {
    let ex = Extractor::choose(Some(isa.name())).expect("available ISA");
    let (secs, matches) = measure(opts, || {
        let mut out = Vec::with_capacity(1 << 16);
        let mut n = 0u64;
        let mut at = 0;
        while at < hay.len() {
            let end = (at + (32 << 10)).min(hay.len());
            out.clear();
            ex.candidates(hay, at, end, &mut out);
            n += out.len() as u64;
            at = end;
        }
        n
    });
    Row {
        isa,
        threads: 1,
        what: "classify",
        secs,
        matches,
    }
}

/// What the benchmark measured, for its report.
struct Report {
    cpu: String,
    /// Threads of the parallel runs.
    all: usize,
    llc: Option<usize>,
    /// How the input is named.
    source: String,
    bytes: usize,
    /// The URL count of the first extract row.
    expected: u64,
    /// The extract rows' counts differ.
    mismatch: bool,
    /// Memory read bandwidth, GB/s, on 1 and on `all` threads.
    bw1: f64,
    bw_all: f64,
    /// The buffer the bandwidth was read from.
    mem_size: usize,
    rows: Vec<Row>,
}

impl Report {
    /// The throughput of a run of `secs` seconds, GB/s.
    fn gbs(&self, secs: f64) -> f64 {
        self.bytes as f64 / secs / 1e9
    }
}

/// The report as one JSON document.
fn write_json(out: &mut dyn Write, rep: &Report) -> io::Result<()> {
    let rows_json: Vec<serde_json::Value> = rep
        .rows
        .iter()
        .map(|r| {
            let ceiling = if r.threads == 1 { rep.bw1 } else { rep.bw_all };
            serde_json::json!({
                "isa": r.isa.name(),
                "threads": r.threads,
                "stage": r.what,
                "seconds": r.secs,
                "gb_per_s": rep.gbs(r.secs),
                "fraction_of_memory_bandwidth": rep.gbs(r.secs) / ceiling,
                "count": r.matches,
            })
        })
        .collect();
    let doc = serde_json::json!({
        "cpu": rep.cpu,
        "threads": rep.all,
        "llc_bytes": rep.llc,
        "input": rep.source,
        "bytes": rep.bytes,
        "urls": rep.expected,
        "counts_agree": !rep.mismatch,
        "memory_read_gb_per_s": {
            "threads_1": rep.bw1,
            "threads_all": rep.bw_all,
            "buffer_bytes": rep.mem_size,
        },
        "results": rows_json,
    });
    writeln!(out, "{doc}")
}

/// The report as a table.
fn write_text(out: &mut dyn Write, rep: &Report) -> io::Result<()> {
    let Report {
        cpu,
        all,
        llc,
        source,
        bytes,
        expected,
        bw1,
        bw_all,
        mem_size,
        ..
    } = rep;
    writeln!(
        out,
        "urlsift bench: {cpu}, {all} thread(s) for the parallel runs"
    )?;
    writeln!(
        out,
        "input: {source}: {:.1} MiB, {expected} URLs{}",
        *bytes as f64 / (1 << 20) as f64,
        match llc {
            Some(l) if (*bytes as u64) < 2 * *l as u64 => format!(
                " (smaller than 2x the {} MiB last-level cache: partly cache-resident)",
                l >> 20
            ),
            _ => String::new(),
        }
    )?;
    writeln!(
        out,
        "memory read bandwidth ({} MiB read-sum): {bw1:.2} GB/s on 1 thread, {bw_all:.2} GB/s on {all}",
        mem_size >> 20
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "{:<9} {:<7} {:>7} {:>9} {:>8} {:>11} {:>10}",
        "stage", "isa", "threads", "ms", "GB/s", "% of mem bw", "count"
    )?;
    for r in &rep.rows {
        let ceiling = if r.threads == 1 { *bw1 } else { *bw_all };
        writeln!(
            out,
            "{:<9} {:<7} {:>7} {:>9.1} {:>8.3} {:>10.1}% {:>10}",
            r.what,
            r.isa.name(),
            r.threads,
            r.secs * 1e3,
            rep.gbs(r.secs),
            100.0 * rep.gbs(r.secs) / ceiling,
            r.matches,
        )?;
    }
    writeln!(
        out,
        "(classify = stage 1 alone, its count is candidates, not URLs)"
    )?;
    if rep.mismatch {
        writeln!(out, "ERROR: the URL counts differ between configurations")?;
    }
    Ok(())
}

/// The extract stage with `isa` on `threads` threads: one sequential scan
/// on one thread, else [`Finder::scan`] on a pool of `threads`.
fn extract(opts: &BenchOpts, hay: &[u8], isa: Isa, threads: usize) -> io::Result<Row> {
    let ex = Extractor::choose(Some(isa.name())).expect("available ISA");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(io::Error::other)?;
    let (secs, matches) = measure(opts, || {
        let mut n = 0u64;
        if threads == 1 {
            ex.scan(hay, 0, hay.len(), 0, |_| n += 1);
        } else {
            pool.install(|| {
                Finder::from(ex).scan(hay, |_: Found<'_>| {
                    n += 1;
                    true
                })
            });
        }
        n
    });
    Ok(Row {
        isa,
        threads,
        what: "extract",
        secs,
        matches,
    })
}

/// Median time of `f` over at least `opts.reps` passes and `opts.min_time`
/// seconds (at most 50 passes), and the count it returned (the same every time).
fn measure(opts: &BenchOpts, mut f: impl FnMut() -> u64) -> (f64, u64) {
    let mut times = Vec::new();
    let mut count = 0;
    let started = Instant::now();
    let min_time = Duration::from_secs_f64(opts.min_time.max(0.0));
    while times.len() < opts.reps.max(1) || (started.elapsed() < min_time && times.len() < 50) {
        let t = Instant::now();
        count = std::hint::black_box(f());
        times.push(t.elapsed().as_secs_f64());
    }
    (median(&mut times), count)
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if !n.is_multiple_of(2) {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Sequential read bandwidth in GB/s (one thread, `threads` threads): the
/// median of a few read-sums of a `size`-byte buffer.
fn memory_bandwidth(size: usize, threads: usize, opts: &BenchOpts) -> (f64, f64) {
    let words = size / 8;
    // Distinct non-zero contents, so that the pages are really backed.
    let buf: Vec<u64> = (0..words as u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .collect();
    let sum = |s: &[u64]| {
        let mut acc = [0u64; 8];
        let mut it = s.chunks_exact(8);
        for c in &mut it {
            for (a, &x) in acc.iter_mut().zip(c) {
                *a = a.wrapping_add(x);
            }
        }
        it.remainder()
            .iter()
            .fold(acc.iter().fold(0, |a, &b| a ^ b), |a, &b| a.wrapping_add(b))
    };
    let quick = BenchOpts {
        reps: 3,
        min_time: opts.min_time.min(0.3),
        ..opts.clone()
    };
    let (t1, _) = measure(&quick, || sum(std::hint::black_box(&buf)));
    let tn = if threads > 1 {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("thread pool");
        let per = words.div_ceil(threads);
        measure(&quick, || {
            pool.install(|| {
                use rayon::prelude::*;
                std::hint::black_box(&buf)
                    .par_chunks(per)
                    .map(sum)
                    .reduce(|| 0, |a, b| a ^ b)
            })
        })
        .0
    } else {
        t1
    };
    (size as f64 / t1 / 1e9, size as f64 / tn / 1e9)
}

/// The size of the largest data or unified cache, from Linux sysfs.
fn llc_bytes() -> Option<usize> {
    let mut best = None;
    for i in 0..8 {
        let dir = format!("/sys/devices/system/cpu/cpu0/cache/index{i}");
        let Ok(kind) = std::fs::read_to_string(format!("{dir}/type")) else {
            break;
        };
        if kind.trim() == "Instruction" {
            continue;
        }
        let Ok(s) = std::fs::read_to_string(format!("{dir}/size")) else {
            continue;
        };
        let s = s.trim();
        let (num, mult) = match s.as_bytes().last() {
            Some(b'K') => (&s[..s.len() - 1], 1 << 10),
            Some(b'M') => (&s[..s.len() - 1], 1 << 20),
            Some(b'G') => (&s[..s.len() - 1], 1 << 30),
            _ => (s, 1),
        };
        if let Ok(n) = num.parse::<usize>() {
            best = best.max(Some(n * mult));
        }
    }
    best
}

/// The CPU model name (Linux `/proc/cpuinfo`), or the architecture.
fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| {
                    l.starts_with("model name")
                        || l.starts_with("Model")
                        || l.starts_with("CPU part")
                })
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .map_or_else(
            || std::env::consts::ARCH.to_string(),
            |m| format!("{m} ({})", std::env::consts::ARCH),
        )
}

/// A tiny deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, v: &[&'a str]) -> &'a str {
        v[self.below(v.len())]
    }
}

/// Words of the corpus's prose.
const WORDS: &[&str] = &[
    "the", "of", "and", "to", "in", "is", "for", "that", "with", "as", "on", "by", "this", "be",
    "are", "from", "or", "it", "an", "at", "which", "not", "file", "data", "value", "option",
    "error", "output", "version", "support", "default", "system", "release", "fixed", "update",
    "package", "license", "(see", "below)", "e.g.", "i.e.,", "http", "www",
];
/// Top-level domains of the corpus's URLs.
const TLDS: &[&str] = &["com", "org", "net", "io", "de", "example", "dev"];
/// Schemes of the corpus's URLs (https twice as often).
const SCHEMES: &[&str] = &["http://", "https://", "https://", "ftp://", "git://"];
/// Words of the corpus's CJK lines.
const CJK: &[&str] = &[
    "数据",
    "文件",
    "版本",
    "支持",
    "详见",
    "参考",
    "ファイル",
    "データ",
    "说明",
];
/// CJK punctuation.
const PUNCT: &[&str] = &["。", "，", "、", "）", "」", "："];

/// A deterministic corpus of `size` bytes: 4 MiB of generated text (prose with
/// a URL every few hundred bytes, link lists, quoted-printable mail, CJK
/// lines), repeated.
pub fn corpus(size: usize) -> Vec<u8> {
    let mut r = Rng(0x005E_ED0F_u64 | 1);
    let base_len = size.min(4 << 20);
    let mut s = String::with_capacity(base_len + 4096);
    while s.len() < base_len {
        match r.below(20) {
            0 => link_list(&mut r, &mut s),
            1 => quoted_printable(&mut r, &mut s),
            2 => cjk_line(&mut r, &mut s),
            _ => prose(&mut r, &mut s),
        }
    }
    let base = s.into_bytes();
    let mut out = Vec::with_capacity(size);
    while out.len() < size {
        let take = (size - out.len()).min(base.len());
        out.extend_from_slice(&base[..take]);
    }
    out
}

/// A random path segment or host label of 2 to 11 characters, onto `s`.
fn url_segment(r: &mut Rng, s: &mut String) {
    for _ in 0..2 + r.below(10) {
        s.push(b"abcdefghijklmnopqrstuvwxyz0123456789-_."[r.below(39)] as char);
    }
}

/// A random URL: scheme, host, a few segments, sometimes a query or a
/// Wikipedia-style `_(x)`.
fn random_url(r: &mut Rng) -> String {
    let mut s = String::from(r.pick(SCHEMES));
    url_segment(r, &mut s);
    s.push('.');
    s.push_str(r.pick(TLDS));
    for _ in 0..r.below(5) {
        s.push('/');
        url_segment(r, &mut s);
    }
    if r.below(4) == 0 {
        s.push_str("?q=");
        url_segment(r, &mut s);
    }
    if r.below(30) == 0 {
        s.push_str("_(x)");
    }
    s
}

/// A URL-dense link list.
fn link_list(r: &mut Rng, s: &mut String) {
    for _ in 0..1 + r.below(8) {
        let u = random_url(r);
        match r.below(4) {
            0 => s.push_str(&format!("<{u}>\n")),
            1 => s.push_str(&format!("<a href=\"{u}\">link</a>\n")),
            2 => s.push_str(&format!("- {u}\n")),
            _ => s.push_str(&format!("see www.{}.{}/x.\n", "host", r.pick(TLDS))),
        }
    }
}

/// A quoted-printable mail body with a soft break inside a URL.
fn quoted_printable(r: &mut Rng, s: &mut String) {
    let u = random_url(r);
    let cut = u.len() / 2;
    s.push_str(&format!(
        "> Hi,=20\n> the page is {}=\n{} thanks=2E\n",
        &u[..cut],
        &u[cut..]
    ));
}

/// A CJK line, with a URL now and then.
fn cjk_line(r: &mut Rng, s: &mut String) {
    for _ in 0..3 + r.below(10) {
        s.push_str(r.pick(CJK));
        if r.below(6) == 0 {
            s.push_str(&random_url(r));
        }
        s.push_str(r.pick(PUNCT));
    }
    s.push('\n');
}

/// A sentence of prose, a URL per few hundred bytes.
fn prose(r: &mut Rng, s: &mut String) {
    for i in 0..8 + r.below(16) {
        if i > 0 {
            s.push(' ');
        }
        if r.below(60) == 0 {
            let u = random_url(r);
            match r.below(3) {
                0 => s.push_str(&format!("({u})")),
                1 => s.push_str(&format!("\"{u}\"")),
                _ => s.push_str(&u),
            }
        } else {
            s.push_str(r.pick(WORDS));
        }
    }
    s.push_str(".\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FNV-1a, 64-bit: a fingerprint that does not change with the
    /// standard library.
    fn fnv(bytes: &[u8]) -> u64 {
        bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        })
    }

    /// The generated corpus is the same bytes in every build, so bench
    /// figures of two builds compare.
    #[test]
    fn corpus_is_the_same_bytes_in_every_build() {
        let c = corpus(5 << 20);
        assert_eq!(c.len(), 5 << 20);
        assert_eq!(fnv(&c), 13_779_752_995_657_309_374);
    }
}
