"""The house's import rules (DESIGN §2), read from the source with ``ast``: a new module cannot slip past them.

A module's floor is its path: the first package below ``scholar/`` (``FLOORS``, from the bottom up), and inside a
floor whose parts have an order of their own, its part's rank (``RANKS``). A module imports only its own floor and
rank and those below. Inside one rank the arrows point down too: the import graph of every module has no cycle, so
the core's own chain (errors ← patent_numbers ← ids ← id_forms ← validation) is checked like any other.
boto3/botocore only in ``store/``, ``runtime/`` and ``local/``; ``mcp`` only in ``scholar/gateway/mcp``; no family
imports another family. Every import counts: top-level, inside a function, under ``TYPE_CHECKING`` (that is how an
arrow starts pointing the wrong way), and a module named by string to ``importlib.import_module`` (a constant, a
name bound to one, or an f-string built from a family name, read as ``scholar.families.{}.spec``). ``EXCEPTIONS``
names each arrow that must point up, with its reason.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

from scholar.families import FAMILIES as DECLARED

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "shared" / "scholar"
AWS_SDK = ("boto3", "botocore")
AWS_ALLOWED = ("store", "runtime", "local")
FAMILIES = frozenset(DECLARED)
# A placeholder in a module name built at run time (f"scholar.families.{family}.spec" → "scholar.families.{}.spec").
ANY = "{}"
# The packages below scholar/, from the bottom up (scholar/__init__.py, the package's docstring, sits on top).
FLOORS = ("core", "store", "sources", "web", "runtime", "services", "families", "gateway", "entry", "local", "__init__")
# Inside a floor, its parts' order (the second name below scholar/); a part not named shares the top rank.
RANKS: dict[str, tuple[tuple[str, ...], ...]] = {
    # The registry names every upstream; http paces and records by it; each source calls http.
    "sources": (("registry",), ("http",)),
    # The pipeline's steps (resolve → download → convert → finish) end in the caller's library: on top.
    # semantic (the bundled model) sits with the other leaf services: the library keeps its vectors.
    "services": (("paper_lookup", "pdftext", "cite", "health", "semantic"), ("fulltext",), ("library",), ("pipeline",)),
    # bearer: the token contract the authorization server (auth/) and the gateway (mcp/) share, below both.
    "gateway": (("bearer",), ("auth", "mcp")),
}
# (importing module, imported name) → why this arrow points up.
_OWN_TOOLS = "a family function dispatches to its own tools: its HANDLERS, checked against its spec (§4)"
EXCEPTIONS: dict[tuple[str, str], str] = {
    ("scholar.runtime.family", "scholar.families.{}.handlers"): _OWN_TOOLS,
    ("scholar.runtime.family", "scholar.families.{}.spec"): _OWN_TOOLS,
}


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _level(parts: list[str]) -> tuple[int, int]:
    """(floor, rank) of a module given its name's parts below ``scholar``; (-1, 0) for a floor that is not one."""
    if not parts or parts[0] not in FLOORS:
        return -1, 0
    ranks = RANKS.get(parts[0], ())
    if len(parts) < 2:  # the floor's own package (its __init__) sits at its bottom
        return FLOORS.index(parts[0]), 0
    rank = next((i for i, group in enumerate(ranks) if parts[1] in group), len(ranks))
    return FLOORS.index(parts[0]), rank


def _part(path: Path) -> str:
    """The floor of a module: the first package below scholar/ (``__init__`` for scholar/__init__.py)."""
    return path.relative_to(PACKAGE).with_suffix("").parts[0]


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
            if base.split(".")[0] == "scholar":  # from scholar.core import ids: the module may be ids
                found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
        elif isinstance(node, ast.Call) and _is_import_module(node):
            name = _template(node.args[0], module, constants)
            if name is not None:
                found.append((node.lineno, name))
    return found


def _target(name: str) -> tuple[str, tuple[int, int]] | None:
    """(floor, level) of an imported name that is ours, else None (the standard library, a third party)."""
    parts = name.split(".")
    if parts[0] != "scholar" or len(parts) < 2:
        return None
    return parts[1], _level(parts[1:])


def _level_of(path: Path) -> tuple[int, int]:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    return _level(["__init__"] if parts == ["__init__"] else parts)


def _violations(rule) -> list[str]:
    """Every import of ours that ``rule(path, name)`` flags, as ``file:line imports name``."""
    out = []
    for path in _modules():
        for line, name in _imports(path):
            if rule(path, name) and (_module_name(path), name) not in EXCEPTIONS:
                out.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    return out


def _upward(path: Path, name: str) -> bool:
    target = _target(name)
    return target is not None and target[1] > _level_of(path)


def _family_of(name: str) -> str | None:
    """The family a module name is in (``{}``: one known at run time); None outside a family (``scholar.families``,
    ``scholar.families.profiles``: the floor's own modules)."""
    parts = name.split(".")
    in_family = len(parts) > 2 and parts[:2] == ["scholar", "families"] and parts[2] in (*FAMILIES, ANY)
    return parts[2] if in_family else None


def _family_of_path(path: Path) -> str | None:
    parts = path.relative_to(PACKAGE).parts
    return parts[1] if parts[0] == "families" and len(parts) > 2 else None


