//! The habits grep and ripgrep users bring: `-o` as only-matching,
//! `--stats` on any run, the progress bar and `--no-progress`, `-L`,
//! `--max-filesize`, `--vimgrep`, `-m 0` and `--shards 1`.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_urlsift");

/// Run `urlsift args` in `dir` with `stdin` as standard input.
fn run_in(args: &[&str], stdin: &[u8], dir: &Path) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .env_remove("URLSIFT_ISA")
        .env_remove("NO_COLOR")
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn urlsift");
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    out
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("exited normally")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A temporary directory holding `files` (name, bytes).
fn tree(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    for (name, bytes) in files {
        let p = d.path().join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
    d
}

// ---------------------------------------------------------------- -o

#[test]
fn dash_o_is_only_matching_and_never_writes_a_file() {
    let text = b"keep me: http://a.example/\n";
    let d = tree(&[("notes.txt", text)]);
    // A grep habit in a script with nothing on standard input: notes.txt
    // is an input, scanned and left as it was.
    let o = run_in(&["-o", "notes.txt"], b"", d.path());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), "http://a.example/\n");
    assert_eq!(std::fs::read(d.path().join("notes.txt")).unwrap(), text);
    // -o and --only-matching change nothing, wherever they stand.
    let plain = run_in(&["-n", "notes.txt", "-"], b"www.b.example\n", d.path());
    for flags in [
        &["-o", "-n", "notes.txt", "-"][..],
        &["--only-matching", "-n", "notes.txt", "-"],
        &["-no", "notes.txt", "-"],
    ] {
        let o = run_in(flags, b"www.b.example\n", d.path());
        assert_eq!(
            (code(&o), o.stdout.clone()),
            (0, plain.stdout.clone()),
            "{flags:?}"
        );
    }
    // The output file is --output only.
    let o = run_in(&["--output", "out.txt", "notes.txt"], b"", d.path());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(d.path().join("out.txt")).unwrap(),
        "http://a.example/\n"
    );
    let help = run_in(&["--help"], b"", d.path());
    let help = stdout(&help);
    assert!(help.contains("-o, --only-matching"), "{help}");
    assert!(!help.contains("-o, --output"), "{help}");
}

// ---------------------------------------------------------------- --shards 1

