"""The 2026-07-28 routing headers must mirror the body: a request without ``Mcp-Method``, or whose ``Mcp-Method`` or
``Mcp-Name`` differs from its method or name, is 400 with HeaderMismatch (-32020), even when the tools/list memo holds
the answer (issue #23 item 6; the conformance scenario ``http-header-validation``). The 2025-11-25 era is unchanged."""

from __future__ import annotations

import base64
import json
from typing import Any

import httpx
import pytest
from mcp.types import HEADER_MISMATCH

from scholar.gateway.mcp.checks import routing_refusal
from tests.security.conftest import GatewayServer

MODERN, LEGACY = "2026-07-28", "2025-11-25"
META = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}
TOOL = "no_such_tool"  # answered "unknown tool" by the gateway itself: no family function is needed


def post(server: GatewayServer, method: str, params: dict[str, Any] | None = None, *, meta: bool = True,
         **headers: str) -> httpx.Response:
    body_params = {**(params or {}), **({"_meta": META} if meta else {})}
    body = json.dumps({"jsonrpc": "2.0", "id": 11, "method": method, "params": body_params})
    sent = {"accept": "application/json, text/event-stream", "content-type": "application/json", **headers}
    with httpx.Client(timeout=30, trust_env=False) as client:
        return client.post(server.url, content=body, headers=sent)


@pytest.fixture
def warm(gateway_server: GatewayServer) -> GatewayServer:
    """A server whose tools/list memo holds the 2026 answer (a well-formed request was served first)."""
    ok = post(gateway_server, "tools/list", **{"mcp-protocol-version": MODERN, "mcp-method": "tools/list"})
    assert ok.status_code == 200 and "result" in ok.json()
    return gateway_server


def assert_mismatch(response: httpx.Response) -> None:
    assert response.status_code == 400
    assert response.json()["error"]["code"] == HEADER_MISMATCH
    assert response.json()["id"] == 11


@pytest.mark.parametrize(
    "headers",
    [
        {"mcp-protocol-version": MODERN},  # no Mcp-Method (the suite's failing check)
        {"mcp-protocol-version": MODERN, "mcp-method": "prompts/list"},
        {"mcp-protocol-version": MODERN, "mcp-method": "TOOLS/LIST"},  # values are case-sensitive
        {"mcp-protocol-version": MODERN, "mcp-method": "tools/list/"},
        {"mcp-method": "tools/list"},  # the _meta says 2026-07-28, the version header is missing
        {"mcp-protocol-version": LEGACY, "mcp-method": "tools/list"},  # … or names the other era
    ],
)
def test_a_2026_tools_list_whose_headers_do_not_mirror_it_is_refused_even_when_memoised(warm, headers) -> None:
    assert_mismatch(post(warm, "tools/list", **headers))


def test_a_2026_request_without_meta_or_mcp_method_is_refused(warm) -> None:
    assert_mismatch(post(warm, "tools/list", meta=False, **{"mcp-protocol-version": MODERN}))


@pytest.mark.parametrize("name", [None, "wrong_tool_name", TOOL.upper(), ""])
def test_a_2026_tools_call_whose_mcp_name_is_missing_or_differs_is_refused(gateway_server, name) -> None:
    headers = {"mcp-protocol-version": MODERN, "mcp-method": "tools/call"}
    if name is not None:
        headers["mcp-name"] = name
    assert_mismatch(post(gateway_server, "tools/call", {"name": TOOL, "arguments": {}}, **headers))


@pytest.mark.parametrize(
    "headers",
    [
        {"MCP-Protocol-Version": MODERN, "MCP-METHOD": "tools/call", "MCP-NAME": TOOL},  # names: any case
        {"mcp-protocol-version": MODERN, "mcp-method": "tools/call",
         "mcp-name": "=?base64?" + base64.b64encode(TOOL.encode()).decode() + "?="},
    ],
)
def test_a_2026_tools_call_whose_headers_mirror_it_is_answered(gateway_server, headers) -> None:
    response = post(gateway_server, "tools/call", {"name": TOOL, "arguments": {}}, **headers)
    assert response.status_code == 200
    assert response.json()["result"]["isError"] is True  # the gateway's own "unknown tool", past the headers


def test_the_2025_era_needs_no_routing_headers(warm) -> None:
    listed = post(warm, "tools/list", meta=False, **{"mcp-protocol-version": LEGACY})
    called = post(warm, "tools/call", {"name": TOOL, "arguments": {}}, meta=False, **{"mcp-protocol-version": LEGACY})
    assert listed.status_code == 200 and "tools" in listed.json()["result"]
    assert called.status_code == 200 and called.json()["result"]["isError"] is True


# -- the rule, on scopes ---------------------------------------------------------------------------------------


def scope(**headers: str) -> dict[str, Any]:
    return {"headers": [(k.encode(), v.encode()) for k, v in headers.items()]}


def message(method: str, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": META}}


@pytest.mark.parametrize(("method", "key"), [("prompts/get", "name"), ("resources/read", "uri")])
def test_prompts_get_and_resources_read_mirror_their_name_too(method: str, key: str) -> None:
    value = "scholar://paper/10.1000%2Fx" if key == "uri" else "literature_review"
    base = {"mcp-protocol-version": MODERN, "mcp-method": method}
    assert routing_refusal(scope(**base, **{"mcp-name": value}), message(method, **{key: value})) is None
    assert routing_refusal(scope(**base), message(method, **{key: value})).code == HEADER_MISMATCH
    assert routing_refusal(scope(**base, **{"mcp-name": "other"}), message(method, **{key: value})) is not None


def test_whitespace_around_a_routing_header_value_is_not_part_of_it() -> None:
    # RFC 9110 §5.5 (h11 drops it before the app; an API Gateway event may keep it). httpx will not send it.
    headers = scope(**{"mcp-protocol-version": MODERN, "mcp-method": " tools/call\t", "mcp-name": f"  {TOOL}  "})
    assert routing_refusal(headers, message("tools/call", name=TOOL, arguments={})) is None


def test_a_routing_header_sent_twice_is_a_mismatch() -> None:
    twice = {"headers": [(b"mcp-protocol-version", MODERN.encode()), (b"mcp-method", b"tools/list"),
                         (b"mcp-method", b"tools/list")]}
    assert routing_refusal(twice, message("tools/list")).code == HEADER_MISMATCH


def test_a_2026_notification_is_left_to_the_sdk() -> None:
    note = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"_meta": META}}
    assert routing_refusal(scope(**{"mcp-protocol-version": MODERN}), note) is None
