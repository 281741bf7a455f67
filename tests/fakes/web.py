"""The web, in tests: hosts that are not our sources (publishers, repositories) answered by the fake upstream.

A PDF location such as ``https://www.pnas.org/content/...pdf`` is fetched through the SSRF guard
(``scholar.web.fetch``). ``web_access(fake)`` keeps the guard in the path: a fake resolver answers a public
documentation address for every name (so no socket ever opens to it), and the vetted request is then carried to
the fake upstream under ``/web/<host>/<path>``, where tests add routes with ``fake.add_route("GET", "web", ...)``.
"""

from __future__ import annotations

import ssl
from collections.abc import Sequence
from functools import cache

import httpx

from scholar.web import fetch
from tests.fakes.upstream import FakeUpstream


async def public_resolver(host: str, port: int) -> Sequence[str]:
    """Every name resolves to a public documentation address; WebToFake never connects to it."""
    return ["93.184.216.34"]


@cache
def _tls() -> ssl.SSLContext:
    """One TLS context for every inner transport: the fake is plain HTTP on loopback, so none is ever used, and
    httpx builds a new one per transport otherwise (the CA bundle read again: 20-90 ms for each PDF fetched)."""
    return ssl.create_default_context()


class WebToFake(httpx.AsyncBaseTransport):
    """Carries a vetted request for ``https://<host>/<path>`` to ``<fake>/web/<host>/<path>`` (the web, in tests)."""

    def __init__(self, base_url: str) -> None:
        self._base = httpx.URL(base_url)
        self._inner = httpx.AsyncHTTPTransport(verify=_tls())

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        host = request.headers["Host"].split(":")[0]
        url = self._base.copy_with(path=f"/web/{host}{request.url.path}", query=request.url.query or None)
        headers = [(k, v) for k, v in request.headers.items() if k.lower() != "host"]
        forwarded = httpx.Request(request.method, url, headers=headers)
        return await self._inner.handle_async_request(forwarded)

    async def aclose(self) -> None:
        await self._inner.aclose()


def web_access(fake: FakeUpstream | str) -> fetch.WebAccess:
    """What ``fetch.set_web_access`` takes so that every web host is answered by ``fake`` (or the fake at that URL,
    from another process)."""
    base_url = fake if isinstance(fake, str) else fake.base_url
    return fetch.WebAccess(resolver=public_resolver, transport=lambda: WebToFake(base_url))
