"""Shared fixtures: the CLI binary (the oracle), the repository's data
files, and held-out real text from the machine (never committed)."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _cli() -> Path | None:
    env = os.environ.get("URLSIFT_BIN")
    if env:
        return Path(env)
    for p in (ROOT / "target/release/urlsift", ROOT / "target/debug/urlsift"):
        if p.is_file():
            return p
    return None


CLI = _cli()


@pytest.fixture(scope="session")
def cli() -> Path:
    if CLI is None or not CLI.is_file():
        # The oracle is the point of these tests: fail, never skip quietly.
        pytest.fail(
            "no urlsift binary: build it (cargo build --release) or set URLSIFT_BIN"
        )
    return CLI


def run_cli(cli: Path, *args: str | os.PathLike, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    r = subprocess.run(
        [str(cli), *map(str, args)],
        input=stdin,
        capture_output=True,
        timeout=300,
    )
    # 0: found, 1: none found; 2 is an error the tests do not expect.
    assert r.returncode in (0, 1), (args, r.returncode, r.stderr[-2000:])
    return r


def cli_lines(out: bytes) -> list[str]:
    """The CLI's text output as the list `urlsift.urls` returns."""
    text = out.decode("utf-8", "surrogateescape")
    assert text == "" or text.endswith("\n")
    # Split on newlines only: str.splitlines() also splits at \r, \x1c, ...
    return text.split("\n")[:-1]


def cli_json(out: bytes) -> list[dict]:
    rows = [json.loads(line) for line in out.splitlines()]
    for r in rows:
        del r["file"]
    return rows


def data_files() -> list[Path]:
    """The repository's test data and datasets; not datasets/generated/,
    where benchmarks leave corpora of hundreds of MiB (not committed)."""
    files = []
    generated = ROOT / "datasets" / "generated"
    for top in ("tests/data", "crates/core/tests/data", "crates/uri/tests/data", "datasets"):
        for p in sorted((ROOT / top).rglob("*")):
            if p.is_file() and generated not in p.parents:
                files.append(p)
    return files


DATA_FILES = data_files()
MAIL_FILES = [p for p in DATA_FILES if "/mail/" in str(p) or p.suffix in (".mbox", ".eml")]


# Real text that is not in the repository: the machine's documentation.
DOC = Path("/usr/share/doc")


def held_out_text(limit: int = 24 << 20) -> bytes:
    """Real text that is not in the repository: the machine's
    /usr/share/doc (changelogs, copyright files, READMEs, HTML manuals),
    decompressed, up to `limit` bytes, in a fixed order."""
    doc = DOC
    parts: list[bytes] = []
    size = 0
    if doc.is_dir():
        for p in sorted(doc.rglob("*")):
            if size >= limit or not p.is_file() or p.is_symlink():
                continue
            try:
                b = p.read_bytes()
                if p.suffix == ".gz":
                    b = gzip.decompress(b)
            except (OSError, EOFError, gzip.BadGzipFile):
                continue
            parts.append(b)
            size += len(b)
    return b"".join(parts)[:limit]


@pytest.fixture(scope="session")
def held_out(tmp_path_factory) -> tuple[bytes, Path]:
    data = held_out_text()
    if len(data) < (1 << 20):
        pytest.skip("no held-out text: /usr/share/doc has less than 1 MiB here")
    path = tmp_path_factory.mktemp("held-out") / "doc.txt"
    path.write_bytes(data)
    return data, path


def held_out_pages(limit: int = 40) -> list[Path]:
    """HTML pages of the machine's documentation (`.html`, `.htm`; over
    2000 bytes), in a fixed order: held out, never in the repository."""
    pages: list[Path] = []
    if DOC.is_dir():
        for p in sorted(DOC.rglob("*.htm*")):
            ok = p.suffix in (".html", ".htm") and p.is_file() and not p.is_symlink()
            if ok and p.stat().st_size > 2000:
                pages.append(p)
            if len(pages) >= limit:
                break
    return pages
