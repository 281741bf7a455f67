"""Checked bibliographic match figures (issue 37): precision and recall on a labelled set, beside Crossref's first hit,
and the 100-reference check at realistic latency with its request count.

The labelled set and the index: benchmarks/match_data.py (≥ 200 references with known DOIs from the recorded
responses; what is real, rendered and SYNTHETIC is stated there). The fake upstream stands in for Crossref's
``query.bibliographic``: for each reference it answers the first ``ROWS`` records of the index ranked by the
idf-weighted words they share with the query (ties keep index order, so a synthetic sibling listed first wins a
tie), in Crossref's ``/works`` item shape. OpenAlex, Europe PMC and S2 answer "no results" (Europe PMC's and S2's
recorded empty answers; OpenAlex's SYNTHETIC empty ``results``), so every reference Crossref does not settle costs
the second wave's requests.

Figures: precision = right DOIs / accepted matches; recall = right DOIs / references whose record is in the index;
the baseline takes Crossref's first hit as is. The timing run checks 100 references through the check_references
tool with the sources paced as in production (SCHOLAR_PACE_SCALE=1) and per-source latency ``LATENCY``.
Run: ``python -m benchmarks match``.
"""

from __future__ import annotations

import json
import math
import os
import re
import statistics
import time
from collections import Counter
from pathlib import Path

from benchmarks.common import pointed_at
from benchmarks.match_data import Labelled, Record, index, labelled_set

ROWS = 5
LATENCY = {"crossref": 0.6, "openalex": 0.35, "europepmc": 0.5, "s2": 0.4}
_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def _record_words(record: Record) -> set[str]:
    parts = [record.title or "", record.journal or "", str(record.year or ""), record.volume or "", record.page or "",
             *(f for _, f in record.authors)]
    return _words(" ".join(parts))


class Engine:
    """The stand-in for Crossref's relevance ranking (module docstring)."""

    def __init__(self, records: list[Record]) -> None:
        self.records = records
        self.words = [_record_words(r) for r in records]
        df = Counter(w for ws in self.words for w in ws)
        self.idf = {w: math.log(1 + len(records) / n) for w, n in df.items()}

    def top(self, query: str, rows: int = ROWS) -> list[Record]:
        asked = _words(query)
        scored = [(sum(self.idf[w] for w in asked & ws), -i) for i, ws in enumerate(self.words)]
        best = sorted(range(len(scored)), key=lambda i: scored[i], reverse=True)[:rows]
        return [self.records[i] for i in best if scored[i][0] > 0]


def _install(fake, fixtures: Path, engine: Engine, texts: list[str]) -> None:
    from scholar.sources.crossref import MATCH_SELECT

    for text in texts:
        items = [r.crossref_item() for r in engine.top(text[:1000])]
        body = {"status": "ok", "message-type": "work-list", "message": {"items": items, "total-results": len(items)}}
        fake.add_route("GET", "crossref", "/works", content_type="application/json", body=json.dumps(body).encode(),
                       query={"query.bibliographic": text[:1000], "rows": str(ROWS), "select": MATCH_SELECT})
    empty = {"meta": {"count": 0, "page": 1, "per_page": ROWS}, "results": []}  # SYNTHETIC, OpenAlex's list shape
    fake.add_route("GET", "openalex", "/works", content_type="application/json", body=json.dumps(empty).encode())
    fake.add_route("GET", "europepmc", "/europepmc/webservices/rest/search",
                   body=fixtures / "upstream/europepmc/search_no_results.json", content_type="application/json")
    fake.add_route("GET", "s2", "/graph/v1/paper/search/match", status=404,
                   body=fixtures / "upstream/semantic_scholar/search_match_not_found_404.json",
                   content_type="application/json")


def _score(pairs: list[tuple[Labelled, str | None]]) -> tuple[float, float, int, int]:
    """(precision, recall, accepted, right) of (reference, accepted DOI or None) pairs."""
    accepted = [(item, doi) for item, doi in pairs if doi]
    right = sum(1 for item, doi in accepted if doi == item.doi)
    present = sum(1 for item, _ in pairs if not item.absent)
    return right / max(1, len(accepted)), right / max(1, present), len(accepted), right


