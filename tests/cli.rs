//! CLI integration tests: every flag, every exit status (0 found, 1 none, 2
//! error) and every error path, run against the built `urlsift` binary.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_urlsift");

/// Run `urlsift args` with `stdin` as standard input.
fn run_in(args: &[&str], stdin: &[u8], dir: Option<&Path>) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .env_remove("URLSIFT_ISA")
        .env_remove("NO_COLOR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    let mut child = cmd.spawn().expect("spawn urlsift");
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    out
}

fn run(args: &[&str], stdin: &[u8]) -> Output {
    run_in(args, stdin, None)
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

fn lines(o: &Output) -> Vec<String> {
    stdout(o).lines().map(String::from).collect()
}

const TEXT: &[u8] = b"see http://a.example/x and <http://b.example/y>\nthen www.c.example.\n";

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

fn p(d: &tempfile::TempDir, name: &str) -> String {
    d.path().join(name).display().to_string()
}

fn gzip(b: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(b).unwrap();
    e.finish().unwrap()
}

/// Text with many URLs of every style, wrapped ones across lines, and
/// non-ASCII: deterministic, about `n` URLs.
fn generated(n: usize) -> Vec<u8> {
    let mut s = Vec::new();
    let mut x: u32 = 12345;
    for i in 0..n {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        let h = x >> 16;
        let piece = match h % 7 {
            0 => format!("see http://h{}.example/p/{i}?q={h} ok\n", h % 13),
            1 => format!("<https://w{}.example/a/\n   b{i}.html> ", h % 5),
            2 => format!("\"ftp://f.example/{i}\", "),
            3 => format!("www.site{}.example/x{i}. ", h % 3),
            4 => format!("(https://en.wikipedia.org/wiki/R_(x{i})) "),
            5 => format!("详见http://cjk.example/{i}。 mailto:u{i}@m.example "),
            _ => format!("<URL:http://u.example/{i}>\n"),
        };
        s.extend_from_slice(piece.as_bytes());
    }
    s
}

// ---------- inputs ----------

#[test]
fn stdin_is_the_default_input() {
    let o = run(&[], TEXT);
    assert_eq!(code(&o), 0);
    assert_eq!(
        lines(&o),
        ["http://a.example/x", "http://b.example/y", "www.c.example"]
    );
}

#[test]
fn dash_is_stdin_among_paths() {
    let d = tree(&[("f.txt", b"http://file.example/")]);
    let f = p(&d, "f.txt");
    let o = run(&["-H", &f, "-", &f], b"http://stdin.example/\n");
    assert_eq!(code(&o), 0);
    assert_eq!(
        lines(&o),
        [
            format!("{f}:http://file.example/"),
            "-:http://stdin.example/".to_string(),
            format!("{f}:http://file.example/"),
        ]
    );
}

#[test]
fn nothing_found_exits_1() {
    let o = run(&[], b"no urls here, just http: and www without dot\n");
    assert_eq!(code(&o), 1);
    assert!(o.stdout.is_empty());
    assert!(o.stderr.is_empty());
}

#[test]
fn directories_are_walked_sorted_with_hidden_binary_gz_and_zstd() {
    let zst = zstd::encode_all(&b"zstd http://zst.example/\n"[..], 1).unwrap();
    let d = tree(&[
        ("b.txt", b"http://b.example/\n"),
        ("a.txt", b"x\nhttp://a.example/\n"),
        ("sub/.hidden", b"http://hidden.example/"),
        ("sub/bin.dat", b"\x00\x01bin http://bin.example/ \x00\xff"),
        ("sub/c.gz", &gzip(b"gz\n\nhttp://gz.example/ok\n")),
        ("sub/d.zst", &zst),
    ]);
    let o = run_in(&["-H", "-n", "."], b"", Some(d.path()));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        lines(&o),
        [
            "./a.txt:2:http://a.example/",
            "./b.txt:1:http://b.example/",
            "./sub/.hidden:1:http://hidden.example/",
            "./sub/bin.dat:1:http://bin.example/",
            "./sub/c.gz:3:http://gz.example/ok",
            "./sub/d.zst:1:http://zst.example/",
        ]
    );
    assert!(o.stderr.is_empty());
}

#[test]
fn gzip_on_stdin_is_decompressed() {
    let o = run(&["-"], &gzip(b"a http://gz.example/ b"));
    assert_eq!(code(&o), 0);
    assert_eq!(lines(&o), ["http://gz.example/"]);
}

#[test]
fn nonexistent_path_is_an_error_and_others_are_scanned() {
    let d = tree(&[("ok.txt", b"http://ok.example/")]);
    let o = run(&["-I", &p(&d, "missing.txt"), &p(&d, "ok.txt")], b"");
    assert_eq!(code(&o), 2);
    assert_eq!(lines(&o), ["http://ok.example/"]);
    let e = stderr(&o);
    assert!(
        e.contains("missing.txt") && e.contains("No such file"),
        "{e}"
    );
}

fn is_root() -> bool {
    // Root reads a chmod 000 file anyway: probe it.
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("probe");
    std::fs::write(&f, b"x").unwrap();
    set_mode(&f, 0o000);
    std::fs::read(&f).is_ok()
}

