"""MCP Tasks end to end through the local server: a rate-limited search_papers queued as a real task.

The 2025-11-25 utility is driven with raw JSON-RPC (the SDK client has no task helpers for it); the
2026-07-28 extension with the SDK's ``Client`` and a small client extension that claims ``resultType:
"task"`` and polls ``tasks/get``, so a client that speaks tasks never calls get_task_result.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Literal

import anyio
import httpx
import pytest
from mcp import Client, types
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim

from scholar.gateway.mcp.task_protocol.extension import EXTENSION_ID, DetailedTask
from scholar.runtime.executions import describe_execution
from scholar.store.tasks import TaskStore
from tests.fixtures.waiting import until_sync

pytestmark = pytest.mark.e2e

LEGACY = "2025-11-25"
ALICE, BOB = "alice-key", "bob-key"
# Each test searches its own year: the stack's cache is shared, and a cached answer would never be throttled.


def rpc(url: str, method: str, params: dict[str, Any], key: str = ALICE) -> dict[str, Any]:
    """One 2025-11-25 JSON-RPC request (stateless: no initialize needed); the JSON-RPC response."""
    headers = {
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
        "mcp-protocol-version": LEGACY,
        "x-api-key": key,
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    with httpx.Client(trust_env=False, timeout=30) as http:
        response = http.post(url, json=body, headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


def poll_until_terminal(url: str, task_id: str, key: str = ALICE) -> dict[str, Any]:
    """tasks/get until the task is no longer working (polled faster than the server advises: keep tests quick)."""
    return until_sync(lambda: rpc(url, "tasks/get", {"taskId": task_id}, key)["result"],
                      lambda task: task["status"] != "working", within_s=30, what=f"MCP task {task_id}")


def queue_search(url: str, fake: Any, args: dict[str, Any], *, throttled_times: int = 1) -> dict[str, Any]:
    fake.inject("s2", "/graph/v1/paper/search", status=429, headers={"Retry-After": "5"}, times=throttled_times)
    created = rpc(url, "tools/call", {"name": "search_papers", "arguments": args, "task": {"ttl": 60_000}})
    return created["result"]["task"]


def test_the_task_capability_and_extension_are_advertised_to_sdk_clients(local_server):
    async def main() -> tuple[types.ServerCapabilities, types.ServerCapabilities]:
        async with Client(local_server.url, mode="legacy") as legacy:
            handshake = legacy.server_capabilities
        async with Client(local_server.url) as modern:
            discovered = modern.server_capabilities
        return handshake, discovered

    handshake, discovered = anyio.run(main)

    assert handshake.tasks is not None
    assert handshake.tasks.requests is not None and handshake.tasks.requests.tools is not None
    assert handshake.tasks.list is not None and handshake.tasks.cancel is not None
    assert discovered.extensions is not None and EXTENSION_ID in discovered.extensions


def test_a_task_augmented_search_is_queued_and_tasks_result_equals_the_direct_call(local_server, fake):
    args = {"query": "turing", "year_start": 1941, "year_end": 1941}

    task = queue_search(local_server.url, fake, args)
    assert task["status"] == "working" and task["pollInterval"] > 0
    finished = poll_until_terminal(local_server.url, task["taskId"])
    result = rpc(local_server.url, "tasks/result", {"taskId": task["taskId"]})["result"]
    direct = rpc(local_server.url, "tools/call", {"name": "search_papers", "arguments": args})["result"]

    assert finished["status"] == "completed"
    assert not result.get("isError")
    assert result["structuredContent"] == direct["structuredContent"]
    assert result["_meta"]["io.modelcontextprotocol/related-task"] == {"taskId": task["taskId"]}


def test_tasks_are_listed_and_readable_only_by_the_caller_that_started_them(local_server, fake):
    task = queue_search(local_server.url, fake, {"query": "turing", "year_start": 1942, "year_end": 1942})

    mine = rpc(local_server.url, "tasks/list", {})["result"]["tasks"]
    theirs = rpc(local_server.url, "tasks/list", {}, key=BOB)["result"]["tasks"]
    stolen = rpc(local_server.url, "tasks/get", {"taskId": task["taskId"]}, key=BOB)

    assert task["taskId"] in [t["taskId"] for t in mine]
    assert task["taskId"] not in [t["taskId"] for t in theirs]
    assert stolen["error"]["code"] == types.INVALID_PARAMS
    # Let the background retry finish so no execution outlives the stack.
    assert poll_until_terminal(local_server.url, task["taskId"])["status"] == "completed"


def test_cancelling_a_rate_limited_task_stops_its_execution_and_reports_cancelled(local_server, fake):
    task = queue_search(local_server.url, fake, {"query": "turing", "year_start": 1943, "year_end": 1943},
                        throttled_times=None)
    execution_arn = TaskStore().get(task["taskId"], None).execution_arn

    cancelled = rpc(local_server.url, "tasks/cancel", {"taskId": task["taskId"]})["result"]
    again = rpc(local_server.url, "tasks/cancel", {"taskId": task["taskId"]})
    got = rpc(local_server.url, "tasks/get", {"taskId": task["taskId"]})["result"]

    assert cancelled["status"] == got["status"] == "cancelled"
    assert again["error"]["code"] == types.INVALID_PARAMS
    assert execution_arn and describe_execution(execution_arn)["status"] == "ABORTED"


# ------------------------------------------------------------------ 2026-07-28: the SDK client


class TaskHandle(types.Result):
    """The extension's CreateTaskResult as the client claims it."""

    result_type: Literal["task"] = "task"
    task_id: str
    status: str
    poll_interval_ms: int | None = None


class GetTask(types.Request[types.GetTaskRequestParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    params: types.GetTaskRequestParams
    name_param: ClassVar[str | None] = "taskId"  # SEP-2663: Mcp-Name carries the task id


class PollingTasks(ClientExtension):
    """A minimal tasks client: resolve a task handle by polling tasks/get until it is terminal."""

    identifier = EXTENSION_ID

    def __init__(self) -> None:
        self.handles: list[str] = []

    def claims(self) -> Sequence[ResultClaim[Any]]:
        return (ResultClaim(result_type="task", model=TaskHandle, resolve=self._resolve),)

    async def _resolve(self, handle: TaskHandle, ctx: ClaimContext) -> types.CallToolResult:
        self.handles.append(handle.task_id)
        request = GetTask(params=types.GetTaskRequestParams(task_id=handle.task_id))
        with anyio.fail_after(30):
            while True:
                task = await ctx.session.send_request(request, DetailedTask)
                if task.status != "working":
                    break
                await anyio.sleep((task.poll_interval_ms or 2000) / 10_000)
        assert task.result is not None, task
        return types.CallToolResult.model_validate(task.result)


def test_a_2026_sdk_client_speaking_the_extension_gets_the_final_result_of_a_queued_call(local_server, fake):
    args = {"query": "turing", "year_start": 1944, "year_end": 1944}
    tasks = PollingTasks()

    async def main() -> tuple[types.CallToolResult, types.CallToolResult]:
        async with Client(local_server.url, mode="2026-07-28", extensions=[tasks]) as client:
            fake.inject("s2", "/graph/v1/paper/search", status=429, headers={"Retry-After": "5"}, times=1)
            via_task = await client.call_tool("search_papers", args)
            direct = await client.call_tool("search_papers", args)
        return via_task, direct

    via_task, direct = anyio.run(main)

    assert len(tasks.handles) == 1  # the first call was answered with a task handle, the second directly
    assert not via_task.is_error
    assert via_task.structured_content == direct.structured_content
    assert "queued" not in (via_task.structured_content or {})
