"""The task tools and the record_outcome action, through the tasks function (functions.tasks.app)."""

import time

import pytest

from functions.tasks.app import lambda_handler
from scholar.core.errors import INTERNAL, INVALID_ARGUMENT, NOT_FOUND, RATE_LIMITED
from scholar.store.tasks import TaskItem, TaskStore, new_task_id


def call(tool: str, arguments: dict, context, principal: str = "alice") -> dict:
    event = {"tool": tool, "arguments": arguments, "principal": principal, "request_id": "req-1"}
    return lambda_handler(event, context)


def new_task(principal: str = "alice", **fields) -> TaskItem:
    values = {"task_id": new_task_id(), "principal": principal, "tool": "get_paper",
              "expires_at": int(time.time()) + 600, **fields}
    return TaskStore().create(TaskItem(**values))


def record(task_id: str, outcome: dict, context) -> dict:
    return lambda_handler({"action": "record_outcome", "task_id": task_id, "outcome": outcome}, context)


@pytest.mark.parametrize("tool", ["get_task_result", "get_job_result"])
def test_a_completed_task_returns_its_result(aws, lambda_context, tool):
    task = new_task()
    TaskStore().transition(task.task_id, "completed", allowed_from=("pending",), result={"title": "T"})
    outcome = call(tool, {"task_id": task.task_id}, lambda_context)
    assert outcome["ok"] is True
    result = outcome["result"]
    assert (result["task_id"], result["status"], result["tool"]) == (task.task_id, "completed", "get_paper")
    assert result["result"] == {"title": "T"}
    assert "error" not in result  # absent optional fields are omitted, not null
    assert "poll_after_s" not in result


def test_a_pending_task_says_when_to_poll_again(aws, lambda_context):
    task = new_task(progress="waiting to retry")
    result = call("get_task_result", {"task_id": task.task_id}, lambda_context)["result"]
    assert result["status"] == "pending"
    assert "result" not in result
    assert result["poll_after_s"] >= 1
    assert result["hint"] == "waiting to retry"


def test_a_failed_task_returns_its_error(aws, lambda_context):
    task = new_task()
    error = {"code": RATE_LIMITED, "message": "still throttled", "retryable": True}
    TaskStore().transition(task.task_id, "failed", allowed_from=("pending",), error=error)
    result = call("get_task_result", {"task_id": task.task_id}, lambda_context)["result"]
    assert result["status"] == "failed"
    assert result["error"] == error


def test_another_principal_cannot_read_the_task(aws, lambda_context):
    task = new_task("alice")
    TaskStore().transition(task.task_id, "completed", allowed_from=("pending",), result={"secret": 1})
    outcome = call("get_task_result", {"task_id": task.task_id}, lambda_context, principal="mallory")
    assert outcome["ok"] is False
    assert outcome["error"]["code"] == NOT_FOUND
    assert "secret" not in str(outcome)


def test_an_unknown_task_is_not_found(aws, lambda_context):
    outcome = call("get_task_result", {"task_id": "no-such-task-0001"}, lambda_context)
    assert outcome["error"]["code"] == NOT_FOUND


def test_a_malformed_task_id_is_an_invalid_argument(aws, lambda_context):
    outcome = call("get_task_result", {"task_id": "../../etc"}, lambda_context)
    assert outcome["error"]["code"] == INVALID_ARGUMENT
    assert outcome["error"]["details"]["field"] == "task_id"


def test_list_tasks_shows_only_the_callers_tasks_newest_first(aws, lambda_context):
    now = time.time()
    old = new_task("alice", created_at=now - 60)
    new = new_task("alice", created_at=now - 5)
    new_task("bob", created_at=now)
    outcome = call("list_tasks", {}, lambda_context)
    assert outcome["ok"] is True
    listed = outcome["result"]
    assert [t["task_id"] for t in listed["tasks"]] == [new.task_id, old.task_id]
    assert listed["total"] == 2
    assert {t["status"] for t in listed["tasks"]} == {"pending"}


def test_list_tasks_with_no_tasks_is_empty(aws, lambda_context):
    assert call("list_tasks", {"limit": 5}, lambda_context, principal="nobody")["result"] == {"tasks": [], "total": 0}


