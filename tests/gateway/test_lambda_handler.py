"""The gateway Lambda handler with API Gateway events (REST v1 and HTTP API v2), each invoked twice in a row."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from functions.gateway.app import lambda_handler
from scholar.core.errors import INVALID_ARGUMENT, NOT_FOUND
from scholar.store.library.table import LibraryStore
from scholar.store.tasks import TaskItem, TaskStore
from tests.events import load_event, with_body
from tests.library.helpers import recorded_item

LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}


def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": name, "arguments": arguments}}


def invoke(event: dict[str, Any], lambda_context) -> tuple[int, dict[str, Any]]:
    response = lambda_handler(event, lambda_context)
    body = response.get("body") or "{}"
    return response["statusCode"], json.loads(body)


@pytest.mark.parametrize("event_name", ["api_rest_v1_tools_list", "api_http_v2_tools_list"])
def test_tools_list_answers_on_two_invocations_in_a_row(event_name, lambda_context):
    first_status, first = invoke(load_event(event_name), lambda_context)
    second_status, second = invoke(load_event(event_name), lambda_context)

    assert first_status == second_status == 200
    names = [tool["name"] for tool in first["result"]["tools"]]
    assert names == sorted(names) and "get_paper" in names
    assert second["result"] == first["result"]


def test_get_on_the_mcp_path_answers_405_at_once(lambda_context):
    event = load_event("api_rest_v1_tools_list")
    event["httpMethod"] = "GET"
    event["body"] = None
    event["headers"]["Accept"] = "text/event-stream"

    started = time.monotonic()
    status, body = invoke(event, lambda_context)

    assert status == 405
    assert time.monotonic() - started < 5  # a hang would run into the Lambda timeout instead
    assert body["error"]["code"] == -32600


def test_a_trailing_slash_is_not_redirected(lambda_context):
    event = load_event("api_http_v2_tools_list")
    event["rawPath"] = "/mcp/"
    event["requestContext"]["http"]["path"] = "/mcp/"

    status, _ = invoke(event, lambda_context)

    assert status == 404


def test_subscriptions_listen_is_refused(lambda_context):
    event = with_body(
        load_event("api_http_v2_tools_list"), {"jsonrpc": "2.0", "id": 9, "method": "subscriptions/listen"}
    )

    status, _ = invoke(event, lambda_context)

    assert status == 405


def test_the_toolsets_query_narrows_tools_list(lambda_context):
    event = load_event("api_rest_v1_tools_list")
    event["queryStringParameters"] = {"toolsets": "tasks"}
    event["multiValueQueryStringParameters"] = {"toolsets": ["tasks"]}

    _, body = invoke(event, lambda_context)

    assert {t["name"] for t in body["result"]["tools"]} == {"get_task_result", "get_job_result", "list_tasks"}


def test_invalid_arguments_are_a_tool_error_naming_the_field(lambda_context):
    event = with_body(load_event("api_rest_v1_tools_call"), call("search", {"query": "", "limit": 5}))

    status, body = invoke(event, lambda_context)

    assert status == 200
    assert body["result"]["isError"] is True
    error = body["result"]["structuredContent"]["error"]
    assert error["code"] == INVALID_ARGUMENT and error["details"]["field"] == "query"


def test_the_caller_is_the_api_key_id_and_tasks_are_bound_to_it(aws, env, lambda_context):
    env.set(SCHOLAR_LOCAL_DISPATCH="1")
    rest = load_event("api_rest_v1_tools_call")
    owner = f"apikey:{rest['requestContext']['identity']['apiKeyId']}"
    TaskStore().create(
        TaskItem(
            task_id="task-of-the-key-owner", principal=owner, tool="search_papers", expires_at=int(time.time()) + 600
        )
    )

    _, mine = invoke(with_body(rest, call("get_task_result", {"task_id": "task-of-the-key-owner"})), lambda_context)
    # The HTTP v2 event carries the same x-api-key header but no API Gateway identity: a header alone is never trusted.
    http_v2 = load_event("api_http_v2_tools_call")
    _, other = invoke(with_body(http_v2, call("get_task_result", {"task_id": "task-of-the-key-owner"})), lambda_context)

    assert mine["result"].get("isError") in (None, False), mine
    assert mine["result"]["structuredContent"]["status"] == "pending"
    assert other["result"]["isError"] is True
    assert other["result"]["structuredContent"]["error"]["code"] == NOT_FOUND


def test_a_remembered_tools_list_answers_with_the_new_request_id_and_respects_toolsets(lambda_context):
    first = with_body(load_event("api_rest_v1_tools_list"), {**LIST, "id": "first"})
    second = with_body(load_event("api_rest_v1_tools_list"), {**LIST, "id": 42})
    narrowed = with_body(load_event("api_rest_v1_tools_list"), {**LIST, "id": 43})
    narrowed["queryStringParameters"] = {"toolsets": "tasks"}
    narrowed["multiValueQueryStringParameters"] = {"toolsets": ["tasks"]}

    _, a = invoke(first, lambda_context)
    _, b = invoke(second, lambda_context)
    _, c = invoke(narrowed, lambda_context)

    assert (a["id"], b["id"], c["id"]) == ("first", 42, 43)
    assert a["result"] == b["result"]
    assert len(c["result"]["tools"]) < len(a["result"]["tools"])


def test_resources_of_the_api_keys_library_are_listed_and_read_on_two_invocations_in_a_row(library_table, env,
                                                                                            lambda_context):
    env.set(SCHOLAR_LOCAL_DISPATCH="1")
    rest = load_event("api_rest_v1_tools_call")
    owner = f"apikey:{rest['requestContext']['identity']['apiKeyId']}"
    item = LibraryStore(owner).put(recorded_item(0, collection="lambda"))
    uri = f"scholar://library/{item.item_id}"
    listing = {"jsonrpc": "2.0", "id": 3, "method": "resources/list", "params": {}}
    read = {"jsonrpc": "2.0", "id": 4, "method": "resources/read", "params": {"uri": uri}}
    never = uri.replace("lib_", "lib_f")[:-1]  # an item id nobody has
    other = {"jsonrpc": "2.0", "id": 5, "method": "resources/read", "params": {"uri": never}}

    answers = [invoke(with_body(rest, body), lambda_context) for body in (listing, listing, read, read, other)]

    assert [status for status, _ in answers] == [200, 200, 200, 200, 200]
    assert [r["uri"] for r in answers[0][1]["result"]["resources"]] == [uri]
    assert answers[1][1]["result"] == answers[0][1]["result"]
    assert json.loads(answers[2][1]["result"]["contents"][0]["text"])["item_id"] == item.item_id
    assert answers[4][1]["error"]["code"] == -32602 and answers[4][1]["error"]["data"]["uri"] == other["params"]["uri"]
