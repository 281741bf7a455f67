"""One library write as one DynamoDB transaction, conditioned on the revision it read, retried when it loses a race.

Two concurrent writes can never both succeed on the same revision (scholar.store.library.table): the loser re-reads
``meta`` and builds its actions again, after a short full-jitter back-off so that racing writers spread out.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from botocore.exceptions import ClientError

from scholar.core.errors import UnavailableError
from scholar.store.boundary import boto_errors, error_code
from scholar.store.library.rows import Meta

# A lost race re-reads and tries again; twenty writers on one library settle well within this.
MAX_ATTEMPTS = 60
_BACKOFF_CAP_S = 0.25  # full jitter, doubling from 5 ms: racing writers spread out instead of colliding again
_sleep = time.sleep  # tests replace it: no real waiting
_CONFLICTS = frozenset({"ConditionalCheckFailed", "TransactionConflict"})


class _Conflict(Exception):
    """Another write reached the library first (its revision moved): read again and retry."""


def transact(client: Any, table: str, what: str, read_meta: Callable[[], Meta],
             plan: Callable[[Meta], tuple[list[dict[str, Any]], Any]]) -> Any:
    """Read ``meta``, build the actions with ``plan`` and commit them as one transaction; retry lost races.

    ``plan`` returns (actions, result); an empty action list commits nothing and returns the result.

    Raises:
        UnavailableError: (reason ``storage_conflict``, retryable) every one of ``MAX_ATTEMPTS`` lost its race.
    """
    for attempt in range(MAX_ATTEMPTS):
        actions, result = plan(read_meta())
        if not actions:
            return result
        for action in actions:
            next(iter(action.values()))["TableName"] = table
        try:
            _commit(client, what, actions)
            return result
        except _Conflict:
            _sleep(random.uniform(0, min(_BACKOFF_CAP_S, 0.005 * 2**attempt)))
    raise UnavailableError(f"the library changed {MAX_ATTEMPTS} times while {what}", retryable=True,
                           reason="storage_conflict", hint="Many writes reach your library at once; retry.")


def _commit(client: Any, what: str, actions: list[dict[str, Any]]) -> None:
    with boto_errors(what):
        try:
            client.transact_write_items(TransactItems=actions)
        except ClientError as exc:
            code = error_code(exc)
            reasons = {r.get("Code", "None") for r in exc.response.get("CancellationReasons") or []} - {"None"}
            if code == "TransactionConflictException" or (
                code == "TransactionCanceledException" and reasons and reasons <= _CONFLICTS
            ):
                raise _Conflict from exc
            raise
