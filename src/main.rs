//! The `urlsift` command line: thin wiring over the library.

use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

mod cmd_bench;
mod cmd_uri;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use urlsift::classify::{Classifier, isa_report};
use urlsift::dedup::{KeyLevel, parse_size};
use urlsift::extract::Extractor;
use urlsift::input::Source;
use urlsift::output::run::{RecordWriter, ShardBy};
use urlsift::output::{CountBy, Format, Options, run};

// The allocator: the system one. mimalloc is an opt-in feature
// (`cargo build --release --features mimalloc`) because it did not measure
// faster. hyperfine -w 2 -r 15 on a 64 MiB local corpus
// (build-local-corpus.sh -s 64M; 24,065 URLs, 11,661 distinct normal forms),
// 2 shared cores, both binaries in the same run:
//   --format json                  system 152.9 +- 27.4 ms   mimalloc 164.5 +- 40.1 ms
//   --count-by url --normalize     system 160.8 +- 12.3 ms   mimalloc 180.3 +- 38.8 ms
// (a first run of 6 repetitions: 120.3 vs 145.3 ms and 95.4 vs 121.2 ms). The
// run is bound by the scan, not by allocation: there are few URLs per MiB.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser, Debug)]
#[command(
    name = "urlsift",
    version,
    about = "Find every URL in free text (RFC 3986 Appendix C) and say exactly what each one is.",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    cmd: Option<Cmd>,
    #[command(flatten)]
    scan: ScanArgs,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Print one JSON object per URL: components, host kind, validity, errors.
    Parse {
        /// The URLs.
        #[arg(required = true)]
        urls: Vec<String>,
    },
    /// Print the RFC 3986 section 6 normal form of each URL, one per line.
    Normalize {
        /// Syntax-based normalization only (6.2.2), without the scheme rules (6.2.3).
        #[arg(long)]
        syntax_only: bool,
        /// Drop the fragment.
        #[arg(long)]
        drop_fragment: bool,
        /// The URLs.
        #[arg(required = true)]
        urls: Vec<String>,
    },
    /// Resolve each reference against BASE (RFC 3986 section 5.2), one per line.
    Resolve {
        /// The absolute base URI.
        base: String,
        /// The references.
        #[arg(required = true)]
        refs: Vec<String>,
    },
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff).
    Man,
    /// Per-ISA throughput report for this machine (1 and all threads, vs memory bandwidth).
    Bench(cmd_bench::BenchOpts),
}

