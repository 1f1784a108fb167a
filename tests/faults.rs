//! Faults a real user hits: closed or full outputs, hostile input shapes,
//! destroyed data, silently ignored flags. Each test names the fault it
//! guards. Every run must finish (a hang fails the test after a deadline),
//! never panic or abort, and lose nothing; bounds are ratios, never times.
//!
//! `URLSIFT_TEST_BIN` runs these tests against another build of the CLI.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

fn bin() -> PathBuf {
    std::env::var_os("URLSIFT_TEST_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_urlsift")))
}

fn cmd() -> Command {
    let mut c = Command::new(bin());
    c.env_remove("URLSIFT_ISA").env_remove("NO_COLOR");
    c
}

/// Wait for `child`, killing it (and failing) after `secs` seconds.
fn wait_or_kill(child: &mut Child, secs: u64, what: &str) -> ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(st) = child.try_wait().expect("try_wait") {
            return st;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after {secs} s (a hang)");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Read `pipe` to its end on a thread of its own (so a child never blocks
/// on a full pipe while the test waits for it).
fn read_all(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<Vec<u8>> {
    let mut pipe = pipe.expect("a piped output");
    std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = pipe.read_to_end(&mut v);
        v
    })
}

/// Run to the end with all output captured, failing on a hang.
fn run(c: &mut Command, secs: u64, what: &str) -> (ExitStatus, Vec<u8>, Vec<u8>) {
    let mut child = c
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let t_out = read_all(child.stdout.take());
    let t_err = read_all(child.stderr.take());
    let st = wait_or_kill(&mut child, secs, what);
    (st, t_out.join().unwrap(), t_err.join().unwrap())
}

/// Start `args` with standard input, output and error piped; returns the
/// child and its standard input.
fn spawn_piped(args: &[&str]) -> (Child, std::process::ChildStdin) {
    let mut child = cmd()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let stdin = child.stdin.take().expect("stdin");
    (child, stdin)
}

/// Run `args` on `data` as standard input (written at once, then closed),
/// with all output captured, failing on a hang.
fn run_on(args: &[&str], data: &[u8], what: &str) -> (ExitStatus, Vec<u8>, Vec<u8>) {
    let (mut child, mut stdin) = spawn_piped(args);
    let t_out = read_all(child.stdout.take());
    let t_err = read_all(child.stderr.take());
    stdin.write_all(data).expect("write");
    drop(stdin);
    let st = wait_or_kill(&mut child, 60, what);
    (st, t_out.join().expect("out"), t_err.join().expect("err"))
}

fn code(st: ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    match st.code() {
        Some(c) => c,
        None => panic!("killed by signal {:?}", st.signal()),
    }
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().expect("tempdir")
}

/// A directory of `n` small .eml messages, each with one URL.
fn eml_dir(dir: &Path, n: usize) {
    for i in 0..n {
        let msg =
            format!("From: a@example.org\nSubject: m{i}\n\nsee http://e{i}.example/x and more\n");
        std::fs::write(dir.join(format!("m{i:04}.eml")), msg).unwrap();
    }
}

/// Run `args` with stdout and stderr on one pipe (`2>&1 | head -1`): read one
/// line, close the pipe, and return the exit status.
fn head_one_both(args: &[&str]) -> ExitStatus {
    let (mut r, w) = std::io::pipe().expect("pipe");
    let mut child = cmd()
        .args(args)
        .stdin(Stdio::null())
        .stdout(w.try_clone().expect("clone"))
        .stderr(w)
        .spawn()
        .expect("spawn");
    let mut byte = [0u8; 1];
    while r.read(&mut byte).map(|n| n == 1).unwrap_or(false) && byte[0] != b'\n' {}
    drop(r);
    wait_or_kill(&mut child, 60, &format!("{args:?} 2>&1 | head -1"))
}

// ---------------------------------------------------------------- item 1

#[test]
fn closed_stderr_on_a_directory_of_eml_files_neither_hangs_nor_panics() {
    // Every .eml file prints a mail hint on stderr from a worker thread.
    let d = tmp();
    eml_dir(d.path(), 400);
    let st = head_one_both(&[d.path().to_str().unwrap()]);
    let c = code(st);
    assert!(c == 0 || c == 2, "exit {c}");
    assert_ne!(c, 101, "a diagnostic panicked");
}

#[test]
fn closed_stderr_with_mail_warnings_does_not_panic() {
    // An mbox whose messages all have problems (warnings on stderr).
    let d = tmp();
    // More output than a pipe holds, so that warnings come after the close.
    let mut mbox = Vec::new();
    for i in 0..20_000 {
        write!(
            mbox,
            "From a@b Mon Jan  1 00:00:00 2024\nContent-Type: multipart/mixed; boundary=\"B{i}\"\n\
             Content-Transfer-Encoding: base64\n\nhttp://pre{i}.example/\n--WRONG{i}\n\
             Content-Type: text/plain\n\n=ZZ http://x{i}.example/\n\n"
        )
        .unwrap();
    }
    let p = d.path().join("spam.mbox");
    std::fs::write(&p, mbox).unwrap();
    let st = head_one_both(&["--mail", p.to_str().unwrap()]);
    assert_ne!(code(st), 101, "a diagnostic panicked");
}

#[test]
fn full_stderr_does_not_fail_the_run() {
    // /dev/full: every write to stderr fails with ENOSPC.
    let d = tmp();
    eml_dir(d.path(), 20);
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full");
    let Ok(full) = full else { return };
    let mut child = cmd()
        .arg(d.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(full)
        .spawn()
        .unwrap();
    let reader = read_all(child.stdout.take());
    let st = wait_or_kill(&mut child, 60, "stderr on /dev/full");
    assert_eq!(code(st), 0);
    let out = reader.join().unwrap();
    assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), 20);
}

#[test]
fn mail_part_that_does_not_decode_is_scanned_as_it_is() {
    // Found by the sweep: a multipart with a wrong boundary and a bogus
    // base64 transfer encoding lost every URL under --mail.
    let d = tmp();
    let mut mbox = Vec::new();
    for i in 0..50 {
        write!(
            mbox,
            "From a@b Mon Jan  1 00:00:00 2024\nContent-Type: multipart/mixed; boundary=\"B{i}\"\n\
             Content-Transfer-Encoding: base64\n\nhttp://pre{i}.example/\n--WRONG{i}\n\
             Content-Type: text/plain\n\n=ZZ http://x{i}.example/\n\n"
        )
        .unwrap();
    }
    let p = d.path().join("spam.mbox");
    std::fs::write(&p, mbox).unwrap();
    let (st, out, _) = run(cmd().arg("--mail").arg(&p), 60, "--mail spam.mbox");
    assert_eq!(code(st), 0);
    let text = String::from_utf8(out).unwrap();
    for i in [0, 49] {
        assert!(text.contains(&format!("http://pre{i}.example/")), "{text}");
        assert!(text.contains(&format!("http://x{i}.example/")), "{text}");
    }
}

