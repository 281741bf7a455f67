"""One citation graph (issue 39, item 1): edges per paper from S2 alone beside the merged graph, on recorded papers.

Each paper's references or citations are read through get_references / get_citations (``list_papers``, limit 100)
against the fake upstream serving the recordings, once with ``SCHOLAR_CITATION_SOURCES=s2`` (S2 alone, as before)
and once with every graph source. Recorded bodies are served at the paths our clients ask (the recordings' own
paths differ): Crossref's PLOS work with its deposited references, Europe PMC's citations of PMID 15723116 (recorded
at the legacy path-style URL of the same endpoint), INSPIRE's record 1842768 with its references, behind a
SYNTHETIC search envelope holding that record as its one hit. S2's recorded reference and citation pages answer
for the two papers S2 has recordings of; S2 has no record of the other three (the fake's 404), which is the
S2-less case: S2 alone gives nothing, the merged graph gives their lists.

Search's expansion at realistic latency (S2 400 ms, OpenAlex 300 ms injected at the fake, pacing off): 5 seeds with
S2 and OpenAlex ids, the S2 batch (SYNTHETIC rows: the recorded PNAS record five times) beside OpenAlex's two OR-filter
requests (answered by its recorded title-search list), S2 alone against the merged graph, median of 7. Whole-search
latency before and after the change is the review bench (``python -m benchmarks review``), run on both trees.

Run: ``python -m benchmarks graph``.
"""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.common import pointed_at

PAPERS = (  # (identifier, list, what the recordings hold)
    ("10.2139/ssrn.2250500", "references", "S2's recorded reference page"),
    ("CorpusId:14514057", "citations", "S2's recorded citation page"),
    ("10.1371/journal.pone.0033693", "references", "Crossref's deposited references; no S2 record"),
    ("PMID:15723116", "citations", "Europe PMC's citations; no S2 record"),
    ("10.1016/j.nuclphysa.2021.122138", "references", "INSPIRE's references; no S2 record"),
)
ALL = "s2,openalex,crossref,europepmc,inspire"


def _line(name: str, value: str) -> None:
    print(f"{name:<58} {value}", flush=True)


def _install(fake, fixtures: Path) -> None:
    """The recordings at the paths our clients ask (explicit routes: the newest wins, so catch-alls go first)."""
    up = fixtures / "upstream"
    json_type = "application/json"
    # Nothing for any other INSPIRE search (SYNTHETIC empty envelope) or OpenAlex filter (recorded /works lists are
    # title searches only, which would otherwise answer any /works request).
    fake.add_route("GET", "inspire", "/api/literature", body=b'{"hits": {"hits": [], "total": 0}}',
                   content_type=json_type)
    fake.add_route("GET", "openalex", "/works", body=b'{"meta": {"count": 0}, "results": []}', content_type=json_type)
    fake.add_route("GET", "s2", "/graph/v1/paper/DOI:10.2139/ssrn.2250500/references",
                   body=up / "semantic_scholar/paper_references_offset0.json", content_type=json_type)
    fake.add_route("GET", "s2", "/graph/v1/paper/CorpusId:14514057/citations",
                   body=up / "semantic_scholar/paper_citations_offset0.json", content_type=json_type)
    plos = up / "crossref/works_by_doi_plos.json"
    fake.add_route("GET", "crossref", "/works/10.1371/journal.pone.0033693", body=plos,
                   content_type=json_type)
    fake.add_route("GET", "europepmc", "/europepmc/webservices/rest/MED/15723116/citations",
                   body=up / "europepmc/citations_MED_15723116_page1.json", content_type=json_type)
    record = json.loads((up / "inspire/literature_record_1842768.json").read_text())
    fake.add_route("GET", "inspire", "/api/literature", query={"q": "doi:10.1016/j.nuclphysa.2021.122138", "size": "1",
                   "fields": _inspire_fields()}, body=json.dumps({"hits": {"hits": [record], "total": 1}}).encode(),
                   content_type=json_type)
    fake.add_route("GET", "inspire", "/api/literature/1842768", body=up / "inspire/literature_record_1842768.json",
                   content_type=json_type)


def _inspire_fields() -> str:
    from scholar.sources.inspire import SEARCH_FIELDS

    return SEARCH_FIELDS


