"""Fixtures of the security tests: the fake upstream behind the proxy base, reset around every test."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
import uvicorn

from tests.fixtures.servers import fake_fixture, fake_upstream_fixture

CONTACT = "security-tests@example.org"


fake_server = fake_upstream_fixture(scope="module", name="fake_server")
# Every source under the fake upstream (``SCHOLAR_UPSTREAM_PROXY_BASE``), no cache, no retries.
fake = fake_fixture(upstream="fake_server", settings={
    "SCHOLAR_RETRY_BUDGET_S": "0",
    "SCHOLAR_CONTACT_EMAIL": CONTACT,
    "SCHOLAR_CACHE_TABLE": None,
    "SCHOLAR_TASK_TABLE": None,
    "SCHOLAR_ARTIFACT_BUCKET": None,
})


@dataclass
class GatewayServer:
    """The gateway's local ASGI app on uvicorn (no AWS stand-in: tools/list and protocol edges only)."""

    url: str
    host_header: str


@pytest.fixture(scope="module")
def gateway_server() -> Iterator[GatewayServer]:
    from scholar.gateway.mcp.app import create_app
    from scholar.local.server import listening_socket

    sock = listening_socket("127.0.0.1", 0)
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(local=True), log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    started = threading.Event()
    for _ in range(1500):  # bounded: 30 s
        if server.started or not thread.is_alive():
            break
        started.wait(0.02)
    assert server.started, "the gateway did not start"
    try:
        yield GatewayServer(url=f"http://127.0.0.1:{port}/mcp", host_header=f"127.0.0.1:{port}")
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()
