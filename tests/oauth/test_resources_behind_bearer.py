"""In OAuth mode resources, prompts and completions sit behind the same bearer check as tools.

Without a token each of their methods is the same 401 challenge ``tools/list`` gets; a forged token is refused
as ``invalid_token``; a read-only token reads them (none of them changes anything); and the token's subject is
the caller, so one person's library item is no resource of another's (-32602 with the URI, as a URI that never
existed) and their collections complete for them only.
"""

from __future__ import annotations

from typing import Any

import pytest

from scholar.gateway.bearer.scopes import READ

pytestmark = pytest.mark.e2e

PNAS_DOI = "10.1073/pnas.1414271111"
NEVER = "scholar://library/lib_00000000000000000000"
RELATED = {"type": "ref/prompt", "name": "related_work_section"}
CALLS = {
    "resources/list": {},
    "resources/templates/list": {},
    "resources/read": {"uri": NEVER},
    "prompts/list": {},
    "prompts/get": {"name": "explain_paper", "arguments": {"identifier": PNAS_DOI}},
    "completion/complete": {"ref": RELATED, "argument": {"name": "collection", "value": ""}},
}


def _body(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 7, "method": method, "params": params}


def _answer(flow, token: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    response = flow.mcp(token, _body(method, params))
    assert response.status_code == 200, response.text
    return response.json()


def _token(flow, login: str, **scope: str) -> str:
    client_id = flow.client_id()
    code, verifier, _ = flow.code(client_id, login, **scope)
    answer = flow.exchange(client_id, code, verifier)
    assert answer.status_code == 200, answer.text
    return answer.json()["access_token"]


@pytest.mark.parametrize("method", list(CALLS))
def test_without_a_valid_token_each_method_gets_the_challenge_tools_get(flow, method):
    tools = flow.mcp(None)
    missing = flow.mcp(None, _body(method, CALLS[method]))
    forged = flow.mcp("not-a-jwt", _body(method, CALLS[method]))

    assert (tools.status_code, missing.status_code, forged.status_code) == (401, 401, 401)
    assert missing.headers["www-authenticate"] == tools.headers["www-authenticate"]
    assert 'error="invalid_token"' in forged.headers["www-authenticate"]
    assert "result" not in missing.text and "result" not in forged.text


def test_a_read_only_token_lists_reads_and_completes(flow):
    token = _token(flow, "reader", scope=READ)

    for method, params in CALLS.items():
        answer = _answer(flow, token, method, params)
        if method == "resources/read":
            assert answer["error"]["code"] == -32602 and answer["error"]["data"]["uri"] == NEVER
        else:
            assert "result" in answer, (method, answer)


def test_the_tokens_subject_is_the_caller_of_resources_and_completions(flow):
    alice, bob = _token(flow, "res-alice"), _token(flow, "res-bob")
    added = _answer(flow, alice, "tools/call", {"name": "library_add", "arguments": {
        "identifier": PNAS_DOI, "collection": "oauth-resources"}})
    uri = f"scholar://library/{added['result']['structuredContent']['item']['item_id']}"

    def seen_by(token: str) -> tuple[set[str], dict[str, Any], list[str]]:
        listed = _answer(flow, token, "resources/list", {})["result"]["resources"]
        read = _answer(flow, token, "resources/read", {"uri": uri})
        completed = _answer(flow, token, "completion/complete", {
            "ref": RELATED, "argument": {"name": "collection", "value": "oauth-"}})
        return {r["uri"] for r in listed}, read, completed["result"]["completion"]["values"]

    alice_uris, alice_read, alice_collections = seen_by(alice)
    bob_uris, bob_read, bob_collections = seen_by(bob)
    never = _answer(flow, bob, "resources/read", {"uri": NEVER})

    assert uri in alice_uris and uri not in bob_uris
    assert alice_read["result"]["contents"][0]["uri"] == uri
    assert (bob_read["error"]["code"], bob_read["error"]["data"]["uri"]) == (-32602, uri)
    assert bob_read["error"]["message"].replace(uri, "<uri>") == never["error"]["message"].replace(NEVER, "<uri>")
    assert (alice_collections, bob_collections) == (["oauth-resources"], [])