#[cfg(unix)]
fn set_mode(f: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(f, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// An unreadable file: chmod 000, or (as root, who reads those anyway)
/// `/proc/self/mem`, which opens but fails to read at offset 0 (EIO) for
/// everyone. Both must give an error naming the file, exit 2, and the other
/// inputs still scanned.
#[test]
#[cfg(target_os = "linux")]
fn unreadable_file_is_an_error_and_others_are_scanned() {
    let d = tree(&[
        ("locked.txt", b"http://locked.example/"),
        ("ok.txt", b"http://ok.example/"),
    ]);
    let bad = if is_root() {
        "/proc/self/mem".to_string()
    } else {
        let f = p(&d, "locked.txt");
        set_mode(Path::new(&f), 0o000);
        f
    };
    let o = run(&["-I", &bad, &p(&d, "ok.txt")], b"");
    assert_eq!(code(&o), 2);
    assert_eq!(lines(&o), ["http://ok.example/"]);
    let e = stderr(&o);
    assert!(e.starts_with(&format!("urlsift: {bad}: ")), "{e}");
    assert!(!e.contains("panicked"));
}

/// In a directory walk, a dangling symbolic link is an input that cannot be
/// opened (root included): an error naming it, the rest is scanned.
#[test]
#[cfg(unix)]
fn dangling_symlink_in_a_walk_is_an_error() {
    let d = tree(&[
        ("a.txt", b"http://a.example/"),
        ("c.txt", b"http://c.example/"),
    ]);
    std::os::unix::fs::symlink(d.path().join("nowhere"), d.path().join("b.txt")).unwrap();
    let o = run_in(&["-H", "."], b"", Some(d.path()));
    assert_eq!(code(&o), 2);
    assert_eq!(
        lines(&o),
        ["./a.txt:http://a.example/", "./c.txt:http://c.example/"]
    );
    assert!(
        stderr(&o).contains("urlsift: ./b.txt: No such file"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn truncated_gzip_names_file_and_offset_and_others_complete() {
    let mut body = b"start http://first.example/ ".to_vec();
    for i in 0..2000 {
        body.extend_from_slice(format!("filler {i} http://f{i}.example/\n").as_bytes());
    }
    let gz = gzip(&body);
    let cut = &gz[..gz.len() / 2];
    let d = tree(&[
        ("a.txt", b"http://a.example/"),
        ("b.gz", cut),
        ("c.txt", b"http://c.example/"),
    ]);
    let o = run_in(&["-H", "."], b"", Some(d.path()));
    assert_eq!(code(&o), 2);
    let out = lines(&o);
    assert_eq!(out.first().unwrap(), "./a.txt:http://a.example/");
    assert!(out.contains(&"./b.gz:http://first.example/".to_string()));
    assert_eq!(out.last().unwrap(), "./c.txt:http://c.example/");
    let e = stderr(&o);
    assert!(e.contains("urlsift: ./b.gz: at byte "), "{e}");
    let at: u64 = e
        .split("at byte ")
        .nth(1)
        .unwrap()
        .split(':')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(at > 0 && at < body.len() as u64, "{e}");
}

// ---------- output flags ----------

#[test]
fn line_number_byte_offset_with_filename() {
    let o = run(&["-n", "-b", "-H"], TEXT);
    assert_eq!(
        lines(&o),
        [
            "-:1:4:http://a.example/x",
            "-:1:28:http://b.example/y",
            "-:2:53:www.c.example"
        ]
    );
    let o = run(&["--line-number", "--byte-offset"], TEXT);
    assert_eq!(lines(&o)[2], "2:53:www.c.example");
}

#[test]
fn count_per_input() {
    let d = tree(&[("a.txt", TEXT), ("b.txt", b"nothing")]);
    // grep -c: with several inputs, file names by default; -h (-I) drops them.
    let o = run_in(&["-c", "a.txt", "b.txt"], b"", Some(d.path()));
    assert_eq!(code(&o), 0);
    assert_eq!(lines(&o), ["a.txt:3", "b.txt:0"]);
    let o = run_in(&["-c", "-I", "a.txt", "b.txt"], b"", Some(d.path()));
    assert_eq!(lines(&o), ["3", "0"]);
    let o = run_in(&["--count", "-H", "a.txt", "b.txt"], b"", Some(d.path()));
    assert_eq!(lines(&o), ["a.txt:3", "b.txt:0"]);
    let o = run_in(&["-c", "b.txt"], b"", Some(d.path()));
    assert_eq!(code(&o), 1);
}

#[test]
fn quiet_prints_nothing_and_exit_says() {
    let o = run(&["-q"], TEXT);
    assert_eq!(code(&o), 0);
    assert!(o.stdout.is_empty() && o.stderr.is_empty());
    let o = run(&["--quiet"], b"none");
    assert_eq!(code(&o), 1);
    // Found somewhere: 0 even when another input failed (grep -q).
    let o = run(&["-q", "/nonexistent/x", "-"], TEXT);
    assert_eq!(code(&o), 0);
    let o = run(&["-q", "/nonexistent/x", "-"], b"none");
    assert_eq!(code(&o), 2);
}

#[test]
fn json_lines_have_every_contract_field() {
    let o = run(
        &["--format", "json"],
        b"x <http://user@h.example:8080/p?q=1#f> \"https://[::1]/\" URL:ftp://1.2.3.4/ www.w.example\n",
    );
    assert_eq!(code(&o), 0);
    let rows: Vec<Value> = lines(&o)
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 4);
    let fields = [
        "file",
        "start",
        "end",
        "line",
        "url",
        "style",
        "kind",
        "valid",
        "ambiguous",
        "scheme",
        "userinfo",
        "host",
        "host_kind",
        "port",
        "path",
        "query",
        "fragment",
    ];
    for r in &rows {
        for f in fields {
            assert!(r.get(f).is_some(), "missing {f} in {r}");
        }
        assert!(r.get("normalized").is_none());
    }
    let r = &rows[0];
    assert_eq!(r["file"], "-");
    assert_eq!(r["start"], 3);
    assert_eq!(r["end"], 37);
    assert_eq!(r["line"], 1);
    assert_eq!(r["url"], "http://user@h.example:8080/p?q=1#f");
    assert_eq!(r["style"], "angle");
    assert_eq!(r["kind"], "uri");
    assert_eq!(r["valid"], true);
    assert_eq!(r["ambiguous"], false);
    assert_eq!(r["scheme"], "http");
    assert_eq!(r["userinfo"], "user");
    assert_eq!(r["host"], "h.example");
    assert_eq!(r["host_kind"], "reg-name");
    assert_eq!(r["port"], "8080");
    assert_eq!(r["path"], "/p");
    assert_eq!(r["query"], "q=1");
    assert_eq!(r["fragment"], "f");
    assert_eq!(rows[1]["style"], "quoted");
    assert_eq!(rows[1]["host_kind"], "ipv6");
    assert_eq!(rows[1]["userinfo"], Value::Null);
    assert_eq!(rows[1]["port"], Value::Null);
    assert_eq!(rows[1]["query"], Value::Null);
    assert_eq!(rows[1]["fragment"], Value::Null);
    assert_eq!(rows[2]["style"], "url-prefix");
    assert_eq!(rows[2]["host_kind"], "ipv4");
    assert_eq!(rows[3]["kind"], "www");
    assert_eq!(rows[3]["scheme"], Value::Null);
    // --normalize adds the normal form.
    let o = run(
        &["--format", "json", "--normalize"],
        b"HTTP://A.example:80/%7ex\n",
    );
    let r: Value = serde_json::from_str(&lines(&o)[0]).unwrap();
    assert_eq!(r["normalized"], "http://a.example/~x");
    assert_eq!(r["url"], "HTTP://A.example:80/%7ex");
}

#[test]
fn csv_header_and_quoting() {
    let o = run(&["--format", "csv"], b"a http://h.example/a,b?x=\"1\" b\n");
    assert_eq!(code(&o), 0);
    let out = lines(&o);
    assert_eq!(
        out[0],
        "file,start,end,line,url,style,kind,valid,ambiguous,scheme,userinfo,host,host_kind,port,path,query,fragment,\
         host_ascii,domain,found,source,source_name,warc_target_uri,warc_record_id,warc_date,warc_type,warc_offset,warc_length,http_status,rel"
    );
    // The URL ends at the quote; the comma inside it is quoted. The web
    // columns are empty for a URL of text.
    assert_eq!(
        out[1],
        "-,2,25,1,\"http://h.example/a,b?x=\",bare,uri,true,false,http,,h.example,reg-name,,\"/a,b\",x=,,h.example,h.example,,,,,,,,,,,"
    );
    assert_eq!(out.len(), 2);
    // The header is written once for several inputs, and not at all without rows.
    let d = tree(&[("a", b"http://a.example/"), ("b", b"http://b.example/")]);
    let o = run_in(
        &["--format", "csv", "--normalize", "a", "b"],
        b"",
        Some(d.path()),
    );
    let out = lines(&o);
    assert_eq!(out.len(), 3);
    assert!(out[0].starts_with("file,start,end,line,url,normalized,style"));
    let o = run(&["--format", "csv"], b"none");
    assert_eq!(code(&o), 1);
    assert!(o.stdout.is_empty());
}

#[test]
fn tsv_header_and_no_quoting() {
    let o = run(&["--format", "tsv"], b"a http://h.example/a,b b\n");
    let out = lines(&o);
    assert!(out[0].starts_with("file\tstart\tend\tline\turl\tstyle\t"));
    assert_eq!(out[1].split('\t').nth(4), Some("http://h.example/a,b"));
    assert_eq!(out[1].split('\t').count(), 30);
}

#[test]
fn normalize_prints_the_normal_form() {
    let o = run(
        &["--normalize"],
        b"HTTP://Example.COM:80/%7euser/a/./b/../c www.X.example\n",
    );
    assert_eq!(
        lines(&o),
        ["http://example.com/~user/a/c", "http://www.x.example/"]
    );
}

#[test]
fn strict_keeps_only_valid_uris() {
    let text = b"http://exa%zzmple.com/ http://ok.example/ http://[::1/x\n";
    assert_eq!(
        run(&[], text)
            .stdout
            .iter()
            .filter(|&&b| b == b'\n')
            .count(),
        3
    );
    let o = run(&["--strict"], text);
    assert_eq!(lines(&o), ["http://ok.example/"]);
    let o = run(&["--strict"], b"http://[::1/x");
    assert_eq!(code(&o), 1);
}

#[test]
fn unique_in_order_of_first_appearance() {
    let text = b"http://b.example/ HTTP://B.example:80/ http://a.example/ http://b.example/\n";
    assert_eq!(
        lines(&run(&["--unique"], text)),
        [
            "http://b.example/",
            "HTTP://B.example:80/",
            "http://a.example/"
        ]
    );
    assert_eq!(
        lines(&run(&["--unique", "--normalize"], text)),
        ["http://b.example/", "http://a.example/"]
    );
}

#[test]
fn count_by_sorted_like_sort_uniq_c_sort_rn() {
    let text = b"http://x.example/1 https://y.example/ http://x.example/2 \
                 http://y.example/ www.z.example mailto:u@h http://x.example/1\n";
    assert_eq!(
        lines(&run(&["--count-by", "host"], text)),
        [
            "      3 x.example",
            "      2 y.example",
            "      1 www.z.example"
        ]
    );
    assert_eq!(
        lines(&run(&["--count-by", "scheme"], text)),
        ["      5 http", "      1 https", "      1 mailto"]
    );
    assert_eq!(
        lines(&run(&["--count-by", "url"], text))[0],
        "      2 http://x.example/1"
    );
    let o = run(
        &["--count-by", "url", "--normalize"],
        b"http://A.example HTTP://a.example/\n",
    );
    assert_eq!(lines(&o), ["      2 http://a.example/"]);
    // A `www.` URI counts as its http:// normal form.
    let o = run(
        &["--count-by", "url", "--normalize"],
        b"www.A.example/x and http://WWW.a.example/x and www.b.example\n",
    );
    assert_eq!(
        lines(&o),
        [
            "      2 http://www.a.example/x",
            "      1 http://www.b.example/"
        ]
    );
    let o = run(&["--count-by", "bogus"], text);
    assert_eq!(code(&o), 2);
}

#[test]
fn color_only_when_asked_or_on_a_terminal() {
    let o = run(
        &["--color", "always", "-H", "-n", "-b"],
        b"http://a.example/",
    );
    assert_eq!(
        stdout(&o),
        "\x1b[35m-\x1b[0m:\x1b[32m1\x1b[0m:\x1b[32m0\x1b[0m:http://a.example/\n"
    );
    let o = run(&["--color", "always", "-c", "-H"], b"http://a.example/");
    assert_eq!(stdout(&o), "\x1b[35m-\x1b[0m:1\n");
    // A pipe is not a terminal: auto means none.
    for c in ["auto", "never"] {
        let o = run(&["--color", c, "-H", "-n"], b"http://a.example/");
        assert_eq!(stdout(&o), "-:1:http://a.example/\n");
    }
}

/// Run `urlsift args` with standard output on a terminal (a new pseudo-
/// terminal), `NO_COLOR` set to `no_color` (or unset); returns what it
/// printed there.
#[cfg(target_os = "linux")]
fn on_a_terminal(args: &[&str], no_color: Option<&str>) -> Vec<u8> {
    use std::os::fd::{FromRawFd, OwnedFd};
    let (mut master, mut slave) = (-1, -1);
    // SAFETY: the two pointers are to live integers; name, termios and
    // window size may be null.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: openpty opened both descriptors, and nothing else owns them.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .env_remove("URLSIFT_ISA")
        .env_remove("NO_COLOR")
        .stdin(Stdio::null())
        .stdout(slave)
        .stderr(Stdio::piped());
    if let Some(v) = no_color {
        cmd.env("NO_COLOR", v);
    }
    let child = cmd.spawn().expect("spawn urlsift");
    drop(cmd); // its copy of the terminal's other end: the read below ends
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let mut printed = Vec::new();
    // Once the program has closed it, reading the terminal ends in EIO.
    let _ = std::fs::File::from(master).read_to_end(&mut printed);
    printed
}

#[test]
#[cfg(target_os = "linux")]
fn no_color_turns_colour_off_only_when_not_empty() {
    // https://no-color.org: "when present and not an empty string".
    let d = tree(&[("a.txt", b"see http://a.example/\n")]);
    let a = p(&d, "a.txt");
    for (no_color, coloured) in [(None, true), (Some(""), true), (Some("1"), false)] {
        let printed = on_a_terminal(&["-H", "-n", &a], no_color);
        let text = String::from_utf8_lossy(&printed);
        assert!(text.contains("http://a.example/"), "{no_color:?}: {text:?}");
        assert_eq!(text.contains("\x1b["), coloured, "{no_color:?}: {text:?}");
    }
}

// ---------- parallelism and chunking ----------

#[test]
fn output_identical_for_threads_and_chunk_sizes() {
    let big = generated(20_000);
    let mut files: Vec<(String, Vec<u8>)> = vec![("big.txt".into(), big.clone())];
    for i in 0..60 {
        files.push((format!("small/{i:03}.txt"), generated(i * 7 + 1)));
    }
    files.push(("small/z.gz".into(), gzip(&generated(3000))));
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    let d = tree(&refs);
    for format in ["text", "json"] {
        let base = ["--format", format, "-H", "-n", "-b", "."];
        let with = |extra: &[&str]| {
            let mut a = base.to_vec();
            a.extend_from_slice(extra);
            let o = run_in(&a, b"", Some(d.path()));
            assert_eq!(code(&o), 0, "{}", stderr(&o));
            o.stdout
        };
        let reference = with(&["-j1"]);
        assert!(reference.len() > 1 << 20);
        assert_eq!(reference, with(&["-j4"]), "-j4 {format}");
        assert_eq!(reference, with(&["--threads", "3", "--chunk-size", "100"]));
        assert_eq!(reference, with(&["-j4", "--chunk-size", "1"]));
    }
    // Aggregates too.
    let a = run_in(&["-j1", "--count-by", "host", "."], b"", Some(d.path()));
    let b = run_in(
        &["-j4", "--chunk-size", "100", "--count-by", "host", "."],
        b"",
        Some(d.path()),
    );
    assert_eq!(a.stdout, b.stdout);
    // Standard input gives the same URLs as the file.
    let f = run_in(
        &["-j2", "--chunk-size", "1000", "big.txt"],
        b"",
        Some(d.path()),
    );
    let s = run(&["-j2", "--chunk-size", "1000"], &big);
    assert_eq!(f.stdout, s.stdout);
}

/// `--chunk-size` takes sizes as `--max-memory` does.
#[test]
fn chunk_size_takes_suffixed_sizes() {
    let text = generated(3000);
    let bytes = run(&["-j2", "--chunk-size", "1024"], &text);
    assert_eq!(code(&bytes), 0, "{}", stderr(&bytes));
    for size in ["1K", "1KiB", "1k"] {
        let o = run(&["-j2", "--chunk-size", size], &text);
        assert_eq!(o.stdout, bytes.stdout, "{size}");
    }
    let bad = run(&["--chunk-size", "lots"], &text);
    assert_eq!(code(&bad), 2);
    assert!(stderr(&bad).contains("--chunk-size"), "{}", stderr(&bad));
}

/// A file big enough to be mapped, scanned in many segments (whose pages
/// are let go as the scan passes them), gives what its stream gives.
#[test]
fn mapped_file_gives_what_its_stream_gives() {
    let big = generated(40_000);
    assert!(big.len() > 1 << 20);
    let d = tree(&[("big.txt", &big)]);
    for args in [
        &["-j1", "--chunk-size", "20000"][..],
        &["-j2", "--chunk-size", "20000"],
        &["-j3", "--chunk-size", "65536", "-n", "-b"],
        &["-j2"],
    ] {
        let mut a = args.to_vec();
        a.push("big.txt");
        let f = run_in(&a, b"", Some(d.path()));
        let s = run(args, &big);
        assert_eq!(code(&f), 0, "{}", stderr(&f));
        assert!(f.stdout.len() > 1 << 19);
        assert!(f.stdout == s.stdout, "{args:?}");
    }
}

// ---------- ISA ----------

#[test]
fn isa_scalar_gives_the_same_output() {
    let text = generated(500);
    let auto = run(&["--isa", "auto"], &text);
    let scalar = run(&["--isa", "scalar"], &text);
    assert_eq!(code(&scalar), 0);
    assert_eq!(auto.stdout, scalar.stdout);
}

#[test]
fn bad_isa_exits_2() {
    let o = run(&["--isa", "bogus"], TEXT);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("bogus"));
    let o = Command::new(BIN)
        .env("URLSIFT_ISA", "bogus")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("URLSIFT_ISA"));
}

#[test]
fn version_lists_isas() {
    let o = run(&["--version"], b"");
    assert_eq!(code(&o), 0);
    let v = stdout(&o);
    assert!(v.starts_with("urlsift "));
    assert!(
        v.contains("compiled:") && v.contains("available:") && v.contains("scalar"),
        "{v}"
    );
}

#[test]
fn bad_flag_exits_2() {
    let o = run(&["--no-such-flag"], b"");
    assert_eq!(code(&o), 2);
    let o = run(&["--format", "xml"], b"");
    assert_eq!(code(&o), 2);
}

// ---------- subcommands ----------

#[test]
fn completions_and_man_page() {
    for sh in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let o = run(&["completions", sh], b"");
        assert_eq!(code(&o), 0, "{sh}");
        assert!(stdout(&o).contains("urlsift"), "{sh}");
    }
    let o = run(&["man"], b"");
    assert_eq!(code(&o), 0);
    let man = stdout(&o);
    assert!(
        man.contains(".TH urlsift 1") && man.contains("count\\-by"),
        "{man}"
    );
    assert_eq!(code(&run(&["completions", "nosh"], b"")), 2);
}

#[test]
fn a_file_named_like_a_command_is_scanned_after_dashes_or_as_a_path() {
    // `urlsift man` prints the man page; `urlsift -- man` and `urlsift
    // ./man` scan the file named man, and --help and the man page say so.
    let d = tree(&[
        ("man", b"see http://m.example/\n"),
        ("parse", b"see http://p.example/\n"),
    ]);
    for (args, want) in [
        (&["--", "man"][..], "http://m.example/\n"),
        (&["./man"], "http://m.example/\n"),
        (&["--", "parse"], "http://p.example/\n"),
    ] {
        let o = run_in(args, b"", Some(d.path()));
        assert_eq!(code(&o), 0, "{args:?}: {}", stderr(&o));
        assert_eq!(stdout(&o), want, "{args:?}");
    }
    let o = run_in(&["man"], b"", Some(d.path()));
    assert!(stdout(&o).starts_with(".ie"), "{}", stdout(&o));
    for args in [&["--help"][..], &["-h"], &["man"]] {
        let o = run(args, b"");
        let text = stdout(&o).replace("\\-", "-");
        assert!(
            text.contains("./man") && text.contains("-- man"),
            "{args:?}: {text}"
        );
    }
}

#[test]
fn uri_subcommands_exit_codes() {
    let o = run(&["normalize", "HTTP://A.example:80/"], b"");
    assert_eq!((code(&o), stdout(&o).as_str()), (0, "http://a.example/\n"));
    let o = run(&["resolve", "http://a/b/c/d;p?q", "../../g"], b"");
    assert_eq!((code(&o), stdout(&o).as_str()), (0, "http://a/g\n"));
    let o = run(&["parse", "http://a b/"], b"");
    assert_eq!(code(&o), 2);
}

// ---------- closed pipe ----------

/// `urlsift big | head`: the reader goes away; urlsift ends quietly, with no
/// panic and no error message, and does not die from a signal.
#[test]
fn closed_pipe_ends_quietly() {
    let d = tree(&[("big.txt", &generated(200_000))]);
    for args in [
        &["-j2", "big.txt"][..],
        &["--format", "json", "-j1", "big.txt", "-"][..],
    ] {
        let mut child = Command::new(BIN)
            .args(args)
            .current_dir(d.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut out = child.stdout.take().unwrap();
        let mut buf = [0u8; 64];
        out.read_exact(&mut buf).unwrap();
        drop(out);
        let o = child.wait_with_output().unwrap();
        let e = stderr(&o);
        assert!(!e.contains("panicked"), "{e}");
        assert!(e.is_empty(), "{e}");
        assert_eq!(o.status.code(), Some(0), "{:?}", o.status);
    }
}

/// A full disk: writing the output fails. The error names the output, the
/// exit status is 2, and nothing panics, for stdout and for `--output`, with plain
/// records, de-duplication and Parquet.
#[test]
fn write_error_on_output_exits_2() {
    let full = Path::new("/dev/full");
    if !full.exists() {
        eprintln!("no /dev/full here: skipped");
        return;
    }
    let d = tree(&[
        ("a.txt", &generated(20_000)),
        ("b.txt", b"http://b.example/\n"),
    ]);
    let mut cases: Vec<Vec<&str>> = vec![
        vec!["a.txt", "b.txt"],
        vec!["--unique", "a.txt", "b.txt"],
        vec!["--count-by", "host", "a.txt"],
        vec![
            "--format",
            "json",
            "--output",
            "/dev/full",
            "a.txt",
            "b.txt",
        ],
    ];
    if cfg!(feature = "parquet") {
        cases.push(vec![
            "--format",
            "parquet",
            "--output",
            "/dev/full",
            "a.txt",
        ]);
    }
    for args in cases {
        let o = Command::new(BIN)
            .args(&args)
            .current_dir(d.path())
            .env_remove("URLSIFT_ISA")
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(full).unwrap())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
        assert!(!e.contains("panicked"), "{e}");
        let want = if args.contains(&"--output") {
            "urlsift: writing /dev/full: "
        } else {
            "urlsift: writing output: "
        };
        assert!(
            e.contains(want) && e.contains("No space left"),
            "{args:?}: {e}"
        );
    }
}

// ------------------------------------------- file and output selection

#[test]
fn output_that_cannot_be_created_is_named_as_given() {
    // The message names the output the user gave and the reason, never
    // the temporary file it is written under.
    let d = tree(&[("a.txt", b"see http://a.example/\n")]);
    let mut cases = vec![
        (
            vec!["--output", "missing/out.txt", "a.txt"],
            "missing/out.txt: No such file or directory (os error 2)",
        ),
        (
            vec!["--output", "a.txt/out.txt", "a.txt"],
            "a.txt/out.txt: Not a directory (os error 20)",
        ),
        (
            vec!["--shards", "2", "--output", "a.txt/dir", "a.txt"],
            "a.txt/dir: Not a directory (os error 20)",
        ),
        (
            vec!["--shards", "2", "--output", "a.txt", "a.txt"],
            "a.txt: File exists (os error 17)",
        ),
    ];
    if !is_root() {
        // Root writes into a read-only directory anyway.
        std::fs::create_dir(d.path().join("ro")).unwrap();
        set_mode(&d.path().join("ro"), 0o555);
        cases.push((
            vec!["--output", "ro/out.txt", "a.txt"],
            "ro/out.txt: Permission denied (os error 13)",
        ));
        cases.push((
            vec!["--shards", "2", "--output", "ro", "a.txt"],
            "ro/part-00000.txt: Permission denied (os error 13)",
        ));
    }
    for (args, want) in cases {
        let o = run_in(&args, b"", Some(d.path()));
        assert_eq!(code(&o), 2, "{args:?}");
        assert_eq!(stderr(&o), format!("urlsift: {want}\n"), "{args:?}");
    }
}

#[test]
fn output_dash_is_standard_output() {
    // As for inputs, `--output -` is standard output, not a file named `-`;
    // `--output ./-` is that file.
    let d = tree(&[("a.txt", b"see http://a.example/\n")]);
    let o = run_in(&["--output", "-", "-n", "a.txt"], b"", Some(d.path()));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), "1:http://a.example/\n");
    assert!(
        !d.path().join("-").exists(),
        "--output - wrote a file named -"
    );
    let o = run_in(&["--output", "./-", "a.txt"], b"", Some(d.path()));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), "");
    assert_eq!(
        std::fs::read_to_string(d.path().join("-")).unwrap(),
        "http://a.example/\n"
    );
    let o = run(&["--help"], b"");
    assert!(
        stdout(&o).contains("`-`: standard output"),
        "{}",
        stdout(&o)
    );
}

