//! The de-duplication keys from the command line: --dedup-key whatwg|surt,
//! --count-by/--shard-by domain, --key-field, the host_ascii and domain
//! fields, and `normalize --dedup-key`.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_urlsift");

fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .env_remove("URLSIFT_ISA")
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

fn lines(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

const ISSUE: &str = "http://例子.测试/a http://xn--fsqu00a.xn--0zwm56d/a http://www.bbc.co.uk/news http://news.bbc.co.uk/x\n";

/// The same hosts in Unicode, punycode, mixed case, full width and
/// percent-encoded, with the same path. (A full-width full stop ends a URL
/// in text, so the full-width forms here keep ASCII dots;
/// `normalize_prints_a_key_per_line` has the full-width dots.)
const SPELLINGS: &str = "\
http://例子.测试/a
http://xn--fsqu00a.xn--0zwm56d/a
http://XN--FSQU00A.XN--0ZWM56D/a
http://%E4%BE%8B%E5%AD%90.%E6%B5%8B%E8%AF%95/a
https://bücher.example/
https://BÜCHER.example/
https://xn--bcher-kva.example/
https://XN--BCHER-KVA.EXAMPLE:443/
https://ｂüｃｈｅｒ.ｅｘａｍｐｌｅ/
";

#[test]
fn unique_keeps_one_url_per_host_spelling() {
    for level in ["whatwg", "surt"] {
        let o = run(&["--unique", "--dedup-key", level], SPELLINGS.as_bytes());
        assert_eq!(o.status.code(), Some(0), "{level}");
        // The first of each group, as found.
        assert_eq!(
            lines(&o),
            ["http://例子.测试/a", "https://bücher.example/"],
            "{level}"
        );
        let o = run(
            &["--unique", "--normalize", "--dedup-key", level],
            SPELLINGS.as_bytes(),
        );
        let want = if level == "whatwg" {
            [
                "http://xn--fsqu00a.xn--0zwm56d/a",
                "https://xn--bcher-kva.example/",
            ]
        } else {
            ["xn--0zwm56d,xn--fsqu00a)/a", "example,xn--bcher-kva)/"]
        };
        assert_eq!(lines(&o), want, "{level}");
    }
    // The RFC 3986 levels keep their meaning: every spelling is its own URL.
    let o = run(&["--unique", "--normalize"], SPELLINGS.as_bytes());
    assert!(lines(&o).len() >= 6, "{:?}", lines(&o));
}

#[test]
fn the_issue_example() {
    let o = run(&["--unique", "--dedup-key", "surt"], ISSUE.as_bytes());
    assert_eq!(lines(&o).len(), 3);
    let o = run(&["--count-by", "domain"], ISSUE.as_bytes());
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        lines(&o),
        ["      2 bbc.co.uk", "      2 xn--fsqu00a.xn--0zwm56d"]
    );
    let o = run(
        &["--count-by", "domain", "--format", "json"],
        b"http://192.0.2.1/ http://co.uk/ http://a.github.io/ http://b.a.github.io/\n",
    );
    let rows: Vec<Value> = lines(&o)
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // IP addresses and public suffixes are not counted.
    assert_eq!(
        rows,
        [serde_json::json!({"domain": "a.github.io", "count": 2})]
    );
}

#[test]
fn count_by_url_follows_the_key() {
    let o = run(
        &["--count-by", "url", "--dedup-key", "surt"],
        b"http://www.a.example/?b=1&a=2 https://A.example/?a=2&b=1#x http://a.example/z\n",
    );
    assert_eq!(
        lines(&o),
        ["      2 example,a)/?a=2&b=1", "      1 example,a)/z"]
    );
}

