"""statemachines/retry_task.asl.json executed by moto, with the family and tasks handlers overridden.

Each scenario uses its own task id; the stand-in family handler decides by task id, and the
stand-in tasks handler signals when ``record_outcome`` arrives, so waits are events with a
deadline, never sleeps.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from typing import Any

import boto3
import pytest

from scholar.local.stack import LocalStack
from tests.fixtures.servers import StackOptions, local_server_fixture
from tests.fixtures.waiting import execution_status

DEADLINE_S = 20.0
RATE_LIMITED = {"ok": False, "error": {"code": "rate_limited", "message": "slow down", "retryable": True}}


class Family:
    """A papers handler scripted by task id: how many rate limits before success, or raise."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.events: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def __call__(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        with self._lock:
            self.calls[event["task_id"]] += 1
            self.events.append(event)
            count = self.calls[event["task_id"]]
        kind, _, limit = event["task_id"].partition("-")
        if kind == "raise":
            raise RuntimeError("upstream parser crashed")
        if kind == "always" or count <= int(limit or 0):
            return RATE_LIMITED
        return {"ok": True, "result": {"title": "A paper", "attempt": count}}


class Tasks:
    """A tasks handler that records each outcome and wakes the waiting test."""

    def __init__(self) -> None:
        self.recorded: dict[str, dict[str, Any]] = {}
        self._arrived: dict[str, threading.Event] = {}
        self._lock = threading.Lock()

    def _event(self, task_id: str) -> threading.Event:
        with self._lock:
            return self._arrived.setdefault(task_id, threading.Event())

    def __call__(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        self.recorded[event["task_id"]] = event
        self._event(event["task_id"]).set()
        return {"ok": True}

    def wait_for(self, task_id: str) -> dict[str, Any]:
        assert self._event(task_id).wait(DEADLINE_S), f"no record_outcome for {task_id} within {DEADLINE_S} s"
        return self.recorded[task_id]


@pytest.fixture(scope="module")
def family() -> Family:
    return Family()


@pytest.fixture(scope="module")
def tasks() -> Tasks:
    return Tasks()


# The family and the tasks function are stand-ins: no upstream is asked.
stack = local_server_fixture(
    StackOptions(upstream=None, serve_http=False, retry_wait_s=None,
                 handlers={"PapersFunction": "family", "TasksFunction": "tasks"}),
    scope="module", name="stack")


def _start(stack: LocalStack, task_id: str, *, wait_s: int = 0, max_attempts: int = 5) -> str:
    execution = boto3.client("stepfunctions").start_execution(
        stateMachineArn=stack.env["SCHOLAR_RETRY_STATE_MACHINE_ARN"],
        name=task_id,  # unnamed executions collide in moto
        input=json.dumps({
            "task_id": task_id,
            "function_name": stack.function_name("papers"),
            "tool": "get_paper",
            "arguments": {"paper_id": "DOI:10.1/x"},
            "principal": "key-1",
            "request_id": f"req-{task_id}",
            "wait_s": wait_s,
            "attempt": 1,
            "max_attempts": max_attempts,
        }),
    )
    return execution["executionArn"]


def _final_status(execution_arn: str) -> str:
    """The execution's status once it leaves RUNNING (the record step has already happened by then)."""
    return execution_status(execution_arn, within_s=DEADLINE_S)


def test_rate_limited_twice_then_ok_records_the_result_after_three_invocations(
    stack: LocalStack, family: Family, tasks: Tasks
) -> None:
    execution = _start(stack, "twice-2")
    recorded = tasks.wait_for("twice-2")
    assert recorded == {
        "action": "record_outcome",
        "task_id": "twice-2",
        "outcome": {"ok": True, "result": {"title": "A paper", "attempt": 3}},
    }
    assert family.calls["twice-2"] == 3
    assert _final_status(execution) == "SUCCEEDED"


def test_the_family_function_gets_the_dispatch_payload(stack: LocalStack, family: Family, tasks: Tasks) -> None:
    _start(stack, "payload-0")
    tasks.wait_for("payload-0")
    (event,) = [e for e in family.events if e["task_id"] == "payload-0"]
    assert event == {
        "tool": "get_paper",
        "arguments": {"paper_id": "DOI:10.1/x"},
        "principal": "key-1",
        "request_id": "req-payload-0",
        "task_id": "payload-0",
    }


def test_a_raising_family_function_records_an_internal_error(stack: LocalStack, family: Family, tasks: Tasks) -> None:
    execution = _start(stack, "raise-0")
    outcome = tasks.wait_for("raise-0")["outcome"]
    assert outcome["ok"] is False
    assert outcome["error"]["code"] == "internal"
    assert outcome["error"]["retryable"] is False
    assert "crashed" not in outcome["error"]["message"]  # the cause stays in the execution history
    assert family.calls["raise-0"] == 1  # a function error is not a Lambda service error: no retry
    assert _final_status(execution) == "SUCCEEDED"


def test_exhausted_attempts_record_the_rate_limited_error(stack: LocalStack, family: Family, tasks: Tasks) -> None:
    execution = _start(stack, "always-0", max_attempts=3)
    assert tasks.wait_for("always-0")["outcome"] == RATE_LIMITED
    assert family.calls["always-0"] == 3
    assert _final_status(execution) == "SUCCEEDED"


def test_each_retry_doubles_the_wait(stack: LocalStack, tasks: Tasks) -> None:
    # Waits really sleep in moto: 1 s, then 2 s.
    execution = _start(stack, "double-1", wait_s=1, max_attempts=2)
    tasks.wait_for("double-1")
    assert _final_status(execution) == "SUCCEEDED"
    history = boto3.client("stepfunctions").get_execution_history(executionArn=execution)["events"]
    waits = [
        json.loads(e["stateEnteredEventDetails"]["input"])["wait_s"]
        for e in history
        if e["type"] == "WaitStateEntered"
    ]
    assert waits == [1, 2]
