#!/usr/bin/env bash
# Build a large, deterministic corpus for benchmarks.
#
# usage: scripts/make-corpus.sh [-s SIZE] [-k KIND] [-o FILE] [--seed N]
#
#   -s SIZE   size in bytes, with an optional K/M/G suffix (powers of 1024); default 256M
#   -k KIND   one of:
#               docs         real text only, none of it generated, SIZE distinct bytes:
#                            this machine's documentation (/usr/share/doc, man and info
#                            pages, licenses), the Rust toolchain's HTML docs, the cargo
#                            registry's crate sources, the Python standard library, Perl
#                            modules, Vim help and Node module READMEs, one file from
#                            each source in turn (gzip files decompressed, binary files
#                            skipped); sources that hold less than SIZE are cycled, with
#                            a warning
#               prose        URL-sparse prose: the documentation text of a Debian machine
#                            (/usr/share/doc, /usr/share/man, /usr/share/common-licenses,
#                            the Rust toolchain docs if present), gzip files decompressed,
#                            in sorted path order; a synthetic generator fills in when
#                            those directories are empty
#               links        URL-dense link lists: bare, <angle>, "quoted", <URL:...>,
#                            markdown and HTML href links, IPv6 hosts, IRIs, www.
#               mail         an mbox: quoted-printable (soft breaks inside URLs), base64
#                            and HTML parts, quoted replies
#               cjk          Chinese/Japanese text with URLs glued to CJK punctuation
#               adversarial  one huge line (no newline at all) of "(((", "http://"
#                            repeated, "<" without ">", ":::", "www." runs and very
#                            long URLs
#               mixed        (default) blocks (up to 1 MiB) of all of the above: 50% prose,
#                            15% links, 15% mail, 10% cjk, 10% adversarial
#   -o FILE   output (default datasets/generated/KIND-SIZE.txt); the path is printed
#   --seed N  generator seed (default 1)
#
# The same machine, seed, size and kind always give the same bytes. The prose kind
# depends on which packages are installed, so record the checksum with a result.
# Needs bash and python3 (standard library only).
set -euo pipefail
cd "$(dirname "$0")/.."

size=256M
kind=mixed
out=
seed=1
while [ $# -gt 0 ]; do
    case "$1" in
        -s) size=$2; shift 2 ;;
        -k) kind=$2; shift 2 ;;
        -o) out=$2; shift 2 ;;
        --seed) seed=$2; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
        *) echo "make-corpus: unknown argument $1" >&2; exit 2 ;;
    esac
done
case "$kind" in docs|prose|links|mail|cjk|adversarial|mixed) ;; *)
    echo "make-corpus: unknown kind $kind" >&2; exit 2 ;;
esac
[ -n "$out" ] || out="datasets/generated/$kind-$size.txt"
mkdir -p "$(dirname "$out")"

python3 - "$size" "$kind" "$out" "$seed" <<'PY'
import base64, gzip, os, quopri, random, sys, sysconfig

size_s, kind, out, seed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
size = int(size_s[:-1]) * mult[size_s[-1].upper()] if size_s[-1].upper() in mult else int(size_s)
BASE = min(size, 16 << 20)  # distinct bytes per kind; repeated up to SIZE

WORDS = ("the of and to in is for that with as on by this be are from or it an at "
         "which not have all can data file use when new may will one more value "
         "option error output input version support default system user list "
         "function return string buffer memory thread chunk release fixed "
         "update package license source build test see also").split()
TLDS = ["com", "org", "net", "io", "de", "fr", "jp", "cn", "example", "dev"]
SCHEMES = ["http", "https", "https", "https", "ftp", "git", "ssh", "svn+ssh"]
CJK = [chr(c) for c in range(0x4E00, 0x4E00 + 800)] + [chr(c) for c in range(0x3041, 0x3094)]
CJK_PUNCT = "。，、）」：；！？　"


def word(r):
    return r.choice(WORDS)


def seg(r):
    return "".join(r.choice("abcdefghijklmnopqrstuvwxyz0123456789-_.~") for _ in range(r.randint(2, 12)))


def host(r):
    if r.random() < 0.03:
        return "[2001:db8::%x]" % r.randint(1, 0xFFFF)
    if r.random() < 0.03:
        return "192.0.2.%d" % r.randint(1, 254)
    return ".".join(seg(r).strip(".-") or "x" for _ in range(r.randint(1, 3))) + "." + r.choice(TLDS)


def url(r):
    u = r.choice(SCHEMES) + "://"
    if r.random() < 0.03:
        u += "user@"
    u += host(r)
    if r.random() < 0.1:
        u += ":%d" % r.randint(1, 65535)
    u += "".join("/" + seg(r) for _ in range(r.randint(0, 5)))
    if r.random() < 0.05:
        u += "/K%C3%B6ln" if r.random() < 0.5 else "/Köln"
    if r.random() < 0.25:
        u += "?" + "&".join("%s=%s" % (seg(r), seg(r)) for _ in range(r.randint(1, 3)))
    if r.random() < 0.1:
        u += "#" + seg(r)
    if r.random() < 0.03:
        u += "_(%s)" % seg(r)
    return u


