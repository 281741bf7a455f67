"""library_sync with target notion through the research family (the fake Notion): one page per item, idempotent,
Notion's edits pulled back, conflicts reported and never overwritten, Notion's pace obeyed, the token kept out of
everything."""

from __future__ import annotations

import json
import logging

import pytest
from pydantic import SecretStr

from scholar.core.errors import FORBIDDEN, NOT_FOUND, RATE_LIMITED, UPSTREAM_ERROR
from scholar.runtime.queue import new_task
from scholar.sources import retry
from scholar.store.connections import ConnectionStore
from scholar.store.library.table import LibraryStore
from scholar.store.tasks import TaskStore
from tests.connectors.items import epmc_items
from tests.connectors.test_sync_tools import call
from tests.fakes.notion import DATABASE_ID, TOKEN, Refused

NOTES = "Hypoxia drives the effect.\n\nCompare with the 2019 cohort."
PUSH = {"target": "notion", "collection": "reading"}
PULL = {"target": "notion", "direction": "pull", "collection": "reading"}


@pytest.fixture
def reading(notion_fake, connections_table):
    """alice's collection "reading": three recorded Europe PMC papers, the first with notes."""
    items = epmc_items(3, "reading")
    items[0] = items[0].model_copy(update={"notes": NOTES, "tags": ["hypoxia"]})
    LibraryStore("alice").put_many(items)
    return items


def _plain(prop: dict) -> str:
    return "".join(t["plain_text"] for t in prop[prop["type"]])


def _retitle(fake, page_id: str, title: str) -> None:
    fake.edit(page_id, {"Name": {"title": [{"type": "text", "text": {"content": title}}]}})


def test_a_push_writes_one_page_per_item_with_its_fields_as_properties_and_its_notes_as_content(
        reading, notion_fake, lambda_context):
    answer = call(lambda_context, "library_sync", PUSH)
    assert (answer["items"]["created"], answer["notes"]["created"], answer["library"]) == (3, 1, DATABASE_ID)
    assert len(notion_fake.pages) == 3
    first = reading[0].paper
    page = notion_fake.page_of(reading[0].item_id)["properties"]
    assert _plain(page["Name"]) == first["title"] and _plain(page["DOI"]) == first["externalIds"]["DOI"]
    assert page["Year"]["number"] == first["year"] and page["URL"]["url"].startswith("https://doi.org/")
    assert _plain(page["Authors"]).split("; ") == [a["name"] for a in first["authors"]]
    assert [t["name"] for t in page["Tags"]["multi_select"]] == ["hypoxia"]
    assert page["Collection"]["select"]["name"] == "reading"
    assert notion_fake.text_of(notion_fake.page_of(reading[0].item_id)["id"]) == NOTES.split("\n\n")
    # every request carried the version it was written for
    assert {s.headers["notion-version"] for s in notion_fake.log} == {"2022-06-28"}


def test_a_second_push_writes_nothing(reading, notion_fake, lambda_context):
    call(lambda_context, "library_sync", PUSH)
    notion_fake.log.clear()
    again = call(lambda_context, "library_sync", PUSH)
    assert again["items"]["unchanged"] == 3 and again["items"]["created"] == again["items"]["updated"] == 0
    assert notion_fake.writes() == []


def test_a_dry_run_reads_and_writes_nothing_then_the_push_writes_what_it_said(reading, notion_fake, lambda_context):
    dry = call(lambda_context, "library_sync", PUSH | {"dry_run": True})
    assert dry["dry_run"] and dry["items"]["created"] == 3
    assert notion_fake.writes() == [] and notion_fake.pages == {}
    assert call(lambda_context, "library_sync", PUSH)["items"]["created"] == 3


def test_an_edit_made_in_notion_is_pulled_back_and_the_next_push_writes_nothing(reading, notion_fake, lambda_context):
    call(lambda_context, "library_sync", PUSH)
    page_id = notion_fake.page_of(reading[0].item_id)["id"]
    _retitle(notion_fake, page_id, "Hypoxia, retitled in Notion")
    notion_fake.edit(page_id, {"Tags": {"multi_select": [{"name": "hypoxia"}, {"name": "to read"}]}})
    notion_fake.type_notes(page_id, "Read section 3 again.")
    pulled = call(lambda_context, "library_sync", PULL)
    assert (pulled["items"]["updated"], pulled["items"]["unchanged"]) == (1, 2)
    item = LibraryStore("alice").get(reading[0].item_id)
    assert item.paper["title"] == "Hypoxia, retitled in Notion" and item.tags == ["hypoxia", "to-read"]
    assert item.notes == "Read section 3 again."
    notion_fake.log.clear()
    assert call(lambda_context, "library_sync", PUSH)["items"]["unchanged"] == 3
    assert notion_fake.writes() == []


