"""Calling tools through the local server the way a client does, and forgetting every cached answer between calls."""

from __future__ import annotations

from typing import Any

from scholar.core.config import get_settings
from scholar.store import aws
from scholar.store.cache import forget_memory
from tests.fixtures.loopback import loopback_client
from tests.fixtures.waiting import FINISHED, until_sync

HEADERS = {
    "accept": "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-protocol-version": "2025-11-25",
}


class Answer:
    """One tools/call as the client saw it: HTTP status, isError, structuredContent."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        self.http_status = status
        self.body = body
        result = body.get("result") or {}
        self.is_error = bool(result.get("isError"))
        self.structured: dict[str, Any] = result.get("structuredContent") or {}
        self.rpc_error = body.get("error")

    @property
    def error(self) -> dict[str, Any]:
        return self.structured.get("error") or {}

    def __repr__(self) -> str:
        return f"Answer(http={self.http_status}, is_error={self.is_error}, structured={str(self.structured)[:300]})"


def call(
    url: str, tool: str, arguments: dict[str, Any], *, timeout_s: float = 30.0, caller: str | None = None
) -> Answer:
    """One stateless JSON-RPC tools/call (the 2025-11-25 wire form every client sends).

    ``caller`` is sent as the x-api-key header, which locally only names the caller: tasks are the caller's, so
    another caller's same request is a new task (a new execution), not the finished one of an earlier cell.
    """
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}
    headers = HEADERS if caller is None else {**HEADERS, "x-api-key": caller}
    with loopback_client(timeout_s) as client:
        response = client.post(url, json=body, headers=headers)
    try:
        payload = response.json()
    except ValueError:
        payload = {"error": {"message": response.text[:200]}}
    return Answer(response.status_code, payload)


def forget_cached_answers() -> None:
    """Empty the local stack's CacheTable, TaskTable and ArtifactBucket and the in-memory copies (each cell starts
    cold; a task tool's earlier tasks would otherwise use up its generations of the same request)."""
    settings = get_settings()
    table, bucket = settings.resources.cache_table, settings.resources.artifact_bucket
    for name in (table, settings.resources.task_table):
        if name:
            _empty_table(name)
    if bucket:
        s3 = aws.s3()
        for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
            for obj in page.get("Contents", []):
                s3.delete_object(Bucket=bucket, Key=obj["Key"])
    forget_memory()


def _empty_table(name: str) -> None:
    ddb = aws.dynamodb()
    keys = [k["AttributeName"] for k in ddb.describe_table(TableName=name)["Table"]["KeySchema"]]
    for page in ddb.get_paginator("scan").paginate(TableName=name, ProjectionExpression=", ".join(
            f"#k{i}" for i in range(len(keys))), ExpressionAttributeNames={f"#k{i}": k for i, k in enumerate(keys)}):
        for item in page.get("Items", []):
            ddb.delete_item(TableName=name, Key={k: item[k] for k in keys})


def wait_for_task(url: str, task_id: str, *, within_s: float = 30.0, caller: str | None = None) -> dict[str, Any]:
    """Poll get_task_result (as ``caller``) until the task finishes; its last answer."""

    def poll_once() -> dict[str, Any]:
        return call(url, "get_task_result", {"task_id": task_id}, caller=caller).structured

    return until_sync(poll_once, lambda polled: polled.get("status") in FINISHED, within_s=within_s,
                      what=f"task {task_id}")
