//! The command line's arguments: what clap parses, and the size parser
//! of `--max-memory`, `--max-filesize` and `--chunk-size`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::cmd_bench;

/// What a first argument that names a command does, for --help and the
/// man page.
pub(crate) const COMMAND_NAMES: &str = "A first argument that names a command (parse, normalize, \
resolve, completions, man, bench, help) runs it: to scan a file of that name, write ./man or \
-- man.";

#[derive(Parser, Debug)]
#[command(
    name = "urlsift",
    version,
    about = "Find every URL in free text (RFC 3986 Appendix C) and say exactly what each one is.",
    after_help = COMMAND_NAMES,
    args_conflicts_with_subcommands = true
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) cmd: Option<Cmd>,
    #[command(flatten)]
    pub(crate) scan: ScanArgs,
}

#[derive(Subcommand, Debug)]
pub(crate) enum Cmd {
    /// Print one JSON object per URL (fields as in --format json): components,
    /// host kind, validity, errors.
    Parse {
        /// The URLs [default: standard input, one per line].
        urls: Vec<String>,
    },
    /// Print the RFC 3986 section 6 normal form of each URL, one per line;
    /// with --dedup-key, its key at that level (one line per URL: an empty
    /// line, and the reason on stderr, where it has none).
    #[command(after_help = psl_note())]
    Normalize {
        /// Syntax-based normalization only (6.2.2), without the scheme rules (6.2.3).
        #[arg(long, conflicts_with = "dedup_key")]
        syntax_only: bool,
        /// Drop the fragment.
        #[arg(long, conflicts_with = "dedup_key")]
        drop_fragment: bool,
        /// Print each URL's key at LEVEL (the scan's --dedup-key levels).
        #[arg(long, value_enum, value_name = "LEVEL")]
        dedup_key: Option<DedupKeyArg>,
        /// With --dedup-key whatwg: parse each URL against this base URL (the URL Standard's parser).
        #[arg(long, value_name = "URL", requires = "dedup_key")]
        base: Option<String>,
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
pub(crate) enum ColorArg {
    Auto,
    Always,
    Never,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub(crate) enum FormatArg {
    Text,
    Json,
    Csv,
    Tsv,
    /// Apache Parquet (needs --output; one row per URL with its components).
    Parquet,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub(crate) enum DedupKeyArg {
    /// The URL as found.
    Raw,
    /// RFC 3986 6.2.2: case, percent-encoding, dot segments.
    Syntax,
    /// 6.2.2 and 6.2.3: also default port and empty path.
    Scheme,
    /// As scheme, without the fragment.
    NoFragment,
    /// The WHATWG URL Standard serialization (browsers' form: UTS #46 hosts, backslashes, default ports).
    Whatwg,
    /// SURT with the Internet Archive's canonicalization (CDX keys: www. dropped, query sorted, no fragment).
    Surt,
}

/// The compiled-in Public Suffix List's date, for --help and --version.
pub(crate) fn psl_note() -> String {
    format!(
        "Registrable domains (the domain field, --count-by domain, --shard-by domain) come from \
the Public Suffix List compiled in, ICANN and private sections: version {}.",
        urlsift_keys::psl_version()
    )
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub(crate) enum ShardByArg {
    Url,
    Host,
    /// The registrable domain (eTLD+1 by the Public Suffix List).
    Domain,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub(crate) enum CountByArg {
    Url,
    Host,
    Scheme,
    /// The registrable domain (eTLD+1 by the Public Suffix List).
    Domain,
}

#[derive(Args, Debug)]
pub(crate) struct ScanArgs {
    /// Files or directories to scan (directories are walked); none or `-` reads stdin.
    pub(crate) paths: Vec<PathBuf>,
    /// Prefix each URL with its line number.
    #[arg(short = 'n', long)]
    pub(crate) line_number: bool,
    /// Prefix each URL with its byte offset.
    #[arg(short = 'b', long)]
    pub(crate) byte_offset: bool,
    /// Prefix each URL with the file name (the default with several inputs or a directory).
    #[arg(short = 'H', long, overrides_with = "no_filename")]
    pub(crate) with_filename: bool,
    /// Never prefix file names (grep's -h).
    #[arg(short = 'I', long, overrides_with = "with_filename")]
    pub(crate) no_filename: bool,
    /// Print PATH:LINE:COLUMN:URL for each URL, as ripgrep's --vimgrep: the path as
    /// given (- for standard input), line and column 1-based, the column in bytes;
    /// under --mail, in the file; in a web archive, 0:0 (its links have no line).
    #[arg(long)]
    pub(crate) vimgrep: bool,
    /// Print only the names of inputs with a URL (grep's -l).
    #[arg(short = 'l', long, conflicts_with = "files_without_match")]
    pub(crate) files_with_matches: bool,
    /// Print only the names of inputs without a URL (grep's -L).
    #[arg(long)]
    pub(crate) files_without_match: bool,
    /// After a file name print a NUL byte instead of `:` or a newline (grep's -Z);
    /// --files-from then reads NUL-separated paths.
    #[arg(short = '0', long)]
    pub(crate) null: bool,
    /// Take at most NUM URLs from each input (grep's -m).
    #[arg(short = 'm', long, value_name = "NUM")]
    pub(crate) max_count: Option<u64>,
    /// Only URLs with one of these schemes, e.g. http,https (`www.` URLs are http).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub(crate) scheme: Vec<String>,
    /// Only files whose path matches GLOB in directory walks; `!GLOB` excludes (repeatable, as ripgrep's -g).
    #[arg(short = 'g', long = "glob", value_name = "GLOB")]
    pub(crate) globs: Vec<String>,
    /// Descend at most NUM levels into directories (1: their own files only).
    #[arg(long, value_name = "NUM")]
    pub(crate) max_depth: Option<usize>,
    /// Read the paths to scan from FILE (`-`: standard input), one per line (NUL-separated with -0).
    #[arg(long, value_name = "FILE")]
    pub(crate) files_from: Option<PathBuf>,
    /// In directory walks, skip what .gitignore, .ignore and git's exclude files name.
    #[arg(long)]
    pub(crate) ignore_vcs: bool,
    /// Follow symbolic links in directory walks (a link that leads back to a
    /// directory above it is an error naming it; the walk goes on).
    #[arg(short = 'L', long)]
    pub(crate) follow: bool,
    /// Skip files larger than SIZE (e.g. 100K, 2M; as --max-memory), in walks
    /// and named; standard input and pipes are read whatever their length.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub(crate) max_filesize: Option<usize>,
    /// Suppress the messages about inputs (unreadable, not found) and warnings; not the exit status (grep's -s).
    #[arg(short = 's', long)]
    pub(crate) no_messages: bool,
    /// Print only the number of URLs in each input.
    #[arg(short = 'c', long)]
    pub(crate) count: bool,
    /// Print nothing; the exit status says whether a URL was found.
    #[arg(short = 'q', long)]
    pub(crate) quiet: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub(crate) format: FormatArg,
    /// Print the RFC 3986 section 6 normal form instead of the URL as found.
    #[arg(long)]
    pub(crate) normalize: bool,
    /// Only URLs that are valid RFC 3986 URIs.
    #[arg(long)]
    pub(crate) strict: bool,
    /// Print each distinct URL once, compared by --dedup-key (with --normalize: each
    /// distinct normal form, unless --dedup-key raw).
    #[arg(long)]
    pub(crate) unique: bool,
    /// Print counts per distinct URL, host, scheme or registrable domain, most frequent first.
    #[arg(long, value_enum)]
    pub(crate) count_by: Option<CountByArg>,
    /// What --unique, --count-by url, --shard-by url and --key-field compare [default: raw; scheme with --normalize].
    #[arg(long, value_enum, value_name = "LEVEL")]
    pub(crate) dedup_key: Option<DedupKeyArg>,
    /// Add a `key` field to JSON, CSV/TSV and Parquet records: the URL's --dedup-key form.
    #[arg(long)]
    pub(crate) key_field: bool,
    /// Memory for --unique/--count-by state (e.g. 256M, 4G); past it, sorted runs spill to --temp-dir.
    #[arg(long, value_name = "SIZE", default_value = "1G")]
    pub(crate) max_memory: String,
    /// Directory for spilled runs [default: $TMPDIR or /tmp].
    #[arg(long, value_name = "DIR")]
    pub(crate) temp_dir: Option<PathBuf>,
    /// Write the output to FILE (`-`: standard output; with --shards: into the directory DIR).
    /// It replaces the old one at the end, also when an input could not be read (exit 2);
    /// an output that could not be written whole (a write or spill failed) leaves the old one.
    /// There is no short form: `-o` is grep's --only-matching.
    #[arg(long, value_name = "FILE|DIR")]
    pub(crate) output: Option<PathBuf>,
    /// Print only the URLs (grep's -o): what urlsift always prints, so it
    /// changes nothing.
    #[arg(short = 'o', long)]
    pub(crate) only_matching: bool,
    /// Split the output into N files DIR/part-00000.EXT ... (N = 1 too) by a hash of --shard-by.
    /// DIR may hold only the part- files of earlier runs: those this run does not write are deleted.
    #[arg(long, value_name = "N")]
    pub(crate) shards: Option<usize>,
    /// What --shards partitions on: the URL's --dedup-key form, its host, or its registrable domain [default: url].
    #[arg(long, value_enum)]
    pub(crate) shard_by: Option<ShardByArg>,
    /// Worker threads (default: one per core).
    #[arg(short = 'j', long, value_name = "N")]
    pub(crate) threads: Option<usize>,
    /// Force an instruction set: auto, scalar, sse2, avx2, avx512, neon (also URLSIFT_ISA).
    #[arg(long, value_name = "ISA")]
    pub(crate) isa: Option<String>,
    /// Read mail: mbox, maildir, .eml, news; scan decoded headers and text parts.
    #[arg(long)]
    pub(crate) mail: bool,
    /// The base URI of HTML inputs, and of web archive records that have no
    /// WARC-Target-URI (a <base href> in the page comes first).
    #[arg(long, value_name = "URI")]
    pub(crate) base: Option<String>,
    /// Read every input as HTML: URL attributes and CSS url()s resolved, the
    /// absolute URLs of other attributes, scripts, styles and comments, and
    /// text between tags scanned after entities are decoded (default: inputs
    /// that sniff as HTML).
    #[arg(long, overrides_with = "no_html")]
    pub(crate) html: bool,
    /// Read no input as HTML: the text rules only (web archives still are).
    #[arg(long, overrides_with = "html")]
    pub(crate) no_html: bool,
    /// Scan web archive payloads that are not text (images, fonts, archives,
    /// binary bytes) as text.
    #[arg(long)]
    pub(crate) binary: bool,
    /// Read only web archive records of these WARC-Types, e.g.
    /// response,resource (comma-separated).
    #[arg(long, value_name = "TYPES", value_delimiter = ',')]
    pub(crate) record_type: Vec<String>,
    /// Read only web archive records whose payload's media type starts with
    /// one of these, e.g. text/html,application/xhtml (comma-separated; the
    /// HTTP Content-Type, else the record's).
    #[arg(long, value_name = "TYPES", value_delimiter = ',')]
    pub(crate) content_type: Vec<String>,
    /// Read only web archive records whose HTTP status is one of these, e.g.
    /// 2xx,301 (comma-separated).
    #[arg(long, value_name = "STATUSES", value_delimiter = ',')]
    pub(crate) status: Vec<urlsift_search::run::StatusPattern>,
    /// Of HTML (files and web archive pages), only the links (URL attributes
    /// and CSS url()s, resolved) and the URLs of the text between tags; not
    /// the absolute URLs of other attributes, scripts, styles and comments.
    #[arg(long)]
    pub(crate) links_only: bool,
    /// After the run, print a summary on stderr: inputs, bytes, URLs, time and
    /// throughput, then per kind of input (text, html, mail, web archive);
    /// after the de-duplication (--unique, --count-by) and --mail lines.
    #[arg(long)]
    pub(crate) stats: bool,
    /// Never draw the progress bar, which is drawn on stderr when stderr is a
    /// terminal and the files to scan are over 64 MiB in all.
    #[arg(long)]
    pub(crate) no_progress: bool,
    /// Colour file names and numbers: auto (only on a terminal, unless NO_COLOR is set and not empty), always, never.
    #[arg(long, value_enum, value_name = "WHEN", default_value = "auto")]
    pub(crate) color: ColorArg,
    /// Never memory-map files: read them as streams. A file truncated by
    /// another program while urlsift maps it ends the run with SIGBUS; use
    /// this for files that may change during the run.
    #[arg(long)]
    pub(crate) no_mmap: bool,
    /// Size of a parallel chunk, e.g. 64K or 2M (for tests; the output never depends on it).
    #[arg(
        long,
        value_name = "SIZE",
        value_parser = parse_size,
        default_value_t = urlsift_core::DEFAULT_CHUNK_SIZE
    )]
    pub(crate) chunk_size: usize,
}
/// Parse a size such as `256M`, `1G`, `512KiB` or `1000000` (bytes; K, M, G
/// and T are powers of 1024), for `--max-memory`, `--max-filesize` and `--chunk-size`.
pub(crate) fn parse_size(s: &str) -> Result<usize, String> {
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