def test_a_change_made_here_is_written_over_a_page_nobody_edited_in_notion(reading, notion_fake, lambda_context):
    call(lambda_context, "library_sync", PUSH)
    LibraryStore("alice").update(reading[1].item_id, lambda i: i.model_copy(update={"tags": ["methods"]}))
    LibraryStore("alice").update(reading[0].item_id, lambda i: i.model_copy(update={"notes": "Only this now."}))
    answer = call(lambda_context, "library_sync", PUSH)
    assert (answer["items"]["updated"], answer["notes"]["updated"]) == (1, 1)
    page = notion_fake.page_of(reading[1].item_id)
    assert [t["name"] for t in page["properties"]["Tags"]["multi_select"]] == ["methods"]
    assert notion_fake.text_of(notion_fake.page_of(reading[0].item_id)["id"]) == ["Only this now."]


def test_a_conflict_is_reported_and_neither_side_is_overwritten(reading, notion_fake, lambda_context):
    call(lambda_context, "library_sync", PUSH)
    page_id = notion_fake.page_of(reading[0].item_id)["id"]
    # Given: the title changed in Notion, and here, differently; the notes too
    _retitle(notion_fake, page_id, "Their title")
    notion_fake.type_notes(page_id, "Their note.")
    LibraryStore("alice").update(reading[0].item_id, lambda i: i.model_copy(update={
        "paper": i.paper | {"title": "Our title"}, "notes": "Our note."}))
    # When: a push, then a pull
    pushed = call(lambda_context, "library_sync", PUSH)
    pulled = call(lambda_context, "library_sync", PULL)
    # Then: both report the conflict, on the fields and on the notes, and each side keeps its own
    for answer in (pushed, pulled):
        conflicts = [r for r in answer["results"] if r["status"] == "conflict"]
        assert [r["item_id"] for r in conflicts] == [reading[0].item_id] * 2
        assert answer["items"]["failed"] == answer["notes"]["failed"] == 1
    assert _plain(notion_fake.pages[page_id]["properties"]["Name"]) == "Their title"
    assert notion_fake.text_of(page_id) == ["Their note."]
    ours = LibraryStore("alice").get(reading[0].item_id)
    assert (ours.paper["title"], ours.notes) == ("Our title", "Our note.")


def test_a_429_is_waited_out_as_retry_after_says_and_a_lasting_one_is_rate_limited(
        reading, notion_fake, notion_waits, lambda_context):
    notion_fake.throttles.append("7")
    assert call(lambda_context, "library_sync", PUSH)["items"]["created"] == 3
    assert notion_waits == [7.0]
    assert notion_fake.log[0].path == notion_fake.log[1].path  # the throttled request was sent again
    notion_fake.throttles.extend(["30"] * retry.ATTEMPTS)
    refused = call(lambda_context, "library_sync", PUSH)
    assert refused["error"]["code"] == RATE_LIMITED and refused["error"]["retry_after_s"] == 30


def test_the_token_is_in_no_answer_log_task_or_stored_row(reading, notion_fake, aws, lambda_context, caplog,
                                                          monkeypatch):
    caplog.set_level(logging.DEBUG)
    answers = [call(lambda_context, "library_sync", PUSH), call(lambda_context, "library_sync", PULL),
               call(lambda_context, "library_connections", {})]
    # A Notion that echoes the token in its error message: the message we pass on is scrubbed.
    def echo(*_: object) -> None:
        raise Refused(400, "validation_error", f"bad token {TOKEN}")

    with monkeypatch.context() as patch:
        patch.setattr(notion_fake, "_route", echo)
        failed = call(lambda_context, "library_sync", PULL)
    assert failed["error"]["code"] == UPSTREAM_ERROR
    task = new_task(principal="alice", tool="library_sync", ttl_s=600, progress="queued")
    TaskStore().create(task)
    in_task = call(lambda_context, "library_sync", PUSH, task_id=task.task_id)
    stored = [aws.dynamodb.scan(TableName=t)["Items"] for t in (aws.task_table, "scholar-test-library",
                                                                 "scholar-test-connections")]
    seen = json.dumps([answers, failed, in_task], default=str) + caplog.text + repr(stored)
    assert TOKEN not in seen


