//! De-duplication at scale, through the CLI: spilling never changes the
//! output, each `--dedup-key` level merges exactly the RFC 3986 6.2
//! equivalents, shards partition the records, and Parquet round-trips.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_urlsift");

fn urlsift(args: &[&str]) -> Output {
    let out = Command::new(BIN)
        .args(args)
        .env_remove("URLSIFT_ISA")
        .output()
        .expect("run urlsift");
    assert!(
        out.status.code() == Some(0),
        "urlsift {args:?}: {:?}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Text with `n` URLs drawn from about `distinct` keys, each written in
/// several RFC 3986-equivalent spellings (case, default port, percent-encoded
/// unreserved characters, dot segments), in a reproducible order.
fn corpus(n: usize, distinct: u64) -> String {
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut s = String::new();
    for i in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let k = x % distinct;
        let host = format!("h{}.example", k % 97);
        let url = match (x >> 32) % 5 {
            0 => format!("http://{host}/p/{k}"),
            1 => format!("HTTP://{}:80/p/{k}", host.to_uppercase()),
            // A percent-encoded digit (unreserved) and a dot segment.
            2 => {
                let d = k.to_string();
                format!("http://{host}/a/../p/%3{}{}", &d[..1], &d[1..])
            }
            3 => format!("http://{host}/p/{k}#frag{}", x % 3),
            _ => format!("<https://{host}/p/{k}?q=%6a>"),
        };
        s.push_str(&format!("line {i}: see {url}, and more text.\n"));
    }
    s
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

#[test]
fn spilling_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "c.txt", &corpus(60_000, 20_000));
    let tmp = dir.path().join("spill");
    std::fs::create_dir(&tmp).unwrap();
    let tmp = tmp.to_string_lossy().into_owned();
    for args in [
        vec!["--unique"],
        vec!["--unique", "--dedup-key", "scheme", "--format", "json"],
        vec!["--unique", "--normalize", "-n"],
        vec!["--count-by", "url", "--dedup-key", "no-fragment"],
        vec!["--count-by", "host"],
    ] {
        let mut big = args.clone();
        big.extend(["--stats", &f]);
        let mem = urlsift(&big);
        let mut small = args.clone();
        small.extend(["--max-memory", "64K", "--temp-dir", &tmp, "--stats", &f]);
        let spilled = urlsift(&small);
        let err = String::from_utf8_lossy(&spilled.stderr);
        assert!(
            err.contains("spilled") || args.contains(&"host"),
            "{args:?} did not spill: {err}"
        );
        assert!(String::from_utf8_lossy(&mem.stderr).contains("nothing spilled"));
        assert!(!mem.stdout.is_empty());
        assert!(
            mem.stdout == spilled.stdout,
            "{args:?}: spilled output differs"
        );
    }
    // Spilled runs are unnamed temporary files: nothing is left behind.
    assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0);
}

#[test]
fn unique_is_first_occurrence_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let text = corpus(5_000, 700);
    let f = write(dir.path(), "c.txt", &text);
    let all = urlsift(&[&f]).stdout;
    let mut seen = BTreeSet::new();
    let mut expect = Vec::new();
    for line in all.split_inclusive(|&b| b == b'\n') {
        if seen.insert(line.to_vec()) {
            expect.extend_from_slice(line);
        }
    }
    assert_eq!(urlsift(&["--unique", &f]).stdout, expect);
    assert_eq!(
        urlsift(&["--unique", "-j1", "--max-memory", "2K", &f]).stdout,
        expect
    );
}

#[test]
fn dedup_key_levels() {
    let dir = tempfile::tempdir().unwrap();
    // RFC 3986 6.2.2 and 6.2.3's examples, and URLs that must stay apart.
    let text = "\
        example://a/b/c/%7Bfoo%7D eXAMPLE://a/./b/../b/%63/%7bfoo%7d \
        http://example.com http://example.com/ http://example.com:/ http://example.com:80/ \
        http://example.com/~smith http://example.com/%7Esmith http://example.com/%7esmith \
        http://example.com/#a http://example.com/#b \
        http://example.com/data http://example.com/DATA https://example.com/ http://example.com:8080/ \
        http://example.com/a%2Fb http://example.com/a/b\n";
    let f = write(dir.path(), "levels.txt", text);
    let count = |level: &str| {
        let out = urlsift(&["--unique", "--dedup-key", level, &f]).stdout;
        out.split(|&b| b == b'\n').filter(|l| !l.is_empty()).count()
    };
    // 17 URLs as found.
    assert_eq!(count("raw"), 17);
    // Syntax: the two example:// spellings merge, the three ~smith
    // spellings, and `example.com:/` with `example.com/` (an empty port).
    assert_eq!(count("syntax"), 17 - 1 - 2 - 1);
    // Scheme: also `http://example.com` and `:80/` with `http://example.com/`
    // (the two with fragments stay apart).
    assert_eq!(count("scheme"), 17 - 1 - 2 - 1 - 2);
    // No fragment: #a and #b join http://example.com/.
    assert_eq!(count("no-fragment"), 17 - 1 - 2 - 1 - 2 - 2);
    // --normalize prints the normal form at the key's level.
    let out = urlsift(&["--unique", "--normalize", "--dedup-key", "syntax", &f]).stdout;
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains("example://a/b/c/%7Bfoo%7D\n"), "{out}");
    assert!(out.contains("http://example.com:80/\n"), "{out}");
}

