//! The `parse`, `normalize` and `resolve` subcommands, called directly
//! (`src/cmd_uri.rs` is a binary-only module, included here by path).

#[path = "../src/cmd_uri.rs"]
#[allow(dead_code)]
mod cmd_uri;

use cmd_uri::Refs;
use serde_json::Value;

fn args(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

fn run(
    f: impl FnOnce(&mut Vec<u8>, &mut Vec<u8>) -> std::io::Result<i32>,
) -> (i32, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = f(&mut out, &mut err).unwrap();
    (
        code,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

#[test]
fn parse_prints_one_object_per_url() {
    let urls = args(&[
        "HTTP://user@[::1]:8080/a?q#f",
        "http://a b/",
        "telnet://h/x",
        "urn:isbn:1",
    ]);
    let (code, out, err) = run(|o, e| cmd_uri::parse_cmd(Refs::Args(&urls), o, e));
    assert_eq!(code, 2);
    assert!(err.is_empty());
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    let v = &lines[0];
    assert_eq!(v["url"], "HTTP://user@[::1]:8080/a?q#f");
    assert_eq!(v["valid"], true);
    assert_eq!(v["scheme"], "HTTP");
    assert_eq!(v["userinfo"], "user");
    assert_eq!(v["host"], "[::1]");
    assert_eq!(v["host_kind"], "ipv6");
    assert_eq!(v["port"], "8080");
    assert_eq!(v["path"], "/a");
    assert_eq!(v["query"], "q");
    assert_eq!(v["fragment"], "f");
    assert_eq!(v["error"], Value::Null);
    assert_eq!(v["scheme_error"], Value::Null);
    assert_eq!(lines[1]["valid"], false);
    assert_eq!(lines[1]["error"]["offset"], 8);
    assert_eq!(lines[1]["error"]["message"], "invalid character in host");
    assert_eq!(lines[2]["valid"], true);
    assert_eq!(lines[2]["scheme_error"]["offset"], 11);
    assert_eq!(lines[3]["host"], Value::Null);
    assert_eq!(lines[3]["host_kind"], Value::Null);
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    for k in [
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
        "error",
        "scheme_error",
    ] {
        assert!(keys.iter().any(|x| *x == k), "missing {k}");
    }
}

#[test]
fn parse_exit_zero_when_all_valid() {
    let (code, out, _) = run(|o, e| cmd_uri::parse_cmd(Refs::Args(&args(&["a", "b:c"])), o, e));
    assert_eq!((code, out.lines().count()), (0, 2));
}

#[test]
fn normalize_lines_and_errors() {
    let urls = args(&[
        "HTTP://Example.COM:80/%7ea/./b#x",
        "http://a/%zz",
        "foo://A:80",
    ]);
    let (code, out, err) = run(|o, e| cmd_uri::normalize_cmd(Refs::Args(&urls), true, false, o, e));
    assert_eq!(code, 2);
    assert_eq!(out, "http://example.com/~a/b#x\nfoo://a:80\n");
    assert!(
        err.contains("\"http://a/%zz\"") && err.contains("at byte 10"),
        "{err}"
    );
    let (code, out, _) =
        run(|o, e| cmd_uri::normalize_cmd(Refs::Args(&urls[..1]), false, true, o, e));
    assert_eq!((code, out.as_str()), (0, "http://example.com:80/~a/b\n"));
}

#[test]
fn resolve_lines_and_errors() {
    let refs = args(&["../../../g", "g;x?y#s", "a b"]);
    let (code, out, err) =
        run(|o, e| cmd_uri::resolve_cmd("http://a/b/c/d;p?q", Refs::Args(&refs), o, e));
    assert_eq!(code, 2);
    assert_eq!(out, "http://a/g\nhttp://a/b/c/g;x?y#s\n");
    assert!(
        err.contains("\"a b\"") && err.contains("at byte 1"),
        "{err}"
    );
    let (code, out, err) = run(|o, e| cmd_uri::resolve_cmd("/relative", Refs::Args(&refs), o, e));
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.contains("no scheme"), "{err}");
}

/// A read that fails midway: the lines before it are processed, the error
/// is reported once, and the status is 2.
#[test]
fn read_error_on_stdin_is_reported() {
    struct Failing;
    impl std::io::Read for Failing {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk on fire"))
        }
    }
    let mut input = std::io::BufReader::new(std::io::Read::chain(&b"g\n"[..], Failing));
    let (code, out, err) =
        run(|o, e| cmd_uri::resolve_cmd("http://a/b", Refs::Lines(&mut input), o, e));
    assert_eq!((code, out.as_str()), (2, "http://a/g\n"));
    assert_eq!(
        err,
        "urlsift: resolve: reading standard input: disk on fire\n"
    );
}
