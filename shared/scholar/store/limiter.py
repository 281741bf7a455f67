"""A pace per upstream that holds across every Lambda instance (DESIGN §9).

Each source has one DynamoDB item ``pace#<source>`` in the CacheTable whose ``next_at`` is the
earliest time the next request may go out. A caller reserves the next slot with one conditional
update (two when the source was idle) and sleeps until its slot. Without a table (unit tests,
scripts) the same rule holds within the process.
"""

from __future__ import annotations

import asyncio
import threading
import time

from botocore.exceptions import ClientError

from scholar.config import get_settings
from scholar.runtime import aio
from scholar.store import aws

_local_next: dict[str, float] = {}
_local_lock = threading.Lock()
_MAX_RACES = 8
_ITEM_TTL_S = 3600


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
    return _reserve_local(source, interval_s, now)


def reserve(source: str, interval_s: float) -> float:
    """Reserve the next request slot of ``source``; return the seconds to wait for it."""
    now = time.time()
    table = get_settings().resources.cache_table
    slot = _reserve_dynamodb(table, source, interval_s, now) if table else _reserve_local(source, interval_s, now)
    return max(0.0, slot - now)


async def pace(source: str, interval_s: float) -> None:
    """Wait for the next slot of ``source`` (no-op when the interval is 0)."""
    if interval_s <= 0:
        return
    wait = await aio.off_loop(reserve, source, interval_s)
    if wait > 0:
        await asyncio.sleep(wait)
