"""No new blocking AWS call inside a coroutine: each is a store's awaitable twin (``await cache.aget(...)``) or goes
through ``await off_loop(fn, ...)`` (scholar/core/aio.py).

A boto3 call made on the event loop holds every other coroutine of the call (a ``gather`` of ten cached
lookups runs one at a time). Read from the source with ``ast``: inside an ``async def`` body (not a nested
``def`` or ``lambda``, which run wherever they are handed), a *sync store call* is

- a sync method of a store object (``Cache``, ``TaskStore``, ``BlobStore``, ``UsageStore``, ``LibraryStore``:
  their public methods that are not coroutines), called on a name the function binds to one
  (``cache = cache or Cache()``, a parameter annotated ``Cache``) or on the constructor itself
  (``TaskStore().list(...)``);
- a call of a known blocking helper (below), however it was imported.

The twins (``aget``, ``aput`` …, ``scholar.store.base.awaitable``) are coroutines, so they are not counted;
passing a method to ``off_loop`` is not a call, so it is not counted either. ``REMAINING`` lists what is left in
modules outside this change's reach, per module; a module may only go down.
"""

from __future__ import annotations

import ast
import inspect
from collections import Counter
from pathlib import Path

from scholar.store.blobs import BlobStore
from scholar.store.cache import Cache
from scholar.store.library.table import LibraryStore
from scholar.store.tasks import TaskStore
from scholar.store.usage import UsageStore

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "shared" / "scholar"
STORES = {cls.__name__: cls for cls in (Cache, TaskStore, BlobStore, UsageStore, LibraryStore)}
# Module-level functions that make AWS calls (DynamoDB, S3, SSM, Step Functions), by defining module.
BLOCKING_HELPERS = {
    "scholar.services.fulltext.jobs": {"cached_answer", "queue", "cancel_task"},
    "scholar.families.patents.pdf_jobs": {"cached_answer", "queue", "remember", "build_result"},
    "scholar.runtime.reconcile": {"reconcile"},
    "scholar.runtime.queue": {"enqueue_retry", "queue_deduplicated", "start_task"},
    "scholar.runtime.outcome": {"finish_task"},
    "scholar.store.secrets": {"get_secret", "get_secret_parameter"},
    "scholar.store.limiter": {"reserve"},
}
# Store methods that make no AWS call (a key, a locally signed URL, a cursor).
NO_IO = {"pk", "presign", "cursor_after"}
# Left where another change owns the module (a count per module; it may only go down).
REMAINING: dict[str, int] = {}


def _sync_methods(cls: type) -> set[str]:
    return {
        name for name, member in inspect.getmembers(cls, inspect.isfunction)
        if not name.startswith("_") and name not in NO_IO and not inspect.iscoroutinefunction(member)
    }


METHODS = {name: _sync_methods(cls) for name, cls in STORES.items()}


def _helper_names(tree: ast.Module) -> tuple[set[str], dict[str, set[str]]]:
    """Names bound to blocking helpers (``from m import f``), and module aliases → their helpers."""
    direct: set[str] = set()
    modules: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                if alias.name in BLOCKING_HELPERS.get(node.module, ()):
                    direct.add(alias.asname or alias.name)
                full = f"{node.module}.{alias.name}"
                if full in BLOCKING_HELPERS:
                    modules[alias.asname or alias.name] = BLOCKING_HELPERS[full]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in BLOCKING_HELPERS:
                    modules[alias.asname or alias.name] = BLOCKING_HELPERS[alias.name]
    return direct, modules


def _store_class(expr: ast.expr | None) -> str | None:
    """The store class an expression builds or is annotated with (``Cache()``, ``x or Cache()``, ``Cache | None``)."""
    if expr is None:
        return None
    for node in ast.walk(expr):
        name = node.id if isinstance(node, ast.Name) else node.value if isinstance(node, ast.Constant) else None
        if isinstance(name, str) and name in STORES:
            return name
    return None


def _own_nodes(fn: ast.AsyncFunctionDef) -> list[ast.AST]:
    """The nodes of ``fn``'s body, without nested functions and lambdas."""
    found: list[ast.AST] = []
    stack: list[ast.AST] = [*fn.body]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        found.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return found


