//! The `urlsift` command line: thin wiring over the library.
// Diagnostics go through `urlsift_core::report!`, which never panics on a closed stderr.
#![warn(clippy::print_stderr, clippy::print_stdout)]

use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

mod cmd_bench;
mod cmd_man;
mod cmd_uri;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use urlsift_core::classify::{Classifier, Isa, isa_report};
use urlsift_core::extract::Extractor;
use urlsift_core::report;
use urlsift_printer::dedup::KeyLevel;
use urlsift_printer::{CountBy, Format, Options};
use urlsift_search::input::Source;
use urlsift_search::run;
use urlsift_search::run::{RecordWriter, ShardBy};

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
    /// Print one JSON object per URL (fields as in --format json): components,
    /// host kind, validity, errors.
    Parse {
        /// The URLs [default: standard input, one per line].
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
        /// The URLs [default: standard input, one per line].
        urls: Vec<String>,
    },
    /// Resolve each reference against BASE (RFC 3986 section 5.2), one per line.
    Resolve {
        /// The absolute base URI.
        base: String,
        /// The references [default: standard input, one per line].
        refs: Vec<String>,
    },
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff): `urlsift man | man -l -`.
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
    /// Prefix each URL with the file name (the default with several inputs or a directory).
    #[arg(short = 'H', long, overrides_with = "no_filename")]
    with_filename: bool,
    /// Never prefix file names (grep's -h).
    #[arg(short = 'I', long, overrides_with = "with_filename")]
    no_filename: bool,
    /// Print only the names of inputs with a URL (grep's -l).
    #[arg(short = 'l', long, conflicts_with = "files_without_match")]
    files_with_matches: bool,
    /// Print only the names of inputs without a URL (grep's -L).
    #[arg(long)]
    files_without_match: bool,
    /// After a file name print a NUL byte instead of `:` or a newline (grep's -Z);
    /// --files-from then reads NUL-separated paths.
    #[arg(short = '0', long)]
    null: bool,
    /// Take at most NUM URLs from each input (grep's -m).
    #[arg(short = 'm', long, value_name = "NUM")]
    max_count: Option<u64>,
    /// Only URLs with one of these schemes, e.g. http,https (`www.` URLs are http).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    scheme: Vec<String>,
    /// Only files whose path matches GLOB in directory walks; `!GLOB` excludes (repeatable, as ripgrep's -g).
    #[arg(short = 'g', long = "glob", value_name = "GLOB")]
    globs: Vec<String>,
    /// Descend at most NUM levels into directories (1: their own files only).
    #[arg(long, value_name = "NUM")]
    max_depth: Option<usize>,
    /// Read the paths to scan from FILE (`-`: standard input), one per line (NUL-separated with -0).
    #[arg(long, value_name = "FILE")]
    files_from: Option<PathBuf>,
    /// In directory walks, skip what .gitignore, .ignore and git's exclude files name.
    #[arg(long)]
    ignore_vcs: bool,
    /// Suppress the messages about inputs (unreadable, not found) and warnings; not the exit status (grep's -s).
    #[arg(short = 's', long)]
    no_messages: bool,
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
    /// What --shards partitions on: the URL's --dedup-key form, or its host [default: url].
    #[arg(long, value_enum)]
    shard_by: Option<ShardByArg>,
    /// Worker threads (default: one per core).
    #[arg(short = 'j', long, value_name = "N")]
    threads: Option<usize>,
    /// Force an instruction set: auto, scalar, sse2, avx2, avx512, neon (also URLSIFT_ISA).
    #[arg(long, value_name = "ISA")]
    isa: Option<String>,
    /// Read mail: mbox, maildir, .eml, news; scan decoded headers and text parts.
    #[arg(long)]
    mail: bool,
    /// The base URI of HTML inputs, and of web archive records that have no
    /// WARC-Target-URI (a <base href> in the page comes first).
    #[arg(long, value_name = "URI")]
    base: Option<String>,
    /// Read every input as HTML: URL attributes resolved, text between tags
    /// scanned after entities are decoded (default: inputs that sniff as HTML).
    #[arg(long, overrides_with = "no_html")]
    html: bool,
    /// Read no input as HTML: the text rules only (web archives still are).
    #[arg(long, overrides_with = "html")]
    no_html: bool,
    /// Print a summary on stderr: de-duplication (URLs, distinct, memory, spills); with --mail, messages and parts.
    #[arg(long)]
    stats: bool,
    /// Colour file names and numbers: auto (only on a terminal, unless NO_COLOR is set), always, never.
    #[arg(long, value_enum, value_name = "WHEN", default_value = "auto")]
    color: ColorArg,
    /// Never memory-map files: read them as streams. A file truncated by
    /// another program while urlsift maps it ends the run with SIGBUS; use
    /// this for files that may change during the run.
    #[arg(long)]
    no_mmap: bool,
    /// Size of a parallel chunk, e.g. 64K or 2M (for tests; the output never depends on it).
    #[arg(
        long,
        value_name = "SIZE",
        value_parser = parse_size,
        default_value_t = urlsift_core::parallel::DEFAULT_CHUNK_SIZE
    )]
    chunk_size: usize,
}

