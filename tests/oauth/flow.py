"""Driving the OAuth flow by hand (httpx): registration, PKCE, sign-in by login_hint, tokens, calls to /mcp."""

from __future__ import annotations

import base64
import hashlib
import secrets
from dataclasses import dataclass
from typing import Any

import httpx

REDIRECT = "http://127.0.0.1:9/callback"
MCP_HEADERS = {"accept": "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25"}


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


@dataclass
class Flow:
    """One OAuth client against the local server (``base`` = ``http://127.0.0.1:<port>``)."""

    base: str
    http: httpx.Client

    @property
    def resource(self) -> str:
        return f"{self.base}/mcp"

    def metadata(self) -> dict[str, Any]:
        return self.http.get(f"{self.base}/.well-known/oauth-authorization-server").json()

    def register(self, redirect_uris: list[str] | None = None, **extra: Any) -> httpx.Response:
        body = {"redirect_uris": redirect_uris or [REDIRECT], "token_endpoint_auth_method": "none",
                "client_name": "test client", **extra}
        return self.http.post(f"{self.base}/oauth/register", json=body)

    def client_id(self, **extra: Any) -> str:
        answer = self.register(**extra)
        assert answer.status_code == 201, answer.text
        return answer.json()["client_id"]

    def authorize_params(self, client_id: str, challenge: str, **override: str | None) -> dict[str, str]:
        params = {"response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT, "state": "st-1",
                  "code_challenge": challenge, "code_challenge_method": "S256", "resource": self.resource,
                  "scope": "scholar:read scholar:write", "login_hint": "alice"}
        params.update(override)
        return {k: v for k, v in params.items() if v is not None}

    def authorize(self, params: dict[str, str], *, stop_at: str = REDIRECT) -> httpx.Response:
        """Follow our redirects until one leaves for ``stop_at`` (the client's redirect URI) or a page answers."""
        response = self.http.get(f"{self.base}/oauth/authorize", params=params)
        for _ in range(5):
            location = response.headers.get("location", "")
            if response.status_code != 302 or location.startswith(stop_at):
                return response
            response = self.http.get(location)
        return response

    def code(self, client_id: str, login: str = "alice", **override: str | None) -> tuple[str, str, dict[str, str]]:
        """``(code, verifier, redirect parameters)`` of a consented sign-in of ``login``."""
        verifier, challenge = pkce()
        answer = self.authorize(self.authorize_params(client_id, challenge, login_hint=login, **override))
        assert answer.status_code == 302, answer.text
        params = dict(httpx.URL(answer.headers["location"]).params)
        assert "code" in params, params
        return params["code"], verifier, params

    def token(self, **form: str | None) -> httpx.Response:
        return self.http.post(f"{self.base}/oauth/token", data={k: v for k, v in form.items() if v is not None})

    def exchange(self, client_id: str, code: str, verifier: str, **extra: str | None) -> httpx.Response:
        form = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "client_id": client_id,
                "code_verifier": verifier, "resource": self.resource, **extra}
        return self.token(**form)

    def tokens(self, client_id: str, login: str = "alice") -> dict[str, Any]:
        code, verifier, _ = self.code(client_id, login)
        answer = self.exchange(client_id, code, verifier)
        assert answer.status_code == 200, answer.text
        return answer.json()

    def mcp(self, token: str | None, body: dict[str, Any] | None = None) -> httpx.Response:
        headers = dict(MCP_HEADERS)
        if token is not None:
            headers["authorization"] = f"Bearer {token}"
        return self.http.post(self.resource, json=body or {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                              headers=headers)