#[test]
fn multiparts_nested_ever_deeper_take_linear_time() {
    // Multiparts that never close, each inside the one before: checking
    // each one's closing boundary to the end of the message took time
    // quadratic in its size (4 MiB: 87 s); the checks now stop after a few
    // times the message, and say so.
    let d = tmp();
    let head = "From a@b Mon Jan  1 00:00:00 2024\nFrom: a\nSubject: x\n";
    let mut same = format!("{head}Content-Type: multipart/mixed; boundary=b\n\n");
    let mut distinct = format!("{head}Content-Type: multipart/mixed; boundary=b0\n\n");
    let mut i = 0;
    while same.len() < 4 << 20 {
        same.push_str("--b\nContent-Type: multipart/mixed; boundary=b\n\n");
        distinct.push_str(&format!(
            "--b{i}\nContent-Type: multipart/mixed; boundary=b{}\n\n",
            i + 1
        ));
        i += 1;
    }
    for (name, mut text) in [("same.mbox", same), ("distinct.mbox", distinct)] {
        text.push_str("http://x.example/\n");
        let p = d.path().join(name);
        std::fs::write(&p, text).unwrap();
        let (st, out, err) = run(cmd().arg("--mail").arg(&p), 60, name);
        assert_eq!(code(st), 0, "{name}");
        assert_eq!(out, b"http://x.example/\n", "{name}");
        let err = String::from_utf8_lossy(&err);
        assert!(err.contains("nested too deep"), "{name}: {err}");
    }
}

// ---------------------------------------------------------------- item 3

#[test]
fn a_tag_of_very_many_attributes_takes_linear_time() {
    // One tag of 150,000 attributes, then 100,000 repeated `href` and
    // `src`: each repeat was checked against every attribute before it
    // (2.3 MB: 15 s in a release build). Repeats are dropped, the first
    // one counts, as before.
    let d = tmp();
    let mut page = String::from("<html><body><a ");
    for i in 0..150_000 {
        page.push_str(&format!("x{i}=1 "));
    }
    for _ in 0..50_000 {
        page.push_str("href=/y src=/z ");
    }
    page.push_str(">t</a></body></html>");
    let p = d.path().join("attrs.html");
    std::fs::write(&p, page).unwrap();
    let (st, out, _) = run(
        cmd().args(["--base", "http://e.example/"]).arg(&p),
        60,
        "attrs.html",
    );
    assert_eq!(code(st), 0);
    assert_eq!(out, b"http://e.example/y\nhttp://e.example/z\n");
}

#[test]
fn walk_skips_links_to_fifos_and_devices() {
    let d = tmp();
    std::fs::write(d.path().join("a.txt"), "see http://a.example/\n").unwrap();
    let fifo = d.path().join("fifo");
    let ok = Command::new("mkfifo").arg(&fifo).status();
    assert!(ok.map(|s| s.success()).unwrap_or(false), "mkfifo");
    std::os::unix::fs::symlink(&fifo, d.path().join("link-to-fifo")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", d.path().join("link-to-zero")).unwrap();
    std::os::unix::fs::symlink("/dev/null", d.path().join("link-to-null")).unwrap();
    std::fs::write(d.path().join("z.txt"), "see http://z.example/\n").unwrap();
    let (st, out, err) = run(
        cmd().arg("-I").arg(d.path()),
        60,
        "walk with links to a FIFO and /dev/zero",
    );
    assert_eq!(code(st), 0, "{}", String::from_utf8_lossy(&err));
    assert_eq!(out, b"http://a.example/\nhttp://z.example/\n");
}

// ---------------------------------------------------------------- item 4

#[test]
fn output_that_is_also_an_input_is_refused() {
    // GNU grep: "input file 'notes.txt' is also the output".
    let d = tmp();
    let notes = d.path().join("notes.txt");
    let text = "keep me: http://a.example/\n";
    std::fs::write(&notes, text).unwrap();
    let (st, _, err) = run(
        cmd().arg("--output").arg(&notes).arg(&notes),
        60,
        "--output notes notes",
    );
    assert_eq!(code(st), 2);
    assert!(
        String::from_utf8_lossy(&err).contains("also"),
        "{}",
        String::from_utf8_lossy(&err)
    );
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), text);
    // Through a directory walk, and through another name (a hard link).
    let link = d.path().join("other-name.txt");
    std::fs::hard_link(&notes, &link).unwrap();
    let (st, _, _) = run(
        cmd().arg("--output").arg(&link).arg(d.path()),
        60,
        "--output in a walked dir",
    );
    assert_eq!(code(st), 2);
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), text);
    // As standard input.
    let out = cmd()
        .arg("--output")
        .arg(&notes)
        .stdin(std::fs::File::open(&notes).unwrap())
        .output()
        .unwrap();
    assert_eq!(code(out.status), 2);
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), text);
}

/// Start `urlsift --output out` on standard input, with `first` written to it:
/// the run is under way, waiting for more.
fn start_output_to(out: &Path, first: &[u8]) -> (Child, std::process::ChildStdin) {
    let mut child = cmd()
        .arg("--output")
        .arg(out)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(first).unwrap();
    stdin.flush().unwrap();
    (child, stdin)
}

/// The names of what `dir` holds.
fn names_in(dir: &Path) -> Vec<std::ffi::OsString> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect()
}

#[test]
fn output_file_is_replaced_atomically_at_the_end() {
    // Until the run ends, the old output stays whole; then the new one
    // takes its place in one rename.
    let d = tmp();
    let out = d.path().join("out.txt");
    std::fs::write(&out, "old\n").unwrap();
    let (mut child, mut stdin) = start_output_to(&out, b"first http://a.example/ ");
    // The run is under way (blocked reading stdin): the old file is intact.
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "old\n");
    stdin.write_all(b"second http://b.example/\n").unwrap();
    drop(stdin);
    let st = wait_or_kill(&mut child, 60, "--output from stdin");
    assert_eq!(code(st), 0);
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "http://a.example/\nhttp://b.example/\n"
    );
    // Nothing else is left in the directory (no temporary file).
    let names = names_in(d.path());
    assert_eq!(names.len(), 1, "{names:?}");
}

