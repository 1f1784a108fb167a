"""Type stub of the native module urlsift._urlsift (re-exported by urlsift)."""

import os
from typing import Any, Iterable, Iterator, Literal, Optional, Union

_Path = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]

__version__: str

class URIError(ValueError):
    """A URI reference that is not valid RFC 3986."""

    offset: int
    """Byte offset of the first byte that cannot continue a valid reference."""
    reason: str
    """The one-line reason, as the CLI's messages give it."""
    which: Optional[str]
    """``"base"`` when :func:`resolve`'s base is at fault, else ``None``."""

class InternalError(RuntimeError):
    """A bug: the Rust engine panicked. The interpreter is unharmed."""

class MailWarning(UserWarning):
    """A malformed message in mail input (scanned as far as it could be), or
    input that is not mail (scanned as plain text)."""

class InputError(OSError):
    """An input of :func:`scan_files` failed: missing, unreadable, a corrupt
    gzip or zstd stream, a broken web archive. ``str(e)`` is the CLI's
    message (``PATH: [at] byte N: reason``)."""

    path: Optional[str]
    """The input, as the ``file`` column names it;
    ``None`` for a problem of a directory walk, named in ``reason``."""
    offset: Optional[int]
    """The byte offset the CLI names (in the decompressed stream of a gzip
    or zstd file; in the file for a web archive), or ``None``."""
    reason: str
    """What went wrong."""

class InputWarning(UserWarning):
    """An input of ``scan_files(..., errors="warn")`` failed (the message is
    :class:`InputError`'s); the scan went on with the next input."""

class Match:
    """One URL found by :func:`find`: the fields of ``urlsift --format json
    --normalize``, under the same names (without ``file``)."""

    start: int
    """Byte offset of the URL's first byte in the input (with ``mail=True``,
    where its bytes are in the input, or the start of its encoded line)."""
    end: int
    line: int
    """1-based line of ``start``."""
    url: str
    """The URL (delimiters removed, wrapped URLs joined); invalid UTF-8 is
    replaced by U+FFFD, as in JSON output."""
    normalized: Optional[str]
    """RFC 3986 6.2.2 + 6.2.3 normal form; ``None`` if it cannot be normalized."""
    style: Literal["bare", "quoted", "angle", "url-prefix"]
    kind: Literal["uri", "www"]
    valid: bool
    """True if the URL is valid RFC 3986 (a ``www`` one: as ``//www...``)."""
    ambiguous: bool
    scheme: Optional[str]
    userinfo: Optional[str]
    host: Optional[str]
    host_kind: Optional[Literal["reg-name", "ipv4", "ipv6", "ipvfuture"]]
    port: Optional[str]
    path: str
    query: Optional[str]
    fragment: Optional[str]
    host_ascii: Optional[str]
    """The host in ASCII (UTS #46, punycode); ``None`` without one."""
    domain: Optional[str]
    """The registrable domain (Public Suffix List); ``None`` for IP
    addresses, invalid hosts and public suffixes."""
    # With mail=True (``urlsift --mail --format json``); None otherwise.
    message: Optional[int]
    message_id: Optional[str]
    message_offset: Optional[int]
    part: Optional[int]
    content_type: Optional[str]
    part_offset: Optional[int]
    part_start: Optional[int]
    part_line: Optional[int]
    # For a link of an HTML page (``html=``); None otherwise.
    found: Optional[str]
    """The link as written in the page, where it differs from ``url``
    (relative, with character references, with spaces)."""
    source: Optional[Literal["attribute", "css", "attribute-text", "script", "style", "comment", "text", "header"]]
    source_name: Optional[str]
    """``tag@attribute`` (``a@href``, ``img@srcset``) for an attribute."""
    warc_target_uri: Optional[str]
    """Web archive fields: always None for ``urls``/``find`` input."""
    warc_record_id: Optional[str]
    warc_date: Optional[str]
    warc_type: Optional[str]
    warc_offset: Optional[int]
    warc_length: Optional[int]
    """The record's length in the file: ``warc_offset`` to ``warc_offset +
    warc_length`` is the record alone (None when it shares a gzip member)."""
    http_status: Optional[int]
    """The HTTP status of a response or revisit record."""
    rel: Optional[str]
    """The ``rel`` of the link's ``<a>``, ``<area>``, ``<link>`` or ``<form>``
    tag, lower case (``nofollow noopener``)."""
    def to_dict(self) -> dict[str, Any]:
        """The fields as the CLI's JSON object (less ``file``; mail fields
        only for mail input, web fields only for a link of an HTML page), in
        its order."""

