//! The `urlsift` command line: thin wiring over the library.
// Diagnostics go through `urlsift_core::report!` (messages about inputs, which `-s` silences) and
// `report_error!` (what fails the run itself); neither panics on a closed stderr.
#![warn(clippy::print_stderr, clippy::print_stdout)]

use std::io::{self, BufWriter, IsTerminal, Write};
use std::process::ExitCode;

mod args;
mod cmd_bench;
mod cmd_man;
mod cmd_uri;
mod outputs;
mod stdout;

use args::{
    Cli, Cmd, ColorArg, CountByArg, DedupKeyArg, FormatArg, ScanArgs, ShardByArg, parse_size,
};
use clap::{CommandFactory, FromArgMatches};
use outputs::{check_output_args, open_outputs};
use urlsift_core::{Extractor, Isa, isa_report, report_error};
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

fn main() -> ExitCode {
    let version: &'static str = Box::leak(
        format!(
            "{}\n{}\npublic suffix list: {}",
            env!("CARGO_PKG_VERSION"),
            isa_report(),
            urlsift_keys::psl_version()
        )
        .into_boxed_str(),
    );
    let matches = match Cli::command().long_version(version).try_get_matches() {
        Ok(m) => m,
        // --help and --version print on standard output.
        Err(e) if !e.use_stderr() && stdout::closed() => {
            report_error!("writing output: {}", stdout::closed_error());
            return ExitCode::from(2);
        }
        Err(e) => e.exit(),
    };
    let mut cli = match Cli::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    if cli.scan.output.as_deref() == Some(std::path::Path::new("-")) {
        cli.scan.output = None; // `--output -`: standard output, as `-` is standard input
    }
    let code = match cli.cmd {
        Some(cmd) => run_uri_cmd(cmd),
        None => scan(&cli.scan),
    };
    ExitCode::from(code)
}

fn run_uri_cmd(cmd: Cmd) -> u8 {
    let mut out = BufWriter::new(stdout::Stdout::lock());
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
            dedup_key,
            base,
            urls,
        } => {
            let refs = cmd_uri::Refs::or_lines(&urls, &mut stdin);
            match dedup_key {
                Some(level) => {
                    cmd_uri::key_cmd(refs, key_level(level), base.as_deref(), &mut out, &mut err)
                }
                None => {
                    cmd_uri::normalize_cmd(refs, !syntax_only, drop_fragment, &mut out, &mut err)
                }
            }
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
            report_error!("writing output: {e}");
            2
        }
    }
}