/// A walkable tree: text at two depths, a git directory, a hidden Maildir++
/// folder, a file with no URL.
fn selection_tree() -> tempfile::TempDir {
    tree(&[
        ("a.txt", b"http://a.example/ mailto:x@y.example"),
        ("none.txt", b"nothing here"),
        ("sub/b.md", b"https://b.example/ www.c.example/"),
        ("sub/deep/d.txt", b"ftp://d.example/"),
        (".git/config", b"url = https://git.example/repo"),
        (".Sent/cur/1", b"http://sent.example/"),
        ("skip/e.txt", b"http://skipped.example/"),
        (".gitignore", b"skip/\n"),
    ])
}

#[test]
fn walk_skips_vcs_directories_and_keeps_hidden_mail_folders() {
    // ripgrep never searches .git/; Maildir++ folders are hidden (.Sent/)
    // and must not be lost, so hidden files stay in.
    let d = selection_tree();
    let o = run_in(&["-I", "."], b"", Some(d.path()));
    let out = lines(&o);
    assert!(!out.iter().any(|l| l.contains("git.example")), "{out:?}");
    assert!(out.iter().any(|l| l.contains("sent.example")), "{out:?}");
    // .gitignore is read only on request (--ignore-vcs, ripgrep's default).
    assert!(out.iter().any(|l| l.contains("skipped.example")), "{out:?}");
    let o = run_in(&["-I", "--ignore-vcs", "."], b"", Some(d.path()));
    assert!(!stdout(&o).contains("skipped.example"), "{}", stdout(&o));
    assert!(stdout(&o).contains("sent.example"));
}

