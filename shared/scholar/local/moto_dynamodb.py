"""Make moto's DynamoDB transactions atomic across threads, and cheap, as DynamoDB's are.

moto applies a ``TransactWriteItems`` one action at a time after copying every table it touches, and rolls a
failed one back by putting the copies back: a write another thread committed meanwhile vanishes, and every
write costs a copy of the whole table (all callers' libraries). The local server answers requests on many
threads, and the library's writes are transactions meant to lose races (scholar.store.library.table), so this
module swaps in a transaction that holds one lock, checks every condition first and only then applies the
actions (restoring just the touched items if one fails), takes the same lock around moto's single-item writes,
and answers ``get_item`` with a copy taken under it. Installing is idempotent and process-wide (moto's state
is process-wide too).
"""

from __future__ import annotations

import copy
import functools
import threading
from collections.abc import Callable
from typing import Any

from moto.dynamodb.comparisons import get_filter_expression
from moto.dynamodb.exceptions import (
    MockValidationException,
    MultipleTransactionsException,
    TooManyTransactionsException,
    TransactionCanceledException,
    TransactWriteSingleOpException,
)
from moto.dynamodb.models import DynamoDBBackend

_WRITES = ("put_item", "update_item", "delete_item", "batch_write_item")
_MAX_ACTIONS = 100
_lock = threading.RLock()
_installed = False


def install() -> None:
    """Serialise moto's DynamoDB writes and replace its transaction (idempotent)."""
    global _installed
    with _lock:
        if _installed:
            return
        for name in _WRITES:
            setattr(DynamoDBBackend, name, _locked(getattr(DynamoDBBackend, name)))
        DynamoDBBackend.get_item = _snapshot(DynamoDBBackend.get_item)  # type: ignore[method-assign]  # moto's seam
        DynamoDBBackend.transact_write_items = _transact_write_items  # type: ignore[method-assign]  # moto's seam
        _installed = True


def _locked(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def locked(self: DynamoDBBackend, *args: Any, **kwargs: Any) -> Any:
        with _lock:
            return original(self, *args, **kwargs)

    return locked


def _snapshot(original: Callable[..., Any]) -> Callable[..., Any]:
    """A read that returns a copy taken under the lock.

    moto updates an item in place and serialises what ``get_item`` returned only after the call: without a copy,
    a read racing a transaction could answer a half-applied item (the library's revision already new, its counts
    not yet), and a write planned on it would lose another's increment.
    """

    @functools.wraps(original)
    def snapshot(self: DynamoDBBackend, *args: Any, **kwargs: Any) -> Any:
        with _lock:
            return copy.deepcopy(original(self, *args, **kwargs))

    return snapshot


def _actions(backend: DynamoDBBackend, transact_items: list[dict[str, Any]]) -> list[tuple[str, dict, dict]]:
    """(kind, action, key) per action, refusing what DynamoDB refuses (too many, two on one item)."""
    if len(transact_items) > _MAX_ACTIONS:
        raise TooManyTransactionsException()
    out: list[tuple[str, dict, dict]] = []
    seen: set[tuple[str, str]] = set()
    for entry in transact_items:
        if len(entry) != 1:
            raise TransactWriteSingleOpException
        kind, action = next(iter(entry.items()))
        if kind not in ("ConditionCheck", "Put", "Delete", "Update"):
            raise MockValidationException(f"unsupported transaction action {kind}")
        if kind == "Put":
            table = backend.get_table(action["TableName"])
            names = [table.hash_key_attr, *([table.range_key_attr] if table.range_key_attr else [])]
            key = {name: action["Item"][name] for name in names}
        else:
            key = action["Key"]
        marker = (action["TableName"], str(sorted(key.items())))
        if marker in seen:
            raise MultipleTransactionsException()
        seen.add(marker)
        out.append((kind, action, key))
    return out


def _transact_write_items(self: DynamoDBBackend, transact_items: list[dict[str, Any]]) -> None:
    with _lock:
        actions = _actions(self, transact_items)
        # Every condition against the items as they are; nothing changes meanwhile (the lock is held).
        reasons: list[tuple[Any, Any, Any]] = []
        for _kind, action, key in actions:
            current = self.get_item(action["TableName"], key)
            condition = action.get("ConditionExpression")
            if condition and not get_filter_expression(
                condition, action.get("ExpressionAttributeNames"), action.get("ExpressionAttributeValues")
            ).expr(current):
                old = (current.to_json()["Attributes"]
                       if current and action.get("ReturnValuesOnConditionCheckFailure") == "ALL_OLD" else None)
                reasons.append(("ConditionalCheckFailed", "The conditional request failed", old))
            else:
                reasons.append((None, None, None))
        if any(code for code, _, _ in reasons):
            raise TransactionCanceledException(reasons)
        touched: list[tuple[str, dict, Any]] = []
        try:
            for kind, action, key in actions:
                table = action["TableName"]
                touched.append((table, key, copy.deepcopy(self.get_item(table, key))))
                if kind == "Put":
                    self.put_item(table, action["Item"])
                elif kind == "Delete":
                    self.delete_item(table, key)
                elif kind == "Update":
                    self.update_item(table, key, update_expression=action["UpdateExpression"],
                                     expression_attribute_names=action.get("ExpressionAttributeNames") or {},
                                     expression_attribute_values=action.get("ExpressionAttributeValues") or {})
        except Exception:
            for table, key, previous in reversed(touched):
                if previous is None:
                    self.delete_item(table, key)
                else:
                    self.put_item(table, previous.to_json()["Attributes"])
            raise
