"""``SCHOLAR_AUTH_MODE=OAuth scholar serve`` (what ``make serve`` runs, the README's way to try the flow) signs a person
in on the local backend (issue 40.8): a client registers, the local OpenID stand-in signs alice in, the code becomes
tokens and the tokens call tools. (The e2e suites run the same flow on both backends through ``oauth_server``.)"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.oauth.flow import Flow

pytestmark = pytest.mark.e2e
START_TIMEOUT_S = 120


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def served(tmp_path, oauth_settings) -> Iterator[str]:
    port = free_port()
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("SCHOLAR_")}, **oauth_settings,
           "SCHOLAR_BACKEND": "local", "SCHOLAR_HOME": str(tmp_path), "SCHOLAR_PORT": str(port)}
    server = subprocess.Popen([sys.executable, "-m", "scholar.local", "serve"], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline and server.poll() is None:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        assert server.poll() is None, server.stderr.read() if server.stderr else ""
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.communicate(timeout=30)


def test_scholar_serve_in_oauth_mode_signs_a_person_in_on_the_local_backend(served):
    with httpx.Client(timeout=30, trust_env=False) as http:
        flow = Flow(base=served, http=http)
        tokens = flow.tokens(flow.client_id())
        listed = flow.mcp(tokens["access_token"])

    assert listed.status_code == 200, listed.text
    assert "get_paper" in listed.text