#[test]
fn shards_1_writes_part_00000_in_a_directory_as_shards_n_does() {
    let d = tree(&[("in.txt", b"http://a.example/ http://b.example/\n")]);
    std::fs::create_dir(d.path().join("existing")).unwrap();
    for (n, dir) in [("1", "existing"), ("1", "new"), ("3", "three")] {
        let o = run_in(&["--shards", n, "--output", dir, "in.txt"], b"", d.path());
        assert_eq!(code(&o), 0, "--shards {n} {dir}: {}", stderr(&o));
        let part = d.path().join(dir).join("part-00000.txt");
        assert!(part.is_file(), "--shards {n} {dir}: no {}", part.display());
    }
    assert_eq!(
        std::fs::read_to_string(d.path().join("new/part-00000.txt")).unwrap(),
        "http://a.example/\nhttp://b.example/\n"
    );
    // A run with more shards, then with one: the directory holds one run's.
    let o = run_in(
        &["--shards", "1", "--output", "three", "in.txt"],
        b"",
        d.path(),
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let names: Vec<_> = std::fs::read_dir(d.path().join("three"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names, ["part-00000.txt"]);
    // --shards 1 needs --output, as --shards N does; --shard-by goes with it.
    let o = run_in(&["--shards", "1", "in.txt"], b"", d.path());
    assert_eq!(code(&o), 2);
    let o = run_in(
        &[
            "--shards",
            "1",
            "--shard-by",
            "host",
            "--output",
            "h",
            "in.txt",
        ],
        b"",
        d.path(),
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // Without --shards, --output names one file.
    let o = run_in(&["--output", "plain", "in.txt"], b"", d.path());
    assert_eq!(code(&o), 0);
    assert!(d.path().join("plain").is_file());
}

// ---------------------------------------------------------------- -m 0

#[test]
fn max_count_0_takes_nothing_and_lists_every_file_without_match() {
    // GNU grep 3.8 on the same two files: -m0 prints nothing (exit 1) with
    // or without -l, -c, -q; -m0 -L lists both, as no line was taken.
    let d = tree(&[("a.txt", b"http://a.example/\n"), ("b.txt", b"none\n")]);
    let o = run_in(
        &["-m", "0", "--files-without-match", "a.txt"],
        b"",
        d.path(),
    );
    assert_eq!(
        (code(&o), stdout(&o)),
        (0, "a.txt\n".into()),
        "{}",
        stderr(&o)
    );
    let o = run_in(
        &["-m", "0", "--files-without-match", "a.txt", "b.txt", "-"],
        b"http://c.example/",
        d.path(),
    );
    assert_eq!(stdout(&o), "a.txt\nb.txt\n-\n");
    for flags in [
        &["-m", "0"][..],
        &["-m", "0", "-l"],
        &["-m", "0", "-c"],
        &["-m0", "-q"],
    ] {
        let mut args = flags.to_vec();
        args.extend(["a.txt", "b.txt"]);
        let o = run_in(&args, b"", d.path());
        assert_eq!(
            (code(&o), stdout(&o), stderr(&o)),
            (1, String::new(), String::new()),
            "{flags:?}"
        );
    }
    // An input that cannot be opened is still an error.
    let o = run_in(
        &["-m", "0", "--files-without-match", "missing", "a.txt"],
        b"",
        d.path(),
    );
    assert_eq!((code(&o), stdout(&o)), (2, "a.txt\n".into()));
    assert!(stderr(&o).contains("missing"), "{}", stderr(&o));
    // -m 1 -l and -m 1 --files-without-match are -l and --files-without-match.
    let o = run_in(&["-m", "1", "-l", "a.txt", "b.txt"], b"", d.path());
    assert_eq!(stdout(&o), "a.txt\n");
    let o = run_in(
        &["-m", "1", "--files-without-match", "a.txt", "b.txt"],
        b"",
        d.path(),
    );
    assert_eq!(stdout(&o), "b.txt\n");
}

// ---------------------------------------------------------------- -L

#[test]
fn follow_walks_through_links_and_names_a_loop_without_hanging() {
    let d = tree(&[
        ("top/a.txt", b"http://a.example/\n"),
        ("elsewhere/b.txt", b"http://b.example/\n"),
    ]);
    std::os::unix::fs::symlink("../elsewhere", d.path().join("top/linked")).unwrap();
    // Without -L, a link to a directory is not followed.
    let o = run_in(&["-I", "top"], b"", d.path());
    assert_eq!((code(&o), stdout(&o)), (0, "http://a.example/\n".into()));
    for flag in ["-L", "--follow"] {
        let o = run_in(&[flag, "top"], b"", d.path());
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        assert_eq!(
            stdout(&o),
            "top/a.txt:http://a.example/\ntop/linked/b.txt:http://b.example/\n"
        );
    }
    // A link back to a directory above it: an error naming it, exit 2, and
    // the rest of the walk is scanned.
    std::os::unix::fs::symlink("../top", d.path().join("elsewhere/back")).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let dir = d.path().to_path_buf();
    std::thread::spawn(move || {
        let _ = tx.send(run_in(&["-L", "-I", "top"], b"", &dir));
    });
    let o = rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("a loop of links hangs the walk");
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o) == "urlsift: top/linked/back: a link back to top (a loop): not followed\n",
        "{}",
        stderr(&o)
    );
    assert!(stdout(&o).contains("http://a.example/"), "{}", stdout(&o));
    assert!(stdout(&o).contains("http://b.example/"), "{}", stdout(&o));
}

// ---------------------------------------------------------------- --max-filesize

#[test]
fn max_filesize_skips_larger_files_walked_or_named_but_not_stdin() {
    let big = format!("{}\n", "http://big.example/ ".repeat(110)); // 2201 bytes
    let d = tree(&[
        ("dir/small.txt", b"http://small.example/\n"),
        ("dir/big.txt", big.as_bytes()),
        ("exact.txt", &[b'x'; 2048]),
    ]);
    std::os::unix::fs::symlink("big.txt", d.path().join("dir/link-to-big.txt")).unwrap();
    let o = run_in(&["--max-filesize", "2K", "-I", "dir"], b"", d.path());
    assert_eq!(
        (code(&o), stdout(&o)),
        (0, "http://small.example/\n".into())
    );
    assert_eq!(stderr(&o), "");
    // Named: skipped too, silently, as ripgrep does; a file of exactly SIZE is read.
    let o = run_in(
        &[
            "--max-filesize",
            "2K",
            "-c",
            "-H",
            "dir/big.txt",
            "exact.txt",
        ],
        b"",
        d.path(),
    );
    assert_eq!((code(&o), stdout(&o)), (1, "exact.txt:0\n".into()));
    let o = run_in(
        &["--max-filesize", "2201", "-c", "dir/big.txt"],
        b"",
        d.path(),
    );
    assert_eq!(stdout(&o), "110\n");
    // Standard input has no size to judge by: it is read.
    let o = run_in(&["--max-filesize", "10", "-c"], big.as_bytes(), d.path());
    assert_eq!(stdout(&o), "110\n");
    // The size syntax of --max-memory; a bad size is refused.
    for bad in ["lots", "-1K"] {
        let o = run_in(&["--max-filesize", bad, "dir"], b"", d.path());
        assert_eq!(code(&o), 2, "{bad}");
    }
}

// ---------------------------------------------------------------- progress

/// Run `urlsift args` in `dir` with standard error on a terminal (a new
/// pseudo-terminal of 24 rows and 80 columns); returns its exit status and
/// what it printed there.
fn stderr_on_a_terminal(args: &[&str], dir: &Path) -> (i32, Vec<u8>) {
    use std::io::Read;
    use std::os::fd::{FromRawFd, OwnedFd};
    let (mut master, mut slave) = (-1, -1);
    let size = libc::winsize {
        ws_row: 24,
        ws_col: 80,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: the pointers are to live values; name and termios may be null.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            &size,
        )
    };
    assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: openpty opened both descriptors, and nothing else owns them.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(slave);
    let mut child = cmd.spawn().expect("spawn urlsift");
    drop(cmd); // its copy of the terminal's other end: the read below ends
    // Read while it runs: a terminal's buffer is small.
    let reader = std::thread::spawn(move || {
        let mut printed = Vec::new();
        // Once the program has closed it, reading the terminal ends in EIO.
        let _ = std::fs::File::from(master).read_to_end(&mut printed);
        printed
    });
    let status = child.wait().unwrap();
    (status.code().unwrap(), reader.join().unwrap())
}

