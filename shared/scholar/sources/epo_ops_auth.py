"""EPO OPS access: OAuth2 client credentials, one token shared by every instance through the cache.

The token is cached (CacheTable, namespace ``result``) until ``REFRESH_MARGIN_S`` before OPS says it
expires, so all Lambda instances reuse one token instead of each asking for its own.
``access_token(rejected=…)`` drops it and asks again: the client does that once when OPS answers 401 /
``invalid_access_token``. A 400/401 on the token request itself means the consumer key or secret is wrong:
that is ``forbidden`` naming the settings that hold them, never "no results". Secrets never reach a
message, a log or the cache key.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import time
import weakref

from scholar.core.config import get_settings
from scholar.core.errors import ForbiddenError, UnavailableError
from scholar.sources import http
from scholar.store.cache import Cache
from scholar.store.secrets import get_secret

logger = logging.getLogger(__name__)

SOURCE = "epo_ops"
TOKEN_PATH = "/3.2/auth/accesstoken"
KEY_SETTING = "epo_consumer_key"
SECRET_SETTING = "epo_consumer_secret"
SETTINGS_HINT = (
    "Check SCHOLAR_EPO_CONSUMER_KEY and SCHOLAR_EPO_CONSUMER_SECRET (deployed: the SSM parameters named by "
    "EpoConsumerKeyParameter / EpoConsumerSecretParameter); keys come from https://developers.epo.org."
)
REFRESH_MARGIN_S = 60
_CACHE_KEY = "epo_ops:access_token"
# Without a CacheTable (scripts, unit tests) the token is still reused within the process.
_process: dict[str, dict[str, object]] = {}
# One token request at a time per event loop (an asyncio.Lock belongs to the loop it is used on).
_locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = weakref.WeakKeyDictionary()


def forget() -> None:
    """Drop the process's copy of the token (tests; the shared one stays in the cache)."""
    _process.clear()


def configured() -> bool:
    """Whether both EPO credentials are set (the patent tools are hidden otherwise)."""
    secrets = get_settings().secrets
    return secrets.has(KEY_SETTING) and secrets.has(SECRET_SETTING)


def _basic() -> str:
    settings = get_settings()
    key, secret = get_secret(KEY_SETTING, settings), get_secret(SECRET_SETTING, settings)
    if key is None or secret is None:
        raise UnavailableError(
            "EPO OPS credentials are not configured, so patent tools are unavailable", source=SOURCE, hint=SETTINGS_HINT
        )
    pair = f"{key.get_secret_value()}:{secret.get_secret_value()}".encode()
    return "Basic " + base64.b64encode(pair).decode()


def _lock() -> asyncio.Lock:
    loop = asyncio.get_running_loop()
    lock = _locks.get(loop)
    if lock is None:
        lock = _locks[loop] = asyncio.Lock()
    return lock


def _held(cache: Cache) -> str | None:
    held = _process.get("token") or cache.get("result", _CACHE_KEY)
    if isinstance(held, dict) and float(str(held.get("expires_at", 0))) > time.time():
        return str(held["token"])
    return None


async def access_token(*, rejected: str | None = None) -> str:
    """A valid bearer token: the shared cached one, or a new one from ``/auth/accesstoken``.

    Concurrent callers of one instance wait for a single token request. ``rejected`` is a token OPS just
    refused: it is dropped (once, whoever notices first) and a new one is asked for.

    Raises:
        ForbiddenError: OPS refused the consumer key / secret.
        UnavailableError: the credentials are not configured.
        UpstreamError, RateLimitedError: the token request failed (see ``scholar.sources.http.request``).
    """
    cache = Cache()
    async with _lock():
        token = _held(cache)
        if token is not None and token != rejected:
            return token
        if token is not None:
            _process.clear()
            await cache.adelete("result", _CACHE_KEY)
        return await _new_token(cache)


async def _new_token(cache: Cache) -> str:
    response = await http.request(
        SOURCE,
        "POST",
        TOKEN_PATH,
        content="grant_type=client_credentials",
        headers={"Authorization": _basic(), "Content-Type": "application/x-www-form-urlencoded"},
    )
    if response.status_code in (400, 401, 403):
        raise ForbiddenError(
            f"EPO OPS refused the consumer key and secret (HTTP {response.status_code})",
            source=SOURCE,
            status=response.status_code,
            reason="credentials_refused",
            hint=SETTINGS_HINT,
        )
    http.raise_for_status(SOURCE, response, what="access token")
    body = http.parse_json(SOURCE, response)
    token = body.get("access_token") if isinstance(body, dict) else None
    if not token:
        raise ForbiddenError("EPO OPS answered the token request without a token", source=SOURCE, hint=SETTINGS_HINT)
    lifetime = int(float(body.get("expires_in") or 1200))
    keep_s = max(1, lifetime - REFRESH_MARGIN_S)
    held = {"token": token, "expires_at": time.time() + keep_s}
    _process["token"] = held
    await cache.aput("result", _CACHE_KEY, held, ttl_s=keep_s)
    logger.info("new EPO OPS access token (valid %ss)", lifetime)
    return str(token)
