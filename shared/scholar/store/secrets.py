"""Secrets from SSM Parameter Store (deployed): fetched once per environment with a max age, never logged."""

from __future__ import annotations

import time

from pydantic import SecretStr

from scholar import redaction
from scholar.store import aws

MAX_AGE_S = 300
_cache: dict[str, tuple[float, SecretStr]] = {}


def get_secret_parameter(name: str) -> SecretStr:
    """The decrypted value of SSM parameter ``name`` (cached for ``MAX_AGE_S``)."""
    now = time.monotonic()
    hit = _cache.get(name)
    if hit and now - hit[0] < MAX_AGE_S:
        return hit[1]
    value = aws.client("ssm").get_parameter(Name=name, WithDecryption=True)["Parameter"]["Value"]
    secret = SecretStr(value)
    redaction.remember(secret)  # scrubbed by value from upstream text from now on (scholar.http.scrub)
    _cache[name] = (now, secret)
    return secret
