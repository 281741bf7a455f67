"""The local server names itself exactly: a Host or Origin that only starts like one of its names is refused
(issue #22 item 1), on every method of both protocol eras and on the landing page, before the SDK."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from scholar.gateway.mcp.checks import FORBIDDEN, INVALID_REQUEST, MISDIRECTED, own_hosts, rebinding_refusal
from tests.security.conftest import GatewayServer

LEGACY, MODERN = "2025-11-25", "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}
# The five methods the hostile trial sent, with the params each needs to be a well-formed request.
METHODS = {
    "tools/list": {},
    "initialize": {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "trial", "version": "1"}},
    "tools/call": {"name": "no_such_tool", "arguments": {}},
    "tasks/list": {},
    "ping": {},
}


def request(server: GatewayServer, era: str, method: str, **headers: str) -> httpx.Response:
    """One JSON-RPC request as a client of ``era`` sends it (2026: ``_meta`` and the routing headers)."""
    params: dict[str, Any] = dict(METHODS[method])
    sent = {"accept": "application/json, text/event-stream", "content-type": "application/json",
            "host": server.host_header}
    if era == MODERN:
        params["_meta"] = META
        sent.update({"mcp-protocol-version": MODERN, "mcp-method": method})
        if "name" in params:
            sent["mcp-name"] = params["name"]
    elif method != "initialize":
        sent["mcp-protocol-version"] = LEGACY
    body = json.dumps({"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
    with httpx.Client(timeout=30, trust_env=False) as client:
        return client.post(server.url, content=body, headers={**sent, **headers})


def port_of(server: GatewayServer) -> str:
    return server.host_header.rsplit(":", 1)[1]


CELLS = [(era, method) for era in (LEGACY, MODERN) for method in METHODS]


@pytest.mark.parametrize(("era", "method"), CELLS)
def test_a_host_that_only_starts_like_this_servers_is_misdirected(gateway_server, era, method) -> None:
    response = request(gateway_server, era, method, host=f"{gateway_server.host_header}@evil.example")
    assert response.status_code == MISDIRECTED
    assert response.json()["error"]["code"] == INVALID_REQUEST


@pytest.mark.parametrize(("era", "method"), CELLS)
def test_an_origin_that_only_starts_like_this_servers_is_forbidden(gateway_server, era, method) -> None:
    response = request(gateway_server, era, method, origin=f"http://{gateway_server.host_header}.evil.example")
    assert response.status_code == FORBIDDEN
    assert response.json()["error"]["code"] == INVALID_REQUEST


# tasks/list needs a TaskTable, which this server (no AWS stand-in) has not; initialize and ping are not methods of
# the 2026 era (the SDK answers them "method not found").
ANSWERED = [(e, m) for e, m in CELLS if m != "tasks/list" and not (e == MODERN and m in ("initialize", "ping"))]


@pytest.mark.parametrize(("era", "method"), ANSWERED)
def test_this_servers_own_host_and_origin_are_answered(gateway_server, era, method) -> None:
    response = request(gateway_server, era, method, origin=f"http://{gateway_server.host_header}")
    assert response.status_code == 200
    assert "result" in response.json()


@pytest.mark.parametrize("host", ["evil.example", "{own}@evil.example", "{own}.evil.example", "localhost.:{port}"])
def test_the_landing_page_is_not_served_under_a_foreign_host(gateway_server, host: str) -> None:
    host = host.format(own=gateway_server.host_header, port=port_of(gateway_server))
    with httpx.Client(timeout=30, trust_env=False) as client:
        response = client.get(gateway_server.url.removesuffix("/mcp") + "/", headers={"host": host})
    assert response.status_code == MISDIRECTED
    assert "evil.example" not in response.text


def test_the_landing_page_is_served_under_this_servers_own_host(gateway_server) -> None:
    with httpx.Client(timeout=30, trust_env=False) as client:
        response = client.get(gateway_server.url.removesuffix("/mcp") + "/",
                              headers={"host": f"localhost:{port_of(gateway_server)}"})
    assert response.status_code == 200
    assert f"http://localhost:{port_of(gateway_server)}/mcp" in response.text


# -- the rule itself, on scopes (every spelling the trial and the brief name) ------------------------------------


def scope(host: str | None, origin: str | None = None, server: tuple[str, int] = ("127.0.0.1", 3100)) -> dict:
    headers = [(b"host", host.encode())] if host is not None else []
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    return {"type": "http", "server": server, "headers": headers}


@pytest.mark.parametrize("host", ["127.0.0.1:3100", "localhost:3100", "[::1]:3100"])
def test_each_loopback_name_with_the_servers_port_is_its_own(host: str) -> None:
    assert rebinding_refusal(scope(host, f"http://{host}")) is None


@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.1:3100@evil.example",  # userinfo-looking suffix
        "user@127.0.0.1:3100",  # userinfo
        "127.0.0.1:3100.evil.example",
        "127.0.0.1:31000",  # another port that starts like ours
        "127.0.0.1:3101",
        "127.0.0.1",  # no port: port 80
        "127.0.0.1:",
        "localhost.:3100",  # trailing dot
        "LOCALHOST:3100",  # a browser writes host names in lower case
        "[::1]",
        "::1:3100",  # IPv6 without brackets
        "[::1]:3100.evil.example",
        "evil.example",
        "",
    ],
)
def test_a_host_that_is_not_exactly_one_of_the_servers_names_is_refused(host: str) -> None:
    refusal = rebinding_refusal(scope(host))
    assert refusal is not None and refusal.status == MISDIRECTED


def test_a_request_without_a_host_or_with_two_is_refused() -> None:
    assert rebinding_refusal(scope(None)) is not None
    twice = {"server": ("127.0.0.1", 3100), "headers": [(b"host", b"127.0.0.1:3100"), (b"host", b"evil.example")]}
    assert rebinding_refusal(twice) is not None


@pytest.mark.parametrize(
    "origin",
    ["http://127.0.0.1:3100.evil.example", "http://127.0.0.1:3100@evil.example", "https://127.0.0.1:3100",
     "http://127.0.0.1:3101", "http://127.0.0.1", "http://LOCALHOST:3100", "http://127.0.0.1:3100/", "null",
     "http://evil.example"],
)
def test_an_origin_that_is_not_exactly_this_servers_is_forbidden(origin: str) -> None:
    refusal = rebinding_refusal(scope("127.0.0.1:3100", origin))
    assert refusal is not None and refusal.status == FORBIDDEN


def test_a_server_on_port_80_is_named_with_or_without_its_port() -> None:
    hosts = own_hosts(("127.0.0.1", 80))
    assert {"127.0.0.1", "127.0.0.1:80", "localhost", "[::1]"} <= hosts
    assert rebinding_refusal(scope("localhost", "http://localhost", server=("127.0.0.1", 80))) is None


def test_a_server_bound_to_a_specific_address_is_named_by_it_too() -> None:
    assert "192.0.2.7:3100" in own_hosts(("192.0.2.7", 3100))
    assert "[fd00::7]:3100" in own_hosts(("fd00::7", 3100))
    assert not any(h.startswith("0.0.0.0") for h in own_hosts(("0.0.0.0", 3100)))
