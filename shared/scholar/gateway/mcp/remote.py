"""A client of another Scholar deployment's ``/mcp`` (``scholar library push`` / ``pull``): the SDK's streamable HTTP
client with an API key (``x-api-key``) or OAuth, its failures translated once, here, into our errors.

The non-obvious constraint: the SDK reports a refused key (HTTP 401/403), a page that is not MCP (404, HTML) and a
port nobody listens on as bare protocol errors inside task groups. A response hook records what the server last
answered, so the translation can say which of them it was and what to do.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx2
from mcp import Client
from mcp.client.auth.exceptions import OAuthFlowError
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from scholar.core.errors import (
    ForbiddenError,
    InternalError,
    InvalidArgumentError,
    ScholarError,
    UnavailableError,
    from_envelope,
)

__all__ = ["API_KEY_HEADER", "RemoteServer", "remote_session"]

API_KEY_HEADER = "x-api-key"
TIMEOUT_S = 120.0  # one call; an import of a large batch is the longest
_REFUSED = frozenset({401, 403})
_NOT_MCP = frozenset({404, 405, 406, 415})


@dataclass
class _Seen:
    """What the server answered last (the response hook writes it)."""

    status: int = 0
    content_type: str = ""

    async def __call__(self, response: httpx2.Response) -> None:
        self.status = response.status_code
        self.content_type = response.headers.get("content-type", "")


class RemoteServer:
    """An open session with a deployment: the tools it lists, and calls that answer a dict or raise our error."""

    def __init__(self, url: str, client: Client, seen: _Seen, tools: frozenset[str]) -> None:
        self.url = url
        self.tools = tools
        self._client = client
        self._seen = seen

    async def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """Run tool ``name`` on the deployment; its ``structuredContent``.

        Raises:
            ScholarError: the tool's error envelope as the error of its code, or the connection's failure.
        """
        try:
            result = await self._client.call_tool(name, arguments)
        except Exception as exc:  # the SDK's and httpx2's failures: translated at this one edge
            raise translate(exc, self.url, self._seen) from exc
        content = result.structured_content
        if result.is_error:
            if isinstance(content, dict) and isinstance(content.get("error"), dict):
                raise from_envelope(content)
            text = " ".join(getattr(block, "text", "") for block in result.content)[:300]
            raise InternalError(f"{name} on {self.url} failed without an error envelope: {text}")
        if not isinstance(content, dict):
            raise InvalidArgumentError(f"{name} on {self.url} answered no structured result: not a Scholar server?",
                                       field="url")
        return content


@asynccontextmanager
async def remote_session(url: str, *, api_key: str | None = None,
                         auth: httpx2.Auth | None = None) -> AsyncIterator[RemoteServer]:
    """A session with the MCP server at ``url`` (tools listed) for the life of the block.

    Args:
        url: the deployment's MCP endpoint (``https://…/mcp``); the caller vets its scheme.
        api_key: sent as ``x-api-key``.
        auth: an httpx2 auth flow instead (the SDK's ``OAuthClientProvider``).

    Raises:
        UnavailableError: nothing answers at ``url`` (or the connection broke).
        ForbiddenError: the server refused the key or the sign-in.
        InvalidArgumentError: (field ``url``) what answers is not an MCP server.
    """
    seen = _Seen()
    headers = {API_KEY_HEADER: api_key} if api_key else {}
    try:
        async with (httpx2.AsyncClient(headers=headers, auth=auth, trust_env=False, timeout=TIMEOUT_S,
                                       event_hooks={"response": [seen]}) as http,
                    Client(streamable_http_client(url, http_client=http)) as client):
            listed = await client.list_tools()
            yield RemoteServer(url, client, seen, frozenset(tool.name for tool in listed.tools))
    except Exception as exc:  # the body's own ScholarError comes out as it is, perhaps inside a task group
        raise translate(exc, url, seen) from exc


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def translate(exc: BaseException, url: str, seen: _Seen) -> BaseException:
    """Our error for a failure of the session with ``url``; an exception we do not know is returned unchanged."""
    leaves = _leaves(exc)
    if found := next((leaf for leaf in leaves if isinstance(leaf, ScholarError)), None):
        return found
    if any(isinstance(leaf, OAuthFlowError) for leaf in leaves):
        detail = next(str(leaf) for leaf in leaves if isinstance(leaf, OAuthFlowError))
        return ForbiddenError(f"signing in to {url} failed: {detail[:200]}", reason="remote_sign_in",
                              hint="Run the command again to sign in anew, or use --api-key.")
    if seen.status in _REFUSED:
        return ForbiddenError(f"{url} refused the credentials (HTTP {seen.status})", status=seen.status,
                              reason="remote_refused",
                              hint="Check the API key (--api-key or SCHOLAR_REMOTE_API_KEY), or sign in with OAuth "
                                   "by giving no key.")
    if isinstance(leaves[0], httpx2.TransportError):
        return UnavailableError(f"cannot reach {url}: {leaves[0]}", retryable=True, reason="remote_unreachable",
                                hint="Check the URL and that the deployment is up.")
    if seen.status in _NOT_MCP or (isinstance(leaves[0], MCPError) and "content type" in str(leaves[0]).lower()):
        answered = f"HTTP {seen.status} {seen.content_type}".strip()
        return InvalidArgumentError(f"{url} is not an MCP endpoint (it answered {answered})", field="url",
                                    reason="not_mcp", hint="Give the deployment's MCP URL, ending in /mcp.")
    if isinstance(leaves[0], MCPError | httpx2.HTTPError):
        return UnavailableError(f"{url} failed: {leaves[0]}", retryable=True, reason="remote_failed")
    return exc