fn main() -> ExitCode {
    // mail-parser panics on some malformed messages; the mail reader catches
    // that and reports the message as a problem of its own, so that panic's
    // message is not shown. Every other panic is shown as usual.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if info
            .location()
            .is_some_and(|l| l.file().contains("mail-parser"))
        {
            return;
        }
        default_hook(info);
    }));
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
    let mut stdin = io::stdin().lock();
    let r = match cmd {
        Cmd::Parse { urls } => {
            let refs = cmd_uri::Refs::or_lines(&urls, &mut stdin);
            cmd_uri::parse_cmd(refs, &mut out, &mut err)
        }
        Cmd::Normalize {
            syntax_only,
            drop_fragment,
            urls,
        } => {
            let refs = cmd_uri::Refs::or_lines(&urls, &mut stdin);
            cmd_uri::normalize_cmd(refs, !syntax_only, drop_fragment, &mut out, &mut err)
        }
        Cmd::Resolve { base, refs } => {
            let refs = cmd_uri::Refs::or_lines(&refs, &mut stdin);
            cmd_uri::resolve_cmd(&base, refs, &mut out, &mut err)
        }
        Cmd::Completions { shell } => {
            // clap_complete panics when its writer fails (a closed pipe):
            // generate into memory, then write like any other output.
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "urlsift", &mut script);
            out.write_all(&script).map(|_| 0)
        }
        Cmd::Man => cmd_man::render(Cli::command(), &mut out).map(|_| 0),
        Cmd::Bench(opts) => return cmd_bench::bench_cmd(&opts),
    };
    match r.and_then(|code| out.flush().map(|_| code)) {
        Ok(code) => u8::try_from(code).unwrap_or(2),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => 0,
        Err(e) => {
            report!("writing output: {e}");
            2
        }
    }
}