/// `urlsift [OPTIONS] [PATHS]`: the arguments resolved into the inputs and
/// the run's configuration, the outputs opened, the run, then its report;
/// the exit status.
fn scan(args: &ScanArgs) -> u8 {
    let started = std::time::Instant::now();
    urlsift_core::diag::set_quiet(args.no_messages);
    let inputs = match Inputs::gather(args) {
        Ok(i) => i,
        Err(e) => {
            report_error!("{e}");
            return 2;
        }
    };
    let opts = output_options(args, &inputs);
    let engine = match Engine::resolve(args, &inputs.sources) {
        Ok(e) => e,
        Err(e) => {
            report_error!("{e}");
            return 2;
        }
    };
    let bar = if args.no_progress {
        None
    } else {
        progress_bar(&inputs.sources)
    };
    let inc = |n: u64| {
        if let Some(b) = &bar {
            b.inc(n);
        }
    };
    let mail = urlsift_mail::MailRun::default();
    let cfg = run::Config {
        mail: args.mail.then_some(&mail),
        progress: bar.as_ref().map(|_| &inc as &(dyn Fn(u64) + Sync)),
        ..run_config(args, opts, engine)
    };
    // One buffered writer per output (or shard); output goes out in input order.
    let mut stdout_lock = BufWriter::with_capacity(1 << 16, stdout::Stdout::lock());
    let mut sink = io::sink();
    let (outs, outputs) = if args.quiet {
        (
            vec![Box::new(&mut sink) as Box<dyn RecordWriter + '_>],
            None,
        )
    } else if let Some(path) = &args.output {
        let ext = output_extension(args.format);
        match open_outputs(path, args.shards, ext, args.mail, &inputs.sources) {
            Ok((o, files)) => (o, Some(files)),
            Err(e) => {
                report_error!("{e}");
                return 2;
            }
        }
    } else {
        (
            vec![Box::new(&mut stdout_lock) as Box<dyn RecordWriter + '_>],
            None,
        )
    };
    let mut quiet_errors = io::sink();
    let mut stderr = io::stderr();
    let err: &mut dyn Write = if args.no_messages {
        &mut quiet_errors
    } else {
        &mut stderr
    };
    let summary = run::run_to(&cfg, &inputs.sources, outs, err);
    let done = Done {
        summary: &summary,
        inputs: &inputs,
        mail: &mail,
        started,
    };
    report(args, &done, outputs, bar)
}

/// The inputs of a run: the paths given (and read from `--files-from`),
/// walked and filtered.
struct Inputs {
    /// The inputs to scan, in order.
    sources: Vec<Source>,
    /// Files `--max-filesize` left out.
    skipped: u64,
    /// A directory was given: its files are named as with several inputs.
    any_dir: bool,
}

impl Inputs {
    /// The inputs `args` name; the message of what went wrong reading
    /// `--files-from` or walking the paths.
    fn gather(args: &ScanArgs) -> Result<Inputs, String> {
        let mut paths = args.paths.clone();
        if let Some(f) = &args.files_from {
            let list = if f.as_os_str() == "-" {
                urlsift_search::input::read_path_list(io::stdin().lock(), args.null)
            } else {
                std::fs::File::open(f)
                    .and_then(|r| urlsift_search::input::read_path_list(r, args.null))
            };
            paths.extend(list.map_err(|e| format!("--files-from {}: {e}", f.display()))?);
        }
        let walk = urlsift_search::input::WalkOptions {
            globs: args.globs.clone(),
            max_depth: args.max_depth,
            ignore_vcs: args.ignore_vcs,
            follow_links: args.follow,
        };
        let mut sources = if args.files_from.is_some() && paths.is_empty() {
            Vec::new() // an empty list: nothing to scan (not standard input)
        } else {
            urlsift_search::input::expand_with(&paths, &walk).map_err(|e| e.to_string())?
        };
        let skipped = match args.max_filesize {
            Some(max) => skip_large(&mut sources, max as u64),
            None => 0,
        };
        Ok(Inputs {
            sources,
            skipped,
            any_dir: paths.iter().any(|p| p.is_dir()),
        })
    }
}

/// The output options `args` ask for, over `inputs`.
fn output_options(args: &ScanArgs, inputs: &Inputs) -> Options {
    // File names by default with several inputs or a directory, as grep.
    let with_filename = args.vimgrep
        || (!args.no_filename
            && (args.with_filename || inputs.sources.len() > 1 || inputs.any_dir));
    let color = match args.color {
        ColorArg::Always => true,
        ColorArg::Never => false,
        // NO_COLOR counts when set and not empty (https://no-color.org).
        ColorArg::Auto => {
            io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        }
    };
    let parquet = matches!(args.format, FormatArg::Parquet);
    let dedup_key = match args.dedup_key {
        Some(l) => key_level(l),
        None if args.normalize => KeyLevel::Scheme,
        None => KeyLevel::Raw,
    };
    Options {
        format: match args.format {
            FormatArg::Text => Format::Text,
            FormatArg::Json => Format::Json,
            // Rows that the Parquet writer encodes column by column.
            FormatArg::Parquet => Format::Rows,
            FormatArg::Csv => Format::Csv,
            FormatArg::Tsv => Format::Tsv,
        },
        // --vimgrep: the column where -b prints the offset (run::Config::column).
        line_number: args.line_number || args.vimgrep,
        byte_offset: args.byte_offset || args.vimgrep,
        with_filename,
        null: args.null,
        normalize: args.normalize || parquet,
        unique: args.unique,
        count_by: args.count_by.map(|c| match c {
            CountByArg::Url => CountBy::Url,
            CountByArg::Host => CountBy::Host,
            CountByArg::Scheme => CountBy::Scheme,
            CountByArg::Domain => CountBy::Domain,
        }),
        dedup_key,
        count: args.count,
        color: color && args.output.is_none(),
        no_header: false,
        key_field: args.key_field.then_some(dedup_key),
    }
}

/// What scans: the extractor and the memory for de-duplication, checked
/// with the output arguments; the global pool sized.
struct Engine {
    extractor: Extractor,
    max_memory: usize,
}

impl Engine {
    /// The engine `args` ask for, the thread pool started for `sources`;
    /// the message of a bad argument.
    fn resolve(args: &ScanArgs, sources: &[Source]) -> Result<Engine, String> {
        let max_memory = parse_size(&args.max_memory).map_err(|e| format!("--max-memory: {e}"))?;
        if let Some(b) = &args.base {
            cmd_uri::parse_base(b).map_err(|e| format!("--base {b:?}: {e}"))?;
        }
        check_output_args(args, matches!(args.format, FormatArg::Parquet))?;
        let extractor = Extractor::choose(args.isa.as_deref()).map_err(|e| e.to_string())?;
        // One choice for both engines: `--isa scalar` runs the URI engine's
        // span kernels as scalar code too.
        urlsift_uri::use_scalar_kernels(extractor.isa() == Isa::Scalar);
        if let Some(n) = args.threads.filter(|&n| n > 0) {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n.min(parallel_work(sources, args.chunk_size, n)))
                .build_global()
                .map_err(|e| format!("threads: {e}"))?;
        }
        Ok(Engine {
            extractor,
            max_memory,
        })
    }
}

/// The run's configuration from `args`, `opts` and `engine` (without mail
/// or progress).
fn run_config(args: &ScanArgs, opts: Options, engine: Engine) -> run::Config<'static> {
    run::Config {
        mail: None,
        base: args.base.clone(),
        html: if args.html {
            run::HtmlMode::Always
        } else if args.no_html {
            run::HtmlMode::Never
        } else {
            run::HtmlMode::Auto
        },
        links_only: args.links_only,
        max_html: urlsift_search::web::MAX_HTML,
        column: args.vimgrep,
        opts,
        quiet: args.quiet,
        strict: args.strict,
        threads: args
            .threads
            .filter(|&n| n > 0)
            .unwrap_or_else(default_threads),
        chunk_size: args.chunk_size,
        extractor: engine.extractor,
        progress: None,
        max_memory: engine.max_memory,
        temp_dir: args.temp_dir.clone(),
        shard_by: match args.shard_by {
            Some(ShardByArg::Url) | None => ShardBy::Url,
            Some(ShardByArg::Host) => ShardBy::Host,
            Some(ShardByArg::Domain) => ShardBy::Domain,
        },
        mmap: !args.no_mmap,
        max_count: args.max_count,
        binary: args.binary,
        records: run::RecordFilter {
            record_types: args
                .record_type
                .iter()
                .map(|t| t.trim().to_ascii_lowercase())
                .collect(),
            content_types: args
                .content_type
                .iter()
                .map(|t| t.trim().to_ascii_lowercase())
                .collect(),
            statuses: args.status.clone(),
        },
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
    }
}

