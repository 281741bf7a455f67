"""Research search figures (DESIGN §9, issue 11): upstream requests of one search, concurrency, merge throughput.

- One search (six sources + expansion): upstream requests counted at the fake upstream, against the design's
  minimum of one request per source plus one per expansion hop (references + citations share one
  ``/paper/batch``; recommendations are one more POST).
- Wall time with 200 ms injected per request: the search as it runs (concurrent fan-out, per-source queues)
  against the same requests made one after another (replayed serially from the fake's request log).
- Merge throughput: records per second folded into one pool, on 2,000 SYNTHETIC records made from the recorded
  Europe PMC, OpenAlex, Crossref and arXiv records (ids and titles varied; every third record is a second copy
  of an earlier paper under another source, with the DOI written differently).

Sources answer with their recordings; S2 search rows and the INSPIRE search envelope are SYNTHETIC in the
recorded shapes (the S2 recordings carry one field each; INSPIRE was recorded as a single record). Pacing is
off (SCHOLAR_PACE_SCALE=0) and there is no cache table. Run: ``python -m benchmarks research``.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from pathlib import Path
from urllib.parse import quote

from benchmarks.common import pointed_at

LATENCY_S = 0.2


def _line(name: str, value: str) -> None:
    print(f"{name:<58} {value}", flush=True)


def install_search_routes(fake, fixtures: Path) -> None:
    """Explicit routes for what the recordings lack (synthetic, in the recorded shapes)."""
    up = fixtures / "upstream"
    crossref = json.loads((up / "crossref/works_query_title_rows1.json").read_text())["message"]["items"][0]
    cited = [i["citedPaper"] for i in json.loads((up / "semantic_scholar/paper_references_offset0.json").read_text())
             ["data"]]
    s2_row = {"paperId": "5e1a2c3b4d5e6f708192a3b4c5d6e7f809102132", "title": crossref["title"][0], "year": 2015,
              "externalIds": {"DOI": crossref["DOI"]}, "citationCount": 3,
              "authors": [{"name": f"{a['given']} {a['family']}"} for a in crossref["author"]]}
    fake.add_route("GET", "s2", "/graph/v1/paper/search", content_type="application/json",
                   body=json.dumps({"total": 1, "offset": 0, "data": [s2_row]}).encode())
    batch = [{**s2_row, "paperId": f"{i:040x}", "references": cited[:10], "citations": cited[10:20]}
             for i in range(5)]
    fake.add_route("POST", "s2", "/graph/v1/paper/batch", body=json.dumps(batch).encode(),
                   content_type="application/json")
    fake.add_route("POST", "s2", "/recommendations/v1/papers/", content_type="application/json",
                   body=up / "semantic_scholar/recommendations_from_lists.json")
    record = json.loads((up / "inspire/literature_record_1842768.json").read_text())
    fake.add_route("GET", "inspire", "/api/literature", content_type="application/json",
                   body=json.dumps({"hits": {"hits": [record], "total": 1}}).encode())
    fake.add_route("GET", "openalex", "/works", content_type="application/json",
                   body=up / "openalex/works_filter_title_search.json")


def _search(question: str):
    from scholar.core import aio
    from scholar.families.research.search.federated import search
    from scholar.families.research.search.pages import ResultSets
    from scholar.families.research.search.spec import SearchInput

    return aio.run(search(SearchInput(query=question, limit=20), "bench", sets=ResultSets()))


async def _replay_serially(base_url: str, requests) -> None:
    import httpx

    async with httpx.AsyncClient(timeout=30) as client:
        for r in requests:
            url = f"{base_url}/{r.source}{quote(r.path, safe='/:')}"
            await client.request(r.method, url, params=list(r.query), content=r.body or None)


def search_requests_and_time(fixtures: Path, runs: int = 3) -> None:
    from tests.fakes.upstream import FakeUpstream

    question = "copper thin film oxide layers tensile properties"
    with FakeUpstream(fixtures) as fake, pointed_at(fake.base_url, unset=("SCHOLAR_RERANK_URL",)):
        install_search_routes(fake, fixtures)
        result = _search(question)
        assert not result.partial, result.failed_sources
        made = len(fake.requests)
        hops = 1 + ("recommendations" in result.expansion)
        least = len(result.sources_answered) + hops
        _line("one search, 6 sources + expansion: upstream requests",
              f"{made} (searches {len(result.sources_answered)}, hops {made - len(result.sources_answered)})   "
              f"minimum {least}   ratio {made / least:.2f}")
        log = list(fake.requests)
        fake.set_latency(LATENCY_S)
        concurrent, serial = [], []
        for _ in range(runs):
            began = time.perf_counter()
            _search(question)
            concurrent.append((time.perf_counter() - began) * 1000)
            began = time.perf_counter()
            asyncio.run(_replay_serially(fake.base_url, log))
            serial.append((time.perf_counter() - began) * 1000)
        c, s = statistics.median(concurrent), statistics.median(serial)
        _line("search, 200 ms per request, concurrent (ours)", f"median {c:8.1f} ms   n={runs}")
        _line("same requests one after another", f"median {s:8.1f} ms   n={runs}")
        _line("  speed-up over the serial baseline", f"{s / c:.2f}x   (bar: 3x)")


def synthetic_records(fixtures: Path, count: int = 2000):
    """``count`` SYNTHETIC Paper records from the recorded shapes; every third repeats an earlier paper."""
    from scholar.core.paper_mapping import from_crossref, from_europepmc, from_openalex

    up = fixtures / "upstream"
    templates = [from_europepmc(r) for r in json.loads((up / "europepmc/search_cancer_core.json").read_text())
                 ["resultList"]["result"]]
    templates.append(from_openalex(json.loads((up / "openalex/works_filter_title_search.json").read_text())
                                   ["results"][0]))
    templates += [from_crossref(i) for i in json.loads((up / "crossref/works_query_ecology_rows2.json").read_text())
                  ["message"]["items"]]
    sources = ("europepmc", "openalex", "crossref", "arxiv_api", "inspire", "s2")
    out = []
    for i in range(count):
        if i % 3 == 2:
            j = i - 2
            doi = f"https://doi.org/10.5555/BENCH.{j}"  # the same DOI, written as a URL in capitals
            base = out[j][0]
            out.append((base.model_copy(update={"externalIds": {"DOI": doi}}), sources[(j + 1) % len(sources)]))
            continue
        paper = templates[i % len(templates)]
        title = f"{paper.title or 'Untitled'} (variant {i})"
        out.append((paper.model_copy(update={"title": title, "externalIds": {"DOI": f"10.5555/bench.{i}"}}),
                    sources[i % len(sources)]))
    return out


def merge_throughput(fixtures: Path, runs: int = 3) -> None:
    from scholar.core.paper_pool import Pool

    records = synthetic_records(fixtures)
    rates, works = [], 0
    for _ in range(runs):
        pool = Pool()
        began = time.perf_counter()
        for paper, source in records:
            pool.add(paper, source)
        rates.append(len(records) / (time.perf_counter() - began))
        works = len(pool.alive())
    _line(f"merge {len(records)} synthetic records into one pool", f"median {statistics.median(rates):9.0f} records/s"
          f"   ({works} distinct works)   n={runs}")


def main(fixtures: Path) -> None:
    print("== research ==", flush=True)
    search_requests_and_time(fixtures)
    merge_throughput(fixtures)


if __name__ == "__main__":
    import sys

    from benchmarks.__main__ import main as run_all

    sys.exit(run_all(["research", *sys.argv[1:]]))
