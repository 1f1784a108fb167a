//! `urlsift man`: the man page. The synopsis and options come from clap
//! (the flags' own help texts), JSON FIELDS from the one list of fields
//! (`urlsift_printer::fields`), the rest from the sections below.

use std::io::{self, Write};

use clap_mangen::roff::{Roff, bold, roman};

const DESCRIPTION: &str = "urlsift finds every URL in free text (mail and news archives, crawled \
pages, logs, documentation) by the delimiting rules of RFC 3986 Appendix C and RFC 2396 \
Appendix E: \"...\", <...> and <URL:...> delimit, URLs wrapped across lines are joined, \
trailing punctuation is trimmed and balanced brackets are kept. Each URL is split, validated \
and can be normalized as RFC 3986 defines it. With no PATH, or with -, it reads standard \
input; directories are walked; gzip and zstd are decompressed by content. The output is in \
input order, the same for every thread count.";

/// The subcommands: (synopsis, what it does).
const COMMANDS: [(&str, &str); 7] = [
    (
        "urlsift parse [URL...]",
        "one JSON object per URL: its components, host kind, validity and errors; with no URL, the lines of standard input",
    ),
    (
        "urlsift normalize [URL...]",
        "the RFC 3986 section 6 normal form of each URL, one per line; with no URL, the lines of standard input",
    ),
    (
        "urlsift resolve BASE [REF...]",
        "each reference resolved against BASE (RFC 3986 section 5.2), one per line; with no REF, the lines of standard input",
    ),
    (
        "urlsift bench",
        "throughput of each instruction set on this machine",
    ),
    (
        "urlsift completions SHELL",
        "a completion script for bash, zsh, fish, elvish or powershell",
    ),
    ("urlsift man", "this page"),
    ("urlsift help", "the options, briefly"),
];

/// Examples by task: (command, what it does).
const EXAMPLES: [(&str, &str); 15] = [
    ("urlsift notes.txt", "every URL, one per line, as found"),
    (
        "urlsift -n ~/Mail/",
        "walk a directory: file:line:URL for each URL",
    ),
    (
        "urlsift --mail -H archive.mbox",
        "read mail: decode quoted-printable, base64 and HTML parts",
    ),
    (
        "urlsift --mail -l ~/Maildir/cur",
        "the names of the messages that hold a URL (a maildir has one message per file)",
    ),
    (
        "urlsift --base https://example.org/ saved.html",
        "an HTML page (sniffed, or --html): its links resolved against its <base href>, else --base",
    ),
    (
        "urlsift --scheme http,https -c logs/",
        "count the web URLs of each log file",
    ),
    (
        "urlsift --format json pages/ > urls.jsonl",
        "JSON Lines, one object per URL (see JSON FIELDS)",
    ),
    (
        "urlsift --unique --normalize corpus.txt",
        "each distinct URL once, in normal form, in order of first appearance",
    ),
    (
        "urlsift --count-by host corpus.txt | head",
        "the most frequent hosts",
    ),
    (
        "urlsift --format parquet --shards 8 --output out/ crawl/",
        "Parquet files out/part-00000.parquet ..., split by URL",
    ),
    (
        "urlsift FILE | urlsift normalize | sort -u",
        "normal forms in a pipeline",
    ),
    (
        "find . -name '*.txt' -print0 | urlsift -0 --files-from -",
        "scan the files another program lists",
    ),
    ("urlsift -q FILE && echo has URLs", "test for a URL"),
    (
        "vim -q <(urlsift --vimgrep src/)",
        "each URL in Vim's quickfix list, at its line and column",
    ),
    (
        "urlsift --stats -L --max-filesize 100M /data > urls.txt",
        "follow links, skip files over 100 MiB, and sum up the run on stderr",
    ),
];