/// The extension of `--output` files in `format`.
fn output_extension(format: FormatArg) -> &'static str {
    match format {
        FormatArg::Text => "txt",
        FormatArg::Json => "jsonl",
        FormatArg::Csv => "csv",
        FormatArg::Tsv => "tsv",
        FormatArg::Parquet => "parquet",
    }
}

/// A finished run, for its report.
struct Done<'a> {
    summary: &'a run::Summary,
    inputs: &'a Inputs,
    mail: &'a urlsift_mail::MailRun,
    started: std::time::Instant,
}

/// After the run: the output files committed (or left), the progress bar
/// cleared, `--stats` and the errors of the run itself reported; the exit
/// status.
fn report(
    args: &ScanArgs,
    done: &Done<'_>,
    outputs: Option<outputs::Outputs>,
    bar: Option<indicatif::ProgressBar>,
) -> u8 {
    let summary = done.summary;
    if args.no_messages
        && let Some(d) = &summary.died
    {
        // -s silences messages about inputs, never an internal error.
        report_error!("{d}");
    }
    // The output of the inputs that could be read replaces the old one, as
    // grep's output goes on past an unreadable input; one that is not whole
    // (a failed write or spill, a worker that died) never does.
    let whole =
        summary.write_error.is_none() && summary.dedup_error.is_none() && summary.died.is_none();
    let mut commit_failed = false;
    if let Some(files) = outputs
        && let Err(e) = files.commit(whole)
    {
        report_error!("{e}");
        commit_failed = true;
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    if args.stats {
        report_stats(args, done);
    }
    // A closed pipe (`urlsift big | head`) ends the run quietly.
    if let Some(e) = &summary.write_error
        && e.kind() != io::ErrorKind::BrokenPipe
    {
        match &args.output {
            Some(p) => report_error!("writing {}: {e}", p.display()),
            None => report_error!("writing output: {e}"),
        }
    }
    if let Some(e) = &summary.dedup_error {
        report_error!("{e}");
    }
    if commit_failed {
        return 2;
    }
    summary.exit_code(args.quiet)
}

/// `--stats`: de-duplication, mail, then the run's lines ([`run_stats`]).
fn report_stats(args: &ScanArgs, done: &Done<'_>) {
    if let Some(d) = &done.summary.dedup {
        report_error!("dedup: {d}");
    }
    if args.mail {
        report_error!(
            "mail: {}",
            done.mail
                .stats
                .lock()
                .map(|s| s.to_string())
                .unwrap_or_default()
        );
    }
    let (inputs, skipped) = (done.inputs.sources.len(), done.inputs.skipped);
    for line in run_stats(done.summary, inputs, skipped, done.started.elapsed()) {
        report_error!("{line}");
    }
}

/// The lines `--stats` prints about the run (after those of
/// de-duplication and mail): the inputs (given, failed, skipped by
/// `--max-filesize`), their bytes, the URLs, the time and the throughput;
/// then, for each kind of input the run read, its inputs, bytes and URLs;
/// then the web archive payloads not read, by class: binary ones, and
/// those in a format with links that is not read (PDF).
fn run_stats(
    summary: &run::Summary,
    inputs: usize,
    skipped: u64,
    elapsed: std::time::Duration,
) -> Vec<String> {
    let kinds = run::InputKind::ALL.map(|k| (k, summary.of_kind(k)));
    let bytes: u64 = kinds.iter().map(|(_, s)| s.bytes).sum();
    let urls: u64 = kinds.iter().map(|(_, s)| s.urls).sum();
    let secs = elapsed.as_secs_f64();
    let mib_s = bytes as f64 / f64::from(1u32 << 20) / secs.max(1e-6);
    let mut lines = vec![format!(
        "run: {inputs} inputs, {} failed, {skipped} skipped, {bytes} bytes, {urls} URLs, \
         {secs:.3} s, {mib_s:.1} MiB/s",
        summary.errors
    )];
    for (kind, s) in kinds.iter().filter(|(_, s)| s.inputs > 0) {
        lines.push(format!(
            "run: {}: {} inputs, {} bytes, {} URLs",
            kind.name(),
            s.inputs,
            s.bytes,
            s.urls
        ));
    }
    // The web archive payloads that gave no links, by class.
    for (binary, what) in [
        (true, "binary payloads skipped"),
        (false, "payloads out of scope"),
    ] {
        let classes: Vec<String> = summary
            .skipped
            .iter()
            .filter_map(|&(s, n)| match s {
                run::Skipped::Binary(c) if binary => Some(format!("{n} {c}")),
                run::Skipped::OutOfScope(c) if !binary => Some(format!("{n} {c}")),
                _ => None,
            })
            .collect();
        if !classes.is_empty() {
            lines.push(format!("run: {what}: {}", classes.join(", ")));
        }
    }
    lines
}

/// The de-duplication level of a `--dedup-key` value.
fn key_level(l: DedupKeyArg) -> KeyLevel {
    match l {
        DedupKeyArg::Raw => KeyLevel::Raw,
        DedupKeyArg::Syntax => KeyLevel::Syntax,
        DedupKeyArg::Scheme => KeyLevel::Scheme,
        DedupKeyArg::NoFragment => KeyLevel::NoFragment,
        DedupKeyArg::Whatwg => KeyLevel::Whatwg,
        DedupKeyArg::Surt => KeyLevel::Surt,
    }
}

/// How many chunks the inputs offer to scan in parallel, counted up to
/// `cap`: a file's size in chunks, and a block's worth for a stream
/// (standard input, a pipe, a compressed file). `-j` never starts more
/// threads than this.
fn parallel_work(sources: &[Source], chunk_size: usize, cap: usize) -> usize {
    let chunk = chunk_size.max(1) as u64;
    let block = (urlsift_core::DEFAULT_BLOCK_SIZE as u64).div_ceil(chunk);
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

/// Leave out of `sources` the files larger than `max` bytes (as ripgrep's
/// `--max-filesize`, named or walked; a link counts as the file it names),
/// and say how many. Standard input, pipes and devices have no size to
/// judge by: they stay.
fn skip_large(sources: &mut Vec<Source>, max: u64) -> u64 {
    let before = sources.len();
    sources.retain(|src| {
        src.path()
            .and_then(|p| std::fs::metadata(p).ok())
            .is_none_or(|m| !(m.is_file() && m.len() > max))
    });
    (before - sources.len()) as u64
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
mod tests {
    use super::*;
    use clap::Parser;

    fn args(argv: &[&str]) -> ScanArgs {
        let mut full = vec!["urlsift"];
        full.extend_from_slice(argv);
        Cli::try_parse_from(full).expect("valid arguments").scan
    }

    fn inputs(n: usize, any_dir: bool) -> Inputs {
        Inputs {
            sources: (0..n)
                .map(|i| Source::Path(format!("{i}.txt").into()))
                .collect(),
            skipped: 0,
            any_dir,
        }
    }

    #[test]
    fn file_names_are_printed_with_several_inputs_a_directory_or_h() {
        let one = inputs(1, false);
        assert!(!output_options(&args(&["a"]), &one).with_filename);
        assert!(output_options(&args(&["-H", "a"]), &one).with_filename);
        assert!(output_options(&args(&["a", "b"]), &inputs(2, false)).with_filename);
        assert!(output_options(&args(&["d"]), &inputs(1, true)).with_filename);
        assert!(!output_options(&args(&["-I", "a", "b"]), &inputs(2, false)).with_filename);
    }

    #[test]
    fn vimgrep_and_parquet_imply_their_fields() {
        let one = inputs(1, false);
        let o = output_options(&args(&["--vimgrep", "a"]), &one);
        assert!(o.line_number && o.byte_offset && o.with_filename);
        let o = output_options(&args(&["--format", "parquet", "--output", "x", "a"]), &one);
        assert!(o.normalize && o.format == Format::Rows);
    }

    #[test]
    fn the_dedup_key_defaults_to_scheme_under_normalize() {
        let one = inputs(1, false);
        let key = |argv: &[&str]| output_options(&args(argv), &one).dedup_key;
        assert_eq!(key(&["--unique", "a"]), KeyLevel::Raw);
        assert_eq!(key(&["--unique", "--normalize", "a"]), KeyLevel::Scheme);
        assert_eq!(
            key(&["--unique", "--normalize", "--dedup-key", "raw", "a"]),
            KeyLevel::Raw
        );
    }

    #[test]
    fn colour_is_never_written_into_an_output_file() {
        let one = inputs(1, false);
        assert!(output_options(&args(&["--color", "always", "a"]), &one).color);
        let to_file = args(&["--color", "always", "--output", "x", "a"]);
        assert!(!output_options(&to_file, &one).color);
    }

    #[test]
    fn the_run_config_follows_the_arguments() {
        let engine = || Engine {
            extractor: Extractor::new(),
            max_memory: 7,
        };
        let a = args(&["--html", "-l", "--scheme", " HTTP,https", "-m", "2", "a"]);
        let cfg = run_config(&a, output_options(&a, &inputs(1, false)), engine());
        assert_eq!(cfg.html, run::HtmlMode::Always);
        assert_eq!(cfg.list, Some(run::List::WithMatches));
        assert_eq!(cfg.schemes, ["http", "https"]);
        assert_eq!((cfg.max_count, cfg.max_memory), (Some(2), 7));
        let a = args(&["--no-html", "--files-without-match", "--no-mmap", "a"]);
        let cfg = run_config(&a, output_options(&a, &inputs(1, false)), engine());
        assert_eq!(cfg.html, run::HtmlMode::Never);
        assert_eq!(cfg.list, Some(run::List::WithoutMatch));
        assert!(!cfg.mmap);
    }

    #[test]
    fn a_bad_memory_size_or_isa_is_refused_before_the_run() {
        let e = Engine::resolve(&args(&["--max-memory", "lots", "a"]), &[]).err();
        assert!(e.is_some_and(|e| e.starts_with("--max-memory: ")));
        let e = Engine::resolve(&args(&["--isa", "z80", "a"]), &[]).err();
        assert!(e.is_some());
        let e = Engine::resolve(&args(&["--format", "parquet", "a"]), &[]).err();
        assert!(e.is_some_and(|e| e.contains("needs --output")));
    }
}
