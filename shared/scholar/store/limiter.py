"""A pace per upstream that holds across every Lambda instance (DESIGN §9).

Each source has one DynamoDB item ``pace#<source>`` in the CacheTable whose ``next_at`` is the
earliest time the next request may go out. A caller reserves the next slot with one conditional
update (two when the source was idle) and sleeps until its slot. Without a table (unit tests,
scripts) the same rule holds within the process. When the shared item cannot be used (heavy contention,
the table throttling or out of reach) the slot is kept within this process instead of failing the call:
that fallback is logged and counted (``fallback_counts``), never silent.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import threading
import time
from collections import Counter
from collections.abc import Iterator

from botocore.exceptions import BotoCoreError, ClientError

from scholar import aio
from scholar.config import get_settings
from scholar.errors import RateLimitedError, ScholarError
from scholar.store import aws
from scholar.store.boundary import translate

logger = logging.getLogger(__name__)

_local_next: dict[str, float] = {}
_local_lock = threading.Lock()
_MAX_RACES = 8
_ITEM_TTL_S = 3600
# The monotonic time by which the current call must have answered (None: no deadline, e.g. inside a task).
_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar("scholar_call_deadline", default=None)


@contextlib.contextmanager
def answer_within(seconds: float | None) -> Iterator[None]:
    """Run the enclosed call under a deadline: a paced request that could not go out in time is refused."""
    token = _deadline.set(None if seconds is None else time.monotonic() + seconds)
    try:
        yield
    finally:
        _deadline.reset(token)


def call_deadline() -> float | None:
    """The monotonic time by which the current call must have answered (None: no deadline, e.g. in a task)."""
    return _deadline.get()


# Per source: how often this process paced alone because the shared item could not be used.
_fallbacks: Counter[str] = Counter()


def fallback_counts() -> dict[str, int]:
    """How many reservations per source fell back to per-process pacing since the process started."""
    with _local_lock:
        return dict(_fallbacks)


def _fallback(source: str, interval_s: float, now: float, why: str) -> float:
    with _local_lock:
        _fallbacks[source] += 1
        count = _fallbacks[source]
    logger.warning("pace of %s kept in this process only (%s); %d fallbacks so far", source, why, count)
    return _reserve_local(source, interval_s, now)


def _reserve_local(source: str, interval_s: float, now: float) -> float:
    with _local_lock:
        slot = max(now, _local_next.get(source, 0.0))
        _local_next[source] = slot + interval_s
    return slot


def _reserve_dynamodb(table: str, source: str, interval_s: float, now: float) -> float:
    key = {"pk": {"S": f"pace#{source}"}}
    client = aws.dynamodb()
    for _ in range(_MAX_RACES):
        # Busy source: push next_at by one interval; our slot is where it stood.
        try:
            out = client.update_item(
                TableName=table,
                Key=key,
                UpdateExpression="SET next_at = next_at + :step",
                ConditionExpression="next_at >= :now",
                ExpressionAttributeValues={":step": {"N": repr(interval_s)}, ":now": {"N": repr(now)}},
                ReturnValues="UPDATED_NEW",
            )
            return float(out["Attributes"]["next_at"]["N"]) - interval_s
        except ClientError as exc:
            if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise
        # Idle source: claim "now"; a racing caller that got here first makes us go round again.
        try:
            client.update_item(
                TableName=table,
                Key=key,
                UpdateExpression="SET next_at = :next, expires_at = :exp",
                ConditionExpression="attribute_not_exists(next_at) OR next_at < :now",
                ExpressionAttributeValues={
                    ":next": {"N": repr(now + interval_s)},
                    ":now": {"N": repr(now)},
                    ":exp": {"N": str(int(now) + _ITEM_TTL_S)},
                },
            )
            return now
        except ClientError as exc:
            if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise
    # Heavy contention: fall back to spacing within this process rather than failing the call.
    return _fallback(source, interval_s, now, "contention")


def reserve(source: str, interval_s: float) -> float:
    """Reserve the next request slot of ``source``; return the seconds to wait for it.

    Raises:
        UnavailableError: the pace table is not usable (missing, credentials refused): a deployment fault.
    """
    now = time.time()
    table = get_settings().resources.cache_table
    if not table:
        return max(0.0, _reserve_local(source, interval_s, now) - now)
    try:
        slot = _reserve_dynamodb(table, source, interval_s, now)
    except (ClientError, BotoCoreError) as exc:
        err: ScholarError = translate(exc, "reserving a request slot")
        if not err.retryable:
            raise err from exc
        # Throttled or unreachable table: keep the pace here rather than fail a call that could go out.
        slot = _fallback(source, interval_s, now, err.reason or err.code)
    return max(0.0, slot - now)


async def pace(source: str, interval_s: float) -> None:
    """Wait for the next slot of ``source`` (no-op when the interval is 0).

    Raises:
        RateLimitedError: reason ``paced_past_deadline``: the slot lies beyond the call's deadline
            (``answer_within``), so the call is refused now, while a tool that may queue can still answer
            with a task, instead of being cut off by API Gateway. The slot stays reserved: the pace holds.
    """
    if interval_s <= 0:
        return
    wait = await aio.off_loop(reserve, source, interval_s)
    deadline = _deadline.get()
    if deadline is not None and time.monotonic() + wait > deadline:
        raise RateLimitedError(
            f"{source}'s pace has no free slot before this call's deadline (next in {wait:.1f}s)",
            source=source,
            retry_after_s=wait,
            reason="paced_past_deadline",
        )
    if wait > 0:
        await asyncio.sleep(wait)
