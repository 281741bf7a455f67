"""The TaskTable (scholar.store.tasks): principal scoping, expiry, conditional transitions, S3 results."""

import json
import time

import pytest

from scholar.core import backend
from scholar.core.errors import UnavailableError
from scholar.store.tasks import RESULT_INLINE_BYTES, TaskItem, TaskStore, TaskTransitionError, new_task_id


def make_task(principal: str = "alice", **fields) -> TaskItem:
    values = {"task_id": new_task_id(), "principal": principal, "tool": "get_paper",
              "expires_at": int(time.time()) + 600, **fields}
    return TaskItem(**values)


def test_task_ids_are_unguessable_and_unique():
    ids = {new_task_id() for _ in range(100)}
    assert len(ids) == 100
    assert all(len(i) >= 22 for i in ids)  # 128 bits, url-safe base64


def test_a_created_task_is_read_back_by_its_principal(aws):
    store = TaskStore()
    task = store.create(make_task(arguments_digest="abc", progress="waiting"))
    got = store.get(task.task_id, "alice")
    assert got is not None
    assert (got.task_id, got.principal, got.tool, got.status) == (task.task_id, "alice", "get_paper", "pending")
    assert got.arguments_digest == "abc"
    assert got.progress == "waiting"
    assert got.created_at == pytest.approx(task.created_at)


def test_another_principal_does_not_see_the_task(aws):
    store = TaskStore()
    task = store.create(make_task("alice"))
    assert store.get(task.task_id, "mallory") is None


def test_internal_reads_without_a_principal_see_any_task(aws):
    store = TaskStore()
    task = store.create(make_task("alice"))
    assert store.get(task.task_id, None).principal == "alice"


def test_an_unknown_task_reads_as_none(aws):
    assert TaskStore().get("no-such-task-id", "alice") is None


def test_an_expired_task_reads_as_none(aws):
    store = TaskStore()
    task = store.create(make_task(expires_at=int(time.time()) - 1))
    assert store.get(task.task_id, "alice") is None


def test_list_shows_the_principals_tasks_newest_first(aws):
    store = TaskStore()
    now = time.time()
    older = store.create(make_task("alice", created_at=now - 100))
    newer = store.create(make_task("alice", created_at=now - 10))
    middle = store.create(make_task("alice", created_at=now - 50))
    store.create(make_task("bob", created_at=now))
    listed = [t.task_id for t in store.list("alice")]
    assert listed == [newer.task_id, middle.task_id, older.task_id]


def test_list_leaves_out_expired_tasks(aws):
    store = TaskStore()
    live = store.create(make_task("alice"))
    store.create(make_task("alice", expires_at=int(time.time()) - 1))
    assert [t.task_id for t in store.list("alice")] == [live.task_id]


def test_list_honours_the_limit(aws):
    store = TaskStore()
    now = time.time()
    for i in range(5):
        store.create(make_task("alice", created_at=now - i))
    assert len(store.list("alice", limit=2)) == 2


def test_a_task_moves_pending_to_running_to_completed(aws):
    store = TaskStore()
    task = store.create(make_task())
    store.transition(task.task_id, "running", allowed_from=("pending",), progress="fetching")
    assert store.get(task.task_id, "alice").status == "running"
    store.transition(task.task_id, "completed", allowed_from=("pending", "running"), result={"title": "T"})
    done = store.get(task.task_id, "alice")
    assert done.status == "completed"
    assert done.result == {"title": "T"}
    assert store.load_result(done) == {"title": "T"}
    assert done.updated_at >= done.created_at


def test_a_failed_task_keeps_its_error(aws):
    store = TaskStore()
    task = store.create(make_task())
    error = {"code": "rate_limited", "message": "still throttled", "retryable": True}
    store.transition(task.task_id, "failed", allowed_from=("pending",), error=error)
    assert store.get(task.task_id, "alice").error == error


def test_a_transition_can_record_the_execution_arn_and_a_new_expiry(aws):
    store = TaskStore()
    task = store.create(make_task())
    arn = "arn:aws:states:us-east-1:123456789012:execution:retry:x"
    expires = int(time.time()) + 3600
    store.transition(task.task_id, "pending", allowed_from=("pending",), execution_arn=arn, expires_at=expires)
    got = store.get(task.task_id, "alice")
    assert got.execution_arn == arn
    assert got.expires_at == expires


@pytest.mark.parametrize("terminal", ["completed", "failed", "cancelled"])
def test_a_terminal_state_never_changes(aws, terminal):
    store = TaskStore()
    task = store.create(make_task())
    store.transition(task.task_id, terminal, allowed_from=("pending",), result={"n": 1})
    for status in ("running", "completed", "failed", "cancelled"):
        with pytest.raises(TaskTransitionError):
            store.transition(task.task_id, status, allowed_from=("pending", "running"), result={"n": 2})
    got = store.get(task.task_id, "alice")
    assert got.status == terminal
    assert got.result == {"n": 1}


def test_a_transition_of_a_missing_task_is_refused(aws):
    with pytest.raises(TaskTransitionError):
        TaskStore().transition("no-such-task-id", "running", allowed_from=("pending",))


def test_a_big_result_goes_to_s3_and_loads_back(aws):
    store = TaskStore()
    task = store.create(make_task())
    big = {"data": ["x" * 1000] * (RESULT_INLINE_BYTES // 1000 + 10)}
    store.transition(task.task_id, "completed", allowed_from=("pending",), result=big)
    done = store.get(task.task_id, "alice")
    assert done.result is None
    assert done.result_s3_key == f"results/{task.task_id}.json"
    body = aws.s3.get_object(Bucket=aws.bucket, Key=done.result_s3_key)["Body"].read()
    assert json.loads(body) == big
    assert store.load_result(done) == big


def test_creating_a_task_with_an_existing_id_is_refused(aws):
    store = TaskStore()
    task = store.create(make_task("alice"))
    with pytest.raises(TaskTransitionError):
        store.create(make_task("mallory", task_id=task.task_id))
    assert store.get(task.task_id, "alice") is not None


def test_without_a_task_table_the_store_is_unavailable(aws, env):
    env.delete("SCHOLAR_TASK_TABLE")
    opened = backend.current()  # the local backend names its tables itself: one that names none, same clients
    unnamed = backend.Backend(environ={k: v for k, v in opened.environ.items() if k != "SCHOLAR_TASK_TABLE"},
                              clients=opened.clients)
    with backend.using(unnamed), pytest.raises(UnavailableError):
        TaskStore().get("some-task-id", "alice")
