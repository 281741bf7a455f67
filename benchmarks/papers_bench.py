"""Papers figures (DESIGN §9, issue 3): upstream requests against the API's minimum, and graph wall time.

- batch_resolve of 100 DOIs: S2 knows 60, OpenAlex 30 of the rest, Crossref the last 10. The least the APIs
  allow is ⌈100/500⌉ S2 batch + ⌈40/50⌉ OpenAlex OR-filter + 10 Crossref lookups (Crossref has no batch by DOI).
- get_citation_graph, depth 2, 100 nodes (a seed, 9 citing papers, 10 citing each of those): the least is one
  list request per expanded node (10) + ⌈100/500⌉ batch.
- the same graph with 100 ms injected upstream latency, concurrent (ours) against a serial baseline.

Requests are counted at the fake upstream (FakeUpstream.count). The graph and the S2/OpenAlex answers are
SYNTHETIC, built from the recorded record shapes (tests/papers/synthetic_graph.py); Crossref serves the
recorded PLOS work. Pacing is off (SCHOLAR_PACE_SCALE=0): with the real S2 pace of 1 request/s the wall
time is set by the pace, and concurrency only hides latency inside it.
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

from benchmarks.common import pointed_at

PLOS = "upstream/crossref/works_by_doi_plos.json"


def _line(name: str, value: str) -> None:
    print(f"{name:<58} {value}", flush=True)


def batch_resolve_requests(fixtures: Path) -> None:
    from scholar.core import aio
    from scholar.families.papers.batch import batch_resolve
    from scholar.families.papers.spec_export import BatchResolveInput
    from tests.fakes.upstream import FakeUpstream

    dois = [f"10.5555/bench.{i}" for i in range(100)]
    record = json.loads((fixtures / "upstream/semantic_scholar/paper_by_doi_many_fields_pnas.json").read_text())
    work = json.loads((fixtures / "upstream/openalex/work_by_doi_pnas.json").read_text())
    s2_rows = [{**record, "paperId": f"{i:040x}", "externalIds": {"DOI": d}} if i < 60 else None
               for i, d in enumerate(dois)]
    works = [{**work, "doi": f"https://doi.org/{d}", "id": f"https://openalex.org/W{i}"} for i, d in
             enumerate(dois[60:90])]
    with FakeUpstream(fixtures) as fake, pointed_at(fake.base_url):
        fake.add_route("POST", "s2", "/graph/v1/paper/batch", body=json.dumps(s2_rows).encode(),
                       content_type="application/json")
        fake.add_route("GET", "openalex", "/works", body=json.dumps({"meta": {}, "results": works}).encode(),
                       content_type="application/json")
        for doi in dois[90:]:
            fake.add_route("GET", "crossref", f"/works/{doi}", body=fixtures / PLOS, content_type="application/json")
        result = aio.run(batch_resolve(BatchResolveInput(identifiers=dois)))
        assert result.counts == {"ok": 100}, result.counts
        counts = {s: fake.count(source=s) for s in ("s2", "openalex", "crossref")}
    minimum = {"s2": 1, "openalex": 1, "crossref": 10}
    total, least = sum(counts.values()), sum(minimum.values())
    _line("batch_resolve 100 DOIs: upstream requests", f"{total} (s2 {counts['s2']}, openalex {counts['openalex']}, "
          f"crossref {counts['crossref']})   minimum {least}   ratio {total / least:.2f}")


def _tree(fixtures: Path):
    from tests.papers.synthetic_graph import SyntheticGraph, recorded_papers

    papers = recorded_papers(fixtures)[:100]
    ids = [p["paperId"] for p in papers]
    seed, level1, level2 = ids[0], ids[1:10], ids[10:100]
    cites = {pid: [seed] for pid in level1}
    for i, pid in enumerate(level2):
        cites[pid] = [level1[i // 10]]
    return SyntheticGraph(papers, cites), seed


def graph_requests_and_time(fixtures: Path, runs: int = 5) -> None:
    from scholar.core import aio
    from scholar.families.papers.graph import citation_graph
    from scholar.families.papers.spec_graph import GetCitationGraphInput
    from tests.fakes.upstream import FakeUpstream

    graph, seed = _tree(fixtures)
    args = GetCitationGraphInput(seed_ids=[seed], depth=2, max_nodes=100)
    with FakeUpstream(fixtures) as fake, pointed_at(fake.base_url):
        graph.install_fake(fake, batches=[graph.bfs(seed, 2)])
        result = aio.run(citation_graph(args))
        assert len(result.nodes) == 100 and not result.stats.truncated, result.stats
        made = fake.count(source="s2")
        least = result.stats.expanded + 1
        _line("citation graph depth 2, 100 nodes: upstream requests",
              f"{made} (expanded {result.stats.expanded} + batch)   minimum {least}   ratio {made / least:.2f}")
        fake.set_latency(0.1)
        timings = {}
        for name, concurrency in (("concurrent", 8), ("serial baseline", 1)):
            values = []
            for _ in range(runs):
                began = time.perf_counter()
                aio.run(citation_graph(args, concurrency=concurrency))
                values.append((time.perf_counter() - began) * 1000)
            timings[name] = statistics.median(values)
            _line(f"citation graph, 100 ms upstream latency, {name}", f"median {timings[name]:8.1f} ms   n={runs}")
        _line("  speed-up over the serial baseline", f"{timings['serial baseline'] / timings['concurrent']:.2f}x")


def main(fixtures: Path) -> None:
    print("== papers ==", flush=True)
    batch_resolve_requests(fixtures)
    graph_requests_and_time(fixtures)