#[test]
fn output_through_a_link_to_no_file_yet_creates_that_file() {
    // As a shell's `>`: --output through a link to a file that does not exist yet
    // writes that file and keeps the link; a link to an existing file has
    // that file replaced, the link kept.
    let d = tmp();
    let link = d.path().join("link.txt");
    std::os::unix::fs::symlink("target.txt", &link).unwrap();
    for (input, want) in [
        (&b"see http://a.example/\n"[..], "http://a.example/\n"),
        (&b"see http://b.example/\n"[..], "http://b.example/\n"),
    ] {
        let (st, _, err) = run_on(
            &["--output", link.to_str().unwrap()],
            input,
            "--output link",
        );
        assert_eq!(code(st), 0, "{}", String::from_utf8_lossy(&err));
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        let target = d.path().join("target.txt");
        assert_eq!(std::fs::read_to_string(target).unwrap(), want);
    }
}

#[test]
fn a_run_ended_by_a_signal_leaves_no_temporary_output() {
    // Ctrl-C (or a kill) during a run with --output: the half-written temporary
    // file is removed, the old output stays as it was, and the run ends by
    // the signal, as it would have without --output.
    use std::os::unix::process::ExitStatusExt;
    for (sig, name) in [(libc::SIGINT, "SIGINT"), (libc::SIGTERM, "SIGTERM")] {
        let d = tmp();
        let out = d.path().join("out.txt");
        std::fs::write(&out, "old\n").unwrap();
        let (mut child, stdin) = start_output_to(&out, b"see http://a.example/ ");
        // The run is under way, blocked reading standard input, with its
        // temporary file made.
        let deadline = Instant::now() + Duration::from_secs(30);
        while names_in(d.path()).len() < 2 {
            assert!(Instant::now() < deadline, "{name}: no temporary file");
            std::thread::sleep(Duration::from_millis(20));
        }
        std::thread::sleep(Duration::from_millis(200));
        // SAFETY: kill has no memory preconditions; the pid is our child's.
        assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, sig) }, 0);
        let st = wait_or_kill(&mut child, 30, name);
        drop(stdin);
        assert_eq!(st.signal(), Some(sig), "{name}: {st:?}");
        let names = names_in(d.path());
        assert_eq!(names, ["out.txt"], "{name}: left {names:?}");
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "old\n");
    }
}

