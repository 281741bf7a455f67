"""boto3 clients, built once per execution environment and lazily (never at import time).

The current backend (scholar.core.backend) may bring its own clients (the local backend's SQLite and files);
otherwise boto3's answer. The local stack points boto3 at moto through AWS_ENDPOINT_URL before the first client is
built; ``reset_clients()`` forgets them when a test changes the environment, and first runs the reset hooks of
the stores that keep something read through them (``on_reset``: the cache's memory, the usage writer).
boto3 itself is imported on the first client too (~0.2 s of cold start that a call answered from memory
never pays).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any, TypeVar

from scholar.core.aio import BLOCKING_WORKERS
from scholar.core.backend import current as current_backend
from scholar.core.config import get_settings
from scholar.core.errors import UnavailableError

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient
    from mypy_boto3_s3 import S3Client

# A synchronous invoke waits for the family function. botocore retries a read timeout, so one cut off before the
# function answered would run the same call again, up to three more times, each attempt piling onto the last
# (issue #22: 4 x 30 s on one library_search). So the Lambda client waits longer than any caller of it can: the
# gateway is stopped at 29 s (API Gateway's limit) and an inline call answers within runtime.family's deadline.
INVOKE_READ_TIMEOUT_S = 70

# Run before the clients are forgotten, in the order registered (a store registers when it is imported).
_reset_hooks: list[Callable[[], object]] = []
H = TypeVar("H", bound=Callable[[], object])


def client(service: str) -> Any:
    """The client for ``service``: the current backend's (scholar.core.backend), else boto3's (built once, shared).

    Raises:
        UnavailableError: ``SCHOLAR_BACKEND=local`` but no local backend is open (scholar.local.machine).
    """
    clients = current_backend().clients
    if clients is not None:
        return clients(service)
    if get_settings().backend == "local":
        raise UnavailableError("SCHOLAR_BACKEND=local but no local backend is open", retryable=False,
                               reason="local_backend", hint="Run inside scholar.local.machine.local_backend().")
    return _boto_client(service)


@cache
def _boto_client(service: str) -> Any:
    """A boto3 client for ``service`` (shared: boto3 clients are thread-safe)."""
    import boto3  # noqa: PLC0415  # deliberately lazy: the heaviest import of a family function
    from botocore.config import Config  # noqa: PLC0415  # lazy with boto3

    config = Config(
        retries={"max_attempts": 3, "mode": "standard"}, connect_timeout=3,
        read_timeout=INVOKE_READ_TIMEOUT_S if service == "lambda" else 30,
        max_pool_connections=BLOCKING_WORKERS,  # one connection per off-loop worker (scholar.core.aio)
    )
    return boto3.session.Session().client(service, config=config)


def dynamodb() -> DynamoDBClient:
    return client("dynamodb")


def s3() -> S3Client:
    return client("s3")


def on_reset(hook: H) -> H:
    """Run ``hook()`` on every ``reset_clients()``, before the clients go (usable as a decorator; once per hook)."""
    if hook not in _reset_hooks:
        _reset_hooks.append(hook)
    return hook


def reset_clients() -> None:
    """Forget the clients (the environment changed: another endpoint, another stack) and what they read."""
    for hook in _reset_hooks:
        hook()
    _boto_client.cache_clear()
