"""API keys of the stack's usage plan, for the gateway to check itself in OAuth mode (no call per request).

With ``AuthMode=OAuth`` the ``/mcp`` method carries no API Gateway key requirement (API Gateway cannot make a
key optional beside a bearer token), so the gateway checks an ``x-api-key`` header against the keys of the
stack's own usage plan: read once, then again at most every ``REFRESH_S`` seconds, kept only as SHA-256 hashes.
The principal stays ``apikey:<key id>``, as API Gateway names it in ApiKey mode, so a caller's tasks and
library survive a switch between the two modes.
"""

from __future__ import annotations

import threading
import time

from scholar.store import aws
from scholar.store.base import token_hash
from scholar.store.boundary import boto_errors

REFRESH_S = 300.0
_lock = threading.Lock()
_keys: dict[str, tuple[float, dict[str, str]]] = {}


def _load(usage_plan: str) -> dict[str, str]:
    found: dict[str, str] = {}
    with boto_errors("reading the usage plan's API keys"):
        paginator = aws.client("apigateway").get_paginator("get_usage_plan_keys")
        for page in paginator.paginate(usagePlanId=usage_plan):
            for key in page.get("items", []):
                if key.get("type") == "API_KEY" and key.get("value"):
                    found[token_hash(key["value"])] = key["id"]
    return found


def key_id_for(usage_plan: str, presented: str) -> str | None:
    """The id of the usage-plan key whose value is ``presented``, or None.

    Raises:
        UnavailableError: the keys could not be read (and none were read before).
    """
    now = time.monotonic()
    with _lock:
        hit = _keys.get(usage_plan)
        if hit is None or now - hit[0] > REFRESH_S:
            hit = _keys[usage_plan] = (now, _load(usage_plan))
    return hit[1].get(token_hash(presented))


def forget() -> None:
    """Drop the cached keys (tests, a changed environment)."""
    with _lock:
        _keys.clear()