#[test]
fn output_holds_what_could_be_read_and_only_a_whole_one_replaces_the_old() {
    // As grep's output: an input that cannot be read is reported (exit 2)
    // and the output of the others replaces the old file. An output that
    // could not be written whole (here a spill that fails) leaves it.
    let d = tmp();
    let a = d.path().join("a.txt");
    let many: String = (0..20_000)
        .map(|i| format!("http://h{i}.example/\n"))
        .collect();
    std::fs::write(&a, &many).unwrap();
    let out = d.path().join("out.txt");
    std::fs::write(&out, "old\n").unwrap();
    let missing = d.path().join("missing.txt");
    let (st, _, err) = run(
        cmd()
            .arg("-I")
            .arg("--output")
            .arg(&out)
            .arg(&missing)
            .arg(&a),
        60,
        "--output with a missing input",
    );
    let err = String::from_utf8_lossy(&err);
    assert_eq!(code(st), 2, "{err}");
    assert!(err.contains("missing.txt"), "{err}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), many);
    std::fs::write(&out, "old\n").unwrap();
    let (st, _, err) = run(
        cmd()
            .args(["--unique", "--max-memory", "1K", "--temp-dir"])
            .arg(d.path().join("no-such-dir"))
            .arg("--output")
            .arg(&out)
            .arg(&a),
        60,
        "--output with a spill that fails",
    );
    let err = String::from_utf8_lossy(&err);
    assert_eq!(code(st), 2, "{err}");
    assert!(err.contains("spilling"), "{err}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "old\n");
    // --help says so where --output is described.
    let help = cmd().arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(
        help.contains("also when an input could not be read"),
        "{help}"
    );
}

#[test]
fn output_to_a_device_is_written_in_place() {
    // Only a regular file is replaced by a rename: --output /dev/null must leave
    // the device node alone, and --output /dev/full must fail the run (exit 2).
    let d = tmp();
    let p = d.path().join("a.txt");
    std::fs::write(&p, "see http://a.example/\n").unwrap();
    for dev in ["/dev/null", "/dev/full"] {
        let before = std::fs::metadata(dev).map(|m| m.file_type());
        let (st, _, _) = run(cmd().arg("--output").arg(dev).arg(&p), 60, dev);
        let after = std::fs::metadata(dev).map(|m| m.file_type());
        assert_eq!(
            format!("{before:?}"),
            format!("{after:?}"),
            "{dev} was replaced"
        );
        use std::os::unix::fs::FileTypeExt;
        assert!(
            after.unwrap().is_char_device(),
            "{dev} is no longer a device"
        );
        assert_eq!(code(st), if dev == "/dev/full" { 2 } else { 0 }, "{dev}");
    }
}

#[test]
fn output_to_its_own_standard_output_is_written_through_it() {
    // `--output /dev/stdout` with standard output redirected to a file: the file
    // keeps what it held and what the shell writes after; a rename would
    // have put a new file in its place.
    let d = tmp();
    let p = d.path().join("a.txt");
    std::fs::write(&p, "see http://a.example/\n").unwrap();
    let log = d.path().join("log.txt");
    std::fs::write(&log, "before\n").unwrap();
    let bin = env!("CARGO_BIN_EXE_urlsift");
    for (dev, fd) in [("/dev/stdout", ">>"), ("/dev/stderr", "2>>")] {
        let script = format!(
            "{{ '{bin}' --output {dev} '{}'; echo after; }} {fd} '{}'",
            p.display(),
            log.display()
        );
        let st = Command::new("sh").arg("-c").arg(&script).status().unwrap();
        assert!(st.success(), "{script}");
    }
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        "before\nhttp://a.example/\nafter\nhttp://a.example/\n"
    );
}

#[test]
fn output_into_the_pipe_being_read_is_refused() {
    // Opening the pipe of standard input for writing would keep it open:
    // the input would never end.
    let mut child = cmd()
        .args(["--output", "/dev/stdin", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let _ = stdin.write_all(b"see http://a.example/\n");
    drop(stdin);
    let st = wait_or_kill(&mut child, 60, "--output /dev/stdin");
    assert_eq!(code(st), 2);
}

// ---------------------------------------------------------------- item 6

/// Scan `data` as a mapped file, as standard input and as a .gz, with
/// `-j1`, `-j2`, `-j8` and a small chunk size: every output must be the same.
fn same_every_way(data: &[u8], extra: &[&str], threads: &[&str]) -> Vec<u8> {
    let d = tmp();
    let p = d.path().join("in.txt");
    std::fs::write(&p, data).unwrap();
    let gz = d.path().join("in.txt.gz");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    std::fs::write(&gz, e.finish().unwrap()).unwrap();
    let mut reference: Option<Vec<u8>> = None;
    for &j in threads {
        for chunk in [None, Some("1000")] {
            for how in ["map", "stdin", "gz", "no-mmap"] {
                let mut c = cmd();
                c.args(extra).arg("-j").arg(j);
                if let Some(ch) = chunk {
                    c.arg("--chunk-size").arg(ch);
                }
                let out = match how {
                    "map" => c.arg(&p).output().unwrap(),
                    "no-mmap" => c.arg("--no-mmap").arg(&p).output().unwrap(),
                    "gz" => c.arg(&gz).output().unwrap(),
                    _ => c.stdin(std::fs::File::open(&p).unwrap()).output().unwrap(),
                };
                let c = code(out.status);
                assert!(c == 0 || c == 1, "{how} -j{j}: exit {c}");
                match &reference {
                    None => reference = Some(out.stdout),
                    Some(r) => assert!(
                        *r == out.stdout,
                        "{how} -j{j} chunk {chunk:?}: output differs ({} vs {} bytes)",
                        out.stdout.len(),
                        r.len()
                    ),
                }
            }
        }
    }
    reference.unwrap()
}

#[test]
fn cjk_text_without_ascii_stop_bytes_reads_the_same_every_way() {
    let sentence =
        "这是一个没有空格的中文句子详见http://example.com/a/路径。另一个句子，见www.example.cn/x」"
            .as_bytes();
    let data = sentence.repeat(40_000); // about 4 MiB, no ASCII stop byte
    let out = same_every_way(&data, &["-b"], &["1", "2", "8"]);
    assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), 80_000);
}

#[test]
fn runs_with_no_cut_point_at_all_read_the_same_every_way() {
    // Longer than MAX_RUN (4 MiB) with no byte that ends a URL: forced cuts.
    let mut data = b"http://a.example/".to_vec();
    data.extend(std::iter::repeat_n(b'x', 5 << 20));
    data.extend_from_slice(b" http://after.example/ ");
    data.extend("中".repeat(3 << 19).as_bytes());
    data.extend_from_slice(b" http://end.example/\n");
    let out = same_every_way(&data, &["-b"], &["1", "8"]);
    let text = String::from_utf8_lossy(&out);
    assert!(
        text.contains("http://after.example/"),
        "{}",
        &text[..text.len().min(300)]
    );
    assert!(text.contains("http://end.example/"));
}

// ---------------------------------------------------------------- item 7

#[test]
fn parse_into_a_closed_pipe_exits_0() {
    let urls: Vec<String> = (0..20_000)
        .map(|i| format!("http://h{i}.example/p"))
        .collect();
    let mut child = cmd()
        .arg("parse")
        .args(&urls)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut line = [0u8; 64];
    let _ = out.read(&mut line).unwrap();
    drop(out);
    let st = wait_or_kill(&mut child, 60, "parse | head -1");
    assert_eq!(code(st), 0);
}

#[test]
fn subcommands_into_a_closed_pipe_exit_0() {
    // Found by the held-out sweep: clap_complete panicked on a closed pipe.
    for args in [
        &["completions", "bash"][..],
        &["man"],
        &["normalize", "http://A.example/", "http://B.example/"],
        &["resolve", "http://a/b/c/d", "../x", "g"],
    ] {
        let mut child = cmd()
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let st = wait_or_kill(&mut child, 60, &format!("{args:?} | (closed)"));
        assert_eq!(code(st), 0, "{args:?}");
    }
}

/// Run `args` with standard output closed (`urlsift ARGS >&-`); returns
/// the exit status and what was written on standard error.
fn with_stdout_closed(args: &[&str]) -> (ExitStatus, String) {
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg("exec \"$0\" \"$@\" >&-")
        .arg(bin())
        .args(args)
        .env_remove("URLSIFT_ISA")
        .env_remove("NO_COLOR");
    let (st, _, err) = run(&mut c, 60, &format!("{args:?} >&-"));
    (st, String::from_utf8_lossy(&err).into_owned())
}

#[test]
fn closed_standard_output_is_a_write_error() {
    // grep: "write error: Bad file descriptor", exit 2. Whatever would be
    // printed is an error; a run that prints nothing is not.
    let d = tmp();
    let p = d.path().join("a.txt");
    std::fs::write(&p, "see http://a.example/\n").unwrap();
    let none = d.path().join("none.txt");
    std::fs::write(&none, "no links here\n").unwrap();
    let (p, none) = (p.to_str().unwrap(), none.to_str().unwrap());
    for args in [
        &[p][..],
        &["-c", p],
        &["-l", p],
        &["--count-by", "host", p],
        &["parse", "http://a.example/"],
        &["normalize", "http://A.example/"],
        &["resolve", "http://a/b/c/d", "../x"],
        &["man"],
        &["completions", "bash"],
        &["--help"],
    ] {
        let (st, err) = with_stdout_closed(args);
        assert_eq!(code(st), 2, "{args:?}: {err}");
        assert!(
            err.contains("urlsift: writing output: Bad file descriptor"),
            "{args:?}: {err}"
        );
    }
    // Nothing to print: no write, no error.
    let (st, err) = with_stdout_closed(&[none]);
    assert_eq!(code(st), 1, "{err}");
    assert_eq!(err, "");
    let (st, err) = with_stdout_closed(&["-q", p]);
    assert_eq!(code(st), 0, "{err}");
    assert_eq!(err, "");
    let out = d.path().join("out.txt");
    let (st, err) = with_stdout_closed(&["--output", out.to_str().unwrap(), p]);
    assert_eq!(code(st), 0, "{err}");
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "http://a.example/\n"
    );
}

// ---------------------------------------------------------------- item 9

#[test]
fn threads_are_capped_by_the_work() {
    // -j 20000 on a 19-byte file: under a 2 GiB address-space limit, 20,000
    // threads (2 MiB of stack each) cannot even start.
    let d = tmp();
    let p = d.path().join("small.txt");
    std::fs::write(&p, "x http://a.example/").unwrap();
    let script = format!(
        "ulimit -v 2097152 && exec {} -j 20000 {}",
        bin().display(),
        p.display()
    );
    let (st, out, err) = run(Command::new("sh").arg("-c").arg(&script), 120, "-j 20000");
    assert_eq!(code(st), 0, "{}", String::from_utf8_lossy(&err));
    assert_eq!(out, b"http://a.example/\n");
}

