"""The local backend's DynamoDB: the client calls the stores make, answered from SQLite (``database.Database``).

The stores (cache, tasks, library, usage, pace, auth) are one persistence base written against DynamoDB's request
shapes; this is their second layer, as Powertools' idempotency keeps one ``BasePersistenceLayer`` over a DynamoDB
layer and others. It answers the calls the stores make (get/put/update/delete, query, batch get/write, transact
write) with the same semantics: conditions checked and the write applied in one immediate transaction, so a
conditioned write is atomic across threads and processes; a failed condition raises botocore's ``ClientError``
with DynamoDB's code, so the stores' handling is the one they already have. Expired rows are filtered by the
stores on read, as on DynamoDB, and purged here (``purge_expired``), which DynamoDB's TTL does lazily.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from botocore.exceptions import ClientError

from scholar.store.local import expressions
from scholar.store.local.database import Database
from scholar.store.local.expressions import Item, scalar


@dataclass(frozen=True)
class KeySchema:
    """A table's key attributes (template.yaml's KeySchema) and its global secondary indexes."""

    hash: str
    range: str | None = None
    indexes: Mapping[str, tuple[str, str | None]] = None  # type: ignore[assignment]  # set in __post_init__

    def __post_init__(self) -> None:
        if self.indexes is None:
            object.__setattr__(self, "indexes", {})


def _failure(code: str, message: str, operation: str, **extra: Any) -> ClientError:
    # ``extra``: what DynamoDB adds to the error (the old Item, CancellationReasons).
    response: dict[str, Any] = {"Error": {"Code": code, "Message": message}, **extra}
    return ClientError(response, operation)  # type: ignore[arg-type]  # botocore-stubs' TypedDict lacks Item


def _encode(item: Item) -> str:
    return json.dumps(item, default=lambda b: {"__b64__": base64.b64encode(b).decode()}, separators=(",", ":"))


def _decode(text: str) -> Item:
    return json.loads(text, object_hook=lambda d: base64.b64decode(d["__b64__"]) if "__b64__" in d else d)


def _key_text(value: Mapping[str, Any] | None) -> str:
    if value is None:
        return ""
    (kind, raw), = value.items()
    return raw if kind == "S" else str(raw)


def _expiry(item: Item) -> float | None:
    value = item.get("expires_at")
    return float(value["N"]) if value and "N" in value else None


class LocalDynamoDB:
    """DynamoDB's client calls the stores make, on the local database.

    Args:
        database: the SQLite file.
        tables: table name → its key schema.
        owner: this process's token, stamped on every row it writes (scholar.local.machine finds the rows of a
            process that ended by it).
    """

    def __init__(self, database: Database, tables: Mapping[str, KeySchema], owner: str = "") -> None:
        self.database = database
        self.tables = dict(tables)
        self.owner = owner

    # -- keys ------------------------------------------------------------------------------------------------
    def _schema(self, table: str, operation: str) -> KeySchema:
        schema = self.tables.get(table)
        if schema is None:
            raise _failure("ResourceNotFoundException", f"no table {table} in the local store", operation)
        return schema

    def _key(self, schema: KeySchema, key: Item) -> tuple[str, str]:
        return _key_text(key.get(schema.hash)), _key_text(key.get(schema.range) if schema.range else None)

    def _row(self, db: Any, table: str, h: str, r: str) -> Item | None:
        found = db.execute("SELECT item FROM items WHERE tbl = ? AND h = ? AND r = ?", (table, h, r)).fetchone()
        return _decode(found[0]) if found else None

    def _store(self, db: Any, table: str, schema: KeySchema, item: Item) -> None:
        h, r = self._key(schema, item)
        db.execute("INSERT OR REPLACE INTO items (tbl, h, r, item, expires_at, owner) VALUES (?, ?, ?, ?, ?, ?)",
                   (table, h, r, _encode(item), _expiry(item), self.owner))

    @staticmethod
    def _check(request: Mapping[str, Any], old: Item | None, operation: str) -> None:
        text = request.get("ConditionExpression")
        if text and not expressions.condition(text, request.get("ExpressionAttributeNames"),
                                              request.get("ExpressionAttributeValues"))(old or {}):
            extra = {"Item": old} if old and request.get("ReturnValuesOnConditionCheckFailure") == "ALL_OLD" else {}
            raise _failure("ConditionalCheckFailedException", "The conditional request failed", operation, **extra)

    # -- single items ----------------------------------------------------------------------------------------
    def get_item(self, *, TableName: str, Key: Item, ProjectionExpression: str | None = None,
                 ExpressionAttributeNames: Mapping[str, str] | None = None, **_: Any) -> dict[str, Any]:
        schema = self._schema(TableName, "GetItem")
        with self.database.read() as db:
            item = self._row(db, TableName, *self._key(schema, Key))
        if item is None:
            return {}
        return {"Item": expressions.projection(ProjectionExpression, ExpressionAttributeNames)(item)}

    def put_item(self, *, TableName: str, Item: Item, **request: Any) -> dict[str, Any]:
        schema = self._schema(TableName, "PutItem")
        with self.database.write() as db:
            old = self._row(db, TableName, *self._key(schema, Item))
            self._check(request, old, "PutItem")
            self._store(db, TableName, schema, Item)
        return {"Attributes": old} if old and request.get("ReturnValues") == "ALL_OLD" else {}

    def update_item(self, *, TableName: str, Key: Item, **request: Any) -> dict[str, Any]:
        schema = self._schema(TableName, "UpdateItem")
        with self.database.write() as db:
            old = self._row(db, TableName, *self._key(schema, Key))
            self._check(request, old, "UpdateItem")
            new = expressions.update(request.get("UpdateExpression", ""), request.get("ExpressionAttributeNames"),
                                     request.get("ExpressionAttributeValues"), {**(old or {}), **Key})
            self._store(db, TableName, schema, new)
        returned = request.get("ReturnValues", "NONE")
        if returned == "ALL_NEW":
            return {"Attributes": new}
        if returned == "ALL_OLD":
            return {"Attributes": old} if old else {}
        if returned == "UPDATED_NEW":
            return {"Attributes": {k: v for k, v in new.items() if (old or {}).get(k) != v}}
        return {}

    def delete_item(self, *, TableName: str, Key: Item, **request: Any) -> dict[str, Any]:
        schema = self._schema(TableName, "DeleteItem")
        h, r = self._key(schema, Key)
        with self.database.write() as db:
            old = self._row(db, TableName, h, r)
            self._check(request, old, "DeleteItem")
            db.execute("DELETE FROM items WHERE tbl = ? AND h = ? AND r = ?", (TableName, h, r))
        return {"Attributes": old} if old and request.get("ReturnValues") == "ALL_OLD" else {}

    # -- many items ------------------------------------------------------------------------------------------
    def query(self, *, TableName: str, KeyConditionExpression: str, **request: Any) -> dict[str, Any]:
        """Items of one hash key in range-key order; ``Limit`` counts items read before the filter, as DynamoDB's."""
        schema = self._schema(TableName, "Query")
        names, values = request.get("ExpressionAttributeNames"), request.get("ExpressionAttributeValues")
        hash_name, range_name = schema.indexes[request["IndexName"]] if request.get("IndexName") else (
            schema.hash, schema.range)
        hash_value = _hash_value(KeyConditionExpression, names, values, hash_name)
        keyed = expressions.condition(KeyConditionExpression, names, values)
        limit = request.get("Limit")
        start = request.get("ExclusiveStartKey")
        forward = request.get("ScanIndexForward") is not False
        with self.database.read() as db:
            if request.get("IndexName"):  # few rows (a caller's tasks): read them all, order them here
                (kind, raw), = hash_value.items()
                rows = db.execute("SELECT item FROM items WHERE tbl = ? AND json_extract(item, ?) = ?",
                                  (TableName, f'$."{hash_name}".{kind}', raw)).fetchall()
                items = sorted((item for item in (_decode(row[0]) for row in rows) if keyed(item)),
                               key=lambda item: _order(item.get(range_name) if range_name else None),
                               reverse=not forward)
                if start:
                    at = next((i for i, item in enumerate(items) if all(item.get(k) == v for k, v in start.items())),
                              -1)
                    items = items[at + 1:]
                items = items[: limit + 1] if limit is not None else items
            else:  # rows come in range-key order from the primary key; stop once a page and one more are read
                after = ("AND r > ?" if forward else "AND r < ?") if start else ""
                cursor = db.execute(
                    f"SELECT item FROM items WHERE tbl = ? AND h = ? {after} ORDER BY r {'ASC' if forward else 'DESC'}",
                    (TableName, _key_text(hash_value), *([_key_text(start.get(range_name))] if start else [])))
                items = []
                for (text,) in cursor:
                    item = _decode(text)
                    if keyed(item):
                        items.append(item)
                        if limit is not None and len(items) > limit:
                            break
        more = limit is not None and len(items) > limit
        items = items[:limit] if limit is not None else items
        answer: dict[str, Any] = {}
        if more:
            key_names = {schema.hash, schema.range, hash_name, range_name} - {None}
            answer["LastEvaluatedKey"] = {k: items[-1][k] for k in key_names if k in items[-1]}
        kept = [item for item in items if expressions.condition(request.get("FilterExpression"), names, values)(item)]
        cut = expressions.projection(request.get("ProjectionExpression"), names)
        answer["Items"] = [cut(item) for item in kept]
        answer["Count"] = len(kept)
        return answer

    def batch_get_item(self, *, RequestItems: Mapping[str, Any], **_: Any) -> dict[str, Any]:
        responses: dict[str, list[Item]] = {}
        with self.database.read() as db:
            for table, wanted in RequestItems.items():
                schema = self._schema(table, "BatchGetItem")
                found = (self._row(db, table, *self._key(schema, key)) for key in wanted["Keys"])
                cut = expressions.projection(wanted.get("ProjectionExpression"), wanted.get("ExpressionAttributeNames"))
                responses[table] = [cut(item) for item in found if item is not None]
        return {"Responses": responses, "UnprocessedKeys": {}}

    def batch_write_item(self, *, RequestItems: Mapping[str, Iterable[Any]], **_: Any) -> dict[str, Any]:
        with self.database.write() as db:
            for table, requests in RequestItems.items():
                schema = self._schema(table, "BatchWriteItem")
                for request in requests:
                    if "PutRequest" in request:
                        self._store(db, table, schema, request["PutRequest"]["Item"])
                    else:
                        h, r = self._key(schema, request["DeleteRequest"]["Key"])
                        db.execute("DELETE FROM items WHERE tbl = ? AND h = ? AND r = ?", (table, h, r))
        return {"UnprocessedItems": {}}

    def transact_write_items(self, *, TransactItems: list[Mapping[str, Any]], **_: Any) -> dict[str, Any]:
        """Every condition checked, then every action applied, in one transaction; any failure changes nothing."""
        with self.database.write() as db:
            reasons: list[dict[str, str]] = []
            planned: list[tuple[str, Mapping[str, Any], Item | None]] = []
            for action in TransactItems:
                (kind, request), = action.items()
                schema = self._schema(request["TableName"], "TransactWriteItems")
                key = request["Item"] if kind == "Put" else request["Key"]
                old = self._row(db, request["TableName"], *self._key(schema, key))
                try:
                    self._check(request, old, "TransactWriteItems")
                    reasons.append({"Code": "None"})
                except ClientError:
                    reasons.append({"Code": "ConditionalCheckFailed", "Message": "The conditional request failed"})
                planned.append((kind, request, old))
            if any(reason["Code"] != "None" for reason in reasons):
                raise _failure("TransactionCanceledException", "Transaction cancelled", "TransactWriteItems",
                               CancellationReasons=reasons)
            for kind, request, old in planned:
                self._apply(db, kind, request, old)
        return {}

    def _apply(self, db: Any, kind: str, request: Mapping[str, Any], old: Item | None) -> None:
        table = request["TableName"]
        schema = self.tables[table]
        if kind == "Put":
            self._store(db, table, schema, request["Item"])
        elif kind == "Update":
            self._store(db, table, schema, expressions.update(
                request["UpdateExpression"], request.get("ExpressionAttributeNames"),
                request.get("ExpressionAttributeValues"), {**(old or {}), **request["Key"]}))
        elif kind == "Delete":
            h, r = self._key(schema, request["Key"])
            db.execute("DELETE FROM items WHERE tbl = ? AND h = ? AND r = ?", (table, h, r))

    # -- housekeeping ----------------------------------------------------------------------------------------
    def purge_expired(self, now: float | None = None) -> int:
        """Delete rows whose ``expires_at`` has passed (DynamoDB's TTL); the number deleted."""
        with self.database.write() as db:
            return db.execute("DELETE FROM items WHERE expires_at IS NOT NULL AND expires_at <= ?",
                              (time.time() if now is None else now,)).rowcount


def _hash_value(text: str, names: Mapping[str, str] | None, values: Mapping[str, Any] | None,
                hash_name: str) -> Any:
    """The ``:value`` a key condition sets the hash key equal to (every Query names one)."""
    parts = expressions.tokens(text)
    for i in range(len(parts) - 2):
        if (names or {}).get(parts[i], parts[i]) == hash_name and parts[i + 1] == "=":
            return (values or {})[parts[i + 2]]
    raise ValueError(f"the key condition {text!r} does not fix the hash key {hash_name}")


def _order(value: Mapping[str, Any] | None) -> tuple[int, Any]:
    plain = scalar(value)
    if isinstance(plain, Decimal):
        return 0, plain
    if isinstance(plain, str):
        return 1, plain.encode()  # DynamoDB orders strings by their UTF-8 bytes
    return 2, plain if isinstance(plain, bytes) else b""
