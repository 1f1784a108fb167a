"""The native module's run-time docstrings are the type stub's, so that
``help(urlsift.urls)`` says what the stub and the docs say."""

from __future__ import annotations

import ast
import inspect

import pytest

import urlsift
from urlsift import _urlsift

from conftest import ROOT

STUB = ast.parse((ROOT / "python/urlsift/_urlsift.pyi").read_text())


def documented():
    """(qualified name, object path, stub docstring) of every documented
    function, class and method of the stub."""
    for node in STUB.body:
        if not isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            continue
        doc = ast.get_docstring(node)
        if doc:
            yield node.name, (node.name,), doc
        if isinstance(node, ast.ClassDef):
            for m in node.body:
                # (Slot methods such as __next__ have Python's own
                # docstrings at run time.)
                if isinstance(m, ast.FunctionDef) and ast.get_docstring(m) and not m.name.startswith("__"):
                    yield f"{node.name}.{m.name}", (node.name, m.name), ast.get_docstring(m)


CASES = list(documented())


def test_the_stub_documents_the_api():
    names = {c[0] for c in CASES}
    for n in ("urls", "find", "iter_urls", "iter_find", "scan_files", "parse", "surt", "Match", "FileScan", "URIError"):
        assert n in names


@pytest.mark.parametrize("name,path,doc", CASES, ids=[c[0] for c in CASES])
def test_runtime_docstring_is_the_stubs(name, path, doc):
    obj = _urlsift
    for p in path:
        obj = getattr(obj, p)
    assert inspect.getdoc(obj) == doc


def test_help_shows_the_full_text():
    assert "surrogateescape" in pydoc_text(urlsift.urls)
    assert "InputError" in pydoc_text(urlsift.scan_files)


def pydoc_text(obj) -> str:
    import pydoc

    return pydoc.render_doc(obj, renderer=pydoc.plaintext)
