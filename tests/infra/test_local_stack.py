"""The embedded stack: template.yaml deployed into moto, invocations routed to handlers in-process.

Handlers are overridden here (``handlers_override``), so these tests hold whatever the families do.
Tests that need a stack of their own come first: only one LocalStack may run in a process, and
the shared one (module fixture) lives from its first use to the end of this module.
"""

from __future__ import annotations

import json
import os
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from scholar.local.server import LocalServer
from scholar.local.stack import LocalStack

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = REPO / "template.yaml"


class Recorder:
    """A stand-in family handler: remembers each call and answers with an outcome."""

    def __init__(self) -> None:
        self.calls: list[tuple[dict[str, Any], Any]] = []

    def __call__(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        self.calls.append((event, context))
        if event.get("tool") == "explode":
            raise ValueError("boom")
        return {"ok": True, "result": {"tool": event.get("tool")}}


def test_closing_the_stack_restores_the_environment_and_allows_another() -> None:
    before = {name: os.environ.get(name) for name in ("AWS_ENDPOINT_URL", "MOTO_PORT", "SCHOLAR_CACHE_TABLE")}
    with LocalStack(template=TEMPLATE) as stack:
        assert os.environ["AWS_ENDPOINT_URL"] == stack.endpoint_url
        with pytest.raises(RuntimeError):
            LocalStack(template=TEMPLATE).start()
    stack.close()  # idempotent
    assert {name: os.environ.get(name) for name in before} == before
    with LocalStack(template=TEMPLATE) as again:
        assert again.env["SCHOLAR_FUNCTION_PREFIX"] == "scholar-local-"


def test_local_server_serves_the_app_in_front_of_the_stack() -> None:
    async def echo(request: Request) -> JSONResponse:
        return JSONResponse({"method": (await request.json())["method"], "table": os.environ["SCHOLAR_TASK_TABLE"]})

    def app() -> Starlette:
        return Starlette(routes=[Route("/mcp", echo, methods=["POST"])])

    with LocalServer(template=TEMPLATE, app_factory=app) as server:
        request = urllib.request.Request(server.url, data=b'{"method": "tools/list"}', method="POST")
        with urllib.request.urlopen(request, timeout=10) as response:
            body = json.loads(response.read())
        assert server.url.startswith("http://127.0.0.1:") and server.url.endswith("/mcp")
        assert body == {"method": "tools/list", "table": server.stack.env["SCHOLAR_TASK_TABLE"]}


@pytest.fixture(scope="module")
def papers() -> Recorder:
    return Recorder()


@pytest.fixture(scope="module")
def stack(papers: Recorder) -> Iterator[LocalStack]:
    with LocalStack(template=TEMPLATE, handlers_override={"PapersFunction": papers},
                    extra_env={"SCHOLAR_CONTACT_EMAIL": "infra@example.org"}) as running:
        yield running


def test_both_tables_exist_with_ttl_on_expires_at(stack: LocalStack) -> None:
    dynamodb = boto3.client("dynamodb")
    for name in (stack.env["SCHOLAR_CACHE_TABLE"], stack.env["SCHOLAR_TASK_TABLE"]):
        ttl = dynamodb.describe_time_to_live(TableName=name)["TimeToLiveDescription"]
        assert ttl == {"TimeToLiveStatus": "ENABLED", "AttributeName": "expires_at"}


def test_task_table_has_the_by_principal_index(stack: LocalStack) -> None:
    table = boto3.client("dynamodb").describe_table(TableName=stack.env["SCHOLAR_TASK_TABLE"])["Table"]
    (index,) = table["GlobalSecondaryIndexes"]
    assert index["IndexName"] == "by_principal"
    assert [k["AttributeName"] for k in index["KeySchema"]] == ["principal", "created_at"]


def test_artifact_bucket_exists(stack: LocalStack) -> None:
    s3 = boto3.client("s3")
    s3.put_object(Bucket=stack.env["SCHOLAR_ARTIFACT_BUCKET"], Key="results/t.json", Body=b"{}")
    assert s3.get_object(Bucket=stack.env["SCHOLAR_ARTIFACT_BUCKET"], Key="results/t.json")["Body"].read() == b"{}"


def test_environment_matches_the_template_globals(stack: LocalStack) -> None:
    assert stack.env["SCHOLAR_FUNCTION_PREFIX"] == "scholar-local-"
    assert stack.env["SCHOLAR_RETRY_STATE_MACHINE_ARN"] == (
        "arn:aws:states:us-east-1:123456789012:stateMachine:scholar-local-retry-task"
    )
    assert stack.env["SCHOLAR_CACHE_TABLE"] == stack.outputs["CacheTableName"]
    assert stack.env["SCHOLAR_CONTACT_EMAIL"] == "infra@example.org"  # extra_env wins
    assert stack.env["POWERTOOLS_SERVICE_NAME"] == "scholar"
    assert os.environ["SCHOLAR_TASK_TABLE"] == stack.env["SCHOLAR_TASK_TABLE"]


def test_the_retry_machine_exists_where_moto_executes(stack: LocalStack) -> None:
    arn = stack.env["SCHOLAR_RETRY_STATE_MACHINE_ARN"]
    described = boto3.client("stepfunctions").describe_state_machine(stateMachineArn=arn)
    tasks_arn = "arn:aws:lambda:us-east-1:123456789012:function:scholar-local-tasks"
    assert tasks_arn in described["definition"]  # DefinitionSubstitutions applied
    assert described["type"] == "STANDARD"


def test_invoking_the_papers_function_reaches_its_handler(stack: LocalStack, papers: Recorder) -> None:
    event = {"tool": "get_paper", "arguments": {"paper_id": "x"}, "principal": "local", "request_id": "r1"}
    response = boto3.client("lambda").invoke(FunctionName=stack.function_name("papers"), Payload=json.dumps(event))
    assert "FunctionError" not in response
    assert json.loads(response["Payload"].read()) == {"ok": True, "result": {"tool": "get_paper"}}
    received, context = papers.calls[-1]
    assert received == event
    assert context.function_name == "scholar-local-papers"
    assert context.invoked_function_arn.endswith(":function:scholar-local-papers")
    assert 0 < context.get_remaining_time_in_millis() <= 60_000
    assert context.memory_limit_in_mb == 1024


def test_a_raising_handler_answers_like_an_unhandled_lambda_error(stack: LocalStack) -> None:
    response = boto3.client("lambda").invoke(
        FunctionName=stack.function_name("papers"), Payload=json.dumps({"tool": "explode"})
    )
    assert response["FunctionError"] == "Unhandled"
    payload = json.loads(response["Payload"].read())
    assert payload["errorType"] == "ValueError"
    assert payload["errorMessage"] == "boom"


def test_an_event_invocation_is_accepted_at_once(stack: LocalStack, papers: Recorder) -> None:
    response = boto3.client("lambda").invoke(
        FunctionName=stack.function_name("papers"), InvocationType="Event", Payload=json.dumps({"tool": "later"})
    )
    assert response["StatusCode"] == 202