// ---------------------------------------------------------------- item 10

#[test]
fn shard_directory_holds_only_the_last_run() {
    let d = tmp();
    let input = d.path().join("in.txt");
    let text: String = (0..200)
        .map(|i| format!("http://h{i}.example/\n"))
        .collect();
    std::fs::write(&input, &text).unwrap();
    let dir = d.path().join("shards");
    for n in ["4", "2"] {
        let (st, _, err) = run(
            cmd()
                .args(["--shards", n, "--output"])
                .arg(&dir)
                .arg(&input),
            60,
            "--shards",
        );
        assert_eq!(code(st), 0, "{}", String::from_utf8_lossy(&err));
    }
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["part-00000.txt", "part-00001.txt"]);
    let all: usize = names
        .iter()
        .map(|n| {
            std::fs::read_to_string(dir.join(n))
                .unwrap()
                .lines()
                .count()
        })
        .sum();
    assert_eq!(all, 200, "DIR/* counts every URL once");
    // A directory with other files in it is not ours: refused, untouched.
    std::fs::write(dir.join("notes.txt"), "mine").unwrap();
    let (st, _, _) = run(
        cmd()
            .args(["--shards", "2", "--output"])
            .arg(&dir)
            .arg(&input),
        60,
        "--shards into a foreign dir",
    );
    assert_eq!(code(st), 2);
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "mine"
    );
}

#[test]
fn a_shard_run_deletes_only_shard_files_of_earlier_runs() {
    // A second run deletes the part- files it does not write (more shards,
    // another format) and nothing else: what only looks like a shard file
    // (a directory, a link) makes it refuse the directory, untouched.
    let d = tmp();
    let input = d.path().join("in.txt");
    std::fs::write(&input, "http://a.example/ http://b.example/\n").unwrap();
    let dir = d.path().join("shards");
    std::fs::create_dir(&dir).unwrap();
    for name in ["part-00000.txt", "part-00002.txt", "part-00007.jsonl"] {
        std::fs::write(dir.join(name), "old\n").unwrap();
    }
    std::fs::write(dir.join(".urlsift-left.tmp"), "left\n").unwrap();
    let shards = |what: &str| {
        let (st, _, err) = run(
            cmd()
                .args(["--shards", "2", "--output"])
                .arg(&dir)
                .arg(&input),
            60,
            what,
        );
        (code(st), String::from_utf8_lossy(&err).into_owned())
    };
    let names = || {
        let mut v: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let (c, err) = shards("--shards 2 over 3 old shards");
    assert_eq!(c, 0, "{err}");
    assert_eq!(
        names(),
        [".urlsift-left.tmp", "part-00000.txt", "part-00001.txt"]
    );
    let outside = d.path().join("notes.txt");
    std::fs::write(&outside, "mine\n").unwrap();
    for (name, make) in [
        ("part-00003.txt", "dir"),
        ("part-00004.txt", "link"),
        ("part-00001.txt", "link"),
    ] {
        let before: Vec<_> = names()
            .iter()
            .map(|n| (n.clone(), std::fs::read(dir.join(n)).ok()))
            .collect();
        let p = dir.join(name);
        let _ = std::fs::remove_file(&p);
        if make == "dir" {
            std::fs::create_dir(&p).unwrap();
        } else {
            std::os::unix::fs::symlink(&outside, &p).unwrap();
        }
        let (c, err) = shards(&format!("a {make} named {name}"));
        assert_eq!(c, 2, "{make} {name}: {err}");
        assert!(err.contains("which urlsift did not write"), "{err}");
        assert!(std::fs::symlink_metadata(&p).is_ok(), "{make} {name}");
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "mine\n");
        for (n, bytes) in before.into_iter().filter(|(n, _)| n != name) {
            assert_eq!(std::fs::read(dir.join(&n)).ok(), bytes, "{n}");
        }
        if make == "dir" {
            std::fs::remove_dir(&p).unwrap();
        } else {
            std::fs::remove_file(&p).unwrap();
        }
    }
}

// ---------------------------------------------------------------- item 11

#[test]
fn json_count_by_prints_json_rows() {
    let d = tmp();
    let p = d.path().join("in.txt");
    std::fs::write(
        &p,
        "http://a.example/x http://a.example/y http://b.example/\n",
    )
    .unwrap();
    let (st, out, _) = run(
        cmd()
            .args(["--format", "json", "--count-by", "host"])
            .arg(&p),
        60,
        "json count-by",
    );
    assert_eq!(code(st), 0);
    let rows: Vec<serde_json::Value> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON row"))
        .collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["host"], "a.example");
    assert_eq!(rows[0]["count"], 2);
    assert_eq!(rows[1]["host"], "b.example");
}

#[test]
fn flags_that_cannot_apply_are_refused_not_ignored() {
    let d = tmp();
    let p = d.path().join("in.txt");
    std::fs::write(&p, "http://a.example/ http://a.example/\n").unwrap();
    for args in [
        &["-c", "--unique"][..],
        &["-n", "--count-by", "url"],
        &["-b", "--count-by", "host"],
        &["-c", "--count-by", "url"],
        &["-c", "-n"],
        &["--dedup-key", "syntax"],
        &["--shard-by", "host"],
    ] {
        let (st, out, err) = run(cmd().args(args).arg(&p), 60, "conflicting flags");
        assert_eq!(code(st), 2, "{args:?}: {}", String::from_utf8_lossy(&out));
        assert!(!err.is_empty(), "{args:?}: a message says why");
        assert!(out.is_empty(), "{args:?}");
    }
}

// ---------------------------------------------------------------- item 12

#[test]
fn mail_flag_on_a_file_that_is_not_mail_warns_and_exits_0() {
    let d = tmp();
    let p = d.path().join("notes.txt");
    std::fs::write(&p, "just notes, see http://a.example/ for more\n").unwrap();
    let (st, out, err) = run(cmd().arg("--mail").arg(&p), 60, "--mail on a text file");
    assert_eq!(out, b"http://a.example/\n");
    assert!(!err.is_empty(), "a warning says it is not mail");
    assert_eq!(code(st), 0);
}