def urls(
    data: Union[bytes, str],
    *,
    mail: bool = False,
    html: Optional[bool] = None,
    base: Optional[str] = None,
    links_only: bool = False,
    threads: Optional[int] = None,
) -> list[str]:
    """The URLs in ``data``, in order: the lines ``urlsift FILE`` prints for
    the same bytes (``mail=True``: ``urlsift --mail FILE``). Invalid UTF-8 in
    a URL is kept as lone surrogates (``surrogateescape``).

    ``html``: ``None`` reads ``data`` as an HTML page if its start sniffs as
    one (as the CLI does), ``True`` always (``--html``), ``False`` never
    (``--no-html``). A page gives its URL attributes, resolved against its
    ``<base href>`` or ``base`` (``--base``; with neither, relative links
    are left out), and every absolute URL elsewhere in it (other
    attributes, scripts, styles, comments, text). ``links_only=True``
    (``--links-only``) keeps only the links of URL attributes and the URLs
    of the text between tags. ``html=True`` with ``mail=True`` raises
    ``ValueError`` (mail decodes its HTML parts itself).

    ``threads``: at most this many threads (default: one per core, or
    ``RAYON_NUM_THREADS``); 1 scans on the calling thread (a helper thread
    makes the ``str`` objects meanwhile). The result is the same for every
    value. Mail problems are issued as :class:`MailWarning`.

    gzip and zstd bytes are decoded, and a web archive (WARC, ARC, WAT,
    WET) is read record by record, as the CLI reads such a file; a record
    that cannot be read whole is issued as an :class:`InputWarning`.
    """

def find(
    data: Union[bytes, str],
    *,
    mail: bool = False,
    html: Optional[bool] = None,
    base: Optional[str] = None,
    links_only: bool = False,
    threads: Optional[int] = None,
) -> list[Match]:
    """Every URL in ``data`` with its span, line, style and components (and
    for a link of an HTML page, where it was found); ``mail``, ``html``,
    ``base``, ``links_only`` as for :func:`urls`."""

def iter_urls(
    data: Union[bytes, str],
    *,
    mail: bool = False,
    html: Optional[bool] = None,
    base: Optional[str] = None,
    links_only: bool = False,
    threads: Optional[int] = None,
) -> "UrlIter":
    """:func:`urls` as an iterator: the same URLs in the same order, made into
    ``str`` objects a batch at a time while a background thread scans ahead
    (by two batches at most), so that the URLs of a large input are never
    all held at once. ``data`` is held by the iterator, not copied (a
    ``str`` is encoded as UTF-8 first). Warnings are issued, and errors
    raised, when the iterator reaches the end. An iterator dropped early
    lets the scan of the rest of ``data`` finish in the background and
    discards its URLs."""

def iter_find(
    data: Union[bytes, str],
    *,
    mail: bool = False,
    html: Optional[bool] = None,
    base: Optional[str] = None,
    links_only: bool = False,
    threads: Optional[int] = None,
) -> "MatchIter":
    """:func:`find` as an iterator: the same :class:`Match` objects in the
    same order, a batch at a time, as :func:`iter_urls` gives :func:`urls`'
    URLs."""

class UrlIter(Iterator[str]):
    """The iterator :func:`iter_urls` returns."""

    def __iter__(self) -> "UrlIter": ...
    def __next__(self) -> str:
        """The next URL."""

class MatchIter(Iterator[Match]):
    """The iterator :func:`iter_find` returns."""

    def __iter__(self) -> "MatchIter": ...
    def __next__(self) -> Match:
        """The next :class:`Match`."""

def parse(url: Union[str, bytes]) -> dict[str, Any]:
    """The fields of ``urlsift parse URL``: url, valid, scheme, userinfo, host,
    host_kind, port, path, query, fragment, host_ascii, domain, error and scheme_error (each
    ``{"offset": int, "message": str}`` or ``None``). Never raises for a bad
    URL: ``valid`` and ``error`` say what is wrong."""

def normalize(
    url: Union[str, bytes],
    level: Literal["syntax", "scheme", "no-fragment"] = "scheme",
    *,
    drop_fragment: bool = False,
) -> str:
    """The RFC 3986 section 6 normal form, as ``urlsift normalize``:
    ``"scheme"`` (6.2.2 and 6.2.3, the default), ``"syntax"``
    (``--syntax-only``), ``"no-fragment"`` (``--drop-fragment``). Raises
    :class:`URIError` for an invalid reference."""