def sentence(r, p_url):
    ws = []
    for _ in range(r.randint(6, 20)):
        ws.append(url(r) if r.random() < p_url else word(r))
    return " ".join(ws).capitalize() + r.choice([".", ".", ",", ";", ":", "!", "?"])


def synthetic_prose(r, n):
    parts, total = [], 0
    while total < n:
        line = " ".join(sentence(r, 0.01) for _ in range(r.randint(1, 4))) + "\n"
        parts.append(line)
        total += len(line)
    return "".join(parts).encode()


def walk_files(roots, keep):
    """The files under `roots` whose names `keep` accepts, in sorted order,
    as bytes (at most 4 MiB each; gzip files decompressed)."""
    for root in roots:
        for dirpath, dirs, files in os.walk(root):
            dirs.sort()
            for f in sorted(files):
                p = os.path.join(dirpath, f)
                if os.path.islink(p) or not os.path.isfile(p) or not keep(f):
                    continue
                try:
                    if f.endswith(".gz"):
                        with gzip.open(p) as g:
                            yield g.read(4 << 20)
                    else:
                        with open(p, "rb") as h:
                            yield h.read(4 << 20)
                except (OSError, EOFError, gzip.BadGzipFile):
                    continue


def system_text():
    roots = ["/usr/share/doc", "/usr/share/man", "/usr/share/common-licenses"]
    rust = os.popen("rustc --print sysroot 2>/dev/null").read().strip()
    if rust:
        roots.append(os.path.join(rust, "share/doc"))
    return walk_files(roots, lambda f: f.endswith(".gz")
                      or f.endswith((".txt", ".md", ".html", ".htm", ".1", ".5", ".8"))
                      or f in ("copyright", "README", "NEWS", "changelog"))


def source_files(roots, exts):
    """The text files under `roots` (walk_files; empty and binary ones
    left out); with `exts`, only names ending so, before any `.gz`."""
    def keep(f):
        return not exts or (f[:-3] if f.endswith(".gz") else f).endswith(exts)
    for b in walk_files(roots, keep):
        if b and b"\0" not in b[:8192]:
            yield b


def docs(r, n):
    home = os.path.expanduser("~")
    rust = os.popen("rustc --print sysroot 2>/dev/null").read().strip()
    sources = [
        (["/usr/share/doc", "/usr/share/common-licenses"], None),
        (["/usr/share/man", "/usr/share/info"], None),
        ([os.path.join(rust, "share/doc")] if rust else [], (".html", ".md", ".txt")),
        ([os.path.join(home, ".cargo/registry/src")], (".md", ".rs", ".txt", ".toml")),
        ([sysconfig.get_paths()["stdlib"]], (".py", ".txt", ".rst", ".html")),
        (["/usr/share/perl", "/usr/share/perl5"], (".pm", ".pod")),
        (["/usr/share/vim"], (".txt",)),
        (["/usr/lib/node_modules", "/usr/share/nodejs"], (".md",)),
    ]
    buf, total, rounds = [], 0, 0
    while total < n:
        its = [source_files(roots, exts) for roots, exts in sources]
        got = 0
        while its and total < n:
            for it in list(its):
                b = next(it, None)
                if b is None:
                    its.remove(it)
                    continue
                if not b.endswith(b"\n"):
                    b += b"\n"
                buf.append(b)
                total += len(b)
                got += len(b)
                if total >= n:
                    break
        if got == 0:
            sys.exit("make-corpus: no text found for -k docs")
        rounds += 1
        if total < n:
            print("make-corpus: docs: the sources hold %d bytes; cycling them" % got, file=sys.stderr)
    return b"".join(buf)[:n]


def prose(r, n):
    buf, total = [], 0
    for b in system_text():
        if b"\0" in b[:4096]:
            continue  # binary
        buf.append(b)
        total += len(b)
        if total >= n:
            break
    if total < n:
        buf.append(synthetic_prose(r, n - total))
    return b"".join(buf)[:n]


def links(r, n):
    parts, total = [], 0
    while total < n:
        u = url(r)
        style = r.randint(0, 9)
        if style == 0:
            s = "<%s>" % u
        elif style == 1:
            s = '"%s"' % u
        elif style == 2:
            s = "<URL:%s>" % u
        elif style == 3:
            s = "[%s](%s)" % (word(r), u)
        elif style == 4:
            s = '<li><a href="%s">%s</a></li>' % (u, word(r))
        elif style == 5:
            s = "www.%s/%s" % (host(r), seg(r))
        elif style == 6:
            s = "(see %s)." % u
        else:
            s = "- " + u
        line = s + "\n"
        parts.append(line)
        total += len(line.encode())
    return "".join(parts).encode()