fn scan(args: &ScanArgs) -> u8 {
    let stdout = io::stdout();
    urlsift_core::diag::set_quiet(args.no_messages);
    let mut paths = args.paths.clone();
    if let Some(f) = &args.files_from {
        let list = if f.as_os_str() == "-" {
            urlsift_search::input::read_path_list(io::stdin().lock(), args.null)
        } else {
            std::fs::File::open(f).and_then(|r| urlsift_search::input::read_path_list(r, args.null))
        };
        match list {
            Ok(v) => paths.extend(v),
            Err(e) => {
                report!("--files-from {}: {e}", f.display());
                return 2;
            }
        }
    }
    let walk = urlsift_search::input::WalkOptions {
        globs: args.globs.clone(),
        max_depth: args.max_depth,
        ignore_vcs: args.ignore_vcs,
    };
    let sources = if args.files_from.is_some() && paths.is_empty() {
        Vec::new() // an empty list: nothing to scan (not standard input)
    } else {
        match urlsift_search::input::expand_with(&paths, &walk) {
            Ok(s) => s,
            Err(e) => {
                report!("{e}");
                return 2;
            }
        }
    };
    // File names by default with several inputs or a directory, as grep.
    let with_filename = !args.no_filename
        && (args.with_filename || sources.len() > 1 || paths.iter().any(|p| p.is_dir()));
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
        with_filename,
        null: args.null,
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
            report!("--max-memory: {e}");
            return 2;
        }
    };
    if let Err(e) = check_output_args(args, parquet) {
        report!("{e}");
        return 2;
    }
    let classifier = match &args.isa {
        Some(name) => Classifier::from_name(name),
        None => Classifier::from_env(),
    };
    let extractor = match classifier {
        Ok(c) => {
            // One choice for both engines: `--isa scalar` runs the URI
            // engine's span kernels as scalar code too.
            urlsift_uri::use_scalar_kernels(c.isa() == Isa::Scalar);
            Extractor::with_classifier(c)
        }
        Err(e) => {
            report!("{e}");
            return 2;
        }
    };
    if let Some(n) = args.threads.filter(|&n| n > 0)
        && let Err(e) = rayon::ThreadPoolBuilder::new()
            .num_threads(n.min(parallel_work(&sources, args.chunk_size, n)))
            .build_global()
    {
        report!("threads: {e}");
        return 2;
    }
    let bar = progress_bar(&sources);
    let inc = |n: u64| {
        if let Some(b) = &bar {
            b.inc(n);
        }
    };
    let mail = urlsift_mail::MailRun::default();
    let cfg = run::Config {
        mail: args.mail.then_some(&mail),
        base: args.base.clone(),
        html: if args.html {
            run::HtmlMode::Always
        } else if args.no_html {
            run::HtmlMode::Never
        } else {
            run::HtmlMode::Auto
        },
        max_html: urlsift_search::web::MAX_HTML,
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
            Some(ShardByArg::Url) | None => ShardBy::Url,
            Some(ShardByArg::Host) => ShardBy::Host,
        },
        mmap: !args.no_mmap,
        max_count: args.max_count,
        schemes: args
            .scheme
            .iter()
            .map(|s| s.trim().to_ascii_lowercase())
            .collect(),
        list: if args.files_with_matches {
            Some(run::List::WithMatches)
        } else if args.files_without_match {
            Some(run::List::WithoutMatch)
        } else {
            None
        },
    };
    // One buffered writer per output (or shard); output goes out in input order.
    let mut stdout_lock = BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut sink = io::sink();
    let mut outputs = None;
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
        match open_outputs(path, args.shards, ext, args.mail, &sources) {
            Ok((o, files)) => {
                outputs = Some(files);
                o
            }
            Err(e) => {
                report!("{e}");
                return 2;
            }
        }
    } else {
        vec![Box::new(&mut stdout_lock)]
    };
    let mut quiet_errors = io::sink();
    let mut stderr = io::stderr();
    let err: &mut dyn Write = if args.no_messages {
        &mut quiet_errors
    } else {
        &mut stderr
    };
    let summary = run::run_to(&cfg, &sources, outs, err);
    if args.no_messages
        && let Some(d) = &summary.died
    {
        // -s silences messages about inputs, never an internal error.
        let _ = writeln!(io::stderr(), "urlsift: {d}");
    }
    let written =
        summary.write_error.is_none() && summary.dedup_error.is_none() && summary.died.is_none();
    let mut commit_failed = false;
    if let Some(files) = outputs.take()
        && let Err(e) = files.commit(written)
    {
        report!("{e}");
        commit_failed = true;
    }
    if args.stats {
        if let Some(d) = &summary.dedup {
            report!("dedup: {d}");
        }
        if args.mail {
            report!(
                "mail: {}",
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
            Some(p) => report!("writing {}: {e}", p.display()),
            None => report!("writing output: {e}"),
        }
    }
    if let Some(e) = &summary.dedup_error {
        report!("{e}");
    }
    if commit_failed {
        return 2;
    }
    summary.exit_code(args.quiet)
}