def resolve(base: Union[str, bytes], ref: Union[str, bytes]) -> str:
    """The target of ``ref`` against the absolute URI ``base`` (RFC 3986
    5.2), as ``urlsift resolve BASE REF``. Raises :class:`URIError`."""

def surt(url: Union[str, bytes]) -> str:
    """The SURT key of ``url`` with the Internet Archive's canonicalization,
    as the ``surt`` package's ``surt.surt(url)`` computes it (``urlsift
    normalize --dedup-key surt``). Raises :class:`URIError` where it has
    none (a port out of range)."""

def whatwg(url: Union[str, bytes], base: Optional[str] = None) -> str:
    """The WHATWG URL Standard serialization (``href``) of ``url`` parsed
    against ``base`` (``urlsift normalize --dedup-key whatwg``). Raises
    :class:`URIError` where the URL parser fails."""

def domain(host: Union[str, bytes]) -> Optional[str]:
    """The registrable domain (eTLD+1) of ``host`` (Unicode, punycode or
    percent-encoded) by the Public Suffix List compiled in, ICANN and
    private sections; ``None`` for IP addresses, invalid hosts and public
    suffixes."""

def host_ascii(host: Union[str, bytes]) -> Optional[str]:
    """``host`` percent-decoded and processed by UTS #46 (punycode), as the
    ``host_ascii`` field; ``None`` when UTS #46 refuses it."""

PSL_VERSION: str
"""The compiled-in Public Suffix List's version (its date)."""

def scan_arrow(
    array: Any,
    *,
    mail: bool = False,
    links_only: bool = False,
    key: Optional[str] = None,
    threads: Optional[int] = None,
) -> Any:
    """One row per URL: `row` (the input row), `start`, `end` (byte offsets in
    that row), `url`, `normalized` (null where the URL cannot be
    normalized), `host`, `host_ascii`, `domain`, and with `key` (a
    `--dedup-key` level: "whatwg", "surt", ...) the URL's `key` at that
    level, then the web columns (`found` ... `rel`), null but for
    the links of a row that holds a web archive. Each row is scanned as
    `urls` scans one buffer (gzip, zstd, web archives and HTML pages
    recognised). ``links_only``: as for :func:`urls`."""

class FileScan(Iterator[Any]):
    """The iterator :func:`scan_files` returns: ``pyarrow.RecordBatch``es
    of at most 8192 rows, in input order. Closing it (``close()``, the end of
    a ``with`` block, or dropping it) stops the scan and waits for its
    threads."""

    def __iter__(self) -> "FileScan": ...
    def __next__(self) -> Any:
        """The next ``pyarrow.RecordBatch``. Raises :class:`InputError` at a
        failed input (``errors="raise"``), after every row of the inputs
        before it; the iterator is closed then."""
    def close(self) -> None:
        """Stop the scan and wait for its threads; the iterator ends."""
    def __enter__(self) -> "FileScan": ...
    def __exit__(self, *exc: object) -> bool: ...
    @property
    def schema(self) -> Any:
        """The ``pyarrow.Schema`` of the batches: ``urlsift --format parquet``'s
        (with the mail columns for ``mail=True``)."""
    def read_all(self) -> Any:
        """The remaining batches as one ``pyarrow.Table`` (with the schema even
        when there are no rows)."""

def scan_files(
    paths: Union[_Path, Iterable[_Path]],
    *,
    mail: bool = False,
    html: Optional[bool] = None,
    base: Optional[str] = None,
    links_only: bool = False,
    key: Optional[str] = None,
    threads: Optional[int] = None,
    errors: Literal["raise", "warn"] = "raise",
) -> FileScan:
    """The rows ``urlsift --format parquet --output OUT PATHS...`` writes, as an
    iterator of ``pyarrow.RecordBatch``es with the same columns and types.

    ``paths``: one path or an iterable of them; directories are walked as
    the CLI walks them. gzip and zstd files are decompressed, web archives
    (WARC, WET) recognised by content; ``mail=True`` reads mail archives
    (``--mail``). ``html``: which inputs are HTML pages, as for
    :func:`urls`. ``base``: the base URI of HTML pages and of web archive
    records without a target URI (``--base``). ``links_only``: as for
    :func:`urls` (``--links-only``). ``key``: a ``--dedup-key``
    level (``"whatwg"``, ``"surt"``, ...) for the ``key`` column (null
    without it). ``threads``: at most this
    many threads scan
    (default: one per core, or ``RAYON_NUM_THREADS``). ``errors``: at a
    failed input, ``"raise"`` :class:`InputError` (after the rows of the
    inputs before it) or ``"warn"`` (:class:`InputWarning`) and go on.
    """