#[test]
fn progress_bar_on_a_terminal_for_large_inputs_and_no_progress_turns_it_off() {
    let d = tree(&[("small.txt", b"http://a.example/\n")]);
    // Over 64 MiB in all: a sparse file reads as zeros, quickly.
    let big = std::fs::File::create(d.path().join("big.bin")).unwrap();
    big.set_len((64 << 20) + 1).unwrap();
    let (st, printed) = stderr_on_a_terminal(&["big.bin", "small.txt"], d.path());
    assert_eq!(st, 0);
    let drawn = String::from_utf8_lossy(&printed);
    assert!(drawn.contains("MiB"), "no progress bar drawn: {drawn:?}");
    let (st, printed) = stderr_on_a_terminal(&["--no-progress", "big.bin", "small.txt"], d.path());
    assert_eq!(st, 0);
    assert_eq!(String::from_utf8_lossy(&printed), "");
    // Small inputs draw none.
    let (_, printed) = stderr_on_a_terminal(&["small.txt"], d.path());
    assert_eq!(String::from_utf8_lossy(&printed), "");
    // Nor does a standard error that is no terminal.
    let o = run_in(&["big.bin", "small.txt"], b"", d.path());
    assert_eq!((code(&o), stderr(&o)), (0, String::new()));
    // --help and the man page describe it.
    let help = stdout(&run_in(&["--help"], b"", d.path()));
    assert!(
        help.contains("--no-progress") && help.contains("64 MiB"),
        "{help}"
    );
    let man = stdout(&run_in(&["man"], b"", d.path()));
    assert!(
        man.contains("no\\-progress") && man.contains("64 MiB"),
        "{man}"
    );
}

// ---------------------------------------------------------------- --stats

fn gzip(b: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(b).unwrap();
    e.finish().unwrap()
}

/// The `--stats` lines of a run's stderr that follow the first `run:` line.
fn stats_lines(err: &str) -> Vec<&str> {
    let from = err.find("urlsift: run: ").expect("no run: line");
    err[from..].lines().collect()
}

