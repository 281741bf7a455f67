"""``scholar serve`` beyond loopback: only keys the owner made are admitted, each as its own caller; ``scholar keys``
shows a key once and keeps its hash only."""

from __future__ import annotations

import json

import anyio
import httpx
import pytest

from scholar.core.errors import ForbiddenError
from scholar.local import keys
from scholar.local.cli import main
from scholar.local.serving import KeyGuard, is_loopback, serve_http


@pytest.fixture
def home(tmp_path, env):
    env(SCHOLAR_HOME=str(tmp_path / "data"))
    return tmp_path / "data"


async def echo_principal(scope, receive, send) -> None:
    """The app behind the guard: answers with the principal the guard bound."""
    body = json.dumps({"principal": scope.get("scholar.principal")}).encode()
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body})


def post(key: str | None) -> httpx.Response:
    async def request() -> httpx.Response:
        transport = httpx.ASGITransport(app=KeyGuard(echo_principal))
        async with httpx.AsyncClient(transport=transport, base_url="http://lab-server:3000") as client:
            return await client.post("/mcp", headers={"x-api-key": key} if key else {}, json={})

    return anyio.run(request)


def test_a_known_key_is_its_own_caller_and_unknown_or_missing_keys_are_refused(home):
    alice = keys.add_key("alice")
    bob = keys.add_key("bob")

    assert post(alice).json() == {"principal": "key:alice"}
    assert post(bob).json() == {"principal": "key:bob"}
    assert post("sk-scholar-guessed").status_code == 401
    assert post(None).status_code == 401
    keys.remove_key("bob")
    assert post(bob).status_code == 401


def test_keys_are_shown_once_and_stored_hashed_readable_by_the_user_only(home, capsys):
    assert main(["keys", "add", "carol"]) == 0
    key = capsys.readouterr().out.strip()
    assert main(["keys", "list"]) == 0
    listed = capsys.readouterr().out

    stored = (home / keys.KEYS_FILE).read_text()
    assert key.startswith(keys.KEY_PREFIX) and key not in stored
    assert (home / keys.KEYS_FILE).stat().st_mode & 0o077 == 0
    assert listed.startswith("carol\t")
    assert main(["keys", "add", "carol"]) == 2  # the name is taken: invalid_argument


def test_serving_beyond_loopback_without_keys_or_oauth_refuses_to_start(home, env):
    env(SCHOLAR_AUTH_MODE=None)

    with pytest.raises(ForbiddenError):
        serve_http(host="0.0.0.0", port=1)  # refused before any socket is bound

    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.20")