#[test]
fn fields_host_ascii_domain_and_key() {
    let o = run(
        &["--format", "json", "--key-field", "--dedup-key", "whatwg"],
        "see http://WWW.例子.测试:80/a/../b and http://[::1]:8/ and http://a b/\n".as_bytes(),
    );
    let rows: Vec<Value> = lines(&o)
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows[0]["host_ascii"], "www.xn--fsqu00a.xn--0zwm56d");
    assert_eq!(rows[0]["domain"], "xn--fsqu00a.xn--0zwm56d");
    assert_eq!(rows[0]["key"], "http://www.xn--fsqu00a.xn--0zwm56d/b");
    assert_eq!(rows[1]["host_ascii"], "[::1]");
    assert_eq!(rows[1]["domain"], Value::Null);
    // Without --key-field there is no key field.
    let o = run(&["--format", "json"], b"http://a.example/\n");
    let v: Value = serde_json::from_str(&lines(&o)[0]).unwrap();
    assert!(v.get("key").is_none());
    assert_eq!(v["domain"], "a.example");
    // CSV: the key after url, host_ascii and domain after fragment.
    let o = run(
        &["--format", "csv", "--key-field", "--dedup-key", "surt"],
        b"http://www.b.example/X\n",
    );
    let mut r = csv::Reader::from_reader(&o.stdout[..]);
    let head = r.headers().unwrap().clone();
    let row = r.records().next().unwrap().unwrap();
    let col = |name: &str| row[head.iter().position(|h| h == name).unwrap()].to_string();
    assert_eq!(col("key"), "example,b)/x");
    assert_eq!(col("host_ascii"), "www.b.example");
    assert_eq!(col("domain"), "b.example");
    // --key-field needs a format with fields.
    let o = run(&["--key-field"], b"http://a/\n");
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn normalize_prints_a_key_per_line() {
    let o = run(
        &["normalize", "--dedup-key", "whatwg"],
        b"HTTP://A.example:80\nhttp://[::1\n\\\\x\nhttps://b.example/\\a\n",
    );
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        lines(&o),
        ["http://a.example/", "", "", "https://b.example//a"]
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("http://[::1") && err.contains("whatwg"),
        "{err}"
    );
    // Against a base, as the URL Standard parses links.
    let o = run(
        &[
            "normalize",
            "--dedup-key",
            "whatwg",
            "--base",
            "http://h.example/a/b",
            "../c",
            "?q",
            "//o.example",
        ],
        b"",
    );
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        lines(&o),
        [
            "http://h.example/c",
            "http://h.example/a/b?q",
            "http://o.example/"
        ]
    );
    let o = run(
        &[
            "normalize",
            "--dedup-key",
            "surt",
            "--base",
            "http://h/",
            "x",
        ],
        b"",
    );
    assert_eq!(o.status.code(), Some(2));
    // Full-width dots and letters, one key.
    for level in ["whatwg", "surt"] {
        let o = run(
            &["normalize", "--dedup-key", level],
            "http://例子。测试/a\nhttp://例子.测试/a\nhttps://ｂüｃｈｅｒ．ｅｘａｍｐｌｅ/\nhttps://xn--bcher-kva.example/\n".as_bytes(),
        );
        let l = lines(&o);
        assert_eq!((l[0] == l[1], l[2] == l[3]), (true, true), "{level}: {l:?}");
    }
    // SURT; a port out of range has no key.
    let o = run(
        &["normalize", "--dedup-key", "surt"],
        b"http://www.Example.com/A/?b&a\nhttp://a.example:99999/\nhttp://archive.org/goo/?\n",
    );
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(lines(&o), ["com,example)/a?a&b", "", "org,archive)/goo"]);
    // The RFC 3986 levels, one line per URL too.
    let o = run(
        &["normalize", "--dedup-key", "no-fragment"],
        b"HTTP://A/b#c\nhttp://a b/\n",
    );
    assert_eq!(lines(&o), ["http://a/b", ""]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn parse_gives_host_ascii_and_domain() {
    let o = run(&["parse", "http://News.BBC.co.uk/", "mailto:a@b"], b"");
    let rows: Vec<Value> = lines(&o)
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows[0]["host_ascii"], "news.bbc.co.uk");
    assert_eq!(rows[0]["domain"], "bbc.co.uk");
    assert_eq!(rows[1]["host_ascii"], Value::Null);
    assert_eq!(rows[1]["domain"], Value::Null);
}

