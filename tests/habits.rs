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