#[test]
fn no_mmap_survives_a_file_truncated_during_the_run() {
    // With a memory map, truncating the file under the scan raises SIGBUS
    // (as in every mmap reader, ripgrep included); --no-mmap reads it.
    let d = tmp();
    let p = d.path().join("big.txt");
    let line = b"some text http://a.example/path and more text here\n";
    std::fs::write(&p, line.repeat((64 << 20) / line.len())).unwrap();
    let mut child = cmd()
        .args(["--no-mmap", "-j1", "-c"])
        .arg(&p)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let reader = read_all(child.stdout.take());
    std::thread::sleep(Duration::from_millis(50));
    std::fs::OpenOptions::new()
        .write(true)
        .open(&p)
        .unwrap()
        .set_len(1000)
        .unwrap();
    let st = wait_or_kill(&mut child, 120, "--no-mmap on a truncated file");
    let c = code(st); // panics on a signal
    assert!(c == 0 || c == 1, "exit {c}");
    // The count of what was read before the file shrank.
    let out = String::from_utf8(reader.join().unwrap()).unwrap();
    assert!(out.trim().parse::<u64>().is_ok(), "{out:?}");
}

// ------------------------------------------------------ adversarial sweep

/// How the number of URLs found grows from `n` to `8n` bytes of a shape.
#[derive(Clone, Copy, Debug)]
enum Grows {
    /// About eight times as many (a repeated unit that holds URLs).
    Linear,
    /// The same number (one long URL, or none at all).
    Same,
    /// Random text: no rule (time and agreement are still checked).
    Any,
}

/// Makes a hostile input of about the given size in bytes.
type Make = fn(usize) -> Vec<u8>;

/// Hostile inputs, each a function of its size in bytes.
fn shapes() -> Vec<(&'static str, Grows, Make)> {
    fn rep(unit: &[u8], n: usize) -> Vec<u8> {
        unit.repeat(n / unit.len().max(1))
    }
    fn lcg(n: usize, seed: u64, alphabet: &[u8]) -> Vec<u8> {
        let mut x = seed;
        (0..n)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                alphabet[(x >> 33) as usize % alphabet.len()]
            })
            .collect()
    }
    vec![
        ("a million (", Grows::Same, |n| rep(b"(", n)),
        ("http:// repeated", Grows::Same, |n| rep(b"http://", n)),
        ("http://a/ repeated, no space", Grows::Same, |n| {
            rep(b"http://a/", n)
        }),
        ("a million <", Grows::Same, |n| rep(b"<", n)),
        ("<URL: repeated", Grows::Same, |n| rep(b"<URL:", n)),
        ("unclosed <URL:", Grows::Linear, |n| {
            rep(b"<URL:http://a.example/x\n y z ", n)
        }),
        ("unclosed <http:// over wrapped lines", Grows::Linear, |n| {
            rep(b"<http://a.example/a\n   b/c\n   d ", n)
        }),
        ("nested [ ( {", Grows::Linear, |n| {
            rep(b"[(http://a.example/x{(", n)
        }),
        ("a: repeated", Grows::Same, |n| rep(b"a:", n)),
        ("www. repeated", Grows::Same, |n| rep(b"www.", n)),
        ("www.a.b repeated with spaces", Grows::Linear, |n| {
            rep(b"www.a.example ", n)
        }),
        ("% repeated", Grows::Same, |n| rep(b"%", n)),
        ("hyphen at line breaks", Grows::Linear, |n| {
            rep(b"<http://a.example/a-\n b> ", n)
        }),
        ("unclosed quotes", Grows::Linear, |n| {
            rep(b"\"http://a.example/x ", n)
        }),
        ("dense URL list", Grows::Linear, |n| rep(b"http://a.b/ ", n)),
        ("closing ) without space", Grows::Linear, |n| {
            rep(b"http://a.b)", n)
        }),
        ("IPv6 [ repeated", Grows::Same, |n| rep(b"http://[", n)),
        ("mailto: repeated", Grows::Same, |n| rep(b"mailto:", n)),
        ("one huge URL", Grows::Same, |n| {
            let mut v = b"see http://a.example/".to_vec();
            v.extend(rep(b"ab/", n));
            v.extend_from_slice(b" end");
            v
        }),
        ("ideographs only", Grows::Same, |n| {
            "中".repeat(n / 3).into_bytes()
        }),
        ("CJK prose with URLs", Grows::Linear, |n| {
            rep("句子详见http://example.com/路径。".as_bytes(), n)
        }),
        ("NUL and invalid UTF-8", Grows::Linear, |n| {
            rep(b"\0\xff\xfe http://a.example/\xc3\x28 \xe2\x82 ", n)
        }),
        ("random URL alphabet", Grows::Any, |n| {
            lcg(n, 7, b"htp:/w.a<>()[]\"' \n%-_~@?#=&;,")
        }),
        ("random bytes", Grows::Any, |n| {
            let all: Vec<u8> = (0..=255).collect();
            lcg(n, 11, &all)
        }),
    ]
}

/// The least CPU time (user + system, all threads) of three runs of `args`
/// on `path`, and the output: CPU time, unlike wall time, does not grow
/// when the machine is busy with other work.
#[allow(clippy::zombie_processes)] // libc::wait4 reaps the child
fn timed(args: &[&str], path: &Path, what: &str) -> (f64, Vec<u8>) {
    let mut best: Option<(f64, Vec<u8>)> = None;
    for _ in 0..3 {
        let mut child = cmd()
            .args(args)
            .arg(path)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        let reader = read_all(child.stdout.take());
        let pid = child.id() as libc::pid_t;
        let mut status = 0;
        // SAFETY: an all-zero rusage is a valid value for wait4 to fill in.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `pid` is our own child, not yet waited for; the pointers
        // are valid for the call.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        assert_eq!(r, pid, "{what}: wait4");
        assert!(libc::WIFEXITED(status), "{what}: killed by a signal");
        let c = libc::WEXITSTATUS(status);
        assert!(c == 0 || c == 1, "{what}: exit {c}");
        let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
        let cpu = secs(usage.ru_utime) + secs(usage.ru_stime);
        let out = reader.join().unwrap();
        if best.as_ref().is_none_or(|(b, _)| cpu < *b) {
            best = Some((cpu, out));
        }
    }
    best.unwrap()
}

/// At most 100 MiB, and measured at all (a /proc that could be read).
fn peak_ok(kib: u64) -> bool {
    kib > 0 && kib <= 100 << 10
}

fn lines(b: &[u8]) -> usize {
    b.iter().filter(|&&c| c == b'\n').count()
}

