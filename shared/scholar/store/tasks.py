"""The TaskTable (DESIGN §5): background work bound to the caller that started it.

State changes are conditional writes: pending → running → completed | failed | cancelled, and a
terminal state never changes again (a late retry cannot overwrite a result the caller already read).
Reads that must see a just-written task are strongly consistent; every read filters ``expires_at``
because DynamoDB deletes expired items lazily. Results over 350 KB live in S3 under ``results/``.
"""

from __future__ import annotations

import json
import secrets
import time
from typing import Any

from botocore.exceptions import ClientError
from pydantic import BaseModel, Field

from scholar.core.config import TASK_TABLE_ENV
from scholar.store.base import Store, awaitable
from scholar.store.blobs import BlobStore
from scholar.store.boundary import boto_errors

TERMINAL = ("completed", "failed", "cancelled")
ACTIVE = ("pending", "running")
RESULT_INLINE_BYTES = 350 * 1024


class TaskTransitionError(Exception):
    """The task is not in a state that allows the change (e.g. it is already terminal)."""


class TaskItem(BaseModel):
    """One TaskTable item, as stored."""

    task_id: str
    principal: str
    tool: str
    status: str = "pending"
    arguments_digest: str = ""
    created_at: float = Field(default_factory=time.time)
    updated_at: float = Field(default_factory=time.time)
    expires_at: int
    result: Any = None
    result_s3_key: str | None = None
    error: dict[str, Any] | None = None
    execution_arn: str | None = None
    progress: str | None = None
    reason: str | None = None


def new_task_id() -> str:
    """An unguessable id (128 bits)."""
    return secrets.token_urlsafe(16)


def _to_item(task: TaskItem) -> dict[str, Any]:
    item: dict[str, Any] = {
        "task_id": {"S": task.task_id},
        "principal": {"S": task.principal},
        "tool": {"S": task.tool},
        "status": {"S": task.status},
        "arguments_digest": {"S": task.arguments_digest},
        "created_at": {"N": repr(task.created_at)},
        "updated_at": {"N": repr(task.updated_at)},
        "expires_at": {"N": str(task.expires_at)},
    }
    for name in ("result_s3_key", "execution_arn", "progress", "reason"):
        value = getattr(task, name)
        if value is not None:
            item[name] = {"S": value}
    if task.result is not None:
        item["result"] = {"S": json.dumps(task.result)}
    if task.error is not None:
        item["error"] = {"S": json.dumps(task.error)}
    return item


def _from_item(item: dict[str, Any]) -> TaskItem:
    data: dict[str, Any] = {}
    for name, value in item.items():
        if "S" in value:
            data[name] = value["S"]
        elif "N" in value:
            data[name] = float(value["N"])
    for name in ("result", "error"):
        if name in data:
            data[name] = json.loads(data[name])
    data["expires_at"] = int(data["expires_at"])
    return TaskItem(**data)