#[test]
fn glob_selects_and_excludes_files_in_walks() {
    // ripgrep's -g: include patterns whitelist, `!` patterns exclude.
    let d = selection_tree();
    let o = run_in(&["-I", "-g", "*.md", "."], b"", Some(d.path()));
    assert_eq!(lines(&o), ["https://b.example/", "www.c.example/"]);
    let o = run_in(
        &["-I", "-g", "!sub/", "-g", "!skip/", "."],
        b"",
        Some(d.path()),
    );
    assert_eq!(
        lines(&o),
        [
            "http://sent.example/",
            "http://a.example/",
            "mailto:x@y.example"
        ]
    );
    let o = run_in(&["-g", "[", "."], b"", Some(d.path()));
    assert_eq!(code(&o), 2, "a bad glob is an error: {}", stderr(&o));
}

#[test]
fn max_depth_limits_the_walk() {
    // ripgrep's --max-depth: 1 is the directory's own files.
    let d = selection_tree();
    let o = run_in(&["-I", "--max-depth", "1", "."], b"", Some(d.path()));
    assert_eq!(lines(&o), ["http://a.example/", "mailto:x@y.example"]);
    let o = run_in(
        &["-I", "--max-depth", "2", "-g", "!.*", "."],
        b"",
        Some(d.path()),
    );
    assert!(stdout(&o).contains("b.example") && !stdout(&o).contains("ftp://d.example"));
}

