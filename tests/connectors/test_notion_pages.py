"""The Notion push and pull below the tool (the fake Notion): Notion's pagination of pages and blocks, and a push
that lost its links finding its pages again by their Scholar ID instead of writing them twice."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from pydantic import SecretStr

from scholar.services.connectors import notion_pull
from scholar.services.connectors.notion_pull import pull
from scholar.services.connectors.notion_push import push
from scholar.sources.notion import NotionClient, NotionDatabase
from scholar.store.connections import ConnectionStore
from scholar.store.library.table import LibraryStore
from tests.connectors.conftest import run
from tests.connectors.items import epmc_items, many_items
from tests.fakes.notion import DATABASE_ID, TOKEN


@pytest.fixture
def client(notion_fake) -> NotionClient:
    return NotionClient(NotionDatabase(DATABASE_ID, SecretStr(TOKEN)))


def _queries(fake) -> list[str | None]:
    return [(s.body or {}).get("start_cursor") for s in fake.log if s.path.endswith("/query")]


def test_more_than_a_hundred_pages_are_read_a_hundred_at_a_time_and_a_second_push_writes_nothing(
        notion_fake, client, store):
    items = many_items(120, "reading")
    assert run(push(client, store, items, "reading")).items.created == 120
    notion_fake.log.clear()
    again = run(push(NotionClient(client.target), store, items, "reading"))
    assert again.items.unchanged == 120 and notion_fake.writes() == []
    cursors = _queries(notion_fake)
    assert len(cursors) == 2 and cursors[0] is None and cursors[1] is not None  # 100, then the next 20
    assert all((s.body or {}).get("page_size", 100) <= 100 for s in notion_fake.log)


def test_notes_of_more_than_a_hundred_paragraphs_are_appended_a_hundred_at_a_time_and_read_back_whole(
        notion_fake, client, store):
    (item,) = epmc_items(1)
    notes = "\n\n".join(f"Paragraph {n}." for n in range(1, 251))
    LibraryStore("alice").put_many([item.model_copy(update={"notes": notes})])
    run(push(client, store, [item.model_copy(update={"notes": notes})], "reading"))
    page_id = notion_fake.page_of(item.item_id)["id"]
    assert len(notion_fake.text_of(page_id)) == 250
    assert [len(s.body["children"]) for s in notion_fake.writes() if "children" in (s.body or {})] == [100, 100, 50]
    notion_fake.type_notes(page_id, *notion_fake.text_of(page_id), "Paragraph 251, typed in Notion.")
    notion_fake.log.clear()
    report = run(pull(client, store, LibraryStore("alice"), "reading", into="reading"))
    assert report.items.updated == 1
    assert LibraryStore("alice").get(item.item_id).notes == notes + "\n\nParagraph 251, typed in Notion."
    assert len([s for s in notion_fake.log if s.path.endswith("/children")]) == 3  # 251 blocks: 100 + 100 + 51


def test_a_push_that_lost_its_links_finds_its_pages_by_scholar_id_and_writes_nothing(notion_fake, client, store, aws):
    items = epmc_items(3)
    run(push(client, store, items, "reading"))
    rows = aws.dynamodb.scan(TableName="scholar-test-connections")["Items"]
    for row in rows:
        aws.dynamodb.delete_item(TableName="scholar-test-connections", Key={"pk": row["pk"], "sk": row["sk"]})
    notion_fake.log.clear()
    again = run(push(NotionClient(client.target), ConnectionStore("alice"), items, "reading"))
    assert again.items.unchanged == 3 and len(notion_fake.pages) == 3
    assert [s.method for s in notion_fake.writes()] == []


def test_a_page_found_by_scholar_id_without_a_link_that_differs_is_a_conflict_until_a_pull_takes_it(
        notion_fake, client, store, aws):
    items = epmc_items(2)
    LibraryStore("alice").put_many(items)
    run(push(client, store, items, "reading"))
    for row in aws.dynamodb.scan(TableName="scholar-test-connections")["Items"]:
        aws.dynamodb.delete_item(TableName="scholar-test-connections", Key={"pk": row["pk"], "sk": row["sk"]})
    page_id = notion_fake.page_of(items[0].item_id)["id"]
    notion_fake.edit(page_id, {"Name": {"title": [{"type": "text", "text": {"content": "Retitled in Notion"}}]}})
    notion_fake.log.clear()
    pushed = run(push(NotionClient(client.target), store, items, "reading"))
    assert [(r.item_id, r.status) for r in pushed.results] == [(items[0].item_id, "conflict")]
    assert notion_fake.writes() == []
    pulled = run(pull(NotionClient(client.target), store, LibraryStore("alice"), "reading", into="reading"))
    # the page without a link has no last sync to compare with: Notion's is taken (the other was adopted by the push)
    assert (pulled.items.updated, pulled.items.unchanged) == (1, 1)
    assert LibraryStore("alice").get(items[0].item_id).paper["title"] == "Retitled in Notion"
    again = run(push(NotionClient(client.target), store, list(LibraryStore("alice").get_many(
        [i.item_id for i in items]).values()), "reading"))
    assert again.items.unchanged == 2 and notion_fake.writes() == []


def test_a_page_notion_refuses_is_failed_with_notions_status_and_message_and_the_rest_are_written(
        notion_fake, client, store):
    items = epmc_items(3)
    notion_fake.refuse.add(items[1].paper["title"])
    report = run(push(client, store, items, "reading"))
    assert (report.items.created, report.items.failed) == (2, 1)
    (failed,) = [r for r in report.results if r.status == "failed"]
    assert (failed.item_id, failed.code) == (items[1].item_id, 400)
    notion_fake.refuse.clear()
    again = run(push(NotionClient(client.target), store, items, "reading"))
    assert (again.items.created, again.items.unchanged) == (1, 2)


def test_a_later_pull_reads_the_content_of_no_page_untouched_since_the_last_sync_and_of_every_page_edited_since(
        notion_fake, client, store, monkeypatch):
    items = epmc_items(3)
    LibraryStore("alice").put_many(items)
    run(push(client, store, items, "reading"))
    # Ten minutes later (both clocks): the first pull reads every page's content once, the pages being that recent
    monkeypatch.setattr(notion_pull, "_now_ms", lambda: int((time.time() + 600) * 1000))
    notion_fake.later = timedelta(minutes=10)
    run(pull(NotionClient(client.target), store, LibraryStore("alice"), "reading", into="reading"))
    notion_fake.log.clear()
    quiet = run(pull(NotionClient(client.target), store, LibraryStore("alice"), "reading", into="reading"))
    assert quiet.items.unchanged == 3 and not [s for s in notion_fake.log if s.path.endswith("/children")]
    page_id = notion_fake.page_of(items[2].item_id)["id"]
    notion_fake.type_notes(page_id, "Typed ten minutes later.")
    edited = run(pull(NotionClient(client.target), store, LibraryStore("alice"), "reading", into="reading"))
    assert (edited.items.updated, edited.items.unchanged) == (1, 2)
    assert LibraryStore("alice").get(items[2].item_id).notes == "Typed ten minutes later."