def sync_store_calls(path: Path) -> list[tuple[int, str]]:
    """(line, call) of every sync store call inside the async function bodies of one module."""
    tree = ast.parse(path.read_text(), filename=str(path))
    direct, modules = _helper_names(tree)
    # Module functions that hand out a store object (``def _blobs() -> BlobStore | None``).
    makers = {node.name: cls for node in tree.body if isinstance(node, ast.FunctionDef)
              and (cls := _store_class(node.returns)) is not None}
    out: list[tuple[int, str]] = []
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.AsyncFunctionDef):
            continue
        nodes = _own_nodes(fn)
        bound: dict[str, str] = {}
        for arg in [*fn.args.args, *fn.args.kwonlyargs]:
            if (cls := _store_class(arg.annotation)) is not None:
                bound[arg.arg] = cls
        for node in nodes:
            if not isinstance(node, ast.Assign):
                continue
            cls = _store_class(node.value)
            if cls is None and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name):
                cls = makers.get(node.value.func.id)
            if cls is not None:
                bound.update({t.id: cls for t in node.targets if isinstance(t, ast.Name)})
        for node in nodes:
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if isinstance(func, ast.Name) and func.id in direct:
                out.append((node.lineno, ast.unparse(func)))
            elif isinstance(func, ast.Attribute):
                owner = func.value
                cls = (bound.get(owner.id) if isinstance(owner, ast.Name) else
                       _store_class(owner.func) if isinstance(owner, ast.Call) else None)
                store_method = cls is not None and func.attr in METHODS[cls]
                helper = isinstance(owner, ast.Name) and func.attr in modules.get(owner.id, ())
                if store_method or helper:
                    out.append((node.lineno, ast.unparse(func)))
    return sorted(out)


def _all() -> dict[str, list[tuple[int, str]]]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        calls = sync_store_calls(path)
        if calls:
            found[str(path.relative_to(PACKAGE))] = calls
    return found


def test_the_audit_finds_a_sync_store_call_in_a_coroutine(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from scholar.store.cache import Cache\n"
        "from scholar.services.fulltext import jobs\n"
        "from scholar.core.aio import off_loop\n"
        "async def f(cache: Cache | None = None):\n"
        "    cache = cache or Cache()\n"
        "    cache.get('record', 'k')\n"
        "    await off_loop(cache.put, 'record', 'k', 1)\n"
        "    jobs.cached_answer(None)\n"
        "    def inner():\n"
        "        return cache.get('record', 'k')\n"
        "    return await off_loop(inner)\n"
    )
    assert sync_store_calls(sample) == [(6, "cache.get"), (8, "jobs.cached_answer")]


def test_the_awaitable_twins_are_not_sync_store_calls(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from scholar.store.cache import Cache\n"
        "async def f(cache: Cache):\n"
        "    await cache.aput('record', 'k', 1)\n"
        "    cache.put('record', 'k', 1)\n"
        "    return await cache.aget('record', 'k')\n"
    )
    assert sync_store_calls(sample) == [(4, "cache.put")]
    assert {"aget", "aput", "aget_many", "aget_first", "adelete"} <= {
        name for name in dir(Cache) if inspect.iscoroutinefunction(getattr(Cache, name))
    }


def test_no_coroutine_makes_a_blocking_store_call_on_the_event_loop():
    found = {module: len(calls) for module, calls in _all().items()}
    grown = {module: n for module, n in found.items() if n > REMAINING.get(module, 0)}
    detail = {module: calls for module, calls in _all().items() if module in grown}
    hint = "await the store's twin (cache.aget …) or `await off_loop(fn, ...)` (scholar.core.aio)"
    assert grown == {}, f"{hint}: {detail}"


def test_the_remaining_list_is_current():
    found = Counter({module: len(calls) for module, calls in _all().items()})
    stale = {module: n for module, n in REMAINING.items() if found[module] < n}
    assert stale == {}, f"fewer sync store calls remain; lower REMAINING to the counts found: {dict(found)}"
