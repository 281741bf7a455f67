"""The landing page (GET /): its size, a cold render (template compiled, every tool described) and a cached answer.

Run: ``python -m benchmarks landing`` (``make bench`` runs it with the others). In-process, no server: the
render is ``scholar.gateway.mcp.landing.render_page`` for the whole catalogue; the cached answer is ``landing_page``
for the same URL (what every GET / after the first costs). Bars: the page stays under 100 KB.
"""

from __future__ import annotations

import time
from pathlib import Path

from benchmarks.common import report, timed

MAX_PAGE_BYTES = 100 * 1024
SCOPE = {"type": "http", "path": "/", "scheme": "https", "headers": [(b"host", b"abcdef1234.execute-api.example")]}


def main(fixtures: Path | None = None, repeat: int = 50) -> None:
    from scholar.core.config import get_settings
    from scholar.gateway.mcp import landing

    began = time.perf_counter()
    page = landing.landing_page(SCOPE)  # first page: Jinja2 import, template compile, references
    first_ms = (time.perf_counter() - began) * 1000
    size = len(page)
    verdict = "ok" if size <= MAX_PAGE_BYTES else "OVER"
    print(f"{'landing page size':<58} {size / 1024:8.1f} KB   bar 100 KB ({verdict})")
    print(f"{'landing page, first render (imports incl. mcp, template compile)':<58} {first_ms:8.2f} ms")
    settings = get_settings()
    report("landing page render (warm template, whole catalogue)",
           timed(lambda: landing.render_page(settings, None, "https://h/mcp", []), repeat))
    report("landing page answer from the per-deployment cache", timed(lambda: landing.landing_page(SCOPE), repeat * 20))


if __name__ == "__main__":
    main()
