"""download_paper's download step: every location at once against one after another (issue 12, item 2).

Four PDF locations on web hosts answer the fake upstream's added latency (default 200 ms per request), each
serving a real PDF of ../shared/fixtures/pdfs. ``scholar.services.fulltext.keep_step.download_best`` downloads, checks
(pdfium) and keeps the best of them; the same call with ``CONCURRENCY = 1`` is the serial baseline. None of the
locations is the preferred version, so every one is tried in both runs.

``python -m benchmarks.download_bench [--runs N] [--latency S]``
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.common import in_process_stack, report, run_from_command_line

REPO = Path(__file__).resolve().parents[1]
DEFAULT_FIXTURES = Path(os.environ.get("SCHOLAR_FIXTURES_DIR", REPO.parent / "shared" / "fixtures"))
RUNS = 5
LATENCY_S = 0.2


def _time(candidates: list, runs: int) -> list[float]:
    from scholar.services.fulltext import keep_step

    times = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as dest:
            start = time.perf_counter()
            found = asyncio.run(keep_step.download_best(candidates, "published", dest))
            times.append((time.perf_counter() - start) * 1000)
        assert found.pdf is not None and len(found.also_found) == len(candidates) - 1, found.attempts
    return times


def main(fixtures: Path, runs: int = RUNS, latency_s: float = LATENCY_S) -> None:
    with in_process_stack(fixtures) as fake:
        from scholar.services.fulltext import keep_step
        from scholar.services.fulltext.models import Candidate
        from scholar.web import fetch
        from tests.pdf.test_pipeline_machine import web_access

        os.environ["SCHOLAR_TEST_ALLOW_HOSTS"] = fake.base_url.removeprefix("http://")
        fetch.set_web_access(web_access(fake))
        pdfs = sorted((fixtures / "pdfs").glob("arxiv_*.pdf"))[:4]
        candidates = []
        for number, pdf in enumerate(pdfs):
            host = f"repo{number}.example.org"
            fake.add_route("GET", "web", f"/{host}/paper.pdf", body=pdf, content_type="application/pdf")
            candidates.append(Candidate(source="unpaywall", url=f"https://{host}/paper.pdf", version="submitted"))
        fake.set_latency(latency_s)
        try:
            at_once = _time(candidates, runs)
            keep_step.CONCURRENCY, concurrency = 1, keep_step.CONCURRENCY
            try:
                serial = _time(candidates, runs)
            finally:
                keep_step.CONCURRENCY = concurrency
        finally:
            fetch.set_web_access(None)
    label = f"{len(candidates)} locations, {latency_s * 1000:g} ms each"
    report(f"download_paper download step, at once ({label})", at_once)
    report(f"download_paper download step, one by one ({label})", serial)
    print(f"{'':<58} at once {statistics.median(serial) / statistics.median(at_once):.1f}x faster", flush=True)


if __name__ == "__main__":
    run_from_command_line(main, __doc__, DEFAULT_FIXTURES, RUNS, LATENCY_S)