#[derive(ValueEnum, Clone, Copy, Debug)]
enum ColorArg {
    Auto,
    Always,
    Never,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
enum FormatArg {
    Text,
    Json,
    Csv,
    Tsv,
    /// Apache Parquet (needs -o; one row per URL with its components).
    Parquet,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
enum DedupKeyArg {
    /// The URL as found.
    Raw,
    /// RFC 3986 6.2.2: case, percent-encoding, dot segments.
    Syntax,
    /// 6.2.2 and 6.2.3: also default port and empty path.
    Scheme,
    /// As scheme, without the fragment.
    NoFragment,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
enum ShardByArg {
    Url,
    Host,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
enum CountByArg {
    Url,
    Host,
    Scheme,
}

#[derive(Args, Debug)]
struct ScanArgs {
    /// Files or directories to scan (directories are walked); none or `-` reads stdin.
    paths: Vec<PathBuf>,
    /// Prefix each URL with its line number.
    #[arg(short = 'n', long)]
    line_number: bool,
    /// Prefix each URL with its byte offset.
    #[arg(short = 'b', long)]
    byte_offset: bool,
    /// Prefix each URL with the file name.
    #[arg(short = 'H', long)]
    with_filename: bool,
    /// Print only the number of URLs in each input.
    #[arg(short = 'c', long)]
    count: bool,
    /// Print nothing; the exit status says whether a URL was found.
    #[arg(short = 'q', long)]
    quiet: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: FormatArg,
    /// Print the RFC 3986 section 6 normal form instead of the URL as found.
    #[arg(long)]
    normalize: bool,
    /// Only URLs that are valid RFC 3986 URIs.
    #[arg(long)]
    strict: bool,
    /// Print each distinct URL once (with --normalize: each distinct normal form).
    #[arg(long)]
    unique: bool,
    /// Print counts per distinct URL, host or scheme, most frequent first.
    #[arg(long, value_enum)]
    count_by: Option<CountByArg>,
    /// What --unique, --count-by url and --shard-by url compare [default: raw; scheme with --normalize].
    #[arg(long, value_enum, value_name = "LEVEL")]
    dedup_key: Option<DedupKeyArg>,
    /// Memory for --unique/--count-by state (e.g. 256M, 4G); past it, sorted runs spill to --temp-dir.
    #[arg(long, value_name = "SIZE", default_value = "1G")]
    max_memory: String,
    /// Directory for spilled runs [default: $TMPDIR or /tmp].
    #[arg(long, value_name = "DIR")]
    temp_dir: Option<PathBuf>,
    /// Write the output to FILE (with --shards: into the directory DIR).
    #[arg(short = 'o', long, value_name = "FILE|DIR")]
    output: Option<PathBuf>,
    /// Split the output into N files (DIR/part-00000.EXT ...) by a hash of --shard-by.
    #[arg(long, value_name = "N", default_value_t = 1)]
    shards: usize,
    /// What --shards partitions on: the URL's --dedup-key form, or its host.
    #[arg(long, value_enum, default_value = "url")]
    shard_by: ShardByArg,
    /// Worker threads (default: one per core).
    #[arg(short = 'j', long, value_name = "N")]
    threads: Option<usize>,
    /// Force an instruction set: auto, scalar, sse2, avx2, avx512, neon (also URLSIFT_ISA).
    #[arg(long, value_name = "ISA")]
    isa: Option<String>,
    /// Read mail: mbox, maildir, .eml, news; scan decoded headers and text parts.
    #[arg(long)]
    mail: bool,
    /// Print a summary on stderr: de-duplication (URLs, distinct, memory, spills); with --mail, messages and parts.
    #[arg(long)]
    stats: bool,
    /// Colour file names and numbers: auto (only on a terminal, unless NO_COLOR is set), always, never.
    #[arg(long, value_enum, value_name = "WHEN", default_value = "auto")]
    color: ColorArg,
    /// Bytes per parallel chunk (for tests; the output never depends on it).
    #[arg(long, value_name = "BYTES", default_value_t = urlsift::parallel::DEFAULT_CHUNK_SIZE)]
    chunk_size: usize,
}

fn main() -> ExitCode {
    let version: &'static str =
        Box::leak(format!("{}\n{}", env!("CARGO_PKG_VERSION"), isa_report()).into_boxed_str());
    let matches = Cli::command().long_version(version).get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    let code = match cli.cmd {
        Some(cmd) => run_uri_cmd(cmd),
        None => scan(&cli.scan),
    };
    ExitCode::from(code)
}

fn run_uri_cmd(cmd: Cmd) -> u8 {
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut err = io::stderr();
    let r = match cmd {
        Cmd::Parse { urls } => cmd_uri::parse_cmd(&urls, &mut out, &mut err),
        Cmd::Normalize {
            syntax_only,
            drop_fragment,
            urls,
        } => cmd_uri::normalize_cmd(&urls, !syntax_only, drop_fragment, &mut out, &mut err),
        Cmd::Resolve { base, refs } => cmd_uri::resolve_cmd(&base, &refs, &mut out, &mut err),
        Cmd::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "urlsift", &mut out);
            Ok(0)
        }
        Cmd::Man => clap_mangen::Man::new(Cli::command())
            .render(&mut out)
            .map(|_| 0),
        Cmd::Bench(opts) => return cmd_bench::bench_cmd(&opts),
    };
    match r.and_then(|code| out.flush().map(|_| code)) {
        Ok(code) => u8::try_from(code).unwrap_or(2),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => 0,
        Err(e) => {
            eprintln!("urlsift: writing output: {e}");
            2
        }
    }
}

fn scan(args: &ScanArgs) -> u8 {
    let stdout = io::stdout();
    let color = match args.color {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => stdout.is_terminal() && std::env::var_os("NO_COLOR").is_none(),
    };
    let parquet = matches!(args.format, FormatArg::Parquet);
    let dedup_key = match args.dedup_key {
        Some(DedupKeyArg::Raw) => KeyLevel::Raw,
        Some(DedupKeyArg::Syntax) => KeyLevel::Syntax,
        Some(DedupKeyArg::Scheme) => KeyLevel::Scheme,
        Some(DedupKeyArg::NoFragment) => KeyLevel::NoFragment,
        None if args.normalize => KeyLevel::Scheme,
        None => KeyLevel::Raw,
    };
    let opts = Options {
        format: match args.format {
            FormatArg::Text => Format::Text,
            // Parquet rows are the JSON objects, decoded (see output::parquet).
            FormatArg::Json | FormatArg::Parquet => Format::Json,
            FormatArg::Csv => Format::Csv,
            FormatArg::Tsv => Format::Tsv,
        },
        line_number: args.line_number,
        byte_offset: args.byte_offset,
        with_filename: args.with_filename,
        normalize: args.normalize || parquet,
        unique: args.unique,
        count_by: args.count_by.map(|c| match c {
            CountByArg::Url => CountBy::Url,
            CountByArg::Host => CountBy::Host,
            CountByArg::Scheme => CountBy::Scheme,
        }),
        dedup_key,
        count: args.count,
        color: color && args.output.is_none(),
        no_header: false,
    };
    let max_memory = match parse_size(&args.max_memory) {
        Ok(n) => n,
        Err(e) => {
            eprintln!("urlsift: --max-memory: {e}");
            return 2;
        }
    };
    if let Err(e) = check_output_args(args, parquet) {
        eprintln!("urlsift: {e}");
        return 2;
    }
    let classifier = match &args.isa {
        Some(name) => Classifier::from_name(name),
        None => Classifier::from_env(),
    };
    let extractor = match classifier {
        Ok(c) => Extractor::with_classifier(c),
        Err(e) => {
            eprintln!("urlsift: {e}");
            return 2;
        }
    };
    if let Some(n) = args.threads
        && let Err(e) = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
    {
        eprintln!("urlsift: threads: {e}");
        return 2;
    }
    let sources = urlsift::input::expand(&args.paths);
    let bar = progress_bar(&sources);
    let inc = |n: u64| {
        if let Some(b) = &bar {
            b.inc(n);
        }
    };
    let mail = urlsift::input::mail::MailRun::default();
    let cfg = run::Config {
        mail: args.mail.then_some(&mail),
        opts,
        quiet: args.quiet,
        strict: args.strict,
        threads: args
            .threads
            .filter(|&n| n > 0)
            .unwrap_or_else(default_threads),
        chunk_size: args.chunk_size,
        extractor,
        progress: bar.as_ref().map(|_| &inc as &(dyn Fn(u64) + Sync)),
        max_memory,
        temp_dir: args.temp_dir.clone(),
        shard_by: match args.shard_by {
            ShardByArg::Url => ShardBy::Url,
            ShardByArg::Host => ShardBy::Host,
        },
    };
    // One buffered writer per output (or shard); output goes out in input order.
    let mut stdout_lock = BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut sink = io::sink();
    let outs: Vec<Box<dyn RecordWriter + '_>> = if args.quiet {
        vec![Box::new(&mut sink)]
    } else if let Some(path) = &args.output {
        let ext = match args.format {
            FormatArg::Text => "txt",
            FormatArg::Json => "jsonl",
            FormatArg::Csv => "csv",
            FormatArg::Tsv => "tsv",
            FormatArg::Parquet => "parquet",
        };
        match open_outputs(path, args.shards, ext, args.mail) {
            Ok(o) => o,
            Err(e) => {
                eprintln!("urlsift: {e}");
                return 2;
            }
        }
    } else {
        vec![Box::new(&mut stdout_lock)]
    };
    let summary = run::run_to(&cfg, &sources, outs, &mut io::stderr());
    if args.stats {
        if let Some(d) = &summary.dedup {
            eprintln!("urlsift: dedup: {d}");
        }
        if args.mail {
            eprintln!(
                "urlsift: mail: {}",
                mail.stats.lock().map(|s| s.to_string()).unwrap_or_default()
            );
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    // A closed pipe (`urlsift big | head`) ends the run quietly.
    if let Some(e) = &summary.write_error
        && e.kind() != io::ErrorKind::BrokenPipe
    {
        match &args.output {
            Some(p) => eprintln!("urlsift: writing {}: {e}", p.display()),
            None => eprintln!("urlsift: writing output: {e}"),
        }
    }
    if let Some(e) = &summary.dedup_error {
        eprintln!("urlsift: {e}");
    }
    summary.exit_code(args.quiet)
}

/// Refuse option combinations that cannot work, before scanning.
fn check_output_args(args: &ScanArgs, parquet: bool) -> Result<(), String> {
    let table = args.count || args.count_by.is_some();
    if args.shards == 0 {
        return Err("--shards must be at least 1".into());
    }
    if parquet && args.output.is_none() {
        return Err("--format parquet needs -o FILE (or -o DIR with --shards)".into());
    }
    if parquet && table {
        return Err(
            "--format parquet writes one row per URL; -c and --count-by print tables".into(),
        );
    }
    if args.shards > 1 {
        if args.output.is_none() {
            return Err("--shards needs -o DIR".into());
        }
        if table || args.quiet {
            return Err("--shards splits records; -c, -q and --count-by print none".into());
        }
    }
    Ok(())
}

/// The output file, or with `shards` > 1 the shard files
/// `DIR/part-00000.EXT` (the directory is created).
fn open_outputs(
    path: &std::path::Path,
    shards: usize,
    ext: &str,
    mail: bool,
) -> Result<Vec<Box<dyn RecordWriter + 'static>>, String> {
    let parquet = ext == "parquet";
    let open = |p: &std::path::Path| -> Result<Box<dyn RecordWriter>, String> {
        let f = std::fs::File::create(p).map_err(|e| format!("{}: {e}", p.display()))?;
        if parquet {
            #[cfg(feature = "parquet")]
            {
                let w = urlsift::output::parquet::ParquetWriter::new(BufWriter::new(f), mail)
                    .map_err(|e| format!("{}: {e}", p.display()))?;
                return Ok(Box::new(w));
            }
            #[cfg(not(feature = "parquet"))]
            {
                let _ = mail;
                return Err("this urlsift was built without the parquet feature".into());
            }
        }
        Ok(Box::new(BufWriter::with_capacity(1 << 16, f)))
    };
    if shards <= 1 {
        return Ok(vec![open(path)?]);
    }
    std::fs::create_dir_all(path).map_err(|e| format!("{}: {e}", path.display()))?;
    (0..shards)
        .map(|i| open(&path.join(format!("part-{i:05}.{ext}"))))
        .collect()
}

/// A progress bar on stderr, only when stderr is a terminal and the input is
/// large (more than 64 MiB of files in all).
fn progress_bar(sources: &[Source]) -> Option<indicatif::ProgressBar> {
    const LARGE: u64 = 64 << 20;
    if !io::stderr().is_terminal() {
        return None;
    }
    let total: u64 = sources.iter().map(Source::size).sum();
    if total <= LARGE {
        return None;
    }
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(total),
        indicatif::ProgressDrawTarget::stderr(),
    );
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{bar:40} {binary_bytes}/{binary_total_bytes} {binary_bytes_per_sec} eta {eta}",
    ) {
        bar.set_style(style);
    }
    Some(bar)
}

/// The number of threads rayon's global pool gets when `--threads` is not
/// given (`RAYON_NUM_THREADS`, else one per core), found without starting
/// the pool: a run over small inputs never needs it, and its idle threads
/// spin for a while before they sleep.
fn default_threads() -> usize {
    std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&n| n > 0)
        .or_else(|| std::thread::available_parallelism().ok().map(|n| n.get()))
        .unwrap_or(1)
}
