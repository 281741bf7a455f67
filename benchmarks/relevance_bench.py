"""Relevance (issue 39, item 3): nDCG@10 and nDCG@20 on a labelled set, and what the semantic model costs.

Data: ``../shared/relevance/csfcube-dev.jsonl`` — CSFCube (Mysore, O'Gorman, McCallum, Zamani: "CSFCube - A Test
Collection of Computer Science Research Articles for Faceted Query by Example", NeurIPS 2021 Datasets and
Benchmarks; github.com/iesl/CSFCube), licence CC BY-NC 4.0: measured here, never copied into the repository.
25 queries, each ~115 candidates graded 0–3. The question is the query paper's facet sentences (its title when it
has none), cut to library_search's 500 characters; a candidate's text is its title and abstract. nDCG: gain
2^rel − 1, log2 discount, the ideal order over the whole labelled pool.

Rankings of each pool: ``bm25`` (search's BM25, words_scores), ``semantic`` (the bundled model's cosine),
``fusion`` (search's local relevance, bm25_scores), ``search`` (search's one scoring pass, rank.score, with its
other signals: recency from the years; no citation counts, one source), and ``library_search`` (the product's
tool through the Python API on a temporary SCHOLAR_HOME: each pool imported as one collection, searched with
collection=, its first 20 hits ranked, the rest of the pool not; the library grows pool by pool, so BM25's word
statistics come from every pool so far; ``library_search, a library per pool``: each pool alone in a library).
The fusion's weight, and library_search's field weights and feedback, were chosen on the even-numbered queries
(scholar.services.semantic.fusion, scholar.services.library.vectors): both halves are printed.

Costs: the model's load time and resident memory (a fresh interpreter), the scholar layer's size with and without
the model (layers/scholar/Makefile adds the model's two files; the tokenizer is ours), and a
10,000-item library: its first build, re-indexing after one change (bar 1 s), a warm hybrid search.

Run: ``python -m benchmarks relevance``.
"""

from __future__ import annotations

import datetime
import json
import math
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.common import report

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "relevance" / "csfcube-dev.jsonl"
MAX_QUERY = 500
REINDEX_BAR_MS = 1000.0
LIBRARY_ITEMS = 10_000


def question(row: dict[str, Any]) -> str:
    text = " ".join(row["query"]["facet_sentences"]) or row["query"]["title"]
    return text if len(text) <= MAX_QUERY else text[:MAX_QUERY].rsplit(" ", 1)[0]


def ndcg(order: Sequence[int], grades: Sequence[int], k: int) -> float:
    dcg = sum((2 ** grades[i] - 1) / math.log2(r + 2) for r, i in enumerate(order[:k]))
    ideal = sum((2**g - 1) / math.log2(r + 2) for r, g in enumerate(sorted(grades, reverse=True)[:k]))
    return dcg / ideal if ideal else 0.0


def by_score(scores: Sequence[float]) -> list[int]:
    return sorted(range(len(scores)), key=lambda i: (-scores[i], i))


def orders(rows: list[dict[str, Any]]) -> dict[str, list[list[int]]]:
    """Each method's ranking (candidate positions, best first) of every pool."""
    from scholar.core.records import Paper
    from scholar.families.research.search import rank
    from scholar.services.semantic import model

    out: dict[str, list[list[int]]] = {"bm25": [], "semantic": [], "fusion": [], "search": []}
    year = datetime.date.today().year
    for row in rows:
        asked = question(row)
        papers = [Paper(title=c["title"], abstract=c["abstract"], year=c.get("year")) for c in row["candidates"]]
        vectors = model.embed([asked, *(rank.meaning_text(p) for p in papers)])
        fused = rank.bm25_scores(asked, papers)
        out["bm25"].append(by_score(rank.words_scores(asked, papers)))
        out["semantic"].append(by_score([float(x) for x in vectors[1:] @ vectors[0]]))
        out["fusion"].append(by_score(fused))
        scored = rank.score(asked, papers, [1] * len(papers), relevance=fused, intent=None, this_year=year,
                            answering=1)
        out["search"].append([s.index for s in scored])
    out["library_search"] = library_orders(rows)
    out["library_search, a library per pool"] = library_orders(rows, apart=True)
    return out