def test_record_outcome_completes_a_task_once_and_ignores_a_second_outcome(aws, lambda_context):
    task = new_task()
    first = record(task.task_id, {"ok": True, "result": {"title": "first"}}, lambda_context)
    second = record(task.task_id, {"ok": True, "result": {"title": "second"}}, lambda_context)
    assert first == {"recorded": True}
    assert second == {"recorded": False}
    stored = TaskStore().get(task.task_id, "alice")
    assert stored.status == "completed"
    assert stored.result == {"title": "first"}
    assert stored.expires_at <= time.time() + 601  # finished tasks stay readable for a short while


def test_record_outcome_of_a_failure_fails_the_task_and_a_late_success_cannot_overwrite_it(aws, lambda_context):
    task = new_task()
    error = {"code": RATE_LIMITED, "message": "gave up after 5 attempts", "retryable": True}
    assert record(task.task_id, {"ok": False, "error": error}, lambda_context) == {"recorded": True}
    assert record(task.task_id, {"ok": True, "result": {"late": True}}, lambda_context) == {"recorded": False}
    result = call("get_task_result", {"task_id": task.task_id}, lambda_context)["result"]
    assert result["status"] == "failed"
    assert result["error"] == error
    assert "result" not in result


@pytest.mark.parametrize(
    "outcome",
    [
        {"ok": True, "result": {"error": {"code": RATE_LIMITED, "message": "S2 is throttling", "retryable": True}}},
        {"ok": True, "result": None},
    ],
    ids=["an-error-envelope-as-the-answer", "no-answer"],
)
def test_record_outcome_never_completes_a_task_without_a_real_answer(aws, lambda_context, outcome):
    task = new_task()
    assert record(task.task_id, outcome, lambda_context) == {"recorded": True}
    result = call("get_task_result", {"task_id": task.task_id}, lambda_context)["result"]
    assert result["status"] == "failed" and result.get("result") is None
    assert isinstance(result["error"]["code"], str) and isinstance(result["error"]["retryable"], bool)


def test_an_unknown_action_is_an_internal_error(aws, lambda_context):
    outcome = lambda_handler({"action": "no_such_action"}, lambda_context)
    assert outcome["ok"] is False
    assert outcome["error"]["code"] == INTERNAL


def test_a_task_whose_execution_died_is_reported_failed(aws, lambda_context):
    # Given a pending task whose retry execution was stopped before it recorded an outcome
    sfn = aws.client("stepfunctions")
    machine = sfn.create_state_machine(
        name="scholar-retry",
        definition='{"StartAt": "Done", "States": {"Done": {"Type": "Pass", "End": true}}}',
        roleArn="arn:aws:iam::123456789012:role/scholar-retry",
    )["stateMachineArn"]
    task = new_task()
    arn = sfn.start_execution(stateMachineArn=machine, name=task.task_id, input="{}")["executionArn"]
    sfn.stop_execution(executionArn=arn, cause="test")
    TaskStore().transition(task.task_id, "pending", allowed_from=("pending",), execution_arn=arn)
    # When the caller polls, then the task is failed with an internal, retryable error
    result = call("get_task_result", {"task_id": task.task_id}, lambda_context)["result"]
    assert result["status"] == "failed"
    assert result["error"]["code"] == INTERNAL


def test_a_poll_that_waits_answers_with_the_result_once_the_task_finishes_meanwhile(aws, lambda_context, monkeypatch):
    # Given a running task that finishes between the poll's first and second read
    task = new_task(status="running")
    reads = []
    real_get = TaskStore.get

    def get(self, task_id, principal):
        reads.append(task_id)
        if len(reads) == 2:
            self.transition(task_id, "completed", allowed_from=("running",), result={"title": "T"})
        return real_get(self, task_id, principal)

    monkeypatch.setattr(TaskStore, "get", get)
    monkeypatch.setattr("scholar.families.tasks.handlers.WAIT_STEP_S", 0.0)
    # When one poll is made that may wait
    result = call("get_task_result", {"task_id": task.task_id, "wait_s": 20}, lambda_context)["result"]
    # Then that one poll carries the result
    assert (result["status"], result["result"]) == ("completed", {"title": "T"}) and len(reads) == 2


def test_a_poll_that_may_not_wait_answers_at_once_and_a_wait_over_the_cap_is_refused(aws, lambda_context):
    task = new_task(status="running")
    assert call("get_task_result", {"task_id": task.task_id}, lambda_context)["result"]["status"] == "running"
    refused = call("get_task_result", {"task_id": task.task_id, "wait_s": 21}, lambda_context)
    assert refused["error"]["code"] == INVALID_ARGUMENT and refused["error"]["details"]["field"] == "wait_s"
