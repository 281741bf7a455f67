"""The MCP Python SDK's own OAuth client against ``SCHOLAR_AUTH_MODE=OAuth`` on the local stack.

``OAuthClientProvider`` discovers everything from the 401 (protected-resource metadata, then the authorization
server's), registers (DCR) or presents a client metadata document URL (CIMD, served over loopback HTTPS), and
signs in; the "browser" is a redirect handler that adds ``login_hint`` (the local stand-in's shortcut) and
follows our redirects to the client's callback. Two people, two clients, two libraries; then a refresh and a
revocation. Semantic Scholar answers come from the recorded responses (PROVENANCE-papers.md).
"""

from __future__ import annotations

import functools
import json
import time
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

from tests.oauth.flow import REDIRECT

pytestmark = pytest.mark.e2e

PNAS_DOI = "10.1073/pnas.1414271111"


class Memory:
    """The SDK's TokenStorage, in memory."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


class Browser:
    """Opens the authorization URL with ``login_hint``, follows our redirects, hands the callback to the SDK."""

    def __init__(self, login: str) -> None:
        self.login = login
        self.visits: list[str] = []
        self.requests = 0
        self.result: AuthorizationCodeResult | None = None

    async def open(self, url: str) -> None:
        self.visits.append(url)
        async with httpx.AsyncClient(timeout=30, trust_env=False) as http:
            response = await http.get(str(httpx.URL(url).copy_add_param("login_hint", self.login)))
            self.requests += 1
            for _ in range(5):
                assert response.status_code == 302, response.text
                location = response.headers["location"]
                if location.startswith(REDIRECT):
                    params = dict(httpx.URL(location).params)
                    self.result = AuthorizationCodeResult(code=params["code"], state=params.get("state"),
                                                          iss=params.get("iss"))
                    return
                response = await http.get(location)
                self.requests += 1
        raise AssertionError("the sign-in never came back to the client")

    async def callback(self) -> AuthorizationCodeResult:
        assert self.result is not None
        return self.result


def provider(url: str, login: str, storage: Memory, *, metadata_url: str | None = None) -> OAuthClientProvider:
    browser = Browser(login)
    metadata = OAuthClientMetadata(redirect_uris=[REDIRECT], client_name=f"sdk e2e ({login})",
                                   grant_types=["authorization_code", "refresh_token"],
                                   token_endpoint_auth_method="none")
    made = OAuthClientProvider(url, metadata, storage, redirect_handler=browser.open,
                               callback_handler=browser.callback, client_metadata_url=metadata_url)
    made.browser = browser  # type: ignore[attr-defined]  # the test reads what the browser saw
    return made


async def session(url: str, auth: OAuthClientProvider, calls: list[tuple[str, dict[str, Any]]],
                  *, expire_first: bool = False) -> list[Any]:
    """Each call's structuredContent (after tools/list), made through one SDK client with this provider."""
    with anyio.fail_after(180):
        async with (httpx2.AsyncClient(auth=auth, trust_env=False, timeout=60) as http,
                    Client(streamable_http_client(url, http_client=http)) as client):
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert "library_add" in names
            results = []
            for tool, arguments in calls:
                if expire_first:
                    auth.context.token_expiry_time = time.time() - 1  # the SDK refreshes before the next call
                result = await client.call_tool(tool, arguments)
                assert not result.is_error, result.structured_content
                results.append(result.structured_content)
            return results


def test_two_people_connect_with_dcr_and_cimd_and_each_sees_only_their_library(oauth_server, documents):
    url = oauth_server.url
    alice_storage, bob_storage = Memory(), Memory()
    alice = provider(url, "alice", alice_storage)
    added, alice_list = anyio.run(session, url, alice, [
        ("library_add", {"identifier": PNAS_DOI, "collection": "reading"}),
        ("library_list", {}),
    ])
    assert alice_storage.client is not None and alice_storage.client.client_id.startswith("dcr_")
    assert alice.browser.visits and alice.browser.result.iss == url.removesuffix("/mcp")
    item_id = added["item"]["item_id"]
    assert [entry["item_id"] for entry in alice_list["items"]] == [item_id]

    document_url = documents.url("/sdk-client.json")
    documents.serve("/sdk-client.json", json.dumps({
        "client_id": document_url, "client_name": "sdk e2e (bob)", "redirect_uris": [REDIRECT],
        "grant_types": ["authorization_code", "refresh_token"], "token_endpoint_auth_method": "none",
    }).encode(), {"cache-control": "max-age=300"})
    bob = provider(url, "bob", bob_storage, metadata_url=document_url)
    bob_list, bob_get, bob_tasks = anyio.run(session, url, bob, [
        ("library_list", {}), ("library_get", {"ids": [item_id]}), ("list_tasks", {})])
    assert bob_storage.client is not None and bob_storage.client.client_id == document_url
    assert "/sdk-client.json" in documents.hits
    assert bob_list["items"] == [] and bob_list["library_items"] == 0
    assert [entry["status"] for entry in bob_get["items"]] == ["not_found"]
    assert bob_tasks.get("tasks", []) == []
    assert bob_storage.tokens.access_token != alice_storage.tokens.access_token


def test_the_sdk_refreshes_and_a_revoked_family_is_refused(oauth_server):
    url = oauth_server.url
    storage = Memory()
    auth = provider(url, "frank", storage)
    anyio.run(session, url, auth, [("library_list", {})])
    first = storage.tokens
    anyio.run(functools.partial(session, expire_first=True), url, auth, [("library_list", {})])
    refreshed = storage.tokens
    assert refreshed.refresh_token != first.refresh_token and refreshed.access_token != first.access_token
    assert len(auth.browser.visits) == 1  # the refresh needed no new sign-in

    base = url.removesuffix("/mcp")
    with httpx.Client(timeout=30, trust_env=False) as http:
        revoked = http.post(f"{base}/oauth/revoke", data={"token": refreshed.refresh_token,
                                                           "client_id": storage.client.client_id})
        assert revoked.status_code == 200
        answer = http.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                           headers={"authorization": f"Bearer {refreshed.access_token}",
                                    "accept": "application/json, text/event-stream"})
    assert answer.status_code == 401 and 'error="invalid_token"' in answer.headers["www-authenticate"]
    assert "the access token was refused (revoked)" in answer.headers["www-authenticate"]