def _snapshot(rows: list[dict[str, Any]], n: int) -> tuple[str, dict[str, int]]:
    import hashlib

    from scholar.services.library.export import to_jsonl
    from scholar.store.library.models import LibraryItem

    now = "2026-12-01T00:00:00Z"
    items, position = [], {}
    for i, c in enumerate(rows[n]["candidates"]):
        item_id = "lib_" + hashlib.sha256(f"{n}:{c['paper_id']}".encode()).hexdigest()[:20]
        position[item_id] = i
        items.append(LibraryItem(item_id=item_id, collection=f"q{n:02d}", added_at=now, updated_at=now,
                                 paper={"title": c["title"], "abstract": c["abstract"], "year": c.get("year")}))
    return to_jsonl(items), position


def library_orders(rows: list[dict[str, Any]], *, apart: bool = False) -> list[list[int]]:
    """library_search's first 20 of each pool: all pools in one library (growing), or each in its own (``apart``)."""
    from scholar.local.api import Scholar

    out = []
    with tempfile.TemporaryDirectory() as root:
        api = Scholar(home=root)
        for n, row in enumerate(rows):
            if apart:
                api.close()
                api = Scholar(home=f"{root}/{n}")
            jsonl, position = _snapshot(rows, n)
            api.library_import(jsonl=jsonl)
            found = api.library_search(query=question(row), collection=f"q{n:02d}", limit=20)
            out.append([position[h["item_id"]] for h in found["hits"]])
        api.close()
    return out


def relevance_figures(rows: list[dict[str, Any]]) -> None:
    grades = [[c["relevance"] for c in row["candidates"]] for row in rows]
    ranked = orders(rows)
    halves = {"all": range(len(rows)), "even (tuned on)": range(0, len(rows), 2), "odd": range(1, len(rows), 2)}
    base: dict[tuple[str, int], float] = {}
    print(f"{'nDCG (CSFCube dev, ' + str(len(rows)) + ' queries; CC BY-NC 4.0)':<40}"
          + "".join(f"{h + ' @' + str(k):>20}" for h in halves for k in (10, 20)), flush=True)
    for method, per_query in ranked.items():
        cells = []
        for half, which in halves.items():
            for k in (10, 20):
                value = statistics.mean(ndcg(per_query[i], grades[i], k) for i in which)
                base.setdefault((half, k), value) if method == "bm25" else None
                cells.append(f"{value:.3f} ({value / base[(half, k)]:.2f}x)")
        print(f"{method:<40}" + "".join(f"{c:>20}" for c in cells), flush=True)


def model_costs() -> None:
    probe = ("import time, json\n"
             "def rss():\n"
             "    return int(next(l for l in open('/proc/self/status') if l.startswith('VmRSS')).split()[1]) / 1024\n"
             "import numpy  # search loads it anyway (rank_bm25): not the model's cost\n"
             "before = rss()\n"
             "began = time.perf_counter()\n"
             "from scholar.services.semantic import model\n"
             "model.load()\n"
             "loaded = time.perf_counter() - began\n"
             "model.embed(['a title. ' + 'an abstract of words ' * 60] * 300)\n"
             "print(json.dumps({'load_ms': loaded * 1000, 'rss_mb': rss() - before}))\n")
    runs = [json.loads(subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                                      cwd=REPO).stdout) for _ in range(5)]
    report("semantic model load (fresh interpreter, numpy already in)", [r["load_ms"] for r in runs])
    print(f"{'semantic model resident memory (load + embed 300 texts)':<58} "
          f"median {statistics.median(r['rss_mb'] for r in runs):8.1f} MB", flush=True)
    from scholar.services.semantic import model

    rows = [json.loads(line) for line in DATA.read_text().splitlines()[:3]] if DATA.is_file() else []
    texts = [f"{c['title']}. {c['abstract']}" for row in rows for c in row["candidates"]][:300]
    texts = texts or [f"a title {i}. " + "an abstract of words " * 60 for i in range(300)]
    model.load()

    def embed() -> None:
        model.load().recent.clear()  # the pools ranked above are remembered: measure the embedding itself
        model.embed(texts)

    from benchmarks.common import timed

    report(f"embed one search pool ({len(texts)} titles + abstracts, words known)", timed(embed, repeat=10))


def layer_sizes() -> None:
    from scholar.services.semantic import model

    package = REPO / "shared" / "scholar"
    scholar_mb = sum(p.stat().st_size for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                     and "local" not in p.relative_to(package).parts[:1]) / 1e6
    files_mb = sum((model.package_dir() / name).stat().st_size for name in (model.WEIGHTS, model.TOKENIZER)) / 1e6
    print(f"{'scholar layer, unzipped':<58} {scholar_mb:.1f} MB without the model → {scholar_mb + files_mb:.1f} MB "
          f"(the model's two files, {files_mb:.1f} MB); the deps layer is unchanged", flush=True)