/// The numbers of a `--stats` line, in order.
fn numbers(line: &str) -> Vec<f64> {
    let after = line.rsplit_once(": ").unwrap().1;
    after
        .split(", ")
        .map(|f| f.split(' ').next().unwrap().parse().unwrap())
        .collect()
}

#[test]
fn stats_on_any_run_counts_inputs_bytes_urls_time_and_kinds() {
    let html = b"<!DOCTYPE html><a href=\"http://h.example/\">x</a>\n";
    let gz = gzip(b"http://g.example/ http://g2.example/\n");
    let warc = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/crates/warc/tests/data/sample.warc.gz"
    ))
    .unwrap();
    let d = tree(&[
        ("in/a.txt", b"http://a.example/\n"),
        ("in/b.gz", &gz),
        ("in/c.html", html),
        ("in/d.warc.gz", &warc),
        ("big.txt", &[b'x'; 300_000]),
    ]);
    let warc_urls: u64 = {
        let o = run_in(&["-c", "in/d.warc.gz"], b"", d.path());
        stdout(&o).trim().parse().unwrap()
    };
    let stdin = b"www.s.example\n";
    let args = ["in", "-", "missing", "big.txt", "--max-filesize", "200K"];
    let plain = run_in(&args, stdin, d.path());
    let mut with = args.to_vec();
    with.push("--stats");
    let o = run_in(&with, stdin, d.path());
    // The output is that of the run without --stats.
    assert_eq!((code(&o), &o.stdout), (2, &plain.stdout));
    let err = stderr(&o);
    let lines = stats_lines(&err);
    assert_eq!(lines.len(), 4, "{err}");
    // run: inputs, failed, skipped, bytes, URLs, seconds, MiB/s
    let run = numbers(lines[0]);
    let text_bytes = (18 + gz.len() + stdin.len()) as f64;
    let bytes = text_bytes + (html.len() + warc.len()) as f64;
    let urls = (4 + 1 + warc_urls) as f64;
    assert_eq!(run[..5], [6.0, 1.0, 1.0, bytes, urls], "{err}");
    assert!(run[5] >= 0.0 && run[6] >= 0.0, "{err}");
    assert!(lines[0].ends_with(" MiB/s"), "{err}");
    assert_eq!(
        lines[1],
        format!("urlsift: run: text: 3 inputs, {text_bytes} bytes, 4 URLs")
    );
    assert_eq!(
        lines[2],
        format!("urlsift: run: html: 1 inputs, {} bytes, 1 URLs", html.len())
    );
    assert_eq!(
        lines[3],
        format!(
            "urlsift: run: web archive: 1 inputs, {} bytes, {warc_urls} URLs",
            warc.len()
        )
    );
    // Without --stats, nothing of it.
    assert!(!stderr(&plain).contains("urlsift: run:"));
}

#[test]
fn stats_keeps_the_dedup_and_mail_lines_first() {
    let d = tree(&[(
        "m.mbox",
        b"From a@b Sat Jan  1 00:00:00 2000\nSubject: hi\n\nsee http://m.example/ http://m.example/\n",
    )]);
    let o = run_in(&["--unique", "--stats", "m.mbox"], b"", d.path());
    let err = stderr(&o);
    let lines: Vec<_> = err.lines().filter(|l| !l.contains("--mail")).collect();
    assert!(
        lines[0].starts_with("urlsift: dedup: 2 URLs, 1 distinct;"),
        "{err}"
    );
    assert!(lines[0].ends_with("nothing spilled"), "{err}");
    assert!(
        lines[1].starts_with("urlsift: run: 1 inputs, 0 failed, 0 skipped, "),
        "{err}"
    );
    assert!(lines[1].contains(" bytes, 2 URLs, "), "{err}");
    let o = run_in(
        &["--mail", "--count-by", "host", "--stats", "m.mbox"],
        b"",
        d.path(),
    );
    let err = stderr(&o);
    let lines: Vec<_> = err.lines().collect();
    assert!(lines[0].starts_with("urlsift: dedup: "), "{err}");
    assert!(lines[1].starts_with("urlsift: mail: 1 messages"), "{err}");
    assert!(lines[2].starts_with("urlsift: run: 1 inputs"), "{err}");
    assert!(
        lines[3].starts_with("urlsift: run: mail: 1 inputs, "),
        "{err}"
    );
    assert!(lines[3].ends_with(", 2 URLs"), "{err}");
    // --help and the man page describe the lines.
    let help = stdout(&run_in(&["--help"], b"", d.path()));
    assert!(help.contains("throughput"), "{help}");
}

