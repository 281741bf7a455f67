"""Fixtures of the security tests: the fake upstream behind the proxy base, reset around every test."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
import uvicorn

from scholar import http
from tests.conftest import Env
from tests.fakes.upstream import FakeUpstream
from tests.fixtures_dir import fixtures_dir

CONTACT = "security-tests@example.org"


@pytest.fixture(scope="module")
def fake_server() -> Iterator[FakeUpstream]:
    with FakeUpstream(fixtures_dir()) as fake:
        yield fake


@pytest.fixture
def fake(fake_server: FakeUpstream, env: Env) -> Iterator[FakeUpstream]:
    """Every source under the fake upstream (``SCHOLAR_UPSTREAM_PROXY_BASE``), no cache, no retries."""
    fake_server.reset()
    env.set(
        SCHOLAR_UPSTREAM_PROXY_BASE=fake_server.base_url,
        SCHOLAR_RETRY_BUDGET_S="0",
        SCHOLAR_CONTACT_EMAIL=CONTACT,
        SCHOLAR_CACHE_TABLE=None,
        SCHOLAR_TASK_TABLE=None,
        SCHOLAR_ARTIFACT_BUCKET=None,
    )
    http.set_transport_factory(None)
    yield fake_server
    fake_server.reset()
    http.set_transport_factory(None)


@dataclass
class GatewayServer:
    """The gateway's local ASGI app on uvicorn (no AWS stand-in: tools/list and protocol edges only)."""

    url: str
    host_header: str


@pytest.fixture(scope="module")
def gateway_server() -> Iterator[GatewayServer]:
    from scholar.local.server import listening_socket
    from scholar.mcp.app import create_app

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
