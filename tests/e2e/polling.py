"""Waiting for a background task through the polling tool, within a bounded time (no bare sleeps)."""

from __future__ import annotations

from typing import Any

import anyio

FINISHED = ("completed", "failed", "cancelled")


async def poll_task(client: Any, task_id: str, *, within_s: float = 30) -> Any:
    """get_task_result until the task finishes; the last answer (raises TimeoutError past ``within_s``)."""
    with anyio.fail_after(within_s):
        while True:
            polled = await client.call_tool("get_task_result", {"task_id": task_id})
            if polled.structured_content["status"] in FINISHED:
                return polled
            await anyio.sleep(0.2)


async def call_ok(client: Any, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """One tools/call that must succeed; its structured result."""
    result = await client.call_tool(tool, args)
    assert not result.is_error, (tool, result.structured_content)
    return result.structured_content


async def finished(client: Any, task_id: str, *, within_s: float = 30) -> dict[str, Any]:
    """The polled task's last answer (structured), once it is no longer pending or running."""
    return (await poll_task(client, task_id, within_s=within_s)).structured_content