#[test]
fn shards_partition_by_key() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "c.txt", &corpus(8_000, 1_500));
    let whole = urlsift(&["--format", "json", "--normalize", &f]).stdout;
    let out = dir.path().join("shards");
    let outs = out.to_string_lossy().into_owned();
    urlsift(&[
        "--format",
        "json",
        "--normalize",
        "--shards",
        "5",
        "--dedup-key",
        "scheme",
        "--output",
        &outs,
        &f,
    ]);
    let mut rows = Vec::new();
    let mut shard_of: HashMap<String, usize> = HashMap::new();
    for i in 0..5 {
        let p = out.join(format!("part-{i:05}.jsonl"));
        let text = std::fs::read_to_string(&p).unwrap();
        let mut last = 0u64;
        for line in text.lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            // Input order within a shard.
            let start = v["start"].as_u64().unwrap();
            assert!(start >= last);
            last = start;
            let key = v["normalized"].as_str().unwrap().to_string();
            if let Some(s) = shard_of.insert(key.clone(), i) {
                assert_eq!(s, i, "{key} in two shards");
            }
            rows.push(line.to_string());
        }
        assert!(!text.is_empty(), "shard {i} is empty");
    }
    let mut whole: Vec<String> = String::from_utf8(whole)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    whole.sort();
    rows.sort();
    assert_eq!(rows, whole, "the shards hold exactly the records");
    // Per-shard unique counts add up to the global one.
    let global = urlsift(&["--unique", "--dedup-key", "scheme", &f])
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .count();
    assert_eq!(shard_of.len(), global);
    // By host: every host in one shard.
    let out = dir.path().join("by-host");
    let outh = out.to_string_lossy().into_owned();
    urlsift(&[
        "--format",
        "tsv",
        "--shards",
        "3",
        "--shard-by",
        "host",
        "--output",
        &outh,
        &f,
    ]);
    let mut host_shard: HashMap<String, usize> = HashMap::new();
    for i in 0..3 {
        let text = std::fs::read_to_string(out.join(format!("part-{i:05}.tsv"))).unwrap();
        let mut lines = text.lines();
        if let Some(h) = lines.next() {
            assert!(h.starts_with("file\tstart"), "a header in every shard file");
        }
        for l in lines {
            let host = l.split('\t').nth(11).unwrap().to_ascii_lowercase();
            assert_eq!(*host_shard.entry(host).or_insert(i), i);
        }
    }
    assert!(host_shard.len() > 50);
}

#[test]
fn bad_output_arguments_exit_2() {
    for args in [
        vec!["--format", "parquet", "x"],
        vec!["--shards", "4", "x"],
        vec!["--shards", "2", "--output", "d", "--count-by", "url", "x"],
        vec!["--max-memory", "lots", "x"],
    ] {
        let o = Command::new(BIN).args(&args).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&o.stderr).starts_with("urlsift: "));
    }
}

#[cfg(feature = "parquet")]
#[test]
fn parquet_round_trips() {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::Field;

    let dir = tempfile::tempdir().unwrap();
    let mut text = corpus(20_000, 5_000);
    text.push_str("and an IPv6 one http://[2001:db8::1]:8080/x?y#z and a wrapped <http://a.example/lo\n  ng>\n");
    let f = write(dir.path(), "c.txt", &text);
    let json = urlsift(&["--format", "json", "--normalize", &f]).stdout;
    let json: Vec<serde_json::Value> = json
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    let pq = dir.path().join("out.parquet");
    urlsift(&["--format", "parquet", "--output", pq.to_str().unwrap(), &f]);
    let reader = SerializedFileReader::new(std::fs::File::open(&pq).unwrap()).unwrap();
    assert!(reader.metadata().num_row_groups() >= 1);
    let mut i = 0;
    for row in reader.get_row_iter(None).unwrap() {
        let row = row.unwrap();
        let col = |n: &str| {
            row.get_column_iter()
                .find(|(name, _)| name.as_str() == n)
                .map(|(_, f)| f.clone())
                .unwrap()
        };
        let text = |n: &str| match col(n) {
            Field::Str(s) => Some(s),
            Field::Null => None,
            f => panic!("{n}: {f:?}"),
        };
        let j = &json[i];
        assert_eq!(text("url").as_deref(), j["url"].as_str());
        assert_eq!(col("start"), Field::Long(j["start"].as_i64().unwrap()));
        assert_eq!(text("normalized").as_deref(), j["normalized"].as_str());
        assert_eq!(text("host").as_deref(), j["host"].as_str());
        assert_eq!(col("valid"), Field::Bool(j["valid"].as_bool().unwrap()));
        assert_eq!(text("fragment").is_none(), j["fragment"].is_null());
        i += 1;
    }
    assert_eq!(i, json.len());
    assert!(json.iter().any(|j| j["host_kind"] == "ipv6"));
    assert!(json.iter().any(|j| j["url"] == "http://a.example/long"));
}