#[test]
fn shard_by_domain_keeps_a_domain_together() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("shards");
    let mut text = String::new();
    for i in 0..40 {
        text.push_str(&format!("http://h{i}.site{}.co.uk/p{i}\n", i % 7));
    }
    let o = run(
        &[
            "--shards",
            "4",
            "--shard-by",
            "domain",
            "--output",
            out.to_str().unwrap(),
        ],
        text.as_bytes(),
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let mut seen = std::collections::HashMap::new();
    let mut n = 0;
    for e in std::fs::read_dir(&out).unwrap() {
        let p = e.unwrap().path();
        for line in std::fs::read_to_string(&p).unwrap().lines() {
            let site = line.split('.').nth(1).unwrap().to_string();
            let prev = seen.insert(site.clone(), p.clone());
            assert!(prev.is_none_or(|q| q == p), "{site} in two shards");
            n += 1;
        }
    }
    assert_eq!((n, seen.len()), (40, 7));
}

#[test]
fn the_list_date_is_shown() {
    let v = urlsift_keys::psl_version();
    let o = run(&["--version"], b"");
    assert!(String::from_utf8_lossy(&o.stdout).contains(v));
    let o = run(&["normalize", "--help"], b"");
    assert!(String::from_utf8_lossy(&o.stdout).contains(v));
}

#[test]
fn every_field_is_in_the_man_page() {
    let page = String::from_utf8(run(&["man"], b"").stdout).unwrap();
    let at = page.find(".SH \"JSON FIELDS\"").unwrap();
    for f in urlsift_printer::fields::FIELDS {
        assert!(
            page[at..].contains(f.name),
            "{} is not in the man page",
            f.name
        );
    }
}

/// `--shards` with `--shard-by url` (the default) partitions on the URL's
/// `--dedup-key` form: at `surt` and `whatwg`, every spelling of one URL
/// lands in one shard, and the groups spread over the shards.
#[test]
fn shard_by_url_partitions_on_the_surt_and_whatwg_keys() {
    let mut text = String::new();
    for i in 0..30 {
        text.push_str(&format!("http://www.site{i}.example/p?b=1&a=2\n"));
        text.push_str(&format!("http://SITE{i}.example:80/p?a=2&b=1\n"));
        text.push_str(&format!("http://site{i}.example/p?a=2&b=1\n"));
    }
    for level in ["surt", "whatwg"] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("shards");
        let o = run(
            &[
                "--shards",
                "4",
                "--dedup-key",
                level,
                "--output",
                out.to_str().unwrap(),
            ],
            text.as_bytes(),
        );
        assert_eq!(
            o.status.code(),
            Some(0),
            "{level}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        // The shard of each URL's group, for the spellings that share a key
        // at this level (whatwg keeps `www.` and the query order).
        let mut shard_of = std::collections::HashMap::new();
        let mut shards_used = std::collections::HashSet::new();
        let mut n = 0;
        for e in std::fs::read_dir(&out).unwrap() {
            let p = e.unwrap().path();
            for line in std::fs::read_to_string(&p).unwrap().lines() {
                n += 1;
                let low = line.to_ascii_lowercase();
                if level == "whatwg" && low.contains("www.") {
                    continue;
                }
                let site = low.split("site").nth(1).unwrap();
                let group: u32 = site[..site.find('.').unwrap()].parse().unwrap();
                let prev = shard_of.insert(group, p.clone());
                assert!(
                    prev.is_none_or(|q| q == p),
                    "{level}: site{group} in two shards"
                );
                shards_used.insert(p.clone());
            }
        }
        assert_eq!(n, 90, "{level}: every URL is written once");
        assert_eq!(shard_of.len(), 30, "{level}");
        assert!(shards_used.len() > 1, "{level}: one shard took every group");
    }
}
