"""library_sync and library_connections through the research family's dispatch, per caller, with the key kept out
of every answer, error, log line, task and stored row."""

from __future__ import annotations

import json
import logging
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from functions.research.app import lambda_handler
from scholar.core.catalogue import QueuedResult
from scholar.core.errors import FORBIDDEN, INVALID_ARGUMENT, NOT_FOUND, UPSTREAM_ERROR
from scholar.families import get_tool
from scholar.runtime.queue import new_task
from scholar.store.connections import ConnectionStore
from scholar.store.library.table import LibraryStore
from scholar.store.tasks import TaskStore
from tests.connectors.items import epmc_items, many_items
from tests.fakes.zotero import PUBLIC_LIBRARY


def call(lambda_context, tool: str, arguments: dict[str, Any], principal: str = "alice",
         task_id: str | None = None) -> dict[str, Any]:
    event = {"tool": tool, "arguments": arguments, "principal": principal, "request_id": "r1"}
    if task_id:
        event["task_id"] = task_id
    answer = lambda_handler(event, lambda_context)
    if answer.get("ok"):
        model = QueuedResult if answer["result"].get("queued") else get_tool(tool).output_model
        model.model_validate(answer["result"])
        return answer["result"]
    return answer


@pytest.fixture
def alice(fake, connections_table):
    """alice's library holds a collection "reading" and her Zotero key is connected (as the connect page does)."""
    LibraryStore("alice").put_many(epmc_items(3, "reading"))
    ConnectionStore("alice").connect("zotero", PUBLIC_LIBRARY, SecretStr(fake.api_key))


def test_a_push_then_a_dry_run_then_a_pull_through_the_tool(alice, fake, lambda_context):
    pushed = call(lambda_context, "library_sync", {"target": "zotero", "collection": "reading"})
    assert pushed["items"]["created"] == 3 and pushed["library"] == PUBLIC_LIBRARY
    fake.log.clear()
    dry = call(lambda_context, "library_sync", {"target": "zotero", "collection": "reading", "dry_run": True})
    assert dry["dry_run"] and dry["items"]["unchanged"] == 3 and fake.writes() == []
    pulled = call(lambda_context, "library_sync", {"target": "zotero", "direction": "pull",
                                                   "collection": "reading"})
    assert pulled["items"]["unchanged"] == 3


def test_invalid_arguments_name_the_field(alice, lambda_context):
    bad = call(lambda_context, "library_sync", {"target": "zotero", "collection": "../etc"})
    assert bad["error"]["code"] == INVALID_ARGUMENT and "collection" in bad["error"]["message"]
    missing = call(lambda_context, "library_sync", {"target": "zotero"})
    assert missing["error"]["code"] == INVALID_ARGUMENT and "collection" in missing["error"]["message"]
    desktop = call(lambda_context, "library_sync", {"target": "zotero_local", "collection": "reading"})
    assert desktop["error"]["code"] == INVALID_ARGUMENT and "target" in desktop["error"]["message"]
    unknown = call(lambda_context, "library_sync", {"target": "zotero", "collection": "nowhere"})
    assert unknown["error"]["code"] == NOT_FOUND


def test_another_callers_connection_is_never_used(alice, fake, lambda_context):
    LibraryStore("bob").put_many(epmc_items(1, "reading"))
    refused = call(lambda_context, "library_sync", {"target": "zotero", "collection": "reading"}, principal="bob")
    assert refused["error"]["code"] == FORBIDDEN and refused["error"]["reason"] == "connection_missing"
    assert fake.log == []
    assert call(lambda_context, "library_connections", {}, principal="bob")["connections"] == []


def test_a_revoked_connection_refuses_and_its_key_is_gone(alice, fake, lambda_context):
    listed = call(lambda_context, "library_connections", {})
    assert [(c["target"], c["status"], c["has_key"]) for c in listed["connections"]] == [("zotero", "active", True)]
    removed = call(lambda_context, "library_connections", {"remove": "zotero"})
    assert removed["removed"] is True and removed["connections"][0]["status"] == "revoked"
    assert removed["connections"][0]["has_key"] is False
    refused = call(lambda_context, "library_sync", {"target": "zotero", "collection": "reading"})
    assert refused["error"]["code"] == FORBIDDEN and refused["error"]["reason"] == "connection_revoked"
    assert fake.log == []


