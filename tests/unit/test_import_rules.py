"""The house's import rules (DESIGN §2), read from the source with ``ast``: a new module cannot slip past them.

boto3/botocore only in ``store/``, ``runtime/`` and ``local/``; ``mcp`` only in ``scholar/mcp``; no family imports
another family; and arrows point down the floors of DESIGN §2 (``FLOORS``): a module imports only its own floor
and the floors below. Every import counts: top-level, inside a function, under ``TYPE_CHECKING`` (that is how an
arrow starts pointing the wrong way), and a module named by string to ``importlib.import_module`` (a constant, a
name bound to one, or an f-string built from a family name, read as ``scholar.{}.spec``). ``EXCEPTIONS`` names
each arrow that must point up, with its reason.
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
# A placeholder in a module name built at run time (f"scholar.{family}.spec" → "scholar.{}.spec").
ANY = "{}"
CORE = ("config", "ids", "records", "errors", "catalogue", "content", "redaction", "urlpath", "validation",
        "reference", "patent_numbers", "paper_mapping", "usage_hooks")
# DESIGN §2, from the bottom up; a part is the first name below scholar/ (a package, or a top-level module).
FLOORS: dict[str, int] = {
    **dict.fromkeys(CORE, 0),
    "aio": 1,
    **dict.fromkeys(("sources", "store", "http"), 2),
    "runtime": 3,
    # The core packages, and paper_lookup: the small shared function families resolve identifiers with.
    **dict.fromkeys(("fulltext", "pdftext", "cite", "library", "health", "paper_lookup"), 4),
    # bearer: the token contract the authorization server (auth/) and the gateway (mcp/) share, below both.
    "bearer": 4,
    **dict.fromkeys((*FAMILIES, ANY), 5),
    **dict.fromkeys(("mcp", "auth"), 6),
    # docs_tools reads every family's spec; the package's own __init__ holds nothing.
    **dict.fromkeys(("docs_tools", "__init__"), 7),
    # The embedded stand-in for AWS routes to every function (functions/<name>/app.py), as Lambda would.
    "local": 8,
}
FUNCTIONS_FLOOR = 8
# (importing module, imported name) → why this arrow points up.
EXCEPTIONS: dict[tuple[str, str], str] = {
    ("scholar.catalogue", "scholar.{}.{}"): "the catalogue finds each family's spec.py by name (DESIGN §3)",
    ("scholar.catalogue", "scholar.{}.spec"): "one family's tools without loading the others (cold start)",
    ("scholar.runtime.family", "scholar.{}.handlers"): "a family function dispatches to its own family's HANDLERS",
}


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _part(path: Path) -> str:
    """The first package below scholar/ (the module's own name for a top-level module such as catalogue.py)."""
    rel = path.relative_to(PACKAGE).with_suffix("").parts
    return rel[0]


def _template(node: ast.expr, module: str, constants: dict[str, str]) -> str | None:
    """The module name an ``import_module`` argument spells, ``{}`` for each part only known at run time."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    if isinstance(node, ast.JoinedStr):
        out = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                out.append(str(value.value))
            elif isinstance(value, ast.FormattedValue) and isinstance(value.value, ast.Name) \
                    and value.value.id == "__name__":
                out.append(module)
            else:
                out.append(ANY)
        return "".join(out)
    return None


def _is_import_module(node: ast.Call) -> bool:
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return name in ("import_module", "__import__") and bool(node.args)


def _imports(path: Path, module: str | None = None) -> list[tuple[int, str]]:
    """(line, module name) of every import in ``path`` (``module``: its dotted name, when not under scholar/)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    module = module or _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    constants = {
        target.id: node.value.value
        for node in ast.walk(tree) if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
        for target in node.targets if isinstance(target, ast.Name)
    }
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # from . import x / from .y import z
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            found.append((node.lineno, base))
            if base == "scholar" or node.level:  # from scholar import papers
                found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
        elif isinstance(node, ast.Call) and _is_import_module(node):
            name = _template(node.args[0], module, constants)
            if name is not None:
                found.append((node.lineno, name))
    return found


def _target(name: str) -> tuple[str, int] | None:
    """(part, floor) of an imported name that is ours, else None (the standard library, a third party)."""
    parts = name.split(".")
    if parts[0] == "functions":
        return "functions", FUNCTIONS_FLOOR
    if parts[0] != "scholar" or len(parts) < 2:
        return None
    return parts[1], FLOORS.get(parts[1], -1)


def _upward(part: str, name: str) -> bool:
    target = _target(name)
    return target is not None and target[1] > FLOORS[part]


def _violations(rule) -> list[str]:
    out = []
    for path in _modules():
        for line, name in _imports(path):
            if rule(_part(path), name) and (_module_name(path), name) not in EXCEPTIONS:
                out.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    return out


def _family_of(name: str) -> str | None:
    parts = name.split(".")
    in_family = len(parts) > 1 and parts[0] == "scholar" and (parts[1] in FAMILIES or parts[1] == ANY)
    return parts[1] if in_family else None


def _imports_any(part: str, name: str, targets: set[str]) -> bool:
    target = _target(name)
    return target is not None and target[0] in targets and target[0] != part


def test_the_families_are_found():
    assert {"papers", "arxiv", "books", "standards", "pdf", "tasks", "research", "patents"} <= FAMILIES


def test_every_module_has_a_floor():
    assert sorted({_part(p) for p in _modules()} - set(FLOORS)) == []


def test_boto3_is_imported_only_in_store_runtime_and_local():
    assert _violations(lambda part, name: name.split(".")[0] in AWS_SDK and part not in AWS_ALLOWED) == []


def test_mcp_is_imported_only_in_scholar_mcp():
    assert _violations(lambda part, name: name.split(".")[0] == "mcp" and part != "mcp") == []


def test_no_family_imports_another_family():
    def crosses(part: str, name: str) -> bool:
        target = _family_of(name)
        return part in FAMILIES and target is not None and target != part

    assert _violations(crosses) == []


def test_arrows_point_down_the_floors():
    assert _violations(_upward) == []


def test_the_core_imports_no_source_store_runtime_or_family():
    banned = {"aio", "sources", "store", "http", "runtime", *FAMILIES, ANY, "functions"}
    assert _violations(lambda part, name: part in CORE and _imports_any(part, name, banned)) == []


def test_store_and_sources_import_no_runtime_family_or_mcp():
    banned = {"runtime", *FAMILIES, ANY, "mcp", "functions", "fulltext", "pdftext", "cite", "library", "health"}
    assert _violations(lambda part, name: part in ("store", "sources") and _imports_any(part, name, banned)) == []


def test_the_core_imports_no_family():
    # local/ is the embedded stand-in for AWS: it routes invocations to every family, as Lambda would.
    allowed = {"local", "docs_tools", *FAMILIES}
    assert _violations(lambda part, name: part not in allowed and _family_of(name) is not None) == []


def test_no_module_below_the_functions_names_a_function():
    assert _violations(lambda part, name: part != "local" and name.split(".")[0] == "functions") == []


def test_config_and_ids_import_nothing_of_sources_or_store():
    for module in ("config.py", "ids.py", "patent_numbers.py"):
        names = [name for _, name in _imports(PACKAGE / module)]
        assert [n for n in names if n.startswith(("scholar.sources", "scholar.store"))] == [], module


@pytest.mark.parametrize("name", ["boto3", "botocore.exceptions", "mcp.types"])
def test_the_rule_reader_sees_plain_and_from_imports(tmp_path, name):
    probe = tmp_path / "probe.py"
    probe.write_text(f"import {name}\nfrom {name} import x\n")
    assert [n for _, n in _imports(probe, "scholar.probe")] == [name, name]


def test_the_rule_reader_sees_function_level_imports_and_importlib_strings(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import importlib\n"
        "HOOK = 'scholar.health.landing_view'\n"
        "def f(family):\n"
        "    from scholar.runtime import queue\n"
        "    importlib.import_module('scholar.mcp.app')\n"
        "    importlib.import_module(HOOK)\n"
        "    return importlib.import_module(f'functions.{family}.app')\n"
    )
    names = [n for _, n in _imports(probe, "scholar.store.probe")]
    assert names == [
        "importlib", "scholar.runtime", "scholar.mcp.app", "scholar.health.landing_view", "functions.{}.app",
    ]
    assert [n for n in names if _upward("store", n)] == names[1:]  # each would be an upward arrow from store/