#[test]
fn files_from_reads_a_list_of_paths() {
    // tar -T / rsync --files-from; with -0, NUL-separated as `find -print0`.
    let d = selection_tree();
    let o = run_in(&["--files-from", "-"], b"a.txt\nsub/b.md\n", Some(d.path()));
    assert_eq!(
        lines(&o),
        [
            "a.txt:http://a.example/",
            "a.txt:mailto:x@y.example",
            "sub/b.md:https://b.example/",
            "sub/b.md:www.c.example/"
        ]
    );
    let o = run_in(
        &["-0", "--files-from", "-", "-c"],
        b"a.txt\0none.txt\0",
        Some(d.path()),
    );
    assert_eq!(stdout(&o), "a.txt\x002\nnone.txt\x000\n");
    // An empty list scans nothing (it does not fall back to stdin).
    let o = run_in(&["--files-from", "-"], b"", Some(d.path()));
    assert_eq!((code(&o), stdout(&o)), (1, String::new()));
}

#[test]
fn files_with_and_without_matches_list_names() {
    // grep -l / -L: names only, in input order; -L exits 0 when it lists a file.
    let d = selection_tree();
    let o = run_in(
        &["-l", "a.txt", "none.txt", "sub/b.md"],
        b"",
        Some(d.path()),
    );
    assert_eq!(
        (code(&o), lines(&o)),
        (0, vec!["a.txt".to_string(), "sub/b.md".into()])
    );
    let o = run_in(
        &["--files-without-match", "a.txt", "none.txt"],
        b"",
        Some(d.path()),
    );
    assert_eq!((code(&o), lines(&o)), (0, vec!["none.txt".to_string()]));
    let o = run_in(&["--files-without-match", "a.txt"], b"", Some(d.path()));
    assert_eq!((code(&o), lines(&o)), (1, Vec::<String>::new()));
    let o = run_in(&["-l", "-c", "a.txt"], b"", Some(d.path()));
    assert_eq!(code(&o), 2, "-l with -c is refused");
}