class TaskStore(Store):
    """Create, read, list and move tasks; every read is scoped to a principal."""

    RESOURCE = "task_table"
    ENV = TASK_TABLE_ENV
    NOUN = "task table"

    def __init__(self, table: str | None = None, client: Any = None, blobs: BlobStore | None = None) -> None:
        super().__init__(table, client)
        self._blobs = blobs

    @property
    def table(self) -> str:
        return self._required()

    @property
    def blobs(self) -> BlobStore:
        return self._blobs or BlobStore()

    def create(self, task: TaskItem) -> TaskItem:
        """Store a new task; an existing id is refused (ids are never reused)."""
        table = self.table  # fail with UnavailableError before building a client
        with boto_errors("creating a task"):
            try:
                self.client.put_item(
                    TableName=table, Item=_to_item(task), ConditionExpression="attribute_not_exists(task_id)"
                )
            except ClientError as exc:
                if exc.response["Error"]["Code"] == "ConditionalCheckFailedException":
                    raise TaskTransitionError(f"task {task.task_id} exists already") from exc
                raise
        return task

    def get(self, task_id: str, principal: str | None) -> TaskItem | None:
        """The task if it exists, has not expired and belongs to ``principal`` (None: any owner, internal use)."""
        table = self.table  # fail with UnavailableError before building a client
        with boto_errors("reading a task"):
            item = self.client.get_item(TableName=table, Key={"task_id": {"S": task_id}}, ConsistentRead=True).get(
                "Item"
            )
        if not item:
            return None
        task = _from_item(item)
        if task.expires_at <= time.time() or (principal is not None and task.principal != principal):
            return None
        return task

    def load_result(self, task: TaskItem) -> Any:
        """The task's result, from the item or from S3."""
        if task.result is not None or not task.result_s3_key:
            return task.result
        data = self.blobs.get(task.result_s3_key)
        return json.loads(data) if data is not None else None

    def list(self, principal: str, limit: int = 50) -> list[TaskItem]:
        """The principal's unexpired tasks, newest first."""
        table = self.table  # fail with UnavailableError before building a client
        with boto_errors("listing tasks"):
            out = self.client.query(
                TableName=table,
                IndexName="by_principal",
                KeyConditionExpression="principal = :p",
                ExpressionAttributeValues={":p": {"S": principal}},
                ScanIndexForward=False,
                Limit=limit,
            )
        now = time.time()
        return [t for t in map(_from_item, out.get("Items", [])) if t.expires_at > now]

    def transition(
        self,
        task_id: str,
        status: str,
        *,
        allowed_from: tuple[str, ...],
        result: Any = None,
        error: dict[str, Any] | None = None,
        execution_arn: str | None = None,
        progress: str | None = None,
        expires_at: int | None = None,
    ) -> None:
        """Move a task to ``status`` if it is in one of ``allowed_from``.

        Raises:
            TaskTransitionError: the task is missing or in another state (terminal states never change).
        """
        table = self.table  # fail with UnavailableError before building a client
        now = time.time()
        names = {"#s": "status"}
        values: dict[str, Any] = {":to": {"S": status}, ":now": {"N": repr(now)}}
        sets = ["#s = :to", "updated_at = :now"]
        for i, state in enumerate(allowed_from):
            values[f":from{i}"] = {"S": state}
        if result is not None:
            encoded = json.dumps(result)
            if len(encoded) > RESULT_INLINE_BYTES:
                key = self.blobs.put(f"results/{task_id}.json", encoded.encode(), "application/json")
                sets.append("result_s3_key = :rkey")
                values[":rkey"] = {"S": key}
            else:
                sets.append("#r = :result")
                names["#r"] = "result"
                values[":result"] = {"S": encoded}
        for name, value in (("error", error), ("execution_arn", execution_arn), ("progress", progress)):
            if value is not None:
                sets.append(f"#{name} = :{name}")
                names[f"#{name}"] = name
                values[f":{name}"] = {"S": json.dumps(value) if name == "error" else value}
        if expires_at is not None:
            sets.append("expires_at = :exp")
            values[":exp"] = {"N": str(expires_at)}
        # Timeline guarded: a retry that finishes after a cancel, or a second finisher, must not
        # overwrite the first terminal state the caller may already have read.
        states = ", ".join(f":from{i}" for i in range(len(allowed_from)))
        condition = f"attribute_exists(task_id) AND #s IN ({states})"
        with boto_errors("updating a task"):
            try:
                self.client.update_item(
                    TableName=table,
                    Key={"task_id": {"S": task_id}},
                    UpdateExpression="SET " + ", ".join(sets),
                    ConditionExpression=condition,
                    ExpressionAttributeNames=names,
                    ExpressionAttributeValues=values,
                )
            except ClientError as exc:
                if exc.response["Error"]["Code"] == "ConditionalCheckFailedException":
                    raise TaskTransitionError(f"task {task_id} cannot move to {status}") from exc
                raise

    aget = awaitable(get)
    aload_result = awaitable(load_result)
    alist = awaitable(list)
