"""One citation graph (issue 39, item 1): edges per paper from S2 alone beside the merged graph, on recorded papers.

Each paper's references or citations are read through get_references / get_citations (``list_papers``, limit 100)
against the fake upstream serving the recordings, once with ``SCHOLAR_CITATION_SOURCES=s2`` (S2 alone, as before)
and once with every graph source. Recorded bodies are served at the paths our clients ask (the recordings' own
paths differ): Crossref's PLOS work with its deposited references, Europe PMC's citations of PMID 15723116 (recorded
at the legacy path-style URL of the same endpoint), INSPIRE's record 1842768 with its references, behind a
SYNTHETIC search envelope holding that record as its one hit. S2's recorded reference and citation pages answer
for the two papers S2 has recordings of; S2 has no record of the other three (the fake's 404), which is the
S2-less case: S2 alone gives nothing, the merged graph gives their lists.

Search latency before and after the change is the review bench (``python -m benchmarks review``), run on both trees.

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
        result = aio.run(citations.list_papers(kind, model(identifier=identifier, limit=100)))  # type: ignore[arg-type]
    except ScholarError as err:
        return 0, [], err.code
    return len(result.data), result.sources, "partial" if result.partial else "ok"


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


if __name__ == "__main__":
    import sys

    from benchmarks.__main__ import main as run_all

    sys.exit(run_all(["graph", *sys.argv[1:]]))
