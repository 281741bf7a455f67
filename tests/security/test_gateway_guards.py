"""The gateway's edges: the tools/list memo passes the SDK's transport checks, malformed requests get the
protocol's error or a clear 4xx (never a 500, silence or a reset), and a deployed caller without an
identity is refused before the SDK."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from functions.gateway.app import lambda_handler
from scholar.gateway.mcp.checks import INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR
from tests.events import load_event
from tests.security.conftest import GatewayServer

LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def post(server: GatewayServer, body: bytes | dict[str, Any], **headers: str | None) -> httpx.Response:
    """POST to the gateway; a header given as None is not sent at all (not even httpx's default Accept)."""
    merged = {**HEADERS, **headers}
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    with httpx.Client(timeout=30) as client:
        request = client.build_request(
            "POST", server.url, content=content, headers={k: v for k, v in merged.items() if v is not None}
        )
        for name in [k for k, v in merged.items() if v is None]:
            request.headers.pop(name, None)
        return client.send(request)


@pytest.fixture
def warm(gateway_server: GatewayServer) -> GatewayServer:
    """A server whose tools/list memo holds the answer (the SDK served it once)."""
    first = post(gateway_server, LIST)
    assert first.status_code == 200
    assert post(gateway_server, {**LIST, "id": 2}).json()["id"] == 2  # replayed from the memo
    return gateway_server


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"host": "evil.example"}, 421),  # DNS rebinding: a foreign Host
        ({"origin": "http://evil.example"}, 403),  # a foreign Origin
        ({"accept": None}, 406),  # no Accept
        ({"accept": "text/plain"}, 406),
        ({"content-type": "text/plain"}, 400),
        ({"content-type": None}, 400),
    ],
)
def test_a_memoised_tools_list_still_gets_the_transport_checks(
    warm: GatewayServer, headers: dict[str, str | None], status: int
) -> None:
    response = post(warm, {**LIST, "id": 3}, **headers)
    assert response.status_code == status


def test_a_memoised_tools_list_with_a_contradicting_routing_header_goes_to_the_sdk(warm: GatewayServer) -> None:
    modern = {"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list"}
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
    message = {**LIST, "params": {"_meta": meta}}
    assert post(warm, {**message, "id": 4}, **modern).status_code == 200
    assert post(warm, {**message, "id": 5}, **modern).json()["id"] == 5  # memoised for the 2026 era too
    response = post(warm, {**message, "id": 6}, **{**modern, "mcp-method": "tools/call"})
    assert response.status_code != 200 or "error" in response.json()


