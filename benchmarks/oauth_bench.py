"""OAuth mode: the gateway's bearer check per request (warm), and what a client's first connection costs.

Run: ``python -m benchmarks oauth`` (``make bench`` runs it with the others). On the local stack
(``SCHOLAR_AUTH_MODE=OAuth``: moto's KMS signs for real, the AuthTable in moto):

1. warm bearer check: ``scholar.gateway.mcp.access.authenticate`` on one event loop for a token of an active family —
   header parse, RS256 verification with the cached public key, claims, the family-status cache (the default
   30 s interval: no read) — and ``verify_access_token`` alone. Bar: median ≤ 1 ms.
2. a first connection by the MCP SDK's ``OAuthClientProvider`` (DCR, and CIMD over loopback HTTPS): every HTTP
   request from the 401 to the first answered ``tools/list``, counted on the client (the SDK's requests, then
   the "browser's" redirects), with the wall time. moto's KMS and DynamoDB stand in for AWS, so the time says
   little about AWS; the round trips are what carries over.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import report

REPEAT = 2000
BAR_MS = 1.0


def _token(base: str) -> str:
    import httpx

    from tests.oauth.flow import Flow

    with httpx.Client(timeout=30, trust_env=False) as http:
        flow = Flow(base=base, http=http)
        return flow.tokens(flow.client_id())["access_token"]


async def _bearer_checks(url: str, token: str, repeat: int) -> tuple[list[float], list[float]]:
    from scholar.core.config import get_settings
    from scholar.gateway.bearer import urls
    from scholar.gateway.bearer.verify import verify_access_token
    from scholar.gateway.mcp import access as bearer

    scope: dict[str, Any] = {"type": "http", "path": "/mcp", "headers": []}
    headers = {b"authorization": f"Bearer {token}".encode()}
    key_id = get_settings().oauth.signing_key or ""
    base = urls.public_base(scope)
    for _ in range(20):
        caller = await bearer.authenticate(scope, headers)
        assert isinstance(caller, bearer.Caller), caller
    whole, verify = [], []
    for _ in range(repeat):
        began = time.perf_counter()
        await bearer.authenticate(scope, headers)
        whole.append((time.perf_counter() - began) * 1000)
        began = time.perf_counter()
        verify_access_token(token, key_id=key_id, issuer=base, audience=f"{base}/mcp")
        verify.append((time.perf_counter() - began) * 1000)
    return whole, verify


async def _first_connection(url: str, login: str, metadata_url: str | None) -> tuple[float, list[str], int]:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from tests.oauth.test_sdk_client_e2e import Memory, provider

    sent: list[str] = []

    async def count(request: Any) -> None:
        sent.append(f"{request.method} {request.url.path}")

    auth = provider(url, login, Memory(), metadata_url=metadata_url)
    began = time.perf_counter()
    async with (httpx2.AsyncClient(auth=auth, trust_env=False, timeout=60, event_hooks={"request": [count]}) as http,
                Client(streamable_http_client(url, http_client=http)) as client):
        await client.list_tools()
        elapsed = (time.perf_counter() - began) * 1000
    return elapsed, sent, auth.browser.requests  # type: ignore[attr-defined]


def _print_connection(name: str, elapsed: float, sent: list[str], browser_steps: int) -> None:
    steps = ", ".join(sent)
    print(f"{name:<58} {elapsed:8.1f} ms   {len(sent)} client requests + {browser_steps} browser requests",
          flush=True)
    print(f"    {steps}", flush=True)


def main(fixtures: Path | None = None, repeat: int = REPEAT) -> None:
    from scholar.local.server import LocalServer
    from tests.oauth.tls import DocumentServer

    os.environ.setdefault("SCHOLAR_PACE_SCALE", "0")
    with tempfile.TemporaryDirectory() as folder, DocumentServer(Path(folder)) as documents:
        server = LocalServer(extra_env={"SCHOLAR_AUTH_MODE": "OAuth", "SCHOLAR_TEST_ALLOW_HOSTS": documents.host,
                                        "SCHOLAR_TEST_CA_FILE": str(documents.ca_file)})
        server.start()
        try:
            base = server.url.removesuffix("/mcp")
            whole, verify = asyncio.run(_bearer_checks(server.url, _token(base), repeat))
            report("bearer check per request (authenticate, warm)", whole, BAR_MS)
            report("  of which RS256 verification + claims (PyJWT)", verify)
            runs: list[tuple[float, list[str], int]] = []
            for attempt in range(3):
                runs.append(asyncio.run(_first_connection(server.url, f"bench-dcr-{attempt}", None)))
            elapsed = statistics.median(r[0] for r in runs)
            # The browser follows authorize → stand-in sign-in → callback → the client's redirect URI.
            _print_connection("first connection, DCR client (median of 3)", elapsed, runs[-1][1], runs[-1][2])
            document = documents.url("/bench-client.json")
            documents.serve("/bench-client.json", json.dumps({
                "client_id": document, "client_name": "bench", "redirect_uris": ["http://127.0.0.1:9/callback"],
                "grant_types": ["authorization_code", "refresh_token"], "token_endpoint_auth_method": "none",
            }).encode(), {"cache-control": "max-age=300"})
            cimd = asyncio.run(_first_connection(server.url, "bench-cimd", document))
            _print_connection("first connection, CIMD client (document fetched once)", cimd[0], cimd[1], cimd[2])
        finally:
            server.close()



if __name__ == "__main__":
    main()
