//! The `urlsift` command line: thin wiring over the library.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

mod cmd_mail;
mod cmd_uri;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use urlsift::classify::{Classifier, isa_report};
use urlsift::extract::Extractor;
use urlsift::input::Opened;
use urlsift::output::{self, CountBy, Format, Options, Record};
use urlsift::parallel::{self, LineCounter};

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
}

#[derive(ValueEnum, Clone, Copy, Debug)]
enum FormatArg {
    Text,
    Json,
    Csv,
    Tsv,
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
    /// Worker threads (default: one per core).
    #[arg(short = 'j', long, value_name = "N")]
    threads: Option<usize>,
    /// Force an instruction set: auto, scalar, sse2, avx2, avx512, neon (also URLSIFT_ISA).
    #[arg(long, value_name = "ISA")]
    isa: Option<String>,
    /// Read mail: mbox, maildir, .eml, news; scan decoded headers and text parts.
    #[arg(long)]
    mail: bool,
    /// With --mail: print a summary (messages, parts skipped, problems) on stderr.
    #[arg(long)]
    stats: bool,
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

/// One input: a path, or standard input.
struct Input {
    name: String,
    path: Option<PathBuf>,
}

/// Expand the command line into inputs: directories are walked in sorted order.
fn inputs(paths: &[PathBuf], errors: &mut u64) -> Vec<Input> {
    let mut v = Vec::new();
    if paths.is_empty() {
        v.push(Input {
            name: "-".into(),
            path: None,
        });
    }
    for p in paths {
        if p.as_os_str() == "-" {
            v.push(Input {
                name: "-".into(),
                path: None,
            });
        } else if p.is_dir() {
            for entry in walkdir::WalkDir::new(p).sort_by_file_name() {
                match entry {
                    Ok(e) if e.file_type().is_file() => v.push(Input {
                        name: e.path().display().to_string(),
                        path: Some(e.path().to_path_buf()),
                    }),
                    Ok(_) => {}
                    Err(e) => {
                        *errors += 1;
                        eprintln!("urlsift: {e}");
                    }
                }
            }
        } else {
            v.push(Input {
                name: p.display().to_string(),
                path: Some(p.clone()),
            });
        }
    }
    v
}

fn scan(args: &ScanArgs) -> u8 {
    let opts = Options {
        format: match args.format {
            FormatArg::Text => Format::Text,
            FormatArg::Json => Format::Json,
            FormatArg::Csv => Format::Csv,
            FormatArg::Tsv => Format::Tsv,
        },
        line_number: args.line_number,
        byte_offset: args.byte_offset,
        with_filename: args.with_filename,
        normalize: args.normalize,
        unique: args.unique,
        count_by: args.count_by.map(|c| match c {
            CountByArg::Url => CountBy::Url,
            CountByArg::Host => CountBy::Host,
            CountByArg::Scheme => CountBy::Scheme,
        }),
        count: args.count,
    };
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
    let mut errors = 0u64;
    let inputs = inputs(&args.paths, &mut errors);
    let stdout = io::stdout();
    let out: Box<dyn Write> = if args.quiet {
        Box::new(io::sink())
    } else {
        Box::new(BufWriter::with_capacity(1 << 16, stdout.lock()))
    };
    let mut sink = output::new_sink(&opts, out);
    let mut found = 0u64;
    let mut mail = cmd_mail::MailRun {
        ex: &extractor,
        strict: args.strict,
        stats: Default::default(),
    };
    let mut write_err: Option<io::Error> = None;
    for input in &inputs {
        let opened = match urlsift::input::open(input.path.as_deref()) {
            Ok(o) => o,
            Err(e) => {
                errors += 1;
                eprintln!("urlsift: {}: {e}", input.name);
                continue;
            }
        };
        let mut count = 0u64;
        let mut on_match = |m: &urlsift::extract::Match<'_>, line: u64| {
            if write_err.is_some() || (args.strict && !output::Parts::new(m).valid()) {
                return;
            }
            count += 1;
            if let Err(e) = sink.record(&Record {
                file: &input.name,
                line,
                m,
                mail: None,
            }) {
                write_err = Some(e);
            }
        };
        match opened {
            o if args.mail => {
                errors += mail.scan(&input.name, o, &mut *sink, &mut count, &mut write_err)
            }
            Opened::Whole(data) => {
                cmd_mail::hint(&input.name, &data);
                let mut lines = LineCounter::default();
                parallel::scan(&extractor, &data, args.chunk_size, |m| {
                    let line = lines.line_at(&data, m.start);
                    on_match(&m, line);
                });
            }
            Opened::Stream(r) => {
                let block = parallel::DEFAULT_BLOCK_SIZE;
                if let Err(e) =
                    parallel::scan_reader(&extractor, r, block, args.chunk_size, on_match)
                {
                    // What was found before the error has been printed.
                    errors += 1;
                    eprintln!("urlsift: {}: {e}", input.name);
                }
            }
        }
        found += count;
        if write_err.is_none()
            && let Err(e) = sink.file_done(&input.name, count)
        {
            write_err = Some(e);
        }
        if write_err.is_some() || (args.quiet && found > 0) {
            break;
        }
    }
    if args.mail && args.stats {
        eprintln!("urlsift: mail: {}", mail.stats);
    }
    if write_err.is_none()
        && let Err(e) = sink.finish()
    {
        write_err = Some(e);
    }
    // A closed pipe (`urlsift big | head`) ends the run quietly.
    if let Some(e) = write_err
        && e.kind() != io::ErrorKind::BrokenPipe
    {
        eprintln!("urlsift: writing output: {e}");
        return 2;
    }
    if errors > 0 && !(args.quiet && found > 0) {
        2
    } else if found > 0 {
        0
    } else {
        1
    }
}
