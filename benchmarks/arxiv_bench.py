"""arXiv HTML render → Markdown cleaning: median time and output size ratio on the recorded render.

Run: ``python -m benchmarks.arxiv_bench [--fixtures DIR] [--repeat N]``. The page is the recorded
arxiv.org/html render of 2501.11120v1 (LaTeXML 0.8.8, ~700 KB); the cleaning runs in-process on one
thread, N times after one warm-up, and the median is reported with the page and Markdown sizes.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# Same rule as tests/fixtures_dir.py: SCHOLAR_FIXTURES_DIR, else ../shared/fixtures.
DEFAULT_FIXTURES = Path(os.environ.get("SCHOLAR_FIXTURES_DIR", REPO.parent / "shared" / "fixtures"))
RENDER = Path("upstream") / "arxiv_html" / "html_2501.11120v1.html"


def measure(html: str, repeat: int) -> tuple[list[float], str]:
    """Seconds per cleaning (``repeat`` runs after a warm-up) and the Markdown produced."""
    from scholar.families.arxiv.markdown import html_to_markdown

    markdown = html_to_markdown(html)  # warm-up: imports, lxml parser
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        html_to_markdown(html)
        times.append(time.perf_counter() - start)
    return times, markdown


def main(argv: list[str] | Path | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fixtures", type=Path, default=DEFAULT_FIXTURES)
    parser.add_argument("--repeat", type=int, default=20)
    # `python -m benchmarks` passes the fixtures folder; the command line passes options.
    args = parser.parse_args(["--fixtures", str(argv)] if isinstance(argv, Path) else argv)
    page = args.fixtures / RENDER
    if not page.is_file():
        print(f"arxiv_bench: no recorded render at {page} (set SCHOLAR_FIXTURES_DIR); skipped")
        return 0
    html = page.read_text(encoding="utf-8")
    times, markdown = measure(html, args.repeat)
    median_ms = statistics.median(times) * 1000
    print("arXiv HTML → Markdown cleaning (2501.11120v1, LaTeXML render) — one thread")
    spread = f"min {min(times) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms, n={len(times)}"
    print(f"  median {median_ms:.1f} ms  ({spread})")
    print(f"  page {len(html):,} chars → Markdown {len(markdown):,} chars: {len(html) / len(markdown):.2f}x smaller")
    print(f"  throughput {len(html) / 1e6 / statistics.median(times):.1f} M chars of HTML per second")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
