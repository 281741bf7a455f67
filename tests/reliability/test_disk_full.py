"""A full disk on one machine (issue #40 item 3): a write that fails says exactly what was stored, a PDF write is
a typed error naming the path, and reads keep working while the disk stays full.

Through the Python API on the local backend (SQLite + files under a fresh data folder). The full disk is simulated
deterministically: from the K-th write transaction on, SQLite answers "database or disk is full" (the error
SQLite gives for ENOSPC) at COMMIT, so the transaction rolls back as it would; file writes get
``OSError(ENOSPC)``. No tmpfs is mounted. The items are real recorded S2 records (tests/connectors/items.py).
"""

from __future__ import annotations

import errno
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from scholar.core.errors import UNAVAILABLE, UnavailableError
from scholar.services.library.export import to_jsonl
from scholar.store.local import database as database_module
from tests.connectors.items import many_items

DISK_FULL = "store_disk_full"


class Disk:
    """Fills after ``free`` more write transactions (None: never)."""

    def __init__(self) -> None:
        self.free: int | None = None

    def full(self) -> bool:
        if self.free is None:
            return False
        self.free -= 1
        return self.free < 0


@pytest.fixture
def disk(monkeypatch: pytest.MonkeyPatch) -> Disk:
    state = Disk()
    real = database_module.Database.write

    @contextmanager
    def write(self: database_module.Database) -> Iterator[sqlite3.Connection]:
        with real(self) as db:
            yield db
            if state.full():
                raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(database_module.Database, "write", write)
    return state


@pytest.fixture
def api(tmp_path, env):
    from scholar import Scholar

    env(SCHOLAR_BACKEND="local", SCHOLAR_HOME=str(tmp_path / "home"), SCHOLAR_UPSTREAM_PROXY_BASE="http://127.0.0.1:9")
    with Scholar(tmp_path / "home") as scholar:
        yield scholar


def _count(api) -> int:
    listed = api.library_list(limit=100)
    total = len(listed["items"])
    while listed.get("next_cursor"):
        listed = api.library_list(limit=100, cursor=listed["next_cursor"])
        total += len(listed["items"])
    return total


@pytest.mark.parametrize("free", [0, 1, 2, 5])
def test_an_import_cut_by_a_full_disk_says_exactly_how_many_items_were_stored_and_reads_keep_working(api, disk, free):
    snapshot = to_jsonl(many_items(200, "reading"))
    assert _count(api) == 0
    disk.free = free
    with pytest.raises(UnavailableError) as caught:
        api.library_import(jsonl=snapshot)
    error = caught.value
    stored = _count(api)  # the disk is still full: reads work
    assert error.code == UNAVAILABLE and error.reason == DISK_FULL and "is full" in error.message
    assert str(api_home(api)) in error.message
    assert f"this import stored {stored} items before it" in error.message, error.message
    assert error.details["stored"] == stored and stored < 200
    assert "nothing was written" not in error.message
    disk.free = None
    again = api.library_import(jsonl=snapshot)
    assert (again["added"], again["skipped"]) == (200 - stored, stored) and _count(api) == 200


def api_home(api) -> object:
    return api._home  # the data folder the instance was opened on


def test_while_the_disk_is_full_the_library_is_still_read_and_searched(api, disk):
    snapshot = to_jsonl(many_items(40, "reading"))
    api.library_import(jsonl=snapshot)
    disk.free = 0
    item_id = api.library_list(limit=1)["items"][0]["item_id"]
    with pytest.raises(UnavailableError):
        api.library_update(id=item_id, add_tags=["later"])
    title = many_items(1)[0].paper["title"]
    found = api.library_search(query=title)
    assert found["hits"] and found["hits"][0]["title"] == title
    assert _count(api) == 40


def test_a_pdf_whose_file_cannot_be_written_for_a_full_disk_is_a_typed_error_naming_the_path(tmp_path, monkeypatch):
    import asyncio
    import tempfile

    import httpx

    from scholar.web import download

    real = tempfile.NamedTemporaryFile

    def full_disk(*args, **kwargs):
        handle = real(*args, **kwargs)

        def write(data: bytes) -> int:
            raise OSError(errno.ENOSPC, "No space left on device")

        handle.write = write
        return handle

    async def resolve(host: str, port: int) -> list[str]:
        return ["93.184.216.34"]  # a fake resolver: no socket opens (MockTransport answers)

    monkeypatch.setattr(download.tempfile, "NamedTemporaryFile", full_disk)
    pdf = b"%PDF-1.7\n" + b"0" * 5000 + b"\n%%EOF\n"
    transport = httpx.MockTransport(
        lambda request: httpx.Response(200, content=pdf, headers={"content-type": "application/pdf"})
    )
    with pytest.raises(UnavailableError) as caught:
        asyncio.run(
            download.download_pdf(
                "https://papers.example.org/a.pdf", resolver=resolve, transport=transport, dest_dir=tmp_path
            )
        )
    assert caught.value.reason == DISK_FULL and "the disk is full" in caught.value.message
    assert str(tmp_path) in caught.value.message and list(tmp_path.iterdir()) == []


def test_a_task_whose_end_cannot_be_written_for_a_full_disk_still_ends_failed(tmp_path, disk):
    import json

    from scholar.runtime.local_executions import LocalStepFunctions
    from scholar.store.local.database import Database

    database = Database(tmp_path)
    try:
        executions = LocalStepFunctions(database, tmp_path, "owner-1")
        failing = {"StartAt": "Fail", "States": {"Fail": {"Type": "Fail", "Error": "UnavailableError", "Cause": "x"}}}
        arn = executions.create_state_machine(name="failing", definition=json.dumps(failing))["stateMachineArn"]
        disk.free = 1  # the start is written; the end is not
        started = executions.start_execution(stateMachineArn=arn, name="one", input="{}")
        executions.join(30)
        described = executions.describe_execution(executionArn=started["executionArn"])
    finally:
        database.close()
    assert (described["status"], described["error"]) == ("FAILED", "UnavailableError")


def test_a_running_task_whose_execution_ended_is_answered_failed_even_when_that_cannot_be_written(monkeypatch):
    from scholar.runtime import reconcile as reconcile_module
    from scholar.store.tasks import TaskItem

    class FullStore:
        def transition(self, *args, **kwargs):
            raise UnavailableError("the disk holding /home/u/.scholar/scholar.sqlite3 is full", reason=DISK_FULL)

        def get(self, *args):
            raise AssertionError("the failed answer does not depend on a write that could not be made")

    monkeypatch.setattr(reconcile_module, "describe_execution", lambda arn: {"status": "FAILED"})
    task = TaskItem.model_validate(
        {
            "task_id": "t1",
            "principal": "local",
            "status": "running",
            "tool": "download_paper",
            "expires_at": 2_000_000_000,
            "execution_arn": "arn:aws:states:local:0:execution:m:one",
        }
    )
    answered = reconcile_module.reconcile(FullStore(), task)
    assert answered.status == "failed" and answered.error and answered.error["code"] == "internal"


def test_a_cache_write_the_full_disk_refuses_never_fails_the_answer_that_was_fetched(api, disk):
    from scholar.store.cache import Cache

    disk.free = 0
    with api:  # the instance's own backend: its data folder is the one that is full
        Cache().put("record", "doi:10.1/x", {"title": "fetched whole"})  # raised "disk is full" before
        Cache().put_many("record", {"doi:10.1/y": {"title": "y"}})
    assert disk.free < 0  # the writes did reach the full disk