#[test]
fn null_ends_file_names_with_a_nul_byte() {
    // grep -Z: a NUL instead of the `:` or newline after a file name.
    let d = selection_tree();
    let o = run_in(&["-0", "-l", "a.txt", "sub/b.md"], b"", Some(d.path()));
    assert_eq!(stdout(&o), "a.txt\0sub/b.md\0");
    let o = run_in(&["-0", "-H", "a.txt"], b"", Some(d.path()));
    assert_eq!(
        stdout(&o),
        "a.txt\0http://a.example/\na.txt\0mailto:x@y.example\n"
    );
    let o = run_in(&["-0", "--format", "json", "a.txt"], b"", Some(d.path()));
    assert_eq!(code(&o), 2, "JSON quotes its names: -0 is refused");
}

#[test]
fn max_count_takes_at_most_num_urls_per_input() {
    // grep -m NUM: per input, and the exit status counts what was taken.
    let d = selection_tree();
    let o = run_in(&["-m", "1", "a.txt", "sub/b.md"], b"", Some(d.path()));
    assert_eq!(
        lines(&o),
        ["a.txt:http://a.example/", "sub/b.md:https://b.example/"]
    );
    let o = run_in(&["-m", "1", "-c", "a.txt"], b"", Some(d.path()));
    assert_eq!(lines(&o), ["1"]);
    let o = run_in(&["-m", "0", "a.txt"], b"", Some(d.path()));
    assert_eq!((code(&o), stdout(&o)), (1, String::new()));
    // A long stream stops early and still prints the first NUM, in order.
    let big: Vec<u8> = (0..200_000)
        .flat_map(|i| format!("http://h{i}.example/\n").into_bytes())
        .collect();
    let o = run(&["-m", "3"], &big);
    assert_eq!(
        lines(&o),
        [
            "http://h0.example/",
            "http://h1.example/",
            "http://h2.example/"
        ]
    );
}

#[test]
fn scheme_filters_urls() {
    // As a grep pattern would select them; `www.` URLs are http.
    let d = selection_tree();
    let o = run_in(
        &["-I", "--scheme", "http,HTTPS", "a.txt", "sub/b.md"],
        b"",
        Some(d.path()),
    );
    assert_eq!(
        lines(&o),
        ["http://a.example/", "https://b.example/", "www.c.example/"]
    );
    let o = run_in(&["--scheme", "mailto", "-c", "a.txt"], b"", Some(d.path()));
    assert_eq!(lines(&o), ["1"]);
    let o = run_in(&["--scheme", "gopher", "a.txt"], b"", Some(d.path()));
    assert_eq!(code(&o), 1);
}

#[test]
fn file_names_by_default_with_several_inputs_or_a_directory() {
    // grep: -H is the default with several files (and rg with a directory);
    // -h (here -I) turns it off; one file alone has no prefix.
    let d = selection_tree();
    let o = run_in(&["a.txt"], b"", Some(d.path()));
    assert_eq!(lines(&o)[0], "http://a.example/");
    let o = run_in(&["a.txt", "sub/b.md"], b"", Some(d.path()));
    assert_eq!(lines(&o)[0], "a.txt:http://a.example/");
    let o = run_in(&["sub/deep"], b"", Some(d.path()));
    assert_eq!(lines(&o), ["sub/deep/d.txt:ftp://d.example/"]);
    let o = run_in(&["-I", "a.txt", "sub/b.md"], b"", Some(d.path()));
    assert_eq!(lines(&o)[0], "http://a.example/");
}

#[test]
fn no_messages_silences_errors_but_not_the_status() {
    // grep -s: no "No such file" messages; the exit status is still 2.
    let d = selection_tree();
    let o = run_in(&["-s", "missing.txt", "a.txt"], b"", Some(d.path()));
    assert_eq!(code(&o), 2);
    assert_eq!(stderr(&o), "");
    assert_eq!(lines(&o).len(), 2);
    // What fails the run itself is still said: its arguments, its output.
    for args in [
        &["-s", "--isa", "bogus", "a.txt"][..],
        &["-s", "-n", "-c", "a.txt"],
        &["-s", "--output", "no-such-dir/out.txt", "a.txt"],
        &["-s", "--output", "a.txt", "a.txt"],
    ] {
        let o = run_in(args, b"", Some(d.path()));
        assert_eq!(code(&o), 2, "{args:?}");
        assert!(
            stderr(&o).starts_with("urlsift: "),
            "{args:?}: {}",
            stderr(&o)
        );
    }
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full");
    if let Ok(full) = full {
        let o = Command::new(BIN)
            .args(["-s", "a.txt"])
            .current_dir(d.path())
            .stdout(full)
            .output()
            .unwrap();
        assert_eq!(code(&o), 2);
        assert!(stderr(&o).contains("writing output"), "{}", stderr(&o));
    }
}