// ---------------------------------------------------------------- --vimgrep

/// What `--vimgrep` should print for `text` named `name`: each URL's
/// 1-based line and byte column, found here by the text's own newlines.
fn vimgrep_of(name: &str, text: &[u8], urls: &[&str]) -> String {
    let mut out = String::new();
    let mut from = 0;
    for url in urls {
        let at = from
            + text[from..]
                .windows(url.len())
                .position(|w| w == url.as_bytes())
                .unwrap();
        let line = 1 + text[..at].iter().filter(|&&b| b == b'\n').count();
        let start = text[..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        out += &format!("{name}:{line}:{}:{url}\n", at - start + 1);
        from = at + url.len();
    }
    out
}

#[test]
fn vimgrep_prints_path_line_column_url_for_files_streams_and_stdin() {
    let text = "ab http://a.example/ x\n  <http://b.example/>\thttp://c.example/\n\
                é www.d.example\n"
        .as_bytes();
    let urls = [
        "http://a.example/",
        "http://b.example/",
        "http://c.example/",
        "www.d.example",
    ];
    let d = tree(&[("v.txt", text), ("dir/v.gz", &gzip(text))]);
    let o = run_in(&["--vimgrep", "v.txt"], b"", d.path());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // The column counts bytes: é is two.
    assert_eq!(
        stdout(&o),
        "v.txt:1:4:http://a.example/\nv.txt:2:4:http://b.example/\nv.txt:2:23:http://c.example/\n\
         v.txt:3:4:www.d.example\n"
    );
    assert_eq!(stdout(&o), vimgrep_of("v.txt", text, &urls));
    // Standard input is `-`, as -H names it; a compressed file, a walk.
    let o = run_in(&["--vimgrep"], text, d.path());
    assert_eq!(stdout(&o), vimgrep_of("-", text, &urls));
    let o = run_in(&["--vimgrep", "dir"], b"", d.path());
    assert_eq!(stdout(&o), vimgrep_of("dir/v.gz", text, &urls));
    // Neither threads nor chunks, nor -n/-H given again, change it.
    let want = stdout(&run_in(&["--vimgrep", "v.txt", "dir"], b"", d.path()));
    for extra in [
        &["-j", "1"][..],
        &["-j", "4", "--chunk-size", "7"],
        &["-n", "-H"],
        &["--no-mmap"],
    ] {
        let mut args = vec!["--vimgrep", "v.txt", "dir"];
        args.extend(extra);
        assert_eq!(stdout(&run_in(&args, b"", d.path())), want, "{extra:?}");
    }
    // --unique and --normalize keep the first place of each URL.
    let o = run_in(
        &["--vimgrep", "--unique", "--normalize", "-"],
        b"x HTTP://A.example\nHTTP://a.EXAMPLE/\n",
        d.path(),
    );
    assert_eq!(stdout(&o), "-:1:3:http://a.example/\n");
    // -m: the first URLs.
    let o = run_in(&["--vimgrep", "-m", "1", "v.txt"], b"", d.path());
    assert_eq!(stdout(&o), "v.txt:1:4:http://a.example/\n");
}

#[test]
fn vimgrep_columns_run_across_stream_blocks_and_chunks() {
    // A line longer than a stream's block (16 MiB) and than many chunks:
    // the column of a URL at its end counts from the line's start.
    let mut text = vec![b'x'; 17 << 20];
    text[0] = b'\n';
    text.extend_from_slice(b" http://end.example/\nhttp://next.example/\n");
    let d = tree(&[("long.txt", &text)]);
    let urls = ["http://end.example/", "http://next.example/"];
    let o = run_in(
        &["--vimgrep", "--chunk-size", "64K", "long.txt"],
        b"",
        d.path(),
    );
    assert_eq!(stdout(&o), vimgrep_of("long.txt", &text, &urls));
    let o = run_in(&["--vimgrep", "--chunk-size", "64K"], &text, d.path());
    assert_eq!(stdout(&o), vimgrep_of("-", &text, &urls));
}

#[test]
fn vimgrep_in_mail_html_and_web_archives() {
    let mbox = b"From a@b Sat Jan  1 00:00:00 2000\nSubject: see http://s.example/\n\n\
                 body  http://m.example/\n";
    let html = b"<!DOCTYPE html>\n<p>  <a href=\"http://h.example/\">x</a> http://t.example/\n";
    let warc = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/crates/warc/tests/data/sample.warc.gz"
    ))
    .unwrap();
    let d = tree(&[("m.mbox", mbox), ("p.html", html), ("a.warc.gz", &warc)]);
    // Mail: the line and column in the file, as -n gives the file's line;
    // read whole or from a pipe.
    let want = vimgrep_of("m.mbox", mbox, &["http://s.example/", "http://m.example/"]);
    let o = run_in(&["--vimgrep", "--mail", "m.mbox"], b"", d.path());
    assert_eq!(stdout(&o), want, "{}", stderr(&o));
    let o = run_in(&["--vimgrep", "--mail"], mbox, d.path());
    assert_eq!(stdout(&o), want.replace("m.mbox", "-"));
    // HTML: where the attribute's value starts, and text as text.
    let o = run_in(&["--vimgrep", "p.html"], b"", d.path());
    assert_eq!(
        stdout(&o),
        vimgrep_of("p.html", html, &["http://h.example/", "http://t.example/"])
    );
    // A web archive's links have no line: 0:0, as -n prints line 0.
    let o = run_in(&["--vimgrep", "-m", "2", "a.warc.gz"], b"", d.path());
    let n = run_in(&["-n", "-H", "-m", "2", "a.warc.gz"], b"", d.path());
    let want: String = stdout(&n)
        .lines()
        .map(|l| l.replacen("a.warc.gz:0:", "a.warc.gz:0:0:", 1) + "\n")
        .collect();
    assert!(want.starts_with("a.warc.gz:0:0:"), "{want}");
    assert_eq!(stdout(&o), want);
}