def test_without_a_token_the_error_names_the_variable_and_the_keyring_command(reading, notion_fake, env,
                                                                              lambda_context):
    env.set(SCHOLAR_NOTION_TOKEN=None)
    for table in ("scholar-test-connections", None):  # with a connections table (as the local backend has) or none
        env.set(SCHOLAR_CONNECTIONS_TABLE=table)
        refused = call(lambda_context, "library_sync", PUSH)["error"]
        assert (refused["code"], refused["reason"]) == (FORBIDDEN, "connection_missing")
        assert "SCHOLAR_NOTION_TOKEN" in refused["recovery"]["hint"]
        assert "keyring set scholar-mcp/notion token" in refused["recovery"]["hint"]
    assert notion_fake.log == []


def test_the_token_may_come_from_the_os_keyring(reading, notion_fake, env, lambda_context, memory_keyring):
    env.set(SCHOLAR_NOTION_TOKEN=None)
    memory_keyring.set_password("scholar-mcp/notion", "token", TOKEN)
    assert call(lambda_context, "library_sync", PUSH)["items"]["created"] == 3


def test_a_refused_token_and_an_unshared_database_are_typed_errors(reading, notion_fake, env, lambda_context):
    env.set(SCHOLAR_NOTION_TOKEN="ntn_someone0elses0token")
    refused = call(lambda_context, "library_sync", PUSH)["error"]
    assert (refused["code"], refused["reason"]) == (FORBIDDEN, "notion_token_refused")
    env.set(SCHOLAR_NOTION_TOKEN=TOKEN, SCHOLAR_NOTION_DATABASE="0" * 32)
    unshared = call(lambda_context, "library_sync", PUSH)["error"]
    assert (unshared["code"], unshared["reason"]) == (NOT_FOUND, "notion_object_not_found")
    assert notion_fake.pages == {}


def test_hosted_a_call_uses_the_callers_sealed_connection_and_never_the_machines_token(
        reading, notion_fake, env, lambda_context):
    env.set(LAMBDA_TASK_ROOT="/var/task", POWERTOOLS_TRACE_DISABLED="1", SCHOLAR_NOTION_TOKEN="ntn_the0machines0own")
    missing = call(lambda_context, "library_sync", PUSH)["error"]
    assert (missing["code"], missing["reason"]) == (FORBIDDEN, "connection_missing")
    assert notion_fake.log == []
    ConnectionStore("alice").connect("notion", DATABASE_ID, SecretStr(TOKEN))
    assert call(lambda_context, "library_sync", PUSH)["items"]["created"] == 3
    assert {s.headers["authorization"] for s in notion_fake.log} == {f"Bearer {TOKEN}"}


def test_a_pull_of_a_collection_notion_does_not_hold_is_not_found(reading, notion_fake, lambda_context):
    answer = call(lambda_context, "library_sync", PULL | {"collection": "elsewhere"})
    assert (answer["error"]["code"], answer["error"]["reason"]) == (NOT_FOUND, "notion_collection_not_found")


def test_a_pull_without_a_collection_brings_pages_made_in_notion_into_the_notion_collection(
        reading, notion_fake, lambda_context):
    call(lambda_context, "library_sync", PUSH)
    notion_fake.make_page({"Name": {"title": [{"type": "text", "text": {"content": "A page made by hand"}}]},
                           "DOI": {"rich_text": [{"type": "text", "text": {"content": "10.1000/handmade"}}]}})
    pulled = call(lambda_context, "library_sync", {"target": "notion", "direction": "pull"})
    assert (pulled["items"]["created"], pulled["items"]["unchanged"], pulled["collection"]) == (1, 3, "notion")
    (kept,) = LibraryStore("alice").list_items(collection="notion")[0]
    assert kept.paper["title"] == "A page made by hand" and kept.paper["externalIds"]["DOI"] == "10.1000/handmade"
    again = call(lambda_context, "library_sync", {"target": "notion", "direction": "pull"})
    assert again["items"]["unchanged"] == 4
