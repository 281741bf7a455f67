"""Every module, file and folder the documents name exists: README.md, CONTRIBUTING.md and docs/*.md.

Names are read from the whole Markdown (fenced code too): dotted module names (``scholar.core.errors``,
``tests.fakes.upstream``, ``benchmarks.imports_bench``) and paths (``shared/scholar/web/ssrf.py``,
``scholar/gateway/mcp/``, ``tests/unit/test_import_rules.py``, ``benchmarks/...``). A dotted name may end in an
attribute of the module it names (``scholar.core.aio.off_loop``, ``scholar.core.errors.ScholarError.to_envelope``):
the module's source is read with ``ast``, nothing is imported. A path may leave out a module's ``.py``.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

from tests.unit.test_docs_links import DOCUMENTS

REPO = Path(__file__).resolve().parents[2]
ROOTS = {"scholar": REPO / "shared" / "scholar", "tests": REPO / "tests", "benchmarks": REPO / "benchmarks"}

_DOTTED = re.compile(r"(?<![\w./@-])(scholar|tests|benchmarks)((?:\.[A-Za-z_]\w*)+)")
# A dotted name ending in one of these is a file's name (``scholar.sqlite3`` in SCHOLAR_HOME), not a module.
FILE_SUFFIXES = frozenset({"sqlite3", "json", "md", "pem", "toml", "txt", "yaml", "log"})
_PATH = re.compile(r"(?<![\w./@:-])((?:shared/)?scholar|tests|benchmarks)(/[\w./-]*)")


@cache
def _members(source: Path) -> dict[str, ast.AST]:
    """The names a module defines at its top level (defs, classes, assignments, imports), with their nodes."""
    tree = ast.parse(source.read_text(encoding="utf-8"))
    names: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names[node.name] = node
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update({t.id: node for t in targets if isinstance(t, ast.Name)})
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update({(alias.asname or alias.name).split(".")[0]: node for alias in node.names})
    # A name the module exports lazily (``__all__`` served by a module ``__getattr__``, as scholar/__init__.py does).
    exported = names.get("__all__")
    if isinstance(exported, ast.Assign) and isinstance(exported.value, ast.List | ast.Tuple):
        names.update({e.value: exported for e in exported.value.elts if isinstance(e, ast.Constant)})
    return names


def _has_attributes(module: Path, attributes: list[str]) -> bool:
    """Whether ``module`` defines ``attributes[0]`` (and, on a class, its member ``attributes[1]``)."""
    node = _members(module).get(attributes[0])
    if node is None or len(attributes) == 1:
        return node is not None
    if not isinstance(node, ast.ClassDef) or len(attributes) > 2:
        return False
    inner = {n.name for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)}
    inner |= {t.id for n in node.body if isinstance(n, ast.AnnAssign | ast.Assign)
              for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}
    return attributes[1] in inner


def dotted_name_exists(name: str) -> bool:
    """``scholar.a.b[.attribute]``: a package or module, or a module and a name it defines."""
    root, *parts = name.split(".")
    here = ROOTS[root]
    for index, part in enumerate(parts):
        if (here / part).is_dir():
            here = here / part
        elif (here / f"{part}.py").is_file():
            module, rest = here / f"{part}.py", parts[index + 1:]
            return not rest or _has_attributes(module, rest)
        else:
            init = here / "__init__.py"
            return init.is_file() and _has_attributes(init, parts[index:])
    return True


def path_exists(path: str) -> bool:
    """``shared/scholar/...``, ``scholar/...`` (under shared/), ``tests/...``, ``benchmarks/...``: a file or folder."""
    path = path.rstrip(".,;:")
    found = REPO / ("shared/" + path if path.startswith("scholar/") else path)
    return found.exists() or found.with_name(found.name + ".py").is_file()


def names_in(text: str) -> tuple[list[str], list[str]]:
    """The dotted module names and the paths a Markdown text mentions."""
    dotted = [m.group(1) + m.group(2) for m in _DOTTED.finditer(text)]
    dotted = [name for name in dotted if name.rpartition(".")[2] not in FILE_SUFFIXES]  # scholar.sqlite3: a file
    paths = [m.group(1) + m.group(2) for m in _PATH.finditer(text)]
    return dotted, paths


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_module_and_path_a_document_names_exists(document: Path) -> None:
    dotted, paths = names_in(document.read_text(encoding="utf-8"))
    missing = sorted({n for n in dotted if not dotted_name_exists(n)} | {p for p in paths if not path_exists(p)})
    assert missing == []


def test_the_name_check_refuses_what_does_not_exist_and_accepts_attributes() -> None:
    dotted, paths = names_in("`scholar.core.aio.off_loop`, see shared/scholar/web/ssrf.py and `tests/unit/`. "
                             "scholar.core.errors.ScholarError.to_envelope, scholar.gateway.mcp")
    assert dotted == ["scholar.core.aio.off_loop", "scholar.core.errors.ScholarError.to_envelope",
                      "scholar.gateway.mcp"]
    assert paths == ["shared/scholar/web/ssrf.py", "tests/unit/"]
    assert all(map(dotted_name_exists, dotted)) and all(map(path_exists, paths))
    assert not dotted_name_exists("scholar.core.aio.no_such_helper")
    assert not dotted_name_exists("scholar.auth.upstream")  # the old layout
    assert not dotted_name_exists("scholar.core.errors.ScholarError.no_such_method")
    assert not path_exists("shared/scholar/fulltext/keep_step.py")
    assert not path_exists("tests/conftest_helpers.py")
    assert path_exists("scholar/runtime/queue")  # a module named without its .py
