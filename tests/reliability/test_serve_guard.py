"""``scholar serve`` bound beyond loopback admits only its owner's keys, checked on the real server (issue #40
item 12): the command runs as a user starts it (a subprocess, no PYTHONPATH), bound to 0.0.0.0, and is reached on
127.0.0.1. Before, only a guard the test built itself was tested, so serving without it stayed green.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import httpx

from scholar.local import keys
from scholar.local.http_app import listening_socket

HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_serve_beyond_loopback_refuses_a_request_without_a_known_key_and_admits_the_owners(tmp_path, env):
    home = tmp_path / "home"
    env(SCHOLAR_HOME=str(home))
    key = keys.add_key("alice")
    port = _free_port()
    child = {k: v for k, v in os.environ.items() if not k.startswith("SCHOLAR_") and k != "PYTHONPATH"}
    child.update(SCHOLAR_HOME=str(home), SCHOLAR_BACKEND="local", SCHOLAR_HOST="0.0.0.0", SCHOLAR_PORT=str(port))
    server = subprocess.Popen(
        [sys.executable, "-m", "scholar.local", "serve"],
        env=child,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert server.stdout is not None
        banner = server.stdout.readline()
        assert "keys required" in banner, banner
        url = f"http://127.0.0.1:{port}/mcp"
        without = httpx.post(url, json=PING, headers=HEADERS, timeout=30)
        guessed = httpx.post(url, json=PING, headers=HEADERS | {"x-api-key": "sk-scholar-guessed"}, timeout=30)
        owners = httpx.post(url, json=PING, headers=HEADERS | {"x-api-key": key}, timeout=30)
    finally:
        server.terminate()  # the process this test started, by its own handle
        server.wait(timeout=30)
        if server.stdout is not None:
            server.stdout.close()
    assert (without.status_code, guessed.status_code) == (401, 401)
    assert without.json()["error"]["code"] == "forbidden"
    assert owners.status_code != 401


def test_the_served_socket_listens_before_the_banner_so_a_client_that_connects_at_once_is_queued_not_refused():
    """`scholar serve` prints where it is before uvicorn's loop starts: a socket bound but not listening refused the
    client that believed the banner (seen in CI on a loaded machine)."""
    with listening_socket("127.0.0.1", 0) as sock, socket.create_connection(sock.getsockname(), timeout=5):
        pass
