"""Waiting for a background task through the polling tool, within a bounded time (no bare sleeps)."""

from __future__ import annotations

import json
from functools import partial
from typing import Any

from tests.fixtures.waiting import FINISHED, until


async def poll_task(client: Any, task_id: str, *, within_s: float = 30) -> Any:
    """get_task_result until the task finishes; the last answer."""
    return await until(partial(client.call_tool, "get_task_result", {"task_id": task_id}),
                       lambda polled: polled.structured_content["status"] in FINISHED, within_s=within_s,
                       what=f"task {task_id}")


async def call_ok(client: Any, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """One tools/call that must succeed; its structured result."""
    result = await client.call_tool(tool, args)
    assert not result.is_error, (tool, result.structured_content)
    return result.structured_content


async def finished(client: Any, task_id: str, *, within_s: float = 30) -> dict[str, Any]:
    """The polled task's last answer (structured), once it is no longer pending or running."""
    return (await poll_task(client, task_id, within_s=within_s)).structured_content


async def outcome(client: Any, answer: dict[str, Any], *, within_s: float = 30) -> dict[str, Any]:
    """What a tool that may queue answered: ``answer`` itself when it answered at once, else its task's result once
    the task has completed (a PDF an earlier test of the same server fetched is answered at once)."""
    if not answer.get("queued"):
        return answer
    done = await finished(client, answer["task_id"], within_s=within_s)
    assert done["status"] == "completed", json.dumps(done)[:3000]
    return done["result"]
