"""Every secret value this process has loaded, wherever it came from, so that text can be scrubbed of it.

``scholar.sources.http.scrub`` removes these values (and their percent-encoded forms) from upstream text before
it can reach an error message, a log line or a task record. Secrets set in the environment are known
through the settings; a secret read at run time (an SSM parameter, an OAuth token) registers itself
here the moment it is loaded. Kept free of boto3 and httpx: scholar.sources.http imports it on every cold start.
"""

from __future__ import annotations

import threading

from pydantic import SecretStr

__all__ = ["forget_all", "known_secrets", "remember"]

_lock = threading.Lock()
_known: set[str] = set()


def remember(secret: SecretStr | str) -> None:
    """Register a loaded secret value (empty values are ignored)."""
    value = secret.get_secret_value() if isinstance(secret, SecretStr) else secret
    if value:
        with _lock:
            _known.add(value)


def known_secrets() -> frozenset[str]:
    """The secret values registered so far."""
    with _lock:
        return frozenset(_known)


def forget_all() -> None:
    """Forget every registered value (tests)."""
    with _lock:
        _known.clear()
