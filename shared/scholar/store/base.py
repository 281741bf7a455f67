"""What every store shares: its table (or bucket) and client, resolved in one place, and its awaitable face.

A store takes an optional name and client (tests hand it moto-backed ones); otherwise it reads the name
from the settings and takes the environment's client from ``scholar.store.aws`` when first used, never at
import (boto3 loads with the first client). Store methods are synchronous (boto3 is); ``awaitable(method)``
gives one its coroutine twin, the same call made off the event loop (``scholar.core.aio.off_loop``): coroutines
write ``await cache.aget(...)``, sync code (Lambda steps, scripts) ``cache.get(...)``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Coroutine
from typing import Any, ClassVar, Concatenate, ParamSpec, TypeVar

from scholar.core.aio import off_loop
from scholar.core.config import get_settings
from scholar.core.errors import UnavailableError
from scholar.store import aws

S = TypeVar("S", bound="Store")
P = ParamSpec("P")
T = TypeVar("T")


class Store:
    """A table (or bucket) and the client that reaches it.

    Subclasses name the ``Resources`` field that holds their table (``RESOURCE``), the variable that sets it
    (``ENV``, for the "not configured" message) and what it is (``NOUN``).
    """

    RESOURCE: ClassVar[str]
    ENV: ClassVar[str]
    NOUN: ClassVar[str]
    SERVICE: ClassVar[str] = "dynamodb"

    def __init__(self, name: str | None = None, client: Any = None) -> None:
        self._name = name
        self._client = client

    @property
    def client(self) -> Any:
        return self._client or aws.client(self.SERVICE)

    def _configured(self) -> str | None:
        """The name given, else the settings' one; None when neither is set."""
        return self._name or getattr(get_settings().resources, self.RESOURCE)

    def _required(self) -> str:
        """The name, for a store that cannot work without one.

        Raises:
            UnavailableError: no table (bucket) is configured.
        """
        name = self._configured()
        if not name:
            raise self._unconfigured()
        return name

    def _unconfigured(self) -> UnavailableError:
        return UnavailableError(f"no {self.NOUN} is configured ({self.ENV})")


def token_hash(value: str) -> str:
    """The stored form of a secret (a code, refresh token, client secret, API key, connect token): hex SHA-256."""
    return hashlib.sha256(value.encode()).hexdigest()


def awaitable(method: Callable[Concatenate[S, P], T]) -> Callable[Concatenate[S, P], Coroutine[Any, Any, T]]:
    """The coroutine twin of a sync store method: the same call, run on a worker thread.

    The twin looks the method up on the instance when called, so a subclass's override (or a test's
    replacement) is the one that runs; it sees the caller's context variables (``off_loop``).
    """
    name = method.__name__

    async def twin(self: S, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await off_loop(getattr(self, name), *args, **kwargs)

    twin.__name__ = twin.__qualname__ = f"a{name}"
    twin.__doc__ = f"``{name}`` from a coroutine: the same call, off the event loop (scholar.core.aio.off_loop)."
    return twin