#[test]
fn vimgrep_refuses_what_prints_otherwise_and_is_documented() {
    let d = tree(&[("v.txt", b"http://a.example/\n")]);
    for flags in [
        &["--format", "json"][..],
        &["-c"],
        &["--count-by", "host"],
        &["-l"],
        &["--files-without-match"],
        &["-q"],
        &["-b"],
        &["-I"],
    ] {
        let mut args = vec!["--vimgrep", "v.txt"];
        args.extend(flags);
        let o = run_in(&args, b"", d.path());
        assert_eq!(code(&o), 2, "{flags:?}");
        assert!(
            stderr(&o).contains("--vimgrep"),
            "{flags:?}: {}",
            stderr(&o)
        );
    }
    let help = stdout(&run_in(&["--help"], b"", d.path()));
    assert!(help.contains("PATH:LINE:COLUMN:URL"), "{help}");
    let man = stdout(&run_in(&["man"], b"", d.path()));
    assert!(man.contains("vimgrep"), "{man}");
}

// ---------------------------------------------------------------- the contract

#[test]
fn help_and_man_page_list_the_flags_of_the_cli_contract() {
    // DESIGN.md's CLI contract: -o/--only-matching, --output FILE, -L/--follow,
    // --max-filesize SIZE, --vimgrep, --stats, --no-progress.
    let d = tempfile::tempdir().unwrap();
    let help = stdout(&run_in(&["--help"], b"", d.path()));
    for flag in [
        "-o, --only-matching",
        "--output <FILE|DIR>",
        "-L, --follow",
        "--max-filesize <SIZE>",
        "--vimgrep",
        "--stats",
        "--no-progress",
    ] {
        assert!(help.contains(flag), "--help lacks {flag}: {help}");
    }
    let man = stdout(&run_in(&["man"], b"", d.path()));
    for flag in [
        "\\-o\\fR, \\fB\\-\\-only\\-matching",
        "\\-\\-output",
        "\\-L\\fR, \\fB\\-\\-follow",
        "\\-\\-max\\-filesize",
        "\\-\\-vimgrep",
        "\\-\\-stats",
        "\\-\\-no\\-progress",
        "STATISTICS",
        "PROGRESS",
        "urlsift: run: N inputs, F failed, S skipped, B bytes, U URLs, T s, R MiB/s",
    ] {
        assert!(man.contains(flag), "the man page lacks {flag}");
    }
    // No short -o for the output any more.
    assert!(!man.contains("\\-o\\fR, \\fB\\-\\-output"));
}
