"""boto3 clients, built once per execution environment and lazily (never at import time).

The local stack points boto3 at moto through AWS_ENDPOINT_URL before the first client is built;
``reset_clients()`` forgets them when a test changes the environment. boto3 itself is imported on the
first client too (~0.2 s of cold start that a call answered from memory never pays).
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from scholar.runtime.aio import BLOCKING_WORKERS

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient
    from mypy_boto3_s3 import S3Client



@cache
def client(service: str) -> Any:
    """A boto3 client for ``service`` (shared: boto3 clients are thread-safe)."""
    import boto3  # noqa: PLC0415  # deliberately lazy: the heaviest import of a family function
    from botocore.config import Config  # noqa: PLC0415  # lazy with boto3

    config = Config(
        retries={"max_attempts": 3, "mode": "standard"}, connect_timeout=3, read_timeout=30,
        max_pool_connections=BLOCKING_WORKERS,  # one connection per off-loop worker (scholar.runtime.aio)
    )
    return boto3.session.Session().client(service, config=config)


def dynamodb() -> DynamoDBClient:
    return client("dynamodb")


def s3() -> S3Client:
    return client("s3")


def reset_clients() -> None:
    """Forget the clients (the environment changed: another endpoint, another stack) and what they read."""
    from scholar.store.cache import forget_memory  # noqa: PLC0415  # cache imports aws: a cycle at the top
    from scholar.store.usage import forget_markers, wait_written  # noqa: PLC0415  # usage imports aws too; its hour markers belong to the old tables

    wait_written()  # rows queued behind their calls go to the endpoint they were meant for
    client.cache_clear()
    forget_memory()
    forget_markers()