def _line(name: str, value: str) -> None:
    print(f"{name:<58} {value}", flush=True)


def _doi(outcome) -> str | None:
    if outcome.status != "matched" or outcome.paper is None:
        return None
    return ((outcome.paper.externalIds or {}).get("DOI") or "").lower() or None


def quality(fixtures: Path, labelled: list[Labelled], engine: Engine) -> None:
    from scholar.core import aio
    from scholar.services.paper_lookup import match_many
    from tests.fakes.upstream import FakeUpstream

    texts = [item.text for item in labelled]
    with FakeUpstream(fixtures) as fake, pointed_at(fake.base_url):
        _install(fake, fixtures, engine, texts)
        outcomes = aio.run(match_many(dict(enumerate(texts))))  # the process loop: clients kept, as deployed
    ours = [(item, _doi(outcomes[i])) for i, item in enumerate(labelled)]
    first = [(item, (top[0].doi if (top := engine.top(item.text[:1000])) else None)) for item in labelled]
    present = sum(1 for item in labelled if not item.absent)
    _line("labelled references (record in index / absent)", f"{len(labelled)} ({present} / {len(labelled) - present})")
    for name, pairs in (("checked match (ours)", ours), ("baseline: Crossref's first hit as is", first)):
        precision, recall, accepted, right = _score(pairs)
        _line(f"{name}: precision / recall", f"{precision:.3f} / {recall:.3f}   accepted {accepted}, right {right}")
    statuses = Counter(o.status for o in outcomes.values())
    _line("  our statuses", ", ".join(f"{k} {v}" for k, v in sorted(statuses.items())))
    by_origin: dict[str, list[tuple[Labelled, str | None]]] = {}
    for item, doi in ours:
        by_origin.setdefault(item.origin, []).append((item, doi))
    for origin, pairs in by_origin.items():
        precision, recall, accepted, _ = _score(pairs)
        _line(f"  {origin}", f"precision {precision:.3f}  recall {recall:.3f}  (n={len(pairs)})")
    _line("  bars", "precision ≥ 0.98, recall ≥ 0.85")


def timing(fixtures: Path, labelled: list[Labelled], engine: Engine, runs: int = 3) -> None:
    from scholar.core import aio
    from scholar.core.config import get_settings
    from scholar.families.papers.check import check_references
    from scholar.families.papers.spec_check import CheckReferencesInput
    from tests.fakes.upstream import FakeUpstream

    texts = [item.text for item in labelled[:100]]
    with FakeUpstream(fixtures) as fake, pointed_at(fake.base_url):
        os.environ["SCHOLAR_PACE_SCALE"] = "1"  # paced as in production (pointed_at turns pacing off; it restores)
        get_settings.cache_clear()
        _install(fake, fixtures, engine, texts)
        fake.set_latency(0.0, per_source=LATENCY)
        took, made = [], []
        for _ in range(runs):  # no cache table: every run asks the upstream again
            before = len(fake.requests)
            began = time.perf_counter()
            result = aio.run(check_references(CheckReferencesInput(references=texts)))
            took.append(time.perf_counter() - began)
            made.append(len(fake.requests) - before)
        by_source = Counter(r.source for r in fake.requests[-made[-1] :])
    median = statistics.median(took)
    _line("check_references, 100 references, paced, realistic latency",
          f"median {median:6.2f} s   n={runs}   bar 15 s ({'ok' if median <= 15 else 'OVER'})")
    per_source = ", ".join(f"{k} {v}" for k, v in sorted(by_source.items()))
    _line("  upstream requests per check", f"{made[-1]} ({per_source})")
    _line("  summary", json.dumps(result.summary))


def main(fixtures: Path) -> None:
    labelled = labelled_set(fixtures)
    engine = Engine(index(labelled, fixtures))
    quality(fixtures, labelled, engine)
    timing(fixtures, labelled, engine)
