"""The UsageTable (DESIGN §5): one item per tool call and source, under ``<source>#<hour>``.

Keys: ``pk = <source>#<hour>`` (hour = ``YYYY-MM-DDTHH`` UTC), ``sk = <epoch ms>#<token>``, so "one
source, a time window" is one query per hour of the window. Two small item kinds share the table:
``pk = hours#<source>, sk = <hour>`` marks that an hour has items (written in the same batch, so a
reader asks only the hours that exist), and ``pk = rollup#<source>, sk = <hour>`` holds the summary of
a finished hour (written by the hourly probe), so a week of history is one query. Everything expires
after 30 days (``expires_at``; DynamoDB deletes lazily, so reads filter on it too).

Writes go behind the call (``UsageStore.put_behind``): one writer thread per process takes the rows as
soon as they are queued and writes them (what queued meanwhile rides in the same batch), so no tool
answer waits for its BatchWriteItem. A reader in the same process first waits for those writes
(``wait_written``), so it always sees its own calls. Under Lambda a function is frozen once it has
answered and the write finishes when it thaws; rows still queued when an environment is shut down
are lost (at most the last call's of that environment).
"""

from __future__ import annotations

import contextvars
import json
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from scholar.core.backend import state as backend_state
from scholar.core.config import USAGE_TABLE_ENV
from scholar.core.errors import UnavailableError
from scholar.store import aws, batch
from scholar.store.base import Store

logger = logging.getLogger(__name__)

RETENTION_S = 30 * 86_400
_HOUR = "%Y-%m-%dT%H"
# Hour markers a backend has written: a warm function writes each (table, source, hour) once.
MARKED_STATE = "store.usage.marked"
_marked_lock = threading.Lock()


def _marked() -> set[tuple[str, str, str]]:
    return backend_state(MARKED_STATE, set)


# Rows queued behind their calls: (table, client, rows, on_error, the caller's context: its backend); one writer
# thread drains them.
_queued: deque[tuple[str, Any, list[UsageRow], Callable[[UsageWriteError], None], contextvars.Context]] = deque()
_queue_changed = threading.Condition()
_writing = 0
_writer: threading.Thread | None = None
# How long a reader (or a test's teardown) waits for this process's queued writes.
WAIT_WRITTEN_S = 5.0


def forget_markers() -> None:
    """Forget which hour markers the current backend wrote (another table, a test that deletes items)."""
    with _marked_lock:
        _marked().clear()


class UsageWriteError(UnavailableError):
    """Usage items could not be written (the caller logs and counts it; the tool call goes on)."""


class UsageReadError(UnavailableError):
    """The UsageTable could not be read."""


def hour_of(at: float) -> str:
    """The UTC hour label of an epoch time, e.g. ``2026-12-01T09``."""
    return datetime.fromtimestamp(at, UTC).strftime(_HOUR)


def hour_start(label: str) -> float:
    return datetime.strptime(label, _HOUR).replace(tzinfo=UTC).timestamp()


@dataclass(frozen=True)
class UsageRow:
    """One stored item: a call's facts with one source's figures, as a JSON document."""

    source: str
    at: float
    token: str
    doc: dict[str, Any]