def reindex_figures(count: int) -> None:
    from scholar.services.library.index import Filters
    from scholar.services.library.index_cache import WRITE_BACK_ITEMS, IndexHolder
    from tests.library.corpus import MemoryLibrary, item, papers

    every = papers()
    values = []
    for n in range(count):
        base = item(every[n % len(every)])
        paper = {**base.paper, "title": f"{base.paper.get('title') or ''} (copy {n // len(every)})"}
        values.append(base.model_copy(update={"item_id": f"lib_{n:020x}", "paper": paper}))
    store = MemoryLibrary(values)
    with tempfile.TemporaryDirectory() as tmp:
        holder = IndexHolder(directory=Path(tmp))
        began = time.perf_counter()
        holder.search("bench:relevance", store, "cell", Filters(), limit=10, offset=0)
        print(f"{'library index build from ' + str(count) + ' items, with vectors':<58} "
              f"{(time.perf_counter() - began) * 1000:8.0f} ms", flush=True)
        after: list[float] = []
        # Twice WRITE_BACK_ITEMS changes: the whole file goes back to S3 every WRITE_BACK_ITEMS (in the p99).
        for round_ in range(2 * WRITE_BACK_ITEMS):
            changed = values[round_ * 7]
            store.put(changed.model_copy(update={"paper": {**changed.paper, "title": f"retitled {round_}"}}))
            began = time.perf_counter()
            holder.search("bench:relevance", store, "tumour growth", Filters(), limit=10, offset=0)
            after.append((time.perf_counter() - began) * 1000)
        label = f"re-index {count} items, one change + search (S3: 1 in {WRITE_BACK_ITEMS})"
        report(label, after, bar_ms=REINDEX_BAR_MS)
        queries = iter(["tumour growth", "software testing of web apps", "poverty and rural households"] * 100)

        def warm() -> None:
            holder.search("bench:relevance", store, next(queries), Filters(), limit=10, offset=0)

        from benchmarks.common import timed

        report(f"library_search warm, hybrid, {count} items", timed(warm, repeat=30))
        holder.reset()


def search_latency(fixtures: Path, runs: int = 9) -> None:
    """search at 200 ms per upstream request (the research bench's recorded routes), the model warm, against the
    same search ranking by words alone (today's local relevance), runs interleaved."""
    from benchmarks.common import pointed_at
    from benchmarks.research_bench import LATENCY_S, _search, install_search_routes
    from scholar.families.research.search import federated, rank
    from tests.fakes.upstream import FakeUpstream

    question = "copper thin film oxide layers tensile properties"
    fused = federated.bm25_scores
    # Budgets as the tests set them: on a loaded machine the real ones (~2 s a source) time sources out.
    with FakeUpstream(fixtures) as fake, pointed_at(fake.base_url, unset=("SCHOLAR_RERANK_URL",),
                                                   env={"SCHOLAR_SEARCH_BUDGET_SCALE": "20"}):
        install_search_routes(fake, fixtures)
        _search(question)  # the model loads once per process: not a search's cost
        fake.set_latency(LATENCY_S)
        times: dict[str, list[float]] = {"words": [], "words+meaning": []}
        for _ in range(runs):
            for name, relevance in (("words", rank.words_scores), ("words+meaning", fused)):
                federated.bm25_scores = relevance  # type: ignore[assignment]  # the bench swaps the local model
                began = time.perf_counter()
                _search(question)
                times[name].append((time.perf_counter() - began) * 1000)
        federated.bm25_scores = fused  # type: ignore[assignment]  # restored
    words, both = statistics.median(times["words"]), statistics.median(times["words+meaning"])
    report("search p50, 200 ms per request, ranked by words (before)", times["words"])
    report("search p50, 200 ms per request, words + meaning (now)", times["words+meaning"])
    print(f"{'  ratio now / before':<58} {both / words:.2f}x   (bar: 1.1x)", flush=True)


def main(fixtures: Path, argv: list[str] | None = None) -> None:
    from benchmarks.common import in_process_stack

    print("== relevance ==", flush=True)
    if DATA.is_file():
        rows = [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]
        relevance_figures(rows)
    else:
        print(f"relevance set not found ({DATA}): nDCG not measured", flush=True)
    model_costs()
    layer_sizes()
    search_latency(fixtures)
    with in_process_stack(fixtures):
        reindex_figures(LIBRARY_ITEMS)


if __name__ == "__main__":
    from benchmarks.__main__ import main as run_all

    sys.exit(run_all(["relevance", *sys.argv[1:]]))