/// Refuse option combinations that cannot work, before scanning: a flag
/// is honoured or refused, never silently ignored.
fn check_output_args(args: &ScanArgs, parquet: bool) -> Result<(), String> {
    let table = args.count || args.count_by.is_some();
    let csv = matches!(args.format, FormatArg::Csv | FormatArg::Tsv);
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
    if args.shard_by.is_some() && args.shards <= 1 {
        return Err("--shard-by needs --shards N (N > 1)".into());
    }
    let what = if args.count { "-c" } else { "--count-by" };
    if table {
        if args.count && args.count_by.is_some() {
            return Err("-c counts URLs per input; --count-by counts per key: use one".into());
        }
        if args.unique {
            return Err(format!(
                "{what} prints counts, --unique prints URLs: use one (--count-by url counts each distinct URL)"
            ));
        }
        for (on, flag) in [(args.line_number, "-n"), (args.byte_offset, "-b")] {
            if on {
                return Err(format!(
                    "{what} prints counts, which have no {flag} position"
                ));
            }
        }
        if csv {
            return Err(format!(
                "{what} prints text or JSON (--format json), not CSV/TSV"
            ));
        }
    }
    if args.count_by.is_some() && args.with_filename {
        return Err("--count-by counts over every input; -H has no file to name".into());
    }
    if args.count && args.normalize {
        return Err(
            "-c counts URLs; --normalize changes no count (use --count-by url --normalize)".into(),
        );
    }
    let by_url = matches!(args.count_by, Some(CountByArg::Url));
    let sharded_by_url = args.shards > 1 && !matches!(args.shard_by, Some(ShardByArg::Host));
    if args.dedup_key.is_some() && !(args.unique || by_url || sharded_by_url) {
        return Err(
            "--dedup-key sets what --unique, --count-by url and --shards compare; none is given"
                .into(),
        );
    }
    if args.html && args.mail {
        return Err(
            "--mail reads the HTML parts of mail as HTML; --html is for other inputs".into(),
        );
    }
    if args.stats && !(args.unique || args.count_by.is_some() || args.mail) {
        return Err("--stats reports on --unique, --count-by and --mail; none is given".into());
    }
    let list = if args.files_with_matches {
        Some("-l")
    } else if args.files_without_match {
        Some("--files-without-match")
    } else {
        None
    };
    if let Some(l) = list {
        let other = [
            (args.count, "-c"),
            (args.count_by.is_some(), "--count-by"),
            (args.unique, "--unique"),
            (args.line_number, "-n"),
            (args.byte_offset, "-b"),
            (args.normalize, "--normalize"),
            (args.shards > 1, "--shards"),
            (!matches!(args.format, FormatArg::Text), "--format"),
        ];
        if let Some((_, flag)) = other.iter().find(|(on, _)| *on) {
            return Err(format!("{l} prints file names; {flag} shapes URLs"));
        }
    }
    if args.null && !matches!(args.format, FormatArg::Text) {
        return Err("-0 ends file names in text output; JSON, CSV and Parquet quote them".into());
    }
    if args
        .files_from
        .as_deref()
        .is_some_and(|f| f.as_os_str() == "-")
        && args.paths.iter().any(|p| p.as_os_str() == "-")
    {
        return Err("--files-from - reads standard input: it cannot be an input too".into());
    }
    if args.quiet {
        let printing = [
            (args.output.is_some(), "-o"),
            (args.count, "-c"),
            (args.count_by.is_some(), "--count-by"),
            (args.unique, "--unique"),
            (!matches!(args.format, FormatArg::Text), "--format"),
        ];
        if let Some((_, flag)) = printing.iter().find(|(on, _)| *on) {
            return Err(format!("-q prints nothing; {flag} shapes output"));
        }
    }
    Ok(())
}

/// The outputs of a run, written under temporary names in their directory
/// and renamed into place by [`Outputs::commit`] at the end: a reader never
/// sees a half-written output, and a run that fails leaves the old one.
struct Outputs {
    /// Each temporary file and where it goes.
    pending: Vec<(tempfile::TempPath, PathBuf)>,
    /// Shard files of an earlier run that this run does not write.
    stale: Vec<PathBuf>,
}

impl Outputs {
    /// Rename every output into place (with `ok`), or remove them all.
    fn commit(self, ok: bool) -> Result<(), String> {
        if !ok {
            return Ok(()); // the temporary files are removed on drop
        }
        for (tmp, dest) in self.pending {
            tmp.persist(&dest)
                .map_err(|e| format!("{}: {}", dest.display(), e.error))?;
        }
        for p in self.stale {
            std::fs::remove_file(&p).map_err(|e| format!("{}: {e}", p.display()))?;
        }
        Ok(())
    }
}

/// The identity of a file (device and inode), following links.
fn file_id(m: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (m.dev(), m.ino())
}