def mail(r, n):
    parts, total, i = [], 0, 0
    while total < n:
        i += 1
        body = "\n".join(sentence(r, 0.08) for _ in range(r.randint(3, 12))) + "\n"
        quoted = "\n".join("> " + sentence(r, 0.05) for _ in range(r.randint(0, 4)))
        hdr = ("From user%d@example.org Mon Jan  1 00:00:00 2024\nFrom: User %d <user%d@example.org>\n"
               "Subject: message %d\nMessage-ID: <%d@example.org>\nMIME-Version: 1.0\n" % (i, i, i, i, i))
        k = i % 3
        if k == 0:
            m = hdr + ("Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n\n"
                       + quopri.encodestring((quoted + "\n" + body).encode()).decode())
        elif k == 1:
            html = "<html><body><p>%s</p><p><a href=\"%s\">link</a></p></body></html>\n" % (body, url(r))
            m = hdr + ('Content-Type: multipart/alternative; boundary="b%d"\n\n--b%d\n'
                       "Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n%s\n--b%d\n"
                       "Content-Type: text/html; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n\n%s\n--b%d--\n"
                       % (i, i, base64.encodebytes(body.encode()).decode(), i,
                          quopri.encodestring(html.encode()).decode(), i))
        else:
            m = hdr + "Content-Type: text/plain; charset=us-ascii\n\n" + quoted + "\n" + body
        m += "\n"
        parts.append(m)
        total += len(m.encode())
    return "".join(parts).encode()


def cjk(r, n):
    parts, total = [], 0
    while total < n:
        line = []
        for _ in range(r.randint(2, 8)):
            line.append("".join(r.choice(CJK) for _ in range(r.randint(4, 30))))
            if r.random() < 0.3:
                line.append(r.choice(["详见", "参考", "（", "「", "："]) + url(r))
            line.append(r.choice(CJK_PUNCT))
        s = "".join(line) + "\n"
        parts.append(s)
        total += len(s.encode())
    return "".join(parts).encode()


def adversarial(r, n):
    pats = [
        lambda: "(" * (1 << 16),
        lambda: "http://" * (1 << 13),
        lambda: "<" * (1 << 16),
        lambda: ("<http://example.com/" + "a " * 64) * 256,
        lambda: ":" * (1 << 16),
        lambda: "www." * (1 << 14),
        lambda: "https://" + "a" * (1 << 18),
        lambda: "http://example.com/" + "(" * (1 << 15) + ")" * (1 << 14),
        lambda: "\"http://x.example/\"" * (1 << 11),
        lambda: "x:/" * (1 << 14) + " ",
    ]
    parts, total, i = [], 0, 0
    while total < n:
        s = pats[i % len(pats)]() + " "
        i += 1
        parts.append(s)
        total += len(s)
    return "".join(parts).encode()


def mixed(r, n):
    # 20 blocks per cycle, interleaved: 10 prose, 3 links, 3 mail, 2 cjk, 2 adversarial
    kinds = [prose, links, prose, mail, prose, cjk, prose, adversarial, prose, links,
             prose, mail, prose, links, prose, mail, prose, cjk, prose, adversarial]
    share = {prose: 10, links: 3, mail: 3, cjk: 2, adversarial: 2}
    pools = {}
    parts, total, i = [], 0, 0
    block = min(1 << 20, max(4096, n // 64))
    while total < n:
        g = kinds[i % len(kinds)]
        i += 1
        if g not in pools:
            # one pool per generator, cut into 1 MiB blocks taken in turn
            pools[g] = (g(random.Random(seed * 1000 + len(pools)), max(block, n * share[g] // 20)), 0)
        data, off = pools[g]
        if off + block > len(data):
            off = 0
        cut = data[off:off + block]
        # end each block at a newline so kinds do not run into each other
        nl = cut.rfind(b"\n")
        if nl > 0 and g is not adversarial:
            cut = cut[: nl + 1]
        pools[g] = (data, off + len(cut))
        parts.append(cut if g is not adversarial else cut + b"\n")
        total += len(parts[-1])
    return b"".join(parts)


gen = {"docs": docs, "prose": prose, "links": links, "mail": mail, "cjk": cjk,
       "adversarial": adversarial, "mixed": mixed}[kind]
base = gen(random.Random(seed), size if kind == "docs" else BASE)
with open(out + ".tmp", "wb") as f:
    written = 0
    while written < size:
        chunk = base[: size - written]
        f.write(chunk)
        written += len(chunk)
        if kind != "adversarial" and not chunk.endswith(b"\n") and written < size:
            f.write(b"\n")
            written += 1
    # never end inside a UTF-8 sequence: replace a cut sequence with spaces
    f.seek(max(0, size - 4))
os.replace(out + ".tmp", out)
with open(out, "r+b") as f:
    f.seek(max(0, size - 4))
    tail = bytearray(f.read())
    j = len(tail)
    while j > 0 and tail[j - 1] >= 0x80:
        j -= 1
    if j < len(tail):
        try:
            bytes(tail[j:]).decode()
        except UnicodeDecodeError:
            tail[j:] = b" " * (len(tail) - j)
            f.seek(max(0, size - 4))
            f.write(tail)
PY
echo "$out"
