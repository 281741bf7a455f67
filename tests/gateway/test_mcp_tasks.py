"""MCP Tasks on the gateway: the 2025-11-25 utility and the 2026-07-28 extension, raw JSON-RPC over the ASGI app.

The TaskTable and Step Functions are moto; tool dispatch (the family function) is replaced at its boundary
(``scholar.gateway.mcp.server.call_tool``) so each test decides whether a tool answers at once or queues.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
import pytest
from mcp import types

from scholar.gateway.mcp import server as gateway_server
from scholar.gateway.mcp.app import create_app
from scholar.gateway.mcp.dispatch import envelope_result, success_result
from scholar.gateway.mcp.principal import principal_from_scope
from scholar.gateway.mcp.task_protocol import utility as tasks_utility
from scholar.gateway.mcp.task_protocol.extension import EXTENSION_ID
from scholar.gateway.mcp.task_protocol.shared import POLL_INTERVAL_MS
from scholar.store.tasks import TaskItem, TaskStore, new_task_id

LEGACY = "2025-11-25"
MODERN = "2026-07-28"
ALICE, BOB = "alice-key", "bob-key"
PAGE = {"total": 1, "offset": 0, "data": [{"paperId": "p1", "title": "On computable numbers"}]}


def principal(key: str) -> str:
    return principal_from_scope({"headers": [(b"x-api-key", key.encode())]})


def seed(key: str = ALICE, status: str = "pending", **fields: Any) -> TaskItem:
    now = time.time()
    values = {"task_id": new_task_id(), "principal": principal(key), "tool": "search_papers",
              "expires_at": int(now) + 600, "created_at": now, "updated_at": now, "status": status, **fields}
    return TaskStore().create(TaskItem(**values))


def queued(task_id: str) -> types.CallToolResult:
    return success_result({"queued": True, "task_id": task_id, "tool": "search_papers", "poll_after_s": 2})


class Gateway:
    """JSON-RPC over HTTP to the gateway app, as a 2025 (handshake-era) or 2026 (per-request envelope) client."""

    def __init__(self, http: httpx.AsyncClient) -> None:
        self.http = http
        self._id = 0

    async def legacy(self, method: str, params: dict[str, Any] | None = None, key: str = ALICE) -> dict[str, Any]:
        headers = {"mcp-protocol-version": LEGACY, "x-api-key": key}
        return await self._post(method, params or {}, headers)

    async def modern(
        self, method: str, params: dict[str, Any] | None = None, key: str = ALICE, declare: bool = True
    ) -> dict[str, Any]:
        capabilities = {"extensions": {EXTENSION_ID: {}}} if declare else {}
        body = dict(params or {})
        body["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": capabilities,
        }
        headers = {"mcp-protocol-version": MODERN, "mcp-method": method, "x-api-key": key}
        if method == "tools/call":
            headers["mcp-name"] = body["name"]
        elif "taskId" in body:
            headers["mcp-name"] = body["taskId"]
        return await self._post(method, body, headers)

    async def _post(self, method: str, params: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        self._id += 1
        message = {"jsonrpc": "2.0", "id": self._id, "method": method, "params": params}
        response = await self.http.post(
            "/mcp",
            content=json.dumps(message),
            headers={"accept": "application/json, text/event-stream", "content-type": "application/json", **headers},
        )
        return response.json()


@asynccontextmanager
async def gateway() -> AsyncIterator[Gateway]:
    app = create_app()
    async with app.state.session_manager.run():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway.test") as http:
            yield Gateway(http)


def run(main: Callable[[Gateway], Awaitable[Any]]) -> Any:
    async def session() -> Any:
        async with gateway() as gw:
            with anyio.fail_after(10):
                return await main(gw)

    return anyio.run(session)


@pytest.fixture
def dispatch(aws, monkeypatch) -> Callable[[types.CallToolResult], list[str]]:
    """Make every tools/call answer with the given result; returns the names of the tools called."""
    called: list[str] = []

    def answer_with(result: types.CallToolResult) -> list[str]:
        async def fake_call_tool(spec, name, arguments, principal, toolsets, **_) -> types.CallToolResult:
            called.append(name)
            return result

        monkeypatch.setattr(gateway_server, "call_tool", fake_call_tool)
        return called

    return answer_with


def start_execution(aws) -> str:
    sfn = aws.client("stepfunctions")
    machine = sfn.create_state_machine(
        name="retry-task",
        definition=json.dumps({"StartAt": "Wait", "States": {"Wait": {"Type": "Wait", "Seconds": 600, "End": True}}}),
        roleArn="arn:aws:iam::123456789012:role/sfn",
    )["stateMachineArn"]
    return sfn.start_execution(stateMachineArn=machine, name=new_task_id())["executionArn"]


# ------------------------------------------------------------------ capabilities


def test_initialize_at_2025_11_25_advertises_the_task_utility(aws):
    params = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}

    answer = run(lambda gw: gw.legacy("initialize", params))

    tasks = answer["result"]["capabilities"]["tasks"]
    assert tasks == {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}


def test_an_older_handshake_gets_no_tasks_capability(aws):
    params = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}

    answer = run(lambda gw: gw.legacy("initialize", params))

    assert "tasks" not in answer["result"]["capabilities"]


def test_server_discover_advertises_the_2026_tasks_extension(aws):
    answer = run(lambda gw: gw.modern("server/discover"))

    assert answer["result"]["capabilities"]["extensions"] == {EXTENSION_ID: {}}
    assert "tasks" not in answer["result"]["capabilities"]


def test_tools_list_carries_each_tools_task_support(aws):
    answer = run(lambda gw: gw.legacy("tools/list"))

    support = {t["name"]: t.get("execution", {}).get("taskSupport") for t in answer["result"]["tools"]}
    assert support["get_task_result"] == "forbidden"


def test_the_sdk_default_opentelemetry_middleware_is_not_installed():
    middleware = gateway_server.build_server().middleware

    assert [type(m) for m in middleware] == [tasks_utility.TaskUtilityMiddleware]


# ------------------------------------------------------------------ 2025-11-25 utility


def test_a_task_augmented_call_answered_at_once_becomes_a_finished_task_with_the_direct_result(dispatch):
    dispatch(success_result(PAGE))
    call = {"name": "search_papers", "arguments": {"query": "turing"}}

    async def main(gw: Gateway) -> tuple[Any, ...]:
        created = await gw.legacy("tools/call", {**call, "task": {"ttl": 120_000}})
        task_id = created["result"]["task"]["taskId"]
        got = await gw.legacy("tasks/get", {"taskId": task_id})
        result = await gw.legacy("tasks/result", {"taskId": task_id})
        direct = await gw.legacy("tools/call", call)
        return created, got, result, direct

    created, got, result, direct = run(main)

    task = created["result"]["task"]
    assert task["status"] == "completed"
    assert task["ttl"] == 120_000
    assert {"createdAt", "lastUpdatedAt"} <= set(task)
    assert got["result"]["status"] == "completed" and got["result"]["taskId"] == task["taskId"]
    payload = result["result"]
    assert payload["_meta"]["io.modelcontextprotocol/related-task"] == {"taskId": task["taskId"]}
    assert payload["structuredContent"] == direct["result"]["structuredContent"] == PAGE
    assert payload["content"] == direct["result"]["content"]


def test_a_task_augmented_call_that_queues_maps_to_the_queued_task(dispatch):
    item = seed(progress="waiting to retry")
    dispatch(queued(item.task_id))

    call = {"name": "search_papers", "arguments": {"query": "x"}, "task": {}}

    created = run(lambda gw: gw.legacy("tools/call", call))

    task = created["result"]["task"]
    assert task["taskId"] == item.task_id
    assert task["status"] == "working"
    assert task["statusMessage"] == "waiting to retry"
    assert task["pollInterval"] == POLL_INTERVAL_MS


def test_a_task_augmented_call_of_a_tool_that_never_runs_as_a_task_is_refused(dispatch):
    called = dispatch(success_result({}))

    answer = run(lambda gw: gw.legacy("tools/call", {"name": "list_tasks", "arguments": {}, "task": {}}))

    assert answer["error"]["code"] == types.METHOD_NOT_FOUND
    assert called == []


@pytest.mark.parametrize(
    ("stored", "wire"),
    [("pending", "working"), ("running", "working"), ("completed", "completed"), ("failed", "failed"),
     ("cancelled", "cancelled")],
)
def test_tasks_get_maps_the_stored_status(aws, stored, wire):
    item = seed(status=stored, error={"code": "rate_limited", "message": "still throttled", "retryable": True})

    answer = run(lambda gw: gw.legacy("tasks/get", {"taskId": item.task_id}))

    task = answer["result"]
    assert task["status"] == wire
    assert ("pollInterval" in task) == (wire == "working")
    if wire == "failed":
        assert task["statusMessage"] == "still throttled"


def test_tasks_result_of_a_failed_task_is_the_error_envelope(aws):
    error = {"code": "rate_limited", "message": "still throttled", "retryable": True}
    item = seed(status="failed", error=error)

    answer = run(lambda gw: gw.legacy("tasks/result", {"taskId": item.task_id}))

    assert answer["result"]["isError"] is True
    assert answer["result"]["structuredContent"] == {"error": error}
    assert answer["result"]["structuredContent"] == envelope_result(error).structured_content


def test_tasks_result_of_a_cancelled_task_is_an_invalid_params_error(aws):
    item = seed(status="cancelled")

    answer = run(lambda gw: gw.legacy("tasks/result", {"taskId": item.task_id}))

    assert answer["error"]["code"] == types.INVALID_PARAMS


def test_tasks_result_of_a_task_still_working_after_the_wait_is_a_request_timeout(aws, monkeypatch):
    monkeypatch.setattr(tasks_utility, "RESULT_WAIT_S", 0.05)
    item = seed(status="running")

    answer = run(lambda gw: gw.legacy("tasks/result", {"taskId": item.task_id}))

    assert answer["error"]["code"] == types.REQUEST_TIMEOUT


def test_tasks_list_shows_only_the_callers_tasks_newest_first(aws):
    older = seed(created_at=time.time() - 60)
    newer = seed()
    seed(BOB)

    answer = run(lambda gw: gw.legacy("tasks/list"))

    assert [t["taskId"] for t in answer["result"]["tasks"]] == [newer.task_id, older.task_id]
    assert "nextCursor" not in answer["result"]


def test_tasks_list_pages_with_an_opaque_cursor(aws, monkeypatch):
    monkeypatch.setattr(tasks_utility, "LIST_PAGE_SIZE", 2)
    now = time.time()
    ids = [seed(created_at=now - i).task_id for i in range(5)]

    async def main(gw: Gateway) -> list[str]:
        seen: list[str] = []
        params: dict[str, Any] = {}
        while True:
            page = (await gw.legacy("tasks/list", params))["result"]
            seen += [t["taskId"] for t in page["tasks"]]
            if "nextCursor" not in page:
                return seen
            params = {"cursor": page["nextCursor"]}

    assert run(main) == ids


def test_tasks_list_refuses_a_cursor_it_did_not_issue(aws):
    answer = run(lambda gw: gw.legacy("tasks/list", {"cursor": "not-a-cursor"}))

    assert answer["error"]["code"] == types.INVALID_PARAMS


def test_tasks_cancel_marks_an_active_task_cancelled_and_stops_its_execution(aws):
    arn = start_execution(aws)
    item = seed(status="pending", execution_arn=arn)

    async def main(gw: Gateway) -> tuple[Any, Any]:
        params = {"taskId": item.task_id}
        return await gw.legacy("tasks/cancel", params), await gw.legacy("tasks/get", params)

    cancelled, got = run(main)

    assert cancelled["result"]["status"] == "cancelled"
    assert got["result"]["status"] == "cancelled"
    assert aws.client("stepfunctions").describe_execution(executionArn=arn)["status"] == "ABORTED"
    assert TaskStore().get(item.task_id, None).status == "cancelled"


@pytest.mark.parametrize("status", ["completed", "failed", "cancelled"])
def test_tasks_cancel_of_a_finished_task_is_refused_and_changes_nothing(aws, status):
    item = seed(status=status)

    answer = run(lambda gw: gw.legacy("tasks/cancel", {"taskId": item.task_id}))

    assert answer["error"]["code"] == types.INVALID_PARAMS
    assert TaskStore().get(item.task_id, None).status == status


@pytest.mark.parametrize("method", ["tasks/get", "tasks/result", "tasks/cancel"])
def test_another_caller_gets_not_found_for_a_task(aws, method):
    item = seed(ALICE, status="completed", result=PAGE)

    answer = run(lambda gw: gw.legacy(method, {"taskId": item.task_id}, key=BOB))

    assert answer["error"]["code"] == types.INVALID_PARAMS
    assert TaskStore().get(item.task_id, None).status == "completed"


def test_an_expired_task_is_not_found(aws):
    item = seed(expires_at=int(time.time()) - 1)

    answer = run(lambda gw: gw.legacy("tasks/get", {"taskId": item.task_id}))

    assert answer["error"]["code"] == types.INVALID_PARAMS


# ------------------------------------------------------------------ 2026-07-28 extension


def test_a_declaring_2026_client_gets_a_task_handle_for_a_queued_call(dispatch):
    item = seed(progress="waiting to retry")
    dispatch(queued(item.task_id))

    answer = run(lambda gw: gw.modern("tools/call", {"name": "search_papers", "arguments": {"query": "x"}}))

    result = answer["result"]
    assert result["resultType"] == "task"
    assert result["taskId"] == item.task_id
    assert result["status"] == "working"
    assert result["pollIntervalMs"] == POLL_INTERVAL_MS and result["ttlMs"] > 0
    assert "result" not in result and "content" not in result


def test_a_2026_client_that_does_not_declare_the_extension_keeps_the_queued_answer(dispatch):
    item = seed()
    dispatch(queued(item.task_id))

    call = {"name": "search_papers", "arguments": {"query": "x"}}

    answer = run(lambda gw: gw.modern("tools/call", call, declare=False))

    assert answer["result"]["resultType"] == "complete"
    assert answer["result"]["structuredContent"]["task_id"] == item.task_id


def test_a_2026_call_answered_at_once_is_a_plain_result(dispatch):
    dispatch(success_result(PAGE))

    answer = run(lambda gw: gw.modern("tools/call", {"name": "search_papers", "arguments": {"query": "x"}}))

    assert answer["result"]["resultType"] == "complete"
    assert answer["result"]["structuredContent"] == PAGE


def test_2026_tasks_get_inlines_the_final_result(aws):
    item = seed(status="completed", result=PAGE)

    answer = run(lambda gw: gw.modern("tasks/get", {"taskId": item.task_id}))

    task = answer["result"]
    assert task["resultType"] == "complete"
    assert task["status"] == "completed"
    assert task["result"]["structuredContent"] == PAGE
    direct = success_result(PAGE).model_dump(by_alias=True, mode="json", exclude_none=True)
    assert task["result"]["content"] == direct["content"]


def test_2026_a_failed_tool_is_a_completed_task_whose_result_is_an_error(aws):
    error = {"code": "rate_limited", "message": "still throttled", "retryable": True}
    item = seed(status="failed", error=error)

    task = run(lambda gw: gw.modern("tasks/get", {"taskId": item.task_id}))["result"]

    assert task["status"] == "completed"
    assert task["result"]["isError"] is True
    assert task["result"]["structuredContent"] == {"error": error}


def test_2026_tasks_methods_require_the_declared_extension(aws):
    item = seed()

    answer = run(lambda gw: gw.modern("tasks/get", {"taskId": item.task_id}, declare=False))

    assert answer["error"]["code"] == types.MISSING_REQUIRED_CLIENT_CAPABILITY
    assert answer["error"]["data"]["requiredCapabilities"]["extensions"] == {EXTENSION_ID: {}}


def test_2026_tasks_cancel_acknowledges_and_stops_the_execution(aws):
    arn = start_execution(aws)
    item = seed(status="running", execution_arn=arn)

    async def main(gw: Gateway) -> tuple[Any, Any]:
        params = {"taskId": item.task_id}
        return await gw.modern("tasks/cancel", params), await gw.modern("tasks/get", params)

    ack, got = run(main)

    assert ack["result"] == {"resultType": "complete", "_meta": ack["result"]["_meta"]}
    assert got["result"]["status"] == "cancelled"
    assert aws.client("stepfunctions").describe_execution(executionArn=arn)["status"] == "ABORTED"


def test_2026_tasks_cancel_of_a_finished_task_acknowledges_without_change(aws):
    item = seed(status="completed", result=PAGE)

    ack = run(lambda gw: gw.modern("tasks/cancel", {"taskId": item.task_id}))

    assert "error" not in ack
    assert TaskStore().get(item.task_id, None).status == "completed"


@pytest.mark.parametrize("method", ["tasks/get", "tasks/cancel", "tasks/update"])
def test_2026_another_caller_gets_not_found(aws, method):
    item = seed(ALICE)
    params = {"taskId": item.task_id, **({"inputResponses": {}} if method == "tasks/update" else {})}

    answer = run(lambda gw: gw.modern(method, params, key=BOB))

    assert answer["error"]["code"] == types.INVALID_PARAMS
    assert TaskStore().get(item.task_id, None).status == "pending"


@pytest.mark.parametrize("method", ["tasks/list", "tasks/result"])
def test_2026_has_no_tasks_list_or_result(aws, method):
    answer = run(lambda gw: gw.modern(method, {}))

    assert answer["error"]["code"] == types.METHOD_NOT_FOUND


# ------------------------------------------------------------------ deployed: the Lambda handler


def test_through_the_lambda_handler_tasks_are_bound_to_the_api_key_id_not_a_header(aws, lambda_context):
    from functions.gateway.app import lambda_handler
    from tests.events import load_event, with_body

    rest = load_event("api_rest_v1_tools_call")
    owner = f"apikey:{rest['requestContext']['identity']['apiKeyId']}"
    item = TaskStore().create(TaskItem(task_id=new_task_id(), principal=owner, tool="search_papers",
                                       expires_at=int(time.time()) + 600))
    get = {"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"taskId": item.task_id}}

    mine = json.loads(lambda_handler(with_body(rest, get), lambda_context)["body"])
    # Same x-api-key header, but no API Gateway identity: a header alone never identifies the caller there.
    other = json.loads(lambda_handler(with_body(load_event("api_http_v2_tools_call"), get), lambda_context)["body"])

    assert mine["result"]["taskId"] == item.task_id and mine["result"]["status"] == "working"
    assert other["error"]["code"] == types.INVALID_PARAMS