/// The identity of every input that exists (standard input included).
fn input_ids(sources: &[Source]) -> Vec<((u64, u64), String)> {
    use std::os::fd::AsFd;
    sources
        .iter()
        .filter_map(|src| {
            let meta = match src.path() {
                Some(p) => std::fs::metadata(p).ok()?,
                None => {
                    let fd = io::stdin().as_fd().try_clone_to_owned().ok()?;
                    std::fs::File::from(fd).metadata().ok()?
                }
            };
            Some((file_id(&meta), src.name()))
        })
        .collect()
}

/// A temporary file in `dir`, with the permissions of `like` if it exists
/// (else those a new file gets).
fn temp_in(dir: &std::path::Path, like: &std::path::Path) -> io::Result<tempfile::NamedTempFile> {
    use std::os::unix::fs::PermissionsExt;
    let perms = match std::fs::metadata(like) {
        Ok(m) => m.permissions(),
        Err(_) => std::fs::Permissions::from_mode(0o666),
    };
    tempfile::Builder::new()
        .prefix(".urlsift-")
        .suffix(".tmp")
        .permissions(perms)
        .tempfile_in(dir)
}

/// A shard file name of ours: `part-NNNNN.EXT`.
fn is_shard_name(name: &str) -> bool {
    let Some(rest) = name.strip_prefix("part-") else {
        return false;
    };
    let (num, ext) = rest.split_once('.').unwrap_or((rest, ""));
    num.len() == 5
        && num.bytes().all(|b| b.is_ascii_digit())
        && matches!(ext, "txt" | "jsonl" | "csv" | "tsv" | "parquet")
}

/// The output file, or with `shards` > 1 the shard files
/// `DIR/part-00000.EXT` (the directory is created; it may hold only the
/// shard files of an earlier run, which this run replaces). An output that
/// is also an input is refused.
fn open_outputs(
    path: &std::path::Path,
    shards: usize,
    ext: &str,
    mail: bool,
    sources: &[Source],
) -> Result<(Vec<Box<dyn RecordWriter + 'static>>, Outputs), String> {
    let parquet = ext == "parquet";
    let inputs = input_ids(sources);
    let shown = |p: &std::path::Path, e: io::Error| format!("{}: {e}", p.display());
    let writer =
        |f: std::fs::File, dest: &std::path::Path| -> Result<Box<dyn RecordWriter>, String> {
            if parquet {
                #[cfg(feature = "parquet")]
                {
                    let w = urlsift_printer::parquet::ParquetWriter::new(BufWriter::new(f), mail)
                        .map_err(|e| format!("{}: {e}", dest.display()))?;
                    return Ok(Box::new(w));
                }
                #[cfg(not(feature = "parquet"))]
                {
                    let _ = (mail, f, dest);
                    return Err("this urlsift was built without the parquet feature".into());
                }
            }
            Ok(Box::new(BufWriter::with_capacity(1 << 16, f)))
        };
    let open =
        |dest: &std::path::Path| -> Result<(Box<dyn RecordWriter>, tempfile::TempPath), String> {
            if let Ok(m) = std::fs::metadata(dest) {
                if m.is_dir() {
                    return Err(format!("{}: is a directory", dest.display()));
                }
                if let Some((_, name)) = inputs.iter().find(|(id, _)| *id == file_id(&m)) {
                    return Err(format!("input file {name} is also the output"));
                }
            }
            let dir = match dest.parent() {
                Some(d) if !d.as_os_str().is_empty() => d,
                _ => std::path::Path::new("."),
            };
            let (f, tmp) = temp_in(dir, dest).map_err(|e| shown(dest, e))?.into_parts();
            Ok((writer(f, dest)?, tmp))
        };
    let mut outs = Vec::new();
    let mut pending = Vec::new();
    let mut stale = Vec::new();
    if shards <= 1
        && let Ok(m) = std::fs::metadata(path)
        && !m.is_file()
        && !m.is_dir()
    {
        // A device, a FIFO or a socket (`-o /dev/null`): written as it is;
        // only a regular file is replaced by a rename.
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|e| shown(path, e))?;
        outs.push(writer(f, path)?);
        return Ok((outs, Outputs { pending, stale }));
    }
    if shards <= 1 {
        // Through a link: replace the file it names, keep the link.
        let dest = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let (w, tmp) = open(&dest)?;
        outs.push(w);
        pending.push((tmp, dest));
        return Ok((outs, Outputs { pending, stale }));
    }
    std::fs::create_dir_all(path).map_err(|e| shown(path, e))?;
    let dir = std::fs::canonicalize(path).map_err(|e| shown(path, e))?;
    for src in sources {
        if let Some(p) = src.path()
            && std::fs::canonicalize(p).is_ok_and(|c| c.starts_with(&dir))
        {
            return Err(format!(
                "input file {} is in the output directory {}",
                src.name(),
                path.display()
            ));
        }
    }
    let names: Vec<PathBuf> = (0..shards)
        .map(|i| path.join(format!("part-{i:05}.{ext}")))
        .collect();
    for entry in std::fs::read_dir(path).map_err(|e| shown(path, e))? {
        let entry = entry.map_err(|e| shown(path, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(".urlsift-") {
            continue; // a temporary file of a run that did not finish
        }
        if !is_shard_name(&name) {
            return Err(format!(
                "{}: holds {name}, which urlsift did not write; give an empty or new directory",
                path.display()
            ));
        }
        let p = path.join(&name);
        if !names.contains(&p) {
            stale.push(p);
        }
    }
    for dest in names {
        let (w, tmp) = open(&dest)?;
        outs.push(w);
        pending.push((tmp, dest));
    }
    Ok((outs, Outputs { pending, stale }))
}

/// Parse a size such as `256M`, `1G`, `512KiB` or `1000000` (bytes; K, M, G
/// and T are powers of 1024), for `--max-memory` and `--chunk-size`.
fn parse_size(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let t = t
        .strip_suffix("iB")
        .or_else(|| t.strip_suffix('B'))
        .unwrap_or(t);
    let (num, mult) = match t.chars().last().map(|c| c.to_ascii_uppercase()) {
        Some('K') => (&t[..t.len() - 1], 1u64 << 10),
        Some('M') => (&t[..t.len() - 1], 1 << 20),
        Some('G') => (&t[..t.len() - 1], 1 << 30),
        Some('T') => (&t[..t.len() - 1], 1 << 40),
        _ => (t, 1),
    };
    let n: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("invalid size {s:?} (use e.g. 256M, 2G)"))?;
    if !n.is_finite() || n < 0.0 {
        return Err(format!("invalid size {s:?}"));
    }
    Ok((n * mult as f64).min(usize::MAX as f64) as usize)
}