/// The lines --stats prints on stderr after the run: (line, meaning).
const STATISTICS: [(&str, &str); 6] = [
    (
        "urlsift: dedup: U URLs, D distinct; state M MiB at most; nothing spilled | spilled N runs, X MiB",
        "with --unique or --count-by, first",
    ),
    (
        "urlsift: mail: N messages, ...",
        "with --mail, next: messages, parts scanned and skipped, problems",
    ),
    (
        "urlsift: run: N inputs, F failed, S skipped, B bytes, U URLs, T s, R MiB/s",
        "always: the inputs of the run, those that could not be read, those --max-filesize skipped; \
         their size as stored (a file's length; what was read of standard input or a pipe); \
         the URLs taken (after --strict, --scheme and -m); the time from start to end and B/T",
    ),
    (
        "urlsift: run: KIND: N inputs, B bytes, U URLs",
        "then one line for each kind of input the run read, in this order: text, html, mail, web archive",
    ),
    (
        "urlsift: run: binary payloads skipped: N CLASS, ...",
        "when a web archive had payloads that are not text (--binary reads them), how many of each class: \
         image, audio, video, font, model, archive, office, program, certificate, data",
    ),
    (
        "urlsift: run: payloads out of scope: N CLASS, ...",
        "when a web archive had payloads in a format with links that is not read: pdf, postscript, office, other",
    ),
];

const EXIT_STATUS: [(&str, &str); 3] = [
    (
        "0",
        "a URL was found (with --files-without-match: a file was listed), and nothing failed; also when the output was a closed pipe",
    ),
    ("1", "no URL was found, and nothing failed"),
    (
        "2",
        "an error: an input could not be read, the output could not be written (a closed standard output included), the options were wrong; other inputs are still scanned. With -q, a URL found wins over errors",
    ),
];

const ENVIRONMENT: [(&str, &str); 3] = [
    (
        "URLSIFT_ISA",
        "force an instruction set: scalar, sse2, avx2, avx512 or neon (as --isa)",
    ),
    (
        "NO_COLOR",
        "if set and not empty, --color auto never colours",
    ),
    (
        "RAYON_NUM_THREADS",
        "the number of threads when -j is not given",
    ),
];

fn section(r: &mut Roff, title: &str, items: &[(&str, &str)]) {
    r.control("SH", [title]);
    for (term, text) in items {
        r.control("TP", []);
        r.text([bold(*term)]);
        r.text([roman(*text)]);
    }
}

/// Write the man page of `cmd` (roff) to `out`.
pub fn render(cmd: clap::Command, out: &mut dyn Write) -> io::Result<()> {
    let man = clap_mangen::Man::new(cmd);
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    let mut r = Roff::new();
    r.control("SH", ["DESCRIPTION"]);
    r.text([roman(DESCRIPTION)]);
    r.to_writer(out)?;
    man.render_options_section(out)?;
    let mut r = Roff::new();
    section(&mut r, "COMMANDS", &COMMANDS);
    r.control("PP", []);
    r.text([roman(crate::args::COMMAND_NAMES)]);
    section(&mut r, "EXAMPLES", &EXAMPLES);
    section(&mut r, "STATISTICS", &STATISTICS);
    r.control("SH", ["PROGRESS"]);
    r.text([roman(
        "When standard error is a terminal and the files to scan are over 64 MiB in all, a \
         progress bar is drawn there (bytes done, rate, time left) and cleared at the end; \
         --no-progress turns it off. It is never drawn when standard error is not a terminal.",
    )]);
    section(&mut r, "EXIT STATUS", &EXIT_STATUS);
    section(&mut r, "ENVIRONMENT", &ENVIRONMENT);
    let fields = urlsift_printer::fields::described();
    let fields: Vec<(&str, &str)> = fields.iter().map(|(n, d)| (n.as_str(), *d)).collect();
    section(&mut r, "JSON FIELDS", &fields);
    r.control("SH", ["SEE ALSO"]);
    r.text([roman(
        "grep(1), rg(1), and the README of urlsift for mail, de-duplication and Parquet.",
    )]);
    r.to_writer(out)?;
    man.render_version_section(out)
}