def test_the_key_is_in_no_answer_error_log_task_or_stored_row(alice, fake, aws, lambda_context, caplog, monkeypatch):
    caplog.set_level(logging.DEBUG)
    key = fake.api_key
    answers = [call(lambda_context, "library_sync", {"target": "zotero", "collection": "reading"}),
               call(lambda_context, "library_connections", {})]
    # An upstream that echoes the key in an error body: the message carries an excerpt, scrubbed.
    with monkeypatch.context() as patch:
        patch.setattr(fake, "_route", lambda request, path: httpx.Response(400, text=f"bad key {key} for {path}"))
        failed = call(lambda_context, "library_sync", {"target": "zotero", "direction": "pull",
                                                       "collection": "reading"})
    assert failed["error"]["code"] in (UPSTREAM_ERROR, NOT_FOUND)
    # Inside a task: progress is recorded on the task.
    task = new_task(principal="alice", tool="library_sync", ttl_s=600, progress="queued")
    TaskStore().create(task)
    LibraryStore("alice").update(epmc_items(1, "reading")[0].item_id, lambda i: i.model_copy(update={"notes": "n"}))
    in_task = call(lambda_context, "library_sync", {"target": "zotero", "collection": "reading"}, task_id=task.task_id)
    assert in_task["notes"]["created"] == 1
    assert TaskStore().get(task.task_id, "alice").progress.startswith("push: step")
    stored = [aws.dynamodb.scan(TableName=t)["Items"] for t in (aws.task_table, "scholar-test-library",
                                                                 "scholar-test-connections")]
    seen = json.dumps([answers, failed, in_task], default=str) + caplog.text + repr(stored)
    assert key not in seen


def test_on_one_machine_the_key_comes_from_the_environment_else_the_keyring(
        fake, connections_table, env, lambda_context, memory_keyring):
    LibraryStore("alice").put_many(epmc_items(2, "reading"))
    env.set(SCHOLAR_ZOTERO_LIBRARY=PUBLIC_LIBRARY, SCHOLAR_ZOTERO_API_KEY=fake.api_key)
    assert call(lambda_context, "library_sync", {"target": "zotero", "collection": "reading"})["items"]["created"] == 2
    assert call(lambda_context, "library_connections", {})["machine"] == "environment"
    env.set(SCHOLAR_ZOTERO_LIBRARY=None, SCHOLAR_ZOTERO_API_KEY=None)
    memory_keyring.set_password("scholar-mcp/zotero", "library", PUBLIC_LIBRARY)
    memory_keyring.set_password("scholar-mcp/zotero", PUBLIC_LIBRARY, fake.api_key)
    again = call(lambda_context, "library_sync", {"target": "zotero", "collection": "reading"})
    assert again["items"]["unchanged"] == 2
    assert call(lambda_context, "library_connections", {})["machine"] == "keyring"


def test_a_long_push_called_directly_is_queued_with_the_same_arguments(alice, fake, lambda_context, monkeypatch):
    from scholar.families.research.connectors import handlers  # its one queue call is observed

    queued: list[tuple[str, dict, str]] = []

    def enqueue(spec, invocation, *, reason):
        queued.append((invocation.tool, invocation.arguments, reason))
        return QueuedResult(task_id="t" * 32, tool=invocation.tool, poll_after_s=5, reason=reason)

    monkeypatch.setattr(handlers, "enqueue_retry", enqueue)
    LibraryStore("alice").put_many(many_items(60, "big"))
    answer = call(lambda_context, "library_sync", {"target": "zotero", "collection": "big"})
    assert answer["queued"] is True and fake.log == []
    assert queued == [("library_sync", {"target": "zotero", "collection": "big"}, "long_sync")]
    # a dry run of the same push is answered inline: it writes nothing
    dry = call(lambda_context, "library_sync", {"target": "zotero", "collection": "big", "dry_run": True})
    assert dry["items"]["created"] == 60
