"""Secrets: the environment's value (local) or SSM Parameter Store's (deployed), fetched once per max age.

``scholar.core.config`` only says which secrets exist and where they are held; this is where an SSM-held one is
read (settings do no I/O). A fetched value is never logged and is scrubbed from upstream text from then on.
"""

from __future__ import annotations

import time

from pydantic import SecretStr

from scholar.core import redaction
from scholar.core.aio import off_loop
from scholar.core.config import Settings, get_settings
from scholar.store import aws

MAX_AGE_S = 300
_cache: dict[str, tuple[float, SecretStr]] = {}


def get_secret(name: str, settings: Settings | None = None) -> SecretStr | None:
    """The secret ``name`` (``"s2_api_key"``): set in the environment, else from its SSM parameter, else None."""
    secrets = (settings or get_settings()).secrets
    if name in secrets.values:
        return secrets.values[name]
    parameter = secrets.parameters.get(name)
    return get_secret_parameter(parameter) if parameter else None


async def aget_secret(name: str, settings: Settings | None = None) -> SecretStr | None:
    """``get_secret`` from a coroutine: an SSM read runs off the event loop; a value set in the environment does not."""
    secrets = (settings or get_settings()).secrets
    if name in secrets.values or name not in secrets.parameters:
        return secrets.values.get(name)
    return await off_loop(get_secret_parameter, secrets.parameters[name])


def get_secret_parameter(name: str) -> SecretStr:
    """The decrypted value of SSM parameter ``name`` (cached for ``MAX_AGE_S``)."""
    now = time.monotonic()
    hit = _cache.get(name)
    if hit and now - hit[0] < MAX_AGE_S:
        return hit[1]
    value = aws.client("ssm").get_parameter(Name=name, WithDecryption=True)["Parameter"]["Value"]
    secret = SecretStr(value)
    redaction.remember(secret)  # scrubbed by value from upstream text from now on (scholar.sources.http.scrub)
    _cache[name] = (now, secret)
    return secret