def _graph() -> nx.DiGraph:
    """Every module of ours and the modules it imports (a name resolved to the longest module it starts with)."""
    modules = {_module_name(path) for path in _modules()}
    graph = nx.DiGraph()
    for path in _modules():
        source = _module_name(path)
        graph.add_node(source)
        for _, name in _imports(path):
            while name and name not in modules:
                name = name.rpartition(".")[0]
            # A module's own packages run before it whatever it imports: an edge to one is no arrow.
            if name and not (source == name or source.startswith(f"{name}.")):
                graph.add_edge(source, name)
    return graph


def test_the_families_declared_are_the_packages_with_a_spec_sorted():
    with_spec = sorted(p.parent.name for p in (PACKAGE / "families").glob("*/spec.py"))
    packages = sorted(p.name for p in (PACKAGE / "families").iterdir() if (p / "__init__.py").exists())
    assert DECLARED == tuple(with_spec) == tuple(packages)
    assert {"papers", "arxiv", "books", "standards", "pdf", "tasks", "research", "patents"} <= FAMILIES


def test_every_module_has_a_floor():
    assert sorted({_part(p) for p in _modules()} - set(FLOORS)) == []


def test_every_named_rank_is_a_package_of_its_floor():
    for floor, ranks in RANKS.items():
        for part in (part for group in ranks for part in group):
            assert (PACKAGE / floor / part).is_dir() or (PACKAGE / floor / f"{part}.py").is_file(), (floor, part)


def test_boto3_is_imported_only_in_store_runtime_and_local():
    assert _violations(lambda path, name: name.split(".")[0] in AWS_SDK and _part(path) not in AWS_ALLOWED) == []


def test_mcp_is_imported_only_in_scholar_gateway_mcp():
    def outside(path: Path, name: str) -> bool:
        return name.split(".")[0] == "mcp" and path.relative_to(PACKAGE).parts[:2] != ("gateway", "mcp")

    assert _violations(outside) == []


def test_no_family_imports_another_family():
    def crosses(path: Path, name: str) -> bool:
        own, target = _family_of_path(path), _family_of(name)
        return own is not None and target is not None and target != own

    assert _violations(crosses) == []


def test_arrows_point_down_the_floors():
    assert _violations(_upward) == []


def test_no_two_modules_import_each_other_through_any_path():
    cycles = [sorted(c) for c in nx.strongly_connected_components(_graph()) if len(c) > 1]
    assert cycles == []


def test_the_core_chain_is_an_order():
    # errors ← patent_numbers ← ids ← id_forms ← validation: each imports the one before it, never one after.
    chain = ["errors", "patent_numbers", "ids", "id_forms", "validation"]
    reach = _graph()
    for lower, upper in zip(chain, chain[1:], strict=False):
        assert nx.has_path(reach, f"scholar.core.{upper}", f"scholar.core.{lower}")
        assert not nx.has_path(reach, f"scholar.core.{lower}", f"scholar.core.{upper}")


# The repository's own folders beside the package: an installed wheel has none of them.
OUTSIDE_THE_PACKAGE = ("functions", "tests", "benchmarks")


def test_no_module_of_the_package_imports_outside_it():
    assert _violations(lambda path, name: name.split(".")[0] in OUTSIDE_THE_PACKAGE) == []


@pytest.mark.parametrize("name", ["boto3", "botocore.exceptions", "mcp.types"])
def test_the_rule_reader_sees_plain_and_from_imports(tmp_path, name):
    probe = tmp_path / "probe.py"
    probe.write_text(f"import {name}\nfrom {name} import x\n")
    assert [n for _, n in _imports(probe, "scholar.probe")] == [name, name]


def test_the_rule_reader_sees_function_level_imports_and_importlib_strings(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import importlib\n"
        "HOOK = 'scholar.services.health.landing_view'\n"
        "def f(family):\n"
        "    from scholar.runtime import queue\n"
        "    importlib.import_module('scholar.gateway.mcp.app')\n"
        "    importlib.import_module(HOOK)\n"
        "    return importlib.import_module(f'functions.{family}.app')\n"
    )
    names = [n for _, n in _imports(probe, "scholar.store.probe")]
    assert names == [
        "importlib", "scholar.runtime", "scholar.runtime.queue", "scholar.gateway.mcp.app",
        "scholar.services.health.landing_view",
        "functions.{}.app",
    ]
    store_module = PACKAGE / "store" / "probe.py"
    assert [n for n in names if _upward(store_module, n)] == names[1:-1]  # each an upward arrow from store/
    assert names[-1].split(".")[0] in OUTSIDE_THE_PACKAGE  # and the last one reaches outside the package


def test_ranks_order_the_parts_of_a_floor():
    # A source module may import http and the registry; http may import the registry, never a source.
    http, registry, s2 = (PACKAGE / "sources" / f"{m}.py" for m in ("http", "registry", "s2"))
    assert not _upward(s2, "scholar.sources.http") and not _upward(http, "scholar.sources.registry")
    assert _upward(http, "scholar.sources.s2") and _upward(registry, "scholar.sources.http")
    lookup = PACKAGE / "services" / "paper_lookup" / "chain.py"
    assert _upward(lookup, "scholar.services.library.keep")
    assert not _upward(PACKAGE / "services" / "library" / "keep.py", "scholar.services.paper_lookup")
