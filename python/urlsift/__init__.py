"""urlsift: find every URL in very large free text, and split, validate,
resolve and normalize them (RFC 3986).

The scanning functions take ``bytes`` (scanned in place, never copied) or
``str`` (encoded as UTF-8 first), release the GIL while they work, and give
the same result for every ``threads=`` value:

- :func:`urls` -- the URLs, exactly as ``urlsift FILE`` prints them
  (HTML pages read as pages: their links resolved, ``html=``, ``base=``);
- :func:`find` -- each URL with its span, line and components, as
  ``urlsift --format json --normalize`` gives them;
- :func:`iter_urls`, :func:`iter_find` -- the same, as iterators that
  scan ahead in the background (for inputs with very many URLs);
- :func:`scan_arrow` -- the URLs of every row of a pyarrow array, as a
  ``pyarrow.RecordBatch``;
- :func:`scan_files` -- files and directories (gzip, zstd, mail and web
  archives too), as the CLI reads them: an iterator of
  ``pyarrow.RecordBatch``es with the columns of ``urlsift --format parquet``.

and :func:`parse`, :func:`normalize` and :func:`resolve` work on one URI
reference, as the ``urlsift parse``, ``normalize`` and ``resolve``
subcommands do. See docs/python.md in the repository.
"""

from __future__ import annotations

from typing import Any

from . import _urlsift
from ._urlsift import (
    FileScan,
    InputError,
    InputWarning,
    InternalError,
    PSL_VERSION,
    MailWarning,
    Match,
    MatchIter,
    URIError,
    UrlIter,
    __version__,
    domain,
    find,
    host_ascii,
    iter_find,
    iter_urls,
    normalize,
    parse,
    resolve,
    scan_files,
    surt,
    urls,
    whatwg,
)

__all__ = [
    "FileScan",
    "InputError",
    "InputWarning",
    "InternalError",
    "MailWarning",
    "Match",
    "MatchIter",
    "PSL_VERSION",
    "URIError",
    "UrlIter",
    "__version__",
    "domain",
    "find",
    "host_ascii",
    "iter_find",
    "iter_urls",
    "normalize",
    "parse",
    "resolve",
    "scan_arrow",
    "scan_files",
    "surt",
    "urls",
    "whatwg",
]


def scan_arrow(
    array: Any,
    *,
    mail: bool = False,
    links_only: bool = False,
    key: str | None = None,
    threads: int | None = None,
) -> Any:
    """Scan every row of a pyarrow ``binary``, ``string``, ``large_binary``
    or ``large_string`` array (or a ``ChunkedArray`` of one), each row as
    :func:`urls` scans one buffer.

    Returns a ``pyarrow.RecordBatch`` with one row per URL: ``row`` (the
    index of its input row), ``start`` and ``end`` (byte offsets in that
    row), ``url``, ``normalized`` (RFC 3986 6.2.2 + 6.2.3, null where the
    URL cannot be normalized), ``host``, ``host_ascii`` (UTS #46, punycode),
    ``domain`` (the registrable domain by the Public Suffix List) and, with
    ``key`` (a ``--dedup-key`` level: ``"whatwg"``, ``"surt"``, ...), the
    URL's ``key`` at that level (null where it has none), then the web
    columns (``found`` ... ``rel``), null but for the links of a
    row that holds a web archive (read record by record, as the CLI reads
    a ``.warc.gz``) or an HTML page (``links_only``: as for :func:`urls`). gzip and zstd rows are decoded. Null rows have no URLs; a sliced
    array is scanned as its slice (``row`` counts from the slice's start).
    The input's buffers are read in place through Arrow's C data interface.
    """
    import pyarrow as pa

    if not isinstance(array, pa.ChunkedArray):
        return _urlsift.scan_arrow(array, mail=mail, links_only=links_only, key=key, threads=threads)
    import pyarrow.compute as pc

    parts = []
    offset = 0
    for chunk in array.chunks:
        b = _urlsift.scan_arrow(chunk, mail=mail, links_only=links_only, key=key, threads=threads)
        if offset and len(b):
            cols = [pc.add(b.column(0), offset)] + b.columns[1:]
            b = pa.RecordBatch.from_arrays(cols, schema=b.schema)
        parts.append(b)
        offset += len(chunk)
    if not parts:
        return _urlsift.scan_arrow(
            pa.array([], type=array.type), mail=mail, links_only=links_only, key=key, threads=threads
        )
    if len(parts) == 1 or sum(len(b) for b in parts) == 0:
        return parts[0]
    return pa.Table.from_batches(parts).combine_chunks().to_batches()[0]