#[test]
fn mail_hint_is_printed_once_per_run() {
    let files: Vec<(String, Vec<u8>)> = (0..30)
        .map(|i| {
            (
                format!("m{i:02}.eml"),
                format!("From: a@b\n\nhttp://m{i}.example/\n").into_bytes(),
            )
        })
        .collect();
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    let d = tree(&refs);
    let o = run_in(&["."], b"", Some(d.path()));
    assert_eq!(lines(&o).len(), 30);
    assert_eq!(
        stderr(&o).matches("looks like mail").count(),
        1,
        "{}",
        stderr(&o)
    );
    // It names the first such input in input order, whatever the threads.
    for j in ["-j1", "-j2", "-j8"] {
        let o = run_in(&[j, "."], b"", Some(d.path()));
        assert!(
            stderr(&o).starts_with("urlsift: ./m00.eml: looks like mail"),
            "{j}: {}",
            stderr(&o)
        );
    }
}

#[test]
fn json_count_per_input() {
    let d = selection_tree();
    let o = run_in(
        &["--format", "json", "-c", "a.txt", "none.txt"],
        b"",
        Some(d.path()),
    );
    assert_eq!(
        lines(&o),
        [
            r#"{"file":"a.txt","count":2}"#,
            r#"{"file":"none.txt","count":0}"#
        ]
    );
}

#[test]
fn man_page_has_examples_exit_status_and_every_json_field() {
    // A page as man(1) readers expect: EXAMPLES, EXIT STATUS, ENVIRONMENT,
    // and every field the scan's JSON writes; it names no page that does
    // not exist (there are no urlsift-parse(1) pages).
    let o = run(&["man"], b"");
    assert_eq!(code(&o), 0);
    let page = stdout(&o);
    for s in [
        ".SH EXAMPLES",
        ".SH \"EXIT STATUS\"",
        ".SH ENVIRONMENT",
        ".SH \"JSON FIELDS\"",
        "URLSIFT_ISA",
        "NO_COLOR",
    ] {
        assert!(page.contains(s), "{s} missing");
    }
    assert!(!page.contains("urlsift\\-parse(1)") && !page.contains("urlsift-parse(1)"));
    let fields_at = page.find(".SH \"JSON FIELDS\"").unwrap();
    let fields = &page[fields_at..];
    let json = run(&["--format", "json"], TEXT);
    let first = lines(&json)[0].clone();
    let v: serde_json::Value = serde_json::from_str(&first).unwrap();
    for key in v.as_object().unwrap().keys() {
        assert!(
            fields.contains(key.as_str()),
            "JSON field {key} is not in the man page"
        );
    }
    // When man(1) is here, it renders the page.
    if let Ok(mut man) = Command::new("man")
        .args(["-l", "-"])
        .env("MANPAGER", "cat")
        .env("MANWIDTH", "80")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    {
        man.stdin
            .take()
            .unwrap()
            .write_all(page.as_bytes())
            .unwrap();
        let shown = man.wait_with_output().unwrap();
        if shown.status.success() {
            let text = String::from_utf8_lossy(&shown.stdout);
            assert!(
                text.contains("EXAMPLES") && text.contains("EXIT STATUS"),
                "{text}"
            );
        }
    }
}

// ---------- parse, normalize and resolve in pipelines ----------

/// Spawn `urlsift args` with standard input `stdin` and a piped standard output.
fn spawn(args: &[&str], stdin: Stdio) -> std::process::Child {
    Command::new(BIN)
        .args(args)
        .env_remove("URLSIFT_ISA")
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn urlsift")
}

/// A filter given no operands reads standard input, as `cat`, `grep PAT` and
/// `sed SCRIPT` do: `printf 'g\n../x\n' | urlsift resolve http://a/b/c/d`.
/// Every line is a reference, an empty one too (`grep -c ''` counts it):
/// an empty reference resolves to the base.
#[test]
fn resolve_reads_references_from_stdin() {
    let o = run(&["resolve", "http://a/b/c/d"], b"g\n../x\n");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(lines(&o), ["http://a/b/c/g", "http://a/b/x"]);
    let o = run(&["resolve", "http://a/b/c/d;p?q"], b"g\n\n#s\n");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        lines(&o),
        [
            "http://a/b/c/g",
            "http://a/b/c/d;p?q",
            "http://a/b/c/d;p?q#s"
        ]
    );
    // As with arguments, a bad reference is reported and the rest go on: 2.
    let o = run(&["resolve", "http://a/b/c/d"], b"a b\ng\n");
    assert_eq!(
        (code(&o), lines(&o)),
        (2, vec!["http://a/b/c/g".to_string()])
    );
    assert!(
        stderr(&o).contains("urlsift: resolve: \"a b\": "),
        "{}",
        stderr(&o)
    );
}

/// Filters compose: `urlsift FILE | urlsift normalize | sort -u`, each
/// process reading the one before it through a pipe, as in any Unix pipeline.
#[test]
fn scan_piped_into_normalize_and_sort_u() {
    let d = tree(&[
        (
            "t.txt",
            b"HTTP://A.example:80/x and http://a.example/./x, <http://a.example/%7ex>\nhttp://b.example/y\n",
        ),
        ("big.txt", &generated(3000)),
    ]);
    let pipeline = |file: &str| -> (Output, Output, Output) {
        let mut scan = spawn(&[&p(&d, file)], Stdio::null());
        let scan_out = scan.stdout.take().unwrap();
        let mut norm = spawn(&["normalize"], Stdio::from(scan_out));
        let norm_out = norm.stdout.take().unwrap();
        let sort = Command::new("sort")
            .arg("-u")
            .env("LC_ALL", "C")
            .stdin(Stdio::from(norm_out))
            .output()
            .expect("run sort");
        (
            scan.wait_with_output().unwrap(),
            norm.wait_with_output().unwrap(),
            sort,
        )
    };
    let (scan, norm, sort) = pipeline("t.txt");
    assert_eq!((code(&scan), code(&norm)), (0, 0), "{}", stderr(&norm));
    assert_eq!(
        lines(&sort),
        [
            "http://a.example/x",
            "http://a.example/~x",
            "http://b.example/y"
        ]
    );
    // A larger input, many reads and writes: the same as normalizing every
    // scanned URL given as arguments.
    let (scan, norm, sort) = pipeline("big.txt");
    assert_eq!((code(&scan), code(&norm)), (0, 0), "{}", stderr(&norm));
    let found = lines(&run(&[&p(&d, "big.txt")], b""));
    assert!(found.len() > 3000, "{}", found.len());
    let mut args = vec!["normalize"];
    args.extend(found.iter().map(String::as_str));
    let mut want = lines(&run(&args, b""));
    want.sort();
    want.dedup();
    assert_eq!(lines(&sort), want);
}