def _edges(identifier: str, kind: str) -> tuple[int, list[str], str]:
    from scholar.core import aio
    from scholar.core.errors import ScholarError
    from scholar.families.papers import citations
    from scholar.families.papers.spec_graph import GetCitationsInput, GetReferencesInput

    model = GetCitationsInput if kind == "citations" else GetReferencesInput
    try:
        result = aio.run(citations.list_papers(kind, model(identifier=identifier, limit=100)))  # type: ignore[arg-type]  # kind and model chosen together above
    except ScholarError as err:
        return 0, [], err.code
    return len(result.data), result.sources, "partial" if result.partial else "ok"


def _expansion(fixtures: Path) -> None:
    import statistics
    import time

    from scholar.core import aio
    from scholar.core.paper_pool import Pool
    from scholar.core.records import Paper
    from scholar.families.research.search.expand import expand
    from scholar.families.research.search.fanout import Queues
    from tests.fakes.upstream import FakeUpstream

    up = fixtures / "upstream"
    record = json.loads((up / "semantic_scholar/paper_by_doi_many_fields_pnas.json").read_text())
    times: dict[str, list[float]] = {}
    asked: dict[str, int] = {}
    added: dict[str, int] = {}
    with FakeUpstream(fixtures) as fake:
        fake.add_route("POST", "s2", "/graph/v1/paper/batch", body=json.dumps([record] * 5).encode(),
                       content_type="application/json")
        fake.add_route("GET", "openalex", "/works", body=up / "openalex/works_filter_title_search.json",
                       content_type="application/json")
        fake.set_latency(0.0, per_source={"s2": 0.4, "openalex": 0.3})
        for sources in ("s2", ALL):
            before = fake.count(source="openalex")
            with pointed_at(fake.base_url, env={"SCHOLAR_CITATION_SOURCES": sources}):
                for _ in range(7):
                    pool = Pool()
                    seeds = [pool.add(Paper(paperId=f"{i:040x}", title=f"Seed paper number {i}",
                                            externalIds={"OpenAlex": f"W{i + 1}"}, sources=["s2"]), "s2")
                             for i in range(5)]
                    began = time.perf_counter()
                    done = aio.run(expand(pool, seeds, intent="foundational", queues=Queues()))
                    times.setdefault(sources, []).append(time.perf_counter() - began)
                    assert not done.failed, done.failed
                    added[sources] = done.added
            asked[sources] = fake.count(source="openalex") - before
    alone, merged = statistics.median(times["s2"]), statistics.median(times[ALL])
    _line("search expansion, 5 seeds (S2 400 ms, OpenAlex 300 ms)", f"S2 alone p50 {alone:.2f} s   merged p50 "
          f"{merged:.2f} s   ratio {merged / alone:.2f}x")
    _line("  works added per expansion / OpenAlex requests (7 runs)", f"S2 alone {added['s2']} / {asked['s2']}   "
          f"merged {added[ALL]} / {asked[ALL]}")


def main(fixtures: Path) -> None:
    from tests.fakes.upstream import FakeUpstream

    print("== graph (issue 39 item 1: one citation graph from five sources) ==", flush=True)
    rows = []
    with FakeUpstream(fixtures) as fake:
        _install(fake, fixtures)
        for sources in ("s2", ALL):
            with pointed_at(fake.base_url, env={"SCHOLAR_CITATION_SOURCES": sources}):
                rows.append([_edges(identifier, kind) for identifier, kind, _ in PAPERS])
    totals = [0, 0]
    for (identifier, kind, what), alone, merged in zip(PAPERS, rows[0], rows[1], strict=True):
        totals[0] += alone[0]
        totals[1] += merged[0]
        _line(f"{kind} of {identifier}", f"S2 alone {alone[0]:>3} ({alone[2]})   merged {merged[0]:>3} "
              f"from {'+'.join(merged[1]) or '-'} ({merged[2]})")
        _line(f"  {what}", "")
    _line("edges on the recorded papers (limit 100 each)", f"S2 alone {totals[0]}   merged {totals[1]}   "
          f"ratio {totals[1] / max(totals[0], 1):.2f}x")
    _expansion(fixtures)


if __name__ == "__main__":
    import sys

    from benchmarks.__main__ import main as run_all

    sys.exit(run_all(["graph", *sys.argv[1:]]))