/// How many chunks the inputs offer to scan in parallel, counted up to
/// `cap`: a file's size in chunks, and a block's worth for a stream
/// (standard input, a pipe, a compressed file). `-j` never starts more
/// threads than this.
fn parallel_work(sources: &[Source], chunk_size: usize, cap: usize) -> usize {
    let chunk = chunk_size.max(1) as u64;
    let block = (urlsift_core::parallel::DEFAULT_BLOCK_SIZE as u64).div_ceil(chunk);
    let mut work = 0u64;
    for src in sources {
        if work >= cap as u64 {
            break;
        }
        work += match src.path() {
            None => block,
            Some(p) => match std::fs::metadata(p) {
                Ok(m) if m.is_file() => {
                    let mut head = [0u8; 4];
                    let n = std::fs::File::open(p)
                        .and_then(|mut f| io::Read::read(&mut f, &mut head))
                        .unwrap_or(0);
                    let compressed = urlsift_search::input::sniff(&head[..n])
                        != urlsift_search::input::Encoding::Plain;
                    let whole = m.len().div_ceil(chunk).max(1);
                    if compressed { whole.max(block) } else { whole }
                }
                Ok(_) => block,
                Err(_) => 1,
            },
        };
    }
    usize::try_from(work).unwrap_or(usize::MAX).max(1)
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

#[cfg(test)]
mod size_tests {
    use super::parse_size;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("256M"), Ok(256 << 20));
        assert_eq!(parse_size("1.5GiB"), Ok(3 << 29));
        assert_eq!(parse_size("1000000"), Ok(1_000_000));
        assert_eq!(parse_size("512KiB"), Ok(512 << 10));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("-1M").is_err());
    }
}
