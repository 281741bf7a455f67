"""Built-in PDF converter: throughput (pages per second per core) and peak memory of one conversion.

Run: ``python -m benchmarks.pdf_bench [--fixtures DIR] [--repeat N]``. Throughput is measured
in-process on one thread (pdfium is single-threaded, so this is per core): the best of N runs per
PDF, then the median over the fixture PDFs. Peak memory is measured in a fresh subprocess per PDF:
the process's peak RSS (``ru_maxrss``, pdfium's C heap included) and the Python heap peak
(``tracemalloc``), each also shown above the baseline after imports.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# Same rule as tests/fixtures_dir.py: SCHOLAR_FIXTURES_DIR, else ../shared/fixtures.
DEFAULT_FIXTURES = Path(os.environ.get("SCHOLAR_FIXTURES_DIR", REPO.parent / "shared" / "fixtures"))

_CHILD = r"""
import json, resource, sys, tracemalloc
from scholar.services.pdftext.convert import convert_pdf
base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
tracemalloc.start()
doc = convert_pdf(sys.argv[1])
_, py_peak = tracemalloc.get_traced_memory()
tracemalloc.stop()
peak_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"pages": doc.page_count, "base_rss_kb": base_rss, "peak_rss_kb": peak_rss, "py_peak": py_peak}))
"""


def _text_pdfs(fixtures: Path) -> list[Path]:
    return sorted(p for p in (fixtures / "pdfs").glob("arxiv_*.pdf"))


def measure_throughput(pdfs: list[Path], repeat: int) -> list[tuple[str, int, float]]:
    """(name, pages, best seconds) per PDF, converted in this process."""
    from scholar.services.pdftext.convert import convert_pdf

    results = []
    for pdf in pdfs:
        convert_pdf(pdf)  # warm-up: imports, pdfium init, page caches
        times = []
        pages = 0
        for _ in range(repeat):
            start = time.perf_counter()
            pages = convert_pdf(pdf).page_count
            times.append(time.perf_counter() - start)
        results.append((pdf.name, pages, min(times)))
    return results


def measure_memory(pdf: Path) -> dict[str, float]:
    """Peak memory of converting ``pdf`` in a fresh interpreter."""
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(pdf)], check=True, capture_output=True, text=True, cwd=REPO
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | Path | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fixtures", type=Path, default=DEFAULT_FIXTURES)
    parser.add_argument("--repeat", type=int, default=3)
    # `python -m benchmarks` passes the fixtures folder; the command line passes options.
    args = parser.parse_args(["--fixtures", str(argv)] if isinstance(argv, Path) else argv)
    pdfs = _text_pdfs(args.fixtures)
    if not pdfs:
        print(f"pdf_bench: no fixture PDFs under {args.fixtures / 'pdfs'} (set SCHOLAR_FIXTURES_DIR); skipped")
        return 0
    print("PDF converter (built-in, pypdfium2) — one thread")
    rates = []
    for name, pages, seconds in measure_throughput(pdfs, args.repeat):
        rate = pages / seconds
        rates.append(rate)
        print(f"  {name:<58} {pages:>3} pages {seconds * 1000:8.1f} ms  {rate:7.1f} pages/s")
    print(f"  median throughput: {statistics.median(rates):.1f} pages/s per core (over {len(rates)} PDFs)")
    print("Peak memory of one conversion (fresh process per PDF)")
    peaks = []
    for pdf in pdfs:
        m = measure_memory(pdf)
        rss_mb = m["peak_rss_kb"] / 1024
        delta_mb = (m["peak_rss_kb"] - m["base_rss_kb"]) / 1024
        py_mb = m["py_peak"] / (1024 * 1024)
        peaks.append(rss_mb)
        print(
            f"  {pdf.name:<58} peak RSS {rss_mb:6.1f} MB (+{delta_mb:5.1f} MB over imports), "
            f"Python heap peak {py_mb:5.1f} MB"
        )
    print(f"  max peak RSS: {max(peaks):.1f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