#[test]
fn hostile_shapes_scan_in_linear_time_and_lose_nothing() {
    // n and 8n bytes of each shape: 8n takes at most 12x the time of n,
    // the URLs found grow as the shape says, and the mapped and streamed
    // reads agree.
    let n = 256 << 10;
    let d = tmp();
    for (name, grows, make) in shapes() {
        let small = d.path().join("small");
        let big = d.path().join("big");
        std::fs::write(&small, make(n)).unwrap();
        let big_data = make(8 * n);
        std::fs::write(&big, &big_data).unwrap();
        let (t1, o1) = timed(&["-b"], &small, name);
        let (t8, o8) = timed(&["-b"], &big, name);
        assert!(
            t8 <= 12.0 * t1,
            "{name}: 8x the input took {:.1}x the time",
            t8 / t1
        );
        let (l1, l8) = (lines(&o1), lines(&o8));
        match grows {
            Grows::Same => assert!(l8.abs_diff(l1) <= 1, "{name}: {l1} then {l8} URLs"),
            Grows::Linear => assert!(
                l1 > 0 && l8.abs_diff(8 * l1) <= 8 + l1 / 10,
                "{name}: {l1} then {l8} URLs"
            ),
            Grows::Any => {}
        }
        let streamed = cmd()
            .args(["-b", "-j2", "--chunk-size", "4096"])
            .stdin(std::fs::File::open(&big).unwrap())
            .output()
            .unwrap();
        assert!(
            streamed.stdout == o8,
            "{name}: the stream reads differently"
        );
    }
}

#[test]
fn hostile_mail_shapes_finish_and_lose_nothing() {
    let n = 256 << 10;
    let d = tmp();
    let mail_shapes: [(&str, Make); 5] = [
        ("From lines", |n| {
            b"From a@b Mon Jan  1 00:00:00 2024\n".repeat(n / 35)
        }),
        ("folded header", |n| {
            let mut v = b"From a@b Mon Jan  1 00:00:00 2024\nSubject: x".to_vec();
            v.extend(b"\n http://a.example/".repeat(n / 19));
            v.extend_from_slice(b"\n\nbody http://end.example/\n");
            v
        }),
        ("quoted-printable soft breaks", |n| {
            let mut v = b"From a@b Mon Jan  1 00:00:00 2024\nContent-Transfer-Encoding: quoted-printable\n\nhttp://a.example/".to_vec();
            v.extend(b"a=\n".repeat(n / 3));
            v.extend_from_slice(b" http://end.example/\n");
            v
        }),
        ("base64 one long line", |n| {
            let mut v = b"From a@b Mon Jan  1 00:00:00 2024\nContent-Transfer-Encoding: base64\n\n"
                .to_vec();
            v.extend(b"aHR0cDovL2EuZXhhbXBsZS8g".repeat(n / 24));
            v.extend_from_slice(b"\n\nFrom b@c Mon Jan  1 00:00:00 2024\n\nhttp://end.example/\n");
            v
        }),
        ("many boundaries", |n| {
            let mut v =
                b"From a@b Mon Jan  1 00:00:00 2024\nContent-Type: multipart/mixed; boundary=B\n\n"
                    .to_vec();
            v.extend(b"--B\nContent-Type: text/plain\n\nhttp://a.example/\n".repeat(n / 48));
            v.extend_from_slice(b"--B--\nhttp://end.example/\n");
            v
        }),
    ];
    for (name, make) in mail_shapes {
        let small = d.path().join("small.mbox");
        let big = d.path().join("big.mbox");
        std::fs::write(&small, make(n)).unwrap();
        std::fs::write(&big, make(8 * n)).unwrap();
        let (t1, o1) = timed(&["--mail"], &small, name);
        let (t8, o8) = timed(&["--mail"], &big, name);
        assert!(
            t8 <= 12.0 * t1,
            "{name}: 8x the input took {:.1}x the time",
            t8 / t1
        );
        assert!(
            lines(&o8) >= lines(&o1),
            "{name}: {} then {} URLs",
            lines(&o1),
            lines(&o8)
        );
        if name != "From lines" {
            let text = String::from_utf8_lossy(&o8);
            assert!(
                text.contains("http://end.example/"),
                "{name}: lost the last URL"
            );
        }
    }
}

/// Run `c` to its end, feeding `input` on stdin from a thread; returns the
/// exit status, the output's line count and the child's peak RSS in KiB.
///
/// The peak is the process's `VmHWM`, read from /proc while it runs (it
/// never decreases, and a new program starts its own): `ru_maxrss` would
/// count the test process, whose memory the child shares until its exec.
fn run_rss(c: &mut Command, input: Vec<u8>) -> (i32, usize, u64) {
    let mut child = c
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let mut out = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut n = 0usize;
        let mut buf = vec![0u8; 1 << 16];
        while let Ok(k) = out.read(&mut buf) {
            if k == 0 {
                break;
            }
            n += lines(&buf[..k]);
        }
        n
    });
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak = 0u64;
    let deadline = Instant::now() + Duration::from_secs(600);
    let st = loop {
        let hwm = std::fs::read_to_string(&status_file).ok().and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        });
        peak = peak.max(hwm.unwrap_or(0));
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        assert!(Instant::now() < deadline, "still running after 600 s");
        std::thread::sleep(Duration::from_millis(5));
    };
    feeder.join().unwrap();
    (code(st), reader.join().unwrap(), peak)
}

#[test]
fn streaming_memory_is_bounded_for_every_shape() {
    // Through stdin, more than a block (16 MiB) of each shape: peak RSS
    // within 100 MiB, whatever the shape.
    let size = 20 << 20;
    for (name, make) in [
        (
            "dense URL list",
            (|n| b"http://a.b/ ".repeat(n / 12)) as fn(usize) -> Vec<u8>,
        ),
        ("closing ) without space", |n| b"http://a.b)".repeat(n / 11)),
        ("CJK prose", |n| {
            "句子详见http://example.com/路径。"
                .repeat(n / 40)
                .into_bytes()
        }),
        ("no cut point at all", |n| vec![b'x'; n]),
    ] {
        let (c, n, rss) = run_rss(cmd().args(["-j2"]), make(size));
        assert!(c == 0 || c == 1, "{name}: exit {c}");
        if name != "no cut point at all" {
            assert!(n > 400_000, "{name}: {n} URLs");
        }
        assert!(peak_ok(rss), "{name}: peak RSS {} MiB", rss >> 10);
    }
}

