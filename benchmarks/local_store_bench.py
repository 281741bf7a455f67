"""The local backend (issue 32): a cached get_paper and library_search over 10,000 items, on SQLite + files.

Both run inside ``scholar.local.machine.local_backend`` on a fresh data folder, through the family function the
gateway calls (``scholar.runtime.invoke.invoke_family``, dispatched in-process as on one machine), with every source
pointed at the fake upstream of the recorded answers.

- get_paper: the recorded PNAS paper asked once (it lands in the local cache), then asked again and timed.
  Bar: median <= 2 ms.
- library_search: the library holds 10,000 items: every recorded paper (tests/library/corpus.py) saved under
  distinct item ids, collections and tags until 10,000; that repetition is SYNTHETIC (benchmark only). The first
  searches build the caller's index (timed apart); then one- to three-word queries from the titles (fixed seed),
  timed. Bar: median <= 50 ms.

``python -m benchmarks local_store`` (``BENCH_LOCAL_ITEMS`` sets the library size, default 10000).
"""

from __future__ import annotations

import os
import random
import re
import tempfile
import time
from pathlib import Path

from benchmarks.common import pointed_at, report, timed

PRINCIPAL = "local"
PNAS_DOI = "10.1073/pnas.1414271111"


def _call(tool: str, arguments: dict) -> dict:
    from scholar.runtime.invocation import Invocation
    from scholar.runtime.invoke import invoke_family

    family = "papers" if tool == "get_paper" else "research"
    outcome = invoke_family(family, Invocation(tool=tool, arguments=arguments, principal=PRINCIPAL, request_id="b"))
    if not outcome.ok:
        raise RuntimeError(f"{tool} failed: {outcome.error}")
    return outcome.result or {}


def _library(count: int) -> list:
    from tests.library.corpus import item, papers

    every = papers()
    out = []
    for n in range(count):
        base = item(every[n % len(every)])
        copy = n // len(every)
        out.append(base.model_copy(update={"item_id": f"{base.item_id[:-4]}{copy:04x}",
                                           "collection": ["inbox", "thesis", "reading/2026"][copy % 3],
                                           "tags": [f"t{n % 17}", "bench"]}))
    return out


def main(fixtures: Path) -> None:
    from scholar.local.machine import local_backend
    from scholar.store.cache import forget_memory
    from scholar.store.library.table import LibraryStore
    from tests.fakes.upstream import FakeUpstream

    count = int(os.environ.get("BENCH_LOCAL_ITEMS", "10000"))
    with tempfile.TemporaryDirectory() as home, FakeUpstream(fixtures) as fake, pointed_at(fake.base_url), \
            local_backend(Path(home)):
        _call("get_paper", {"identifier": PNAS_DOI})
        asked = fake.count()
        report("local: cached get_paper (family, in-process)",
               timed(lambda: _call("get_paper", {"identifier": PNAS_DOI}), repeat=200), bar_ms=2)
        forget_memory()  # the same call with the process's memory of the cache dropped each time: SQLite answers
        report("local: cached get_paper, read from SQLite",
               timed(lambda: (forget_memory(), _call("get_paper", {"identifier": PNAS_DOI})), repeat=100))
        print(f"{'local: upstream requests made by the cached calls':<58} {fake.count() - asked:8d}", flush=True)

        items = _library(count)
        began = time.perf_counter()
        LibraryStore(PRINCIPAL).put_many(items)
        load_s = time.perf_counter() - began
        print(f"{'local: put_many of ' + str(count) + ' library items':<58} {load_s:8.2f} s", flush=True)
        began = time.perf_counter()
        for _ in range(20):  # the first searches build the index; a budget cut says "resumes on the next call"
            try:
                _call("library_search", {"query": "cell"})
                break
            except RuntimeError as exc:
                if "timeout" not in str(exc):
                    raise
        print(f"{'local: library index build of ' + str(count) + ' items':<58} "
              f"{time.perf_counter() - began:8.2f} s", flush=True)
        rng = random.Random(5)
        words = [w for i in items[:2000] for w in re.findall(r"[A-Za-z]{4,}", i.paper.get("title") or "")]
        queries = [" ".join(rng.choices(words, k=rng.randint(1, 3))) for _ in range(100)]
        cycle = iter(range(10**9))
        report(f"local: library_search over {count} items (family, in-process)",
               timed(lambda: _call("library_search", {"query": queries[next(cycle) % len(queries)]}), repeat=100),
               bar_ms=50)
