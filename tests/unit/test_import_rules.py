"""The house's import rules (DESIGN §2), read from the source with ``ast``: a new module cannot slip past them.

boto3/botocore only in ``store/``, ``runtime/`` and ``local/``; ``mcp`` only in ``scholar/mcp``; no family imports
another family; the core (every module outside a family package) imports no family. Imports made under
``TYPE_CHECKING`` count too: they are how an arrow starts pointing the wrong way.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from scholar.catalogue import families

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "shared" / "scholar"
AWS_SDK = ("boto3", "botocore")
AWS_ALLOWED = ("store", "runtime", "local")
FAMILIES = frozenset(families())


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _part(path: Path) -> str:
    """The first package below scholar/ ("" for a top-level module such as catalogue.py)."""
    rel = path.relative_to(PACKAGE).parts
    return rel[0] if len(rel) > 1 else ""


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            if node.module == "scholar":  # from scholar import papers
                found += [(node.lineno, f"scholar.{alias.name}") for alias in node.names]
    return found


def _violations(rule) -> list[str]:
    out = []
    for path in _modules():
        for line, name in _imports(path):
            if rule(_part(path), name):
                out.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    return out


def _family_of(name: str) -> str | None:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "scholar" and parts[1] in FAMILIES else None


def test_the_families_are_found():
    assert {"papers", "arxiv", "books", "standards", "pdf", "tasks"} <= FAMILIES


def test_boto3_is_imported_only_in_store_runtime_and_local():
    assert _violations(lambda part, name: name.split(".")[0] in AWS_SDK and part not in AWS_ALLOWED) == []


def test_mcp_is_imported_only_in_scholar_mcp():
    assert _violations(lambda part, name: name.split(".")[0] == "mcp" and part != "mcp") == []


def test_no_family_imports_another_family():
    def crosses(part: str, name: str) -> bool:
        target = _family_of(name)
        return part in FAMILIES and target is not None and target != part

    assert _violations(crosses) == []


def test_the_core_imports_no_family():
    # local/ is the embedded stand-in for AWS: it routes invocations to every family, as Lambda would.
    assert _violations(lambda part, name: part not in FAMILIES and part != "local" and _family_of(name)) == []


def test_config_does_not_import_the_source_registry_when_it_is_imported():
    # Settings.base_url still delegates to the registry from inside the method, for callers (http.py,
    # fulltext/fetch.py) that have not moved to scholar.sources.registry.base_url yet.
    tree = ast.parse((PACKAGE / "config.py").read_text())
    top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert [n.module for n in top if isinstance(n, ast.ImportFrom) and (n.module or "").startswith("scholar")] == []


@pytest.mark.parametrize("name", ["boto3", "botocore.exceptions", "mcp.types"])
def test_the_rule_reader_sees_plain_and_from_imports(tmp_path, name):
    probe = tmp_path / "probe.py"
    probe.write_text(f"import {name}\nfrom {name} import x\n")
    assert [n for _, n in _imports(probe)] == [name, name]
