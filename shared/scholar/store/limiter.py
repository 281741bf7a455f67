"""A pace per upstream that holds across every Lambda instance (DESIGN §9).

Each source has one DynamoDB item ``pace#<source>`` in the CacheTable whose ``next_at`` is the
earliest time the next request may go out. A caller reserves the next slot with one conditional
update (two when the source was idle) and sleeps until its slot. A call with a deadline (``answer_within``)
reserves a slot only when it begins before the deadline: a later one is left to the callers that can wait for it
(the condition says so, so the refusal costs no slot), and the call is refused at once. Without a table (unit tests,
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

from scholar.core import aio
from scholar.core.config import get_settings
from scholar.core.errors import RateLimitedError, ScholarError
from scholar.store import aws
from scholar.store.boundary import translate

logger = logging.getLogger(__name__)

PACED_PAST_DEADLINE = "paced_past_deadline"
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


def _fallback(source: str, interval_s: float, now: float, why: str, latest: float | None = None) -> float:
    with _local_lock:
        _fallbacks[source] += 1
        count = _fallbacks[source]
    logger.warning("pace of %s kept in this process only (%s); %d fallbacks so far", source, why, count)
    return _reserve_local(source, interval_s, now)


class _Beyond(Exception):
    """The next slot begins after the latest one the caller can use; ``slot`` is when it begins."""

    def __init__(self, slot: float) -> None:
        super().__init__(slot)
        self.slot = slot


def _reserve_local(source: str, interval_s: float, now: float, latest: float | None = None) -> float:
    with _local_lock:
        slot = max(now, _local_next.get(source, 0.0))
        if latest is not None and slot > latest:
            raise _Beyond(slot)
        _local_next[source] = slot + interval_s
    return slot


def _reserve_dynamodb(table: str, source: str, interval_s: float, now: float, latest: float | None = None) -> float:
    key = {"pk": {"S": f"pace#{source}"}}
    client = aws.dynamodb()
    busy = "next_at >= :now" if latest is None else "next_at >= :now AND next_at <= :latest"
    values = {":step": {"N": repr(interval_s)}, ":now": {"N": repr(now)}}
    if latest is not None:
        values[":latest"] = {"N": repr(latest)}
    for _ in range(_MAX_RACES):
        # Busy source: push next_at by one interval; our slot is where it stood (only if we can use it).
        try:
            out = client.update_item(
                TableName=table,
                Key=key,
                UpdateExpression="SET next_at = next_at + :step",
                ConditionExpression=busy,
                ExpressionAttributeValues=values,
                ReturnValues="UPDATED_NEW",
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
            return float(out["Attributes"]["next_at"]["N"]) - interval_s
        except ClientError as exc:
            if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise
            old = exc.response.get("Item")  # ReturnValuesOnConditionCheckFailure (not in botocore-stubs' TypedDict)
            held = old.get("next_at", {}).get("N") if isinstance(old, dict) else None
            if latest is not None and held is not None and float(held) > latest:
                raise _Beyond(float(held)) from exc
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
    return _fallback(source, interval_s, now, "contention", latest)


def reserve(source: str, interval_s: float, within_s: float | None = None) -> float:
    """Reserve the next request slot of ``source``; return the seconds to wait for it.

    Args:
        source: the source's registry name.
        interval_s: its spacing.
        within_s: reserve only a slot that begins within this many seconds (None: any slot).

    Raises:
        UnavailableError: the pace table is not usable (missing, credentials refused): a deployment fault.
        _Beyond: the next slot begins later than ``within_s``; nothing was reserved.
    """
    now = time.time()
    latest = None if within_s is None else now + max(0.0, within_s)
    table = get_settings().resources.cache_table
    if not table:
        return max(0.0, _reserve_local(source, interval_s, now, latest) - now)
    try:
        slot = _reserve_dynamodb(table, source, interval_s, now, latest)
    except (ClientError, BotoCoreError) as exc:
        err: ScholarError = translate(exc, "reserving a request slot")
        if not err.retryable:
            raise err from exc
        # Throttled or unreachable table: keep the pace here rather than fail a call that could go out.
        slot = _fallback(source, interval_s, now, err.reason or err.code, latest)
    return max(0.0, slot - now)


async def pace(source: str, interval_s: float, *, margin_s: float = 0.0) -> None:
    """Wait for the next slot of ``source`` (no-op when the interval is 0).

    Args:
        source: the source's registry name.
        interval_s: its spacing.
        margin_s: under a deadline, the slot must begin this much before it (the time the source takes to
            answer: a request that cannot answer in time is not worth a slot).

    Raises:
        RateLimitedError: reason ``paced_past_deadline``: the next slot lies beyond the call's deadline
            (``answer_within``), so the call is refused now, while a tool that may queue can still answer
            with a task, instead of being cut off by API Gateway (or a search can answer without the source).
            Nothing is reserved: the slot stays free for a caller that can wait for it.
    """
    if interval_s <= 0:
        return
    deadline = _deadline.get()
    within = None if deadline is None else deadline - time.monotonic() - margin_s
    try:
        wait = await aio.off_loop(reserve, source, interval_s, within)
    except _Beyond as beyond:
        wait = max(0.0, beyond.slot - time.time())
        raise RateLimitedError(
            f"{source}'s pace has no free slot before this call's deadline (next in {wait:.1f}s)",
            source=source,
            retry_after_s=wait,
            reason=PACED_PAST_DEADLINE,
        ) from None
    if wait > 0:
        await asyncio.sleep(wait)
