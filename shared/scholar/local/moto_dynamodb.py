"""Make moto's DynamoDB writes atomic across threads, as DynamoDB's are.

moto applies a ``TransactWriteItems`` one action at a time and, when one fails, rolls back by putting back
a copy of the whole table taken before it started: a write another thread committed meanwhile vanishes.
The local server answers requests on many threads, and the library's writes are transactions that are
meant to lose races (scholar.store.library), so without this a lost race could erase another caller's item.
One reentrant lock around moto's write paths (transactions call the single-item ones inside) restores
what DynamoDB guarantees. Installing is idempotent and process-wide (moto's state is process-wide too).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

from moto.dynamodb.models import DynamoDBBackend

_WRITES = ("transact_write_items", "put_item", "update_item", "delete_item", "batch_write_item")
_lock = threading.RLock()
_originals: dict[str, Callable[..., Any]] = {}


def install() -> None:
    """Serialise moto's DynamoDB writes (idempotent)."""
    with _lock:
        for name in _WRITES:
            if name in _originals or not hasattr(DynamoDBBackend, name):
                continue
            original = getattr(DynamoDBBackend, name)
            _originals[name] = original

            @functools.wraps(original)
            def locked(self: DynamoDBBackend, *args: Any, _original: Callable[..., Any] = original,
                       **kwargs: Any) -> Any:
                with _lock:
                    return _original(self, *args, **kwargs)

            setattr(DynamoDBBackend, name, locked)