@pytest.mark.parametrize(
    "body",
    [
        {"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": "x"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": [1, 2]},
        {"jsonrpc": "2.0", "id": 1.5, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": True, "method": "tools/list"},
        {"jsonrpc": "1.0", "id": 3, "method": "tools/list"},
        {"id": 3, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": 7},
        b'{"jsonrpc": "2.0", "id": NaN, "method": "tools/list"}',
        b'{"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"x": Infinity}}',
        b"[" * 100_000,
        b"[" * 100_000 + b"]" * 100_000,
        b"{" * 50_000,
    ],
)
def test_a_malformed_request_gets_a_json_rpc_error_with_a_4xx(gateway_server: GatewayServer, body: Any) -> None:
    response = post(gateway_server, body)
    assert 400 <= response.status_code < 500
    answer = response.json()
    assert answer["jsonrpc"] == "2.0"
    assert answer["error"]["code"] in (PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS)


@pytest.mark.parametrize("version", ["2025-11-25", "2026-07-28"])
@pytest.mark.parametrize(
    ("body", "answered_id"),
    [({"jsonrpc": "2.0", "id": 1.5, "method": "tools/list"}, None),
     ({"jsonrpc": "1.0", "id": 3, "method": "tools/list"}, 3)],
)
def test_each_protocol_era_answers_a_bad_envelope_with_an_error(
    gateway_server: GatewayServer, version: str, body: dict[str, Any], answered_id: int | None
) -> None:
    response = post(gateway_server, body, **{"mcp-protocol-version": version, "mcp-method": "tools/list"})
    assert response.status_code == 400
    assert response.json()["id"] == answered_id
    assert response.json()["error"]["code"] == INVALID_REQUEST


def test_a_20_mb_body_is_answered_413_not_reset(gateway_server: GatewayServer) -> None:
    body = b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"x": "' + b"a" * (20 * 1024 * 1024) + b'"}}'
    response = post(gateway_server, body)
    assert response.status_code == 413


def test_a_20_mb_body_without_a_declared_length_is_answered_413(gateway_server: GatewayServer) -> None:
    def chunks():
        yield b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"x": "'
        for _ in range(20):
            yield b"a" * (1024 * 1024)
        yield b'"}}'

    with httpx.Client(timeout=30) as client:
        response = client.post(gateway_server.url, content=chunks(), headers=HEADERS)
    assert response.status_code == 413


# -- the principal (deployed: an API Gateway event in the scope) -------------------------------------------------


def _invoke(event: dict[str, Any], lambda_context) -> tuple[int, dict[str, Any]]:
    response = lambda_handler(event, lambda_context)
    return response["statusCode"], json.loads(response.get("body") or "{}")


def _without_identity(name: str) -> dict[str, Any]:
    event = load_event(name)
    ctx = event["requestContext"]
    ctx.pop("authorizer", None)
    if "identity" in ctx:
        ctx["identity"]["apiKeyId"] = None
        ctx["identity"]["apiKey"] = None
    return event


@pytest.mark.parametrize("name", ["api_rest_v1_tools_list", "api_http_v2_tools_list"])
def test_a_deployed_request_without_an_identity_is_refused_with_401(name: str, lambda_context) -> None:
    status, body = _invoke(_without_identity(name), lambda_context)
    assert status == 401
    assert body["error"]["code"] == INVALID_REQUEST


@pytest.mark.parametrize("name", ["api_rest_v1_tools_call", "api_http_v2_tools_call"])
def test_a_deployed_tool_call_without_an_identity_never_reaches_a_tool(name: str, lambda_context, monkeypatch) -> None:
    from scholar.gateway.mcp import server as gateway_server

    called: list[str] = []

    async def fake_call_tool(spec, tool, *args, **kwargs):  # pragma: no cover  # must not run
        called.append(tool)
        raise AssertionError("a tool ran for an unauthenticated caller")

    monkeypatch.setattr(gateway_server, "call_tool", fake_call_tool)
    status, _ = _invoke(_without_identity(name), lambda_context)
    assert status == 401
    assert called == []


def test_with_auth_mode_none_callers_without_an_identity_share_one_principal(env, lambda_context, monkeypatch) -> None:
    from scholar.gateway.mcp import server as gateway_server
    from scholar.gateway.mcp.principal import SHARED_PRINCIPAL

    env.set(SCHOLAR_SHARED_PRINCIPAL="true")
    principals: list[str] = []

    async def fake_call_tool(spec, tool, arguments, principal, toolsets, **_):
        from mcp import types

        principals.append(principal)
        return types.CallToolResult(content=[types.TextContent(text="{}")], structured_content={})

    monkeypatch.setattr(gateway_server, "call_tool", fake_call_tool)
    event = _without_identity("api_rest_v1_tools_call")
    status, _ = _invoke(event, lambda_context)
    assert status == 200
    assert principals == [SHARED_PRINCIPAL]


def test_an_authenticated_deployed_request_is_bound_to_its_api_key(lambda_context, monkeypatch) -> None:
    from mcp import types

    from scholar.gateway.mcp import server as gateway_server

    principals: list[str] = []

    async def fake_call_tool(spec, tool, arguments, principal, toolsets, **_):
        principals.append(principal)
        return types.CallToolResult(content=[types.TextContent(text="{}")], structured_content={})

    monkeypatch.setattr(gateway_server, "call_tool", fake_call_tool)
    status, _ = _invoke(load_event("api_rest_v1_tools_call"), lambda_context)
    assert status == 200
    assert principals == ["apikey:k7x9q2w4e1"]


def test_the_template_sets_the_shared_principal_only_for_auth_mode_none() -> None:
    from samtranslator.yaml_helper import yaml_parse

    from tests.events import EVENTS

    template = yaml_parse((EVENTS.parent / "template.yaml").read_text())
    variables = template["Resources"]["GatewayFunction"]["Properties"]["Environment"]["Variables"]
    assert variables["SCHOLAR_SHARED_PRINCIPAL"] == {"Fn::If": ["UseNoAuth", "true", {"Ref": "AWS::NoValue"}]}
    assert template["Conditions"]["UseNoAuth"] == {"Fn::Equals": [{"Ref": "AuthMode"}, "None"]}
    assert "SCHOLAR_SHARED_PRINCIPAL" not in template["Globals"]["Function"]["Environment"]["Variables"]
