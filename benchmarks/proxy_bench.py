"""The library proxy flow for one licensed paper: how many requests, and how long at a realistic latency (issue 38).

The fake EZproxy (tests.fakes.library_proxy) serves a real PDF of ../shared/fixtures/pdfs behind its sign-in form;
every request it answers waits ``--latency`` first (default 100 ms: a campus proxy in front of a publisher). Two
flows through ``scholar.web.proxy_fetch.fetch_via_proxy``, each through the SSRF guard: a session already held (the
DOI, the publisher's landing, its citation_pdf_url) and a sign-in first (the proxy's redirect to its form and the
form's POST on top).

``python -m benchmarks.proxy_bench [--runs N] [--latency S]``
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import httpx
from pydantic import SecretStr

from benchmarks.common import report, run_from_command_line

REPO = Path(__file__).resolve().parents[1]
DEFAULT_FIXTURES = Path(os.environ.get("SCHOLAR_FIXTURES_DIR", REPO.parent / "shared" / "fixtures"))
RUNS = 5
LATENCY_S = 0.1
URL = "https://doi.org/10.5555/licensed.1"


class _Slow(httpx.AsyncBaseTransport):
    """The fake proxy's transport, each answer after ``latency_s``."""

    def __init__(self, inner: httpx.AsyncBaseTransport, latency_s: float) -> None:
        self._inner, self._latency_s = inner, latency_s

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(self._latency_s)
        return await self._inner.handle_async_request(request)


def _run(ezproxy, latency_s: float, *, signed_in: bool) -> tuple[float, int]:  # the fake, from tests
    from scholar.core.library_proxy import parse_proxy
    from scholar.web.proxy_fetch import ProxySignIn, fetch_via_proxy
    from tests.fakes.library_proxy import COOKIE, NAME, public_resolver

    cookies = {COOKIE: ezproxy.session()} if signed_in else {}
    start = time.perf_counter()
    got = asyncio.run(
        fetch_via_proxy(
            parse_proxy(NAME),
            URL,
            cookies=cookies,
            sign_in=ProxySignIn("alice", SecretStr("correct horse")),
            max_bytes=50_000_000,
            timeout_s=30,
            resolver=public_resolver,
            transport=_Slow(ezproxy.transport(), latency_s),
            user_agent="scholar-bench",
        )
    )
    return (time.perf_counter() - start) * 1000, got.requests


def main(fixtures: Path, runs: int = RUNS, latency_s: float = LATENCY_S) -> None:
    from tests.fakes.library_proxy import FakeLibraryProxy

    pdf = (fixtures / "pdfs" / "arxiv_2305.03393v1_page9_only.pdf").read_bytes()
    ezproxy = FakeLibraryProxy(pdf=pdf)
    label = f"{latency_s * 1000:g} ms per request"
    for signed_in, name in ((True, "session held"), (False, "sign-in first")):
        measured = [_run(ezproxy, latency_s, signed_in=signed_in) for _ in range(runs)]
        counts = sorted({count for _, count in measured})
        report(f"library proxy, one paper, {name} ({label})", [ms for ms, _ in measured])
        print(f"{'':<58} requests per paper: {', '.join(map(str, counts))}", flush=True)


if __name__ == "__main__":
    run_from_command_line(main, __doc__, DEFAULT_FIXTURES, RUNS, LATENCY_S)