class UsageStore(Store):
    """Write usage rows in batches, read them back by source and time window."""

    RESOURCE = "usage_table"
    ENV = USAGE_TABLE_ENV
    NOUN = "usage table"

    @property
    def table(self) -> str | None:
        return self._configured()

    def put(self, rows: Iterable[UsageRow]) -> None:
        """Write rows (and the hour markers they need) in as few batch writes as fit; nothing without a table.

        Raises:
            UsageWriteError: DynamoDB refused or left items unprocessed.
        """
        table = self.table
        rows = list(rows)
        if not table or not rows:
            return
        requests = [{"PutRequest": {"Item": _row_item(row)}} for row in rows]
        markers = {(table, row.source, hour_of(row.at)): row.at for row in rows}
        marked = _marked()
        with _marked_lock:
            markers = {key: at for key, at in markers.items() if key not in marked}
        requests += [{"PutRequest": {"Item": _marker_item(s, h, at)}} for (_, s, h), at in markers.items()]
        try:
            left = batch.write_items(self.client, table, requests)
        except (ClientError, BotoCoreError) as exc:
            raise UsageWriteError(f"usage batch refused: {type(exc).__name__}") from exc
        if left:
            raise UsageWriteError(f"{len(left)} usage items left unprocessed")
        with _marked_lock:
            marked.update(markers)

    def put_behind(self, rows: Iterable[UsageRow], on_error: Callable[[UsageWriteError], None]) -> None:
        """Queue rows for the writer thread and return at once; ``on_error`` is told of a refused write."""
        table = self.table
        rows = list(rows)
        if not table or not rows:
            return
        global _writer
        with _queue_changed:
            _queued.append((table, self._client, rows, on_error, contextvars.copy_context()))
            if _writer is None or not _writer.is_alive():
                _writer = threading.Thread(target=_write_queued, name="scholar-usage", daemon=True)
                _writer.start()
            _queue_changed.notify_all()

    def rows(self, source: str, since: float, until: float, hours: Iterable[str] | None = None) -> list[UsageRow]:
        """The rows of ``source`` with ``since <= at < until``, oldest first (one query per hour with items).

        Args:
            source: the source name (or the no-source marker).
            since: window start, epoch seconds.
            until: window end, epoch seconds.
            hours: the hour labels to ask (default: the marked hours of the window).

        Raises:
            UsageReadError: DynamoDB could not be read.
        """
        table = self.table
        if not table:
            return []
        wait_written()
        labels = self.active_hours(source, since, until) if hours is None else list(hours)
        low, high = _sort_key(since), _sort_key(until)
        now = time.time()
        found: list[UsageRow] = []
        for label in labels:
            for item in self._query(
                KeyConditionExpression="pk = :pk AND sk BETWEEN :low AND :high",
                ExpressionAttributeValues={":pk": {"S": f"{source}#{label}"}, ":low": {"S": low}, ":high": {"S": high}},
            ):
                if _live(item, now):
                    found.append(_row(source, item))
        return found

    def active_hours(self, source: str, since: float, until: float) -> list[str]:
        """Hour labels of the window in which ``source`` has rows (one query)."""
        return list(self._by_hour("hours", source, since, until))

    def rollups(self, source: str, since: float, until: float) -> dict[str, dict[str, Any]]:
        """Summaries of finished hours of ``source`` in the window, by hour label (one query)."""
        return self._by_hour("rollup", source, since, until)

    def put_rollup(self, source: str, hour: str, summary: dict[str, Any]) -> None:
        """Store the summary of one finished hour.

        Raises:
            UsageWriteError: DynamoDB refused the item.
        """
        if not self.table:
            return
        item = {
            "pk": {"S": f"rollup#{source}"},
            "sk": {"S": hour},
            "d": {"S": json.dumps(summary, separators=(",", ":"))},
            "expires_at": {"N": str(int(hour_start(hour)) + RETENTION_S)},
        }
        try:
            self.client.put_item(TableName=self.table, Item=item)
        except (ClientError, BotoCoreError) as exc:
            raise UsageWriteError(f"rollup refused: {type(exc).__name__}") from exc

    def _by_hour(self, kind: str, source: str, since: float, until: float) -> dict[str, dict[str, Any]]:
        if not self.table:
            return {}
        wait_written()
        now = time.time()
        items = self._query(
            KeyConditionExpression="pk = :pk AND sk BETWEEN :low AND :high",
            ExpressionAttributeValues={
                ":pk": {"S": f"{kind}#{source}"},
                ":low": {"S": hour_of(since)},
                ":high": {"S": hour_of(until)},
            },
        )
        return {
            item["sk"]["S"]: json.loads(item["d"]["S"]) if "d" in item else {} for item in items if _live(item, now)
        }

    def _query(self, **kwargs: Any) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        start: dict[str, Any] | None = None
        try:
            while True:
                page = self.client.query(
                    TableName=self.table, **kwargs, **({"ExclusiveStartKey": start} if start else {})
                )
                items += page.get("Items", [])
                start = page.get("LastEvaluatedKey")
                if not start:
                    return items
        except (ClientError, BotoCoreError) as exc:
            raise UsageReadError(f"usage table query failed: {type(exc).__name__}") from exc


def _write_queued() -> None:
    """The writer thread: write what is queued, the rows of consecutive calls to one table in one batch."""
    global _writing
    while True:
        with _queue_changed:
            _queue_changed.wait_for(lambda: bool(_queued))
            table, client, rows, on_error, context = _queued.popleft()
            handlers = [on_error]
            while (_queued and _queued[0][:2] == (table, client)
                   and len(rows) + len(_queued[0][2]) <= batch.BATCH_WRITE):
                _, _, more, handler, _ = _queued.popleft()
                rows = rows + more
                handlers.append(handler)
            _writing += 1
        try:
            context.run(UsageStore(table, client).put, rows)
        except UsageWriteError as exc:
            for handler in dict.fromkeys(handlers):
                context.run(handler, exc)
        except Exception:  # the writer thread must outlive one bad batch
            logger.exception("usage rows could not be written")
        finally:
            with _queue_changed:
                _writing -= 1
                _queue_changed.notify_all()


def wait_written(timeout_s: float = WAIT_WRITTEN_S) -> bool:
    """Wait until this process's queued usage rows are written (or refused); False if time ran out."""
    with _queue_changed:
        return _queue_changed.wait_for(lambda: not _queued and not _writing, timeout_s)


@aws.on_reset
def _before_reset() -> None:
    wait_written()  # rows queued behind their calls go to the endpoint they were meant for
    forget_markers()  # the hour markers belong to the old tables


def _sort_key(at: float) -> str:
    return f"{int(at * 1000):013d}"


def _expires(at: float) -> dict[str, str]:
    return {"N": str(int(at) + RETENTION_S)}


def _row_item(row: UsageRow) -> dict[str, Any]:
    return {
        "pk": {"S": f"{row.source}#{hour_of(row.at)}"},
        "sk": {"S": f"{_sort_key(row.at)}#{row.token}"},
        "d": {"S": json.dumps(row.doc, separators=(",", ":"))},
        "expires_at": _expires(row.at),
    }


def _marker_item(source: str, hour: str, at: float) -> dict[str, Any]:
    return {"pk": {"S": f"hours#{source}"}, "sk": {"S": hour}, "expires_at": _expires(at)}


def _row(source: str, item: dict[str, Any]) -> UsageRow:
    millis, _, token = item["sk"]["S"].partition("#")
    return UsageRow(source=source, at=int(millis) / 1000, token=token, doc=json.loads(item["d"]["S"]))


def _live(item: dict[str, Any], now: float) -> bool:
    expires = item.get("expires_at")
    return expires is None or float(expires["N"]) > now