/// One record format across the tool, as `jq` filters expect: `parse` (from
/// standard input here) names the URL `url` and gives the fields it shares
/// with `urlsift --format json` in the same order, then `error` and
/// `scheme_error`.
#[test]
fn parse_from_stdin_uses_the_scan_field_names() {
    let url = "http://user@h.example:8080/p?q=1#f";
    let o = run(&["parse"], format!("{url}\n").as_bytes());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let parsed = stdout(&o);
    let v: Value = serde_json::from_str(parsed.trim_end()).unwrap();
    assert_eq!(v["url"], url);
    assert!(v.get("input").is_none(), "{parsed}");
    let scanned = stdout(&run(&["--format", "json"], format!("<{url}>\n").as_bytes()));
    let shared = [
        "url",
        "valid",
        "scheme",
        "userinfo",
        "host",
        "host_kind",
        "port",
        "path",
        "query",
        "fragment",
    ];
    let at = |line: &str, k: &str| line.find(&format!("\"{k}\":")).expect(k);
    for pair in shared.windows(2) {
        assert!(at(&scanned, pair[0]) < at(&scanned, pair[1]), "{scanned}");
        assert!(at(&parsed, pair[0]) < at(&parsed, pair[1]), "{parsed}");
    }
    let last = at(&parsed, "fragment");
    assert!(last < at(&parsed, "error") && at(&parsed, "error") < at(&parsed, "scheme_error"));
    let sv: Value = serde_json::from_str(scanned.trim_end()).unwrap();
    for k in shared {
        assert_eq!(v[k], sv[k], "{k}");
    }
}

/// Text from Windows tools ends lines with `\r\n`: the whole ending is
/// removed (what `dos2unix` would do first); an unterminated last line is
/// still a line, as for `sort` and `grep`.
#[test]
fn crlf_lines_and_an_unterminated_last_line() {
    let o = run(
        &["normalize"],
        b"HTTP://A.example:80/x\r\nhttp://b.example/\r\nhttp://C/",
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        lines(&o),
        ["http://a.example/x", "http://b.example/", "http://c/"]
    );
    let o = run(&["parse"], b"http://a/\r\n");
    let v: Value = serde_json::from_str(stdout(&o).trim_end()).unwrap();
    assert_eq!((code(&o), &v["url"]), (0, &Value::from("http://a/")));
    // Only a line ending is removed: a `\r` inside a line stays, and is
    // not valid in a URI.
    let o = run(&["normalize"], b"http://a/\rb\n");
    assert_eq!((code(&o), stdout(&o).as_str()), (2, ""));
}

/// Empty input, no output, no error: `sort </dev/null` and `cat </dev/null`
/// exit 0, and so does each subcommand (no reference was bad).
#[test]
fn empty_stdin_prints_nothing_and_exits_0() {
    for args in [
        &["parse"][..],
        &["normalize"],
        &["normalize", "--syntax-only", "--drop-fragment"],
        &["resolve", "http://a/"],
    ] {
        let o = run(args, b"");
        assert_eq!(code(&o), 0, "{args:?}");
        assert!(o.stdout.is_empty() && o.stderr.is_empty(), "{args:?}");
    }
}

/// Input is bytes, not text, as for `grep -a` and `sed`: a line that is not
/// UTF-8 never stops the run. The engine gets its bytes as they are (as the
/// scan's URLs do): `normalize` percent-encodes them, `parse` and `resolve`
/// find them invalid (2); text shown from them is lossy (U+FFFD).
#[test]
fn non_utf8_line_does_not_panic() {
    let input = b"http://a/\xff\xfe\nhttp://b/\n";
    let o = run(&["normalize"], input);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(lines(&o), ["http://a/%FF%FE", "http://b/"]);
    let o = run(&["parse"], input);
    assert_eq!(code(&o), 2);
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    let rows: Vec<Value> = lines(&o)
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows[0]["url"], "http://a/\u{fffd}\u{fffd}");
    assert_eq!(
        (&rows[0]["valid"], &rows[0]["error"]["offset"]),
        (&Value::from(false), &Value::from(9))
    );
    assert_eq!((rows.len(), &rows[1]["valid"]), (2, &Value::from(true)));
    let o = run(&["resolve", "http://r/"], b"\xe9t\xe9\nx\n");
    let e = stderr(&o);
    assert_eq!(
        (code(&o), lines(&o)),
        (2, vec!["http://r/x".to_string()]),
        "{e}"
    );
    assert!(
        e.contains("urlsift: resolve: \"\u{fffd}t\u{fffd}\": ") && !e.contains("panicked"),
        "{e}"
    );
}

/// `yes URL | urlsift normalize | head -1`: the reader goes away while
/// standard input still flows; urlsift ends quietly with 0, as with files.
#[test]
fn closed_pipe_in_stdin_mode_ends_quietly() {
    for args in [&["normalize"][..], &["parse"], &["resolve", "http://a/"]] {
        let mut child = spawn(args, Stdio::piped());
        let mut input = child.stdin.take().unwrap();
        let feeder = std::thread::spawn(move || {
            let block = b"http://a.example/b/../c\n".repeat(4096);
            // Until urlsift exits and the pipe closes.
            while input.write_all(&block).is_ok() {}
        });
        let mut out = child.stdout.take().unwrap();
        let mut buf = [0u8; 16];
        out.read_exact(&mut buf).unwrap();
        drop(out);
        let o = child.wait_with_output().unwrap();
        feeder.join().unwrap();
        let e = stderr(&o);
        assert!(e.is_empty(), "{args:?}: {e}");
        assert_eq!(o.status.code(), Some(0), "{args:?}: {:?}", o.status);
    }
}

/// `bench --sweep` measures the fastest ISA on every thread count up to
/// `-j`, after 1 and all threads for each ISA, and every row finds the
/// same URLs.
#[test]
fn bench_sweep_gives_every_thread_count() {
    let args = [
        "bench",
        "--size",
        "2",
        "--reps",
        "1",
        "--min-time",
        "0",
        "-j",
        "4",
        "--isa",
        "scalar",
        "--sweep",
        "--json",
    ];
    let o = run(&args, b"");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v: Value = serde_json::from_str(stdout(&o).trim_end()).unwrap();
    assert_eq!(v["counts_agree"], Value::Bool(true));
    let extract: Vec<&Value> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["stage"] == "extract")
        .collect();
    let threads: Vec<u64> = extract
        .iter()
        .map(|r| r["threads"].as_u64().unwrap())
        .collect();
    assert_eq!(threads, [1, 2, 3, 4]);
    assert!(
        extract
            .iter()
            .all(|r| r["count"] == v["urls"] && r["isa"] == "scalar")
    );
    assert!(v["urls"].as_u64().unwrap() > 1000);
    // Without it: 1 and all threads only.
    let o = run(&args[..args.len() - 2], b"");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let table = stdout(&o);
    let rows: Vec<&str> = table.lines().filter(|l| l.starts_with("extract")).collect();
    assert_eq!(rows.len(), 2, "{table}");
}
