"""Library: full-text search over 5,000 items (warm, and after a catch-up of 50 changes); the largest record the
limits allow, and a second caller's search while the first's index is built; export of 1,000 items.

Run: ``python -m benchmarks.library_bench [--items N] [--queries N] [--catchups N] [--export-items N]``.

- Items: every recorded paper (tests/library/corpus.py: S2, arXiv, Europe PMC, Crossref, OpenAlex records
  mapped as the tools map them), each saved three times under distinct item ids, collections, tags and
  notes to reach 5,000 — that repetition is SYNTHETIC (benchmark only). One item in 50 carries a real body:
  the built-in converter's Markdown of one of the recorded arXiv PDFs.
- The library store is the in-memory stand-in of the tests (its reads cost ~nothing), so the figures are
  the index's own: SQLite FTS5 on local disk as a warm research function holds it in /tmp, plus the S3
  write-back (moto, in-process) after a catch-up. Real DynamoDB reads add their latency on top.
- Queries: one to three words drawn from the items' titles and bodies (fixed seed).
- Largest record (issue #22): one item with every field at its bound (title, abstract, notes, tags, ids, and
  authors up to the whole-record bound; scholar.store.library.bounds) plus a body of the index's MAX_BODY_CHARS,
  among 200 recorded items; the texts are SYNTHETIC, the record's own words repeated. Alice's library holds it;
  Bob's is 200 other items. Figures: Alice's first search (a whole build), her warm search, Bob's warm search
  alone, and Bob's search while a thread builds Alice's index again and again (a new caller name each time,
  the same holder: the shared state two callers of one warm research function have).
- Export: ``scholar.services.library.export.write`` for each format, then ``deliver`` (stored in moto's S3 when over
  the size budget).
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.common import in_process_stack, report, timed

PRINCIPAL = "bench:library"
PDFS = ("arxiv_2202.00535v1_novelty_controlled_paraphrase.pdf", "arxiv_2304.02623v1_beyond_summarization.pdf",
        "arxiv_2305.03393v1_page9_only.pdf", "arxiv_2501.10120v1_pasa.pdf")


def bodies(fixtures: Path) -> list[str]:
    from scholar.services.fulltext.artifacts import put_markdown
    from scholar.services.pdftext.convert import convert_pdf

    keys = []
    for name in PDFS:
        key = f"md/bench-{name}.md"
        put_markdown(key, convert_pdf(fixtures / "pdfs" / name).markdown)
        keys.append(key)
    return keys


def library(count: int, body_keys: list[str]):
    from tests.library.corpus import MemoryLibrary, item, papers

    every = papers()
    values = []
    for copy in range(3):
        for n, paper in enumerate(every):
            base = item(paper)
            values.append(base.model_copy(update={
                "item_id": base.item_id[:-2] + f"{copy:02x}",
                "collection": ["inbox", "thesis", "reading/2026"][copy],
                "tags": [f"t{n % 17}", "bench"],
                "notes": f"copy {copy} of a recorded paper" if n % 5 == 0 else None,
                "md_path": body_keys[n % len(body_keys)] if n % 50 == 0 else None,
            }))
    if count > len(values):
        raise SystemExit(f"at most {len(values)} items")
    return MemoryLibrary(values[:count])


def queries(store, body_keys: list[str], count: int, seed: int = 5) -> list[str]:
    from scholar.services.fulltext.artifacts import get_markdown

    rng = random.Random(seed)
    titles = [w for i in store.items.values() for w in re.findall(r"[A-Za-z]{4,}", i.paper.get("title") or "")]
    body = [w for k in body_keys for w in re.findall(r"[A-Za-z]{5,}", get_markdown(k) or "")]
    out = []
    for n in range(count):
        words = body if n % 4 == 0 else titles
        out.append(" ".join(rng.choices(words, k=rng.randint(1, 3))))
    return out


def search_figures(fixtures: Path, count: int, query_count: int, catchups: int) -> None:
    from scholar.services.library.index import Filters
    from scholar.services.library.index_cache import IndexHolder

    body_keys = bodies(fixtures)
    store = library(count, body_keys)
    asked = queries(store, body_keys, query_count)
    with tempfile.TemporaryDirectory() as tmp:
        holder = IndexHolder(directory=Path(tmp))
        began = time.perf_counter()
        holder.search(PRINCIPAL, store, "cell", Filters(), limit=10, offset=0)
        build_ms = (time.perf_counter() - began) * 1000
        size = next(Path(tmp).glob("*.sqlite")).stat().st_size
        print(f"{'library index build from ' + str(count) + ' items (first search)':<58} {build_ms:8.0f} ms   "
              f"file {size / 1e6:.1f} MB", flush=True)
        cycle = iter(range(10**9))

        def warm() -> None:
            holder.search(PRINCIPAL, store, asked[next(cycle) % len(asked)], Filters(), limit=10, offset=0)

        report(f"library_search warm, {count} items", timed(warm, repeat=len(asked)))
        values = list(store.items.values())
        rng = random.Random(3)
        after: list[float] = []
        for round_ in range(catchups):
            for changed in rng.sample(values, 50):
                store.put(changed.model_copy(update={"notes": f"edited in round {round_}"}))
            began = time.perf_counter()
            holder.search(PRINCIPAL, store, asked[round_ % len(asked)], Filters(), limit=10, offset=0)
            after.append((time.perf_counter() - began) * 1000)
        report("library_search after a catch-up of 50 changes (+S3 write)", after)
        holder.reset()


def grown(text: str, size: int) -> str:
    """``text`` repeated and cut to ``size`` characters (SYNTHETIC: a record's own words)."""
    return ((text + " ") * (size // (len(text) + 1) + 1))[:size]


def largest_item():
    """A recorded paper with every field at its bound and a body of MAX_BODY_CHARS, checked against the bounds."""
    from scholar.services.fulltext.artifacts import put_markdown
    from scholar.services.library.index import MAX_BODY_CHARS
    from scholar.store.library import bounds
    from tests.library.corpus import items

    base = items(3)[2]
    words = base.paper["abstract"]
    put_markdown("md/bench-largest.md", grown(words, MAX_BODY_CHARS))
    paper = {**base.paper, "title": grown(base.paper["title"], bounds.MAX_TITLE_CHARS),
             "abstract": grown(words, bounds.MAX_ABSTRACT_CHARS)}
    big = base.model_copy(update={"notes": grown(words, 20_000), "md_path": "md/bench-largest.md",
                                  "tags": [f"tag{n}" for n in range(50)],
                                  "ids": [f"CorpusId:{n}" for n in range(bounds.MAX_IDS)], "paper": paper})
    # Authors fill what is left of the whole-record bound.
    author = {"name": grown("Tetsuya Sakurai", bounds.MAX_AUTHOR_NAME_CHARS)}
    authors: list[dict] = []
    step = 512
    while step:
        trial = big.model_copy(update={"paper": {**paper, "authors": authors + [author] * step}})
        if len(authors) + step <= bounds.MAX_AUTHORS and bounds.oversized(trial) is None:
            authors += [author] * step
        else:
            step //= 2
    big = big.model_copy(update={"paper": {**paper, "authors": authors}})
    assert bounds.oversized(big) is None
    return big, len(big.model_dump_json())


def largest_record_figures(rounds: int) -> None:
    import threading

    from scholar.services.library.index import Filters
    from scholar.services.library.index_cache import IndexHolder
    from tests.library.corpus import MemoryLibrary, items

    big, size = largest_item()
    corpus = items(400)
    alice = MemoryLibrary([big, *[i for i in corpus[:200] if i.item_id != big.item_id]])
    bob = MemoryLibrary(corpus[200:])
    word = big.paper["abstract"].split()[3]
    bob_query = corpus[250].paper["title"]
    with tempfile.TemporaryDirectory() as tmp:
        holder = IndexHolder(directory=Path(tmp))
        builds: list[float] = []

        def build(name: str) -> None:
            began = time.perf_counter()
            holder.search(name, alice, word, Filters(), limit=10, offset=0)
            builds.append((time.perf_counter() - began) * 1000)

        build("bench:alice")
        print(f"{'library holding the largest record (' + str(size // 1000) + ' k chars + body)':<58} "
              f"first search {builds[0]:8.0f} ms", flush=True)
        report("library_search, largest record, warm",
               timed(lambda: holder.search("bench:alice", alice, word, Filters(), limit=10, offset=0), repeat=50))

        def bobs() -> None:
            holder.search("bench:bob", bob, bob_query, Filters(), limit=10, offset=0)

        report("second caller's library_search, alone", timed(bobs, repeat=100))
        stop = threading.Event()

        def rebuild() -> None:
            n = 0
            while not stop.is_set():
                n += 1
                build(f"bench:alice-{n}")

        worker = threading.Thread(target=rebuild)
        builds.clear()
        worker.start()
        during = []
        while len(builds) < rounds or len(during) < 50:
            began = time.perf_counter()
            bobs()
            during.append((time.perf_counter() - began) * 1000)
        stop.set()
        worker.join()
        report("second caller's library_search, during those builds", during)
        report("first caller's build with the largest record, meanwhile", builds)
        holder.reset()


def export_figures(count: int, repeat: int) -> None:
    from scholar.services.library import export
    from tests.library.corpus import items

    chosen = items(count)
    for fmt in ("bibtex", "csl-json", "ris", "jsonl"):
        sizes: list[int] = []

        def run(fmt=fmt, sizes=sizes) -> None:
            text = export.write(chosen, fmt)
            sizes.append(len(text))
            export.deliver(text, fmt, len(chosen), PRINCIPAL)

        values = timed(run, repeat=repeat, warmup=1)
        report(f"library_export {count} items, {fmt} ({statistics.median(sizes) / 1e3:.0f} k chars)", values)


def main(fixtures: Path, argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="library_bench")
    parser.add_argument("--items", type=int, default=5000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--catchups", type=int, default=20)
    parser.add_argument("--largest-rounds", type=int, default=5)
    parser.add_argument("--export-items", type=int, default=1000)
    parser.add_argument("--export-repeat", type=int, default=5)
    args = parser.parse_args(argv or [])
    print("== library ==", flush=True)
    with in_process_stack(fixtures):
        search_figures(fixtures, args.items, args.queries, args.catchups)
        largest_record_figures(args.largest_rounds)
        export_figures(args.export_items, args.export_repeat)


if __name__ == "__main__":
    import sys

    from benchmarks.__main__ import _fixtures

    found = _fixtures()
    if found is None:
        sys.exit("recorded upstream fixtures not found (set SCHOLAR_FIXTURES_DIR)")
    main(found, sys.argv[1:])