/// A pipe that gives a block and a half, then goes quiet without closing
/// (a producer that sleeps, `tail -f`): `-q`, `-m 1` and `-l` end as soon
/// as the first block holds what they want, as grep does, though the next
/// block is being read ahead and will not come. Plain text (its first URL
/// deep in the first block) and `--mail`.
#[test]
fn a_pipe_that_goes_quiet_does_not_hold_a_stopped_scan() {
    // A first block (16 MiB and an eighth more) and a little: the next
    // block's read has its little at once and then waits, while the scan
    // is still on its way to the first URL, 15 MiB in.
    let filler = b"no link on this line, nor on the next\n";
    let mut text = filler.repeat((15 << 20) / filler.len());
    text.extend_from_slice(b"see http://a.example/x here\n");
    text.extend_from_slice(&filler.repeat((7 << 19) / filler.len()));
    let mbox = std::fs::read("tests/data/mail/own/archive.mbox").expect("archive.mbox");
    let mbox = mbox.repeat((24 << 20) / mbox.len() + 1);
    for (data, mail) in [(&text, false), (&mbox, true)] {
        for (args, lines, status) in [(&["-q"][..], 0, 0), (&["-m", "1"], 1, 0), (&["-l"], 1, 0)] {
            let what = format!("{args:?} mail={mail}");
            let mut all = args.to_vec();
            if mail {
                all.push("--mail");
            }
            let (mut child, mut stdin) = spawn_piped(&all);
            let data = data.clone();
            // Written, and then held open: the pipe never ends.
            let feed = std::thread::spawn(move || {
                let _ = stdin.write_all(&data);
                stdin
            });
            let t_out = read_all(child.stdout.take());
            let t_err = read_all(child.stderr.take());
            let st = wait_or_kill(&mut child, 60, &what);
            let held = feed.join().expect("feed");
            let (out, err) = (t_out.join().expect("out"), t_err.join().expect("err"));
            drop(held);
            assert_eq!(
                code(st),
                status,
                "{what}: {}",
                String::from_utf8_lossy(&err)
            );
            assert_eq!(
                out.split(|&b| b == b'\n').filter(|l| !l.is_empty()).count(),
                lines,
                "{what}"
            );
            assert!(err.is_empty(), "{what}: {}", String::from_utf8_lossy(&err));
        }
    }
}

/// A pipe that pauses (`tail -f`, a producer that sleeps) has the URLs of
/// what it gave printed while it is still open, in each output format, as
/// grep prints lines; a URL in `<...>` left open waits for its close. The
/// output, once the pipe ends, is that of the same bytes at once.
#[test]
fn a_pipe_that_pauses_has_its_urls_printed_before_it_ends() {
    let parts: [&[u8]; 3] = [
        b"see http://a.example/x and <http://b.example/",
        b"\n  y> then http://c.example/\n",
        b"last www.d.example\n",
    ];
    for args in [&[][..], &["-n"], &["--format", "json"], &["-m", "9"]] {
        printed_as_it_comes(args, &parts, [1, 3, 4]);
    }
}

/// An mbox that pauses has the URLs of each message printed once the next
/// message's `From ` line ends it, while the pipe is still open; the last
/// message is printed at the end. The output is that of the whole mbox.
#[test]
fn a_paused_mbox_has_each_ended_message_printed() {
    // Far less than the 4 KiB head `--mail` judges: its `From ` line says
    // it is mail.
    let parts: [&[u8]; 3] = [
        b"From a@example.org Mon Jan  1 00:00:00 2024\nSubject: one\n\nsee http://a.example/\n\n",
        b"From b@example.org Mon Jan  1 00:00:01 2024\nSubject: two\n\nhttp://b.example/ and http://c.example/\n\n",
        b"From c@example.org Mon Jan  1 00:00:02 2024\nSubject: three\n\nhttp://d.example/\n",
    ];
    for args in [
        &["--mail"][..],
        &["--mail", "-n", "--format", "json"],
        &["--mail", "-m", "9"],
    ] {
        printed_as_it_comes(args, &parts, [0, 1, 3]);
    }
}

/// Write `parts` to `urlsift ARGS` one at a time, the pipe left open, and
/// check that after part `k` at least `due[k]` lines are out (waiting for
/// them, and failing on a wait of 30 s) and no more than that; once the
/// pipe ends, the output must be that of all the parts at once.
fn printed_as_it_comes(args: &[&str], parts: &[&[u8]], due: [usize; 3]) {
    use std::io::BufRead;
    let what = format!("{args:?}");
    let (mut child, mut stdin) = spawn_piped(args);
    let (tx, rx) = std::sync::mpsc::channel();
    let out = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let reader = std::thread::spawn(move || {
        for line in out.split(b'\n') {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut lines = Vec::new();
    for (part, due) in parts.iter().zip(due) {
        stdin.write_all(part).expect("write");
        stdin.flush().expect("flush");
        // The pipe stays open: the lines come at the pause, or never.
        while lines.len() < due {
            match rx.recv_timeout(std::time::Duration::from_secs(30)) {
                Ok(l) => lines.push(l),
                Err(_) => panic!("{what}: {} lines while the pipe is open", lines.len()),
            }
        }
        assert_eq!(lines.len(), due, "{what}");
    }
    drop(stdin);
    let st = wait_or_kill(&mut child, 60, &what);
    reader.join().expect("reader");
    lines.extend(rx.try_iter());
    assert_eq!(code(st), 0, "{what}");
    let (_, want, _) = run_on(args, &parts.concat(), &what);
    let mut got = lines.join(&b'\n');
    got.push(b'\n');
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(&want),
        "{what}"
    );
}

/// What a stream is (HTML, mail) is judged the same however its writer
/// paused: a head cut short by a pause is not judged before it says.
#[test]
fn a_pause_in_the_head_does_not_change_what_a_stream_is() {
    let page: &[u8] = b"<!DOCTYPE html><base href=\"http://a.example/\"><a href=\"/rel\">x</a> see http://b.example/&amp;q\n";
    let mail: &[u8] = b"Foo: 1\nSubject: hi\nContent-Transfer-Encoding: quoted-printable\n\nsee http://a.example/very=\nlong\n";
    for (data, args, at) in [
        (page, &[][..], 9),
        (page, &[][..], 3),
        (mail, &["--mail"][..], 10),
        (mail, &["--mail"][..], 25),
    ] {
        let what = format!("{args:?} paused at {at}");
        let whole = run_on(args, data, &what);
        let paused = {
            let (mut child, mut stdin) = spawn_piped(args);
            let t_out = read_all(child.stdout.take());
            let t_err = read_all(child.stderr.take());
            stdin.write_all(&data[..at]).expect("write");
            stdin.flush().expect("flush");
            std::thread::sleep(Duration::from_millis(400));
            stdin.write_all(&data[at..]).expect("write");
            drop(stdin);
            let st = wait_or_kill(&mut child, 60, &what);
            (st, t_out.join().expect("out"), t_err.join().expect("err"))
        };
        assert_eq!(code(whole.0), 0, "{what}");
        assert!(!whole.1.is_empty(), "{what}");
        assert_eq!(
            String::from_utf8_lossy(&paused.1),
            String::from_utf8_lossy(&whole.1),
            "{what}"
        );
        assert_eq!(code(paused.0), code(whole.0), "{what}");
    }
}
