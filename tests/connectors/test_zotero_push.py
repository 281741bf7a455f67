"""Pushing a collection to Zotero (Web API v3, the fake): created, updated, unchanged, conflicts, throttling."""

from __future__ import annotations

from scholar.services.connectors.zotero_map import SCHOLAR_ID, scholar_id
from scholar.services.connectors.zotero_push import push
from tests.connectors.conftest import run
from tests.connectors.items import arxiv_item, epmc_items, many_items
from tests.fakes.zotero import PUBLIC_LIBRARY


def _by_scholar_id(fake) -> dict[str, dict]:
    items = fake.libraries[PUBLIC_LIBRARY].items.values()
    return {scholar_id(o["data"]): o for o in items if scholar_id(o["data"])}


def test_a_first_push_creates_the_collection_and_every_item_with_its_type_fields_and_ids(fake, client, store):
    items = [*epmc_items(3), arxiv_item()]
    report = run(push(client, store, items, "reading"))
    assert report.items.created == 4 and report.items.failed == 0
    library = fake.libraries[PUBLIC_LIBRARY]
    (ckey,) = [k for k, c in library.collections.items() if c["data"]["name"] == "reading"]
    pushed = _by_scholar_id(fake)
    article = pushed[items[0].item_id]["data"]
    assert article["itemType"] == "journalArticle" and article["DOI"] == items[0].paper["externalIds"]["DOI"]
    assert f"PMID: {items[0].paper['externalIds']['PubMed']}" in article["extra"]
    assert f"{SCHOLAR_ID}: {items[0].item_id}" in article["extra"]
    assert article["collections"] == [ckey]
    assert article["creators"][0]["creatorType"] == "author" and article["creators"][0]["lastName"]
    preprint = pushed[items[3].item_id]["data"]
    assert preprint["itemType"] == "preprint" and preprint["archiveID"] == "arXiv:2312.07559"


def test_a_second_push_of_the_same_collection_writes_nothing_and_only_reads_versions(fake, client, store):
    items = epmc_items(5)
    run(push(client, store, items, "reading"))
    fake.log.clear()
    again = run(push(client, store, items, "reading"))
    assert again.items.unchanged == 5 and again.items.created == again.items.updated == 0
    assert fake.writes() == []
    assert [s.path for s in fake.log] == [f"/{PUBLIC_LIBRARY}/collections/{_ckey(fake)}/items"]


def _ckey(fake) -> str:
    return next(k for k, c in fake.libraries[PUBLIC_LIBRARY].collections.items() if c["data"]["name"] == "reading")


def test_a_changed_item_is_updated_with_the_version_it_was_last_seen_at(fake, client, store):
    items = epmc_items(2)
    run(push(client, store, items, "reading"))
    changed = items[0].model_copy(update={"tags": ["hypoxia"]})
    report = run(push(client, store, [changed, items[1]], "reading"))
    assert (report.items.updated, report.items.unchanged) == (1, 1)
    assert _by_scholar_id(fake)[changed.item_id]["data"]["tags"] == [{"tag": "hypoxia"}]


def test_an_item_edited_in_zotero_since_the_last_sync_is_a_conflict_and_the_users_edit_stays(fake, client, store):
    items = epmc_items(2)
    run(push(client, store, items, "reading"))
    key = _by_scholar_id(fake)[items[0].item_id]["key"]
    fake.edit(key, title="The user's own title")
    ours = items[0].model_copy(update={"tags": ["ours"]})
    report = run(push(client, store, [ours, items[1]], "reading"))
    (conflict,) = [r for r in report.results if r.status == "conflict"]
    assert conflict.key == key and conflict.code == 412 and report.items.failed == 1
    assert fake.libraries[PUBLIC_LIBRARY].items[key]["data"]["title"] == "The user's own title"
    # the re-read: Zotero's current copy was read back by key (the library's /items, not the collection's
    # versions, which also ends in /items), and its version is in the message
    version = fake.libraries[PUBLIC_LIBRARY].items[key]["version"]
    assert fake.log[-1].method == "GET" and fake.log[-1].path == f"/{PUBLIC_LIBRARY}/items"
    assert f"Zotero has version {version}" in (conflict.message or "")


def test_a_collection_of_the_same_name_already_in_zotero_is_reused_not_created_again(fake, client, store):
    library = fake.libraries[PUBLIC_LIBRARY]
    library.collections["RDNG2345"] = {"key": "RDNG2345", "version": 1, "data": {
        "key": "RDNG2345", "version": 1, "name": "reading", "parentCollection": False, "relations": {}}}
    report = run(push(client, store, epmc_items(2), "reading"))
    assert report.items.created == 2
    assert not [s for s in fake.writes() if s.path.endswith("/collections")]
    assert [c for c in library.collections.values() if c["data"]["name"] == "reading"] == [
        library.collections["RDNG2345"]]
    assert all(o["data"]["collections"] == ["RDNG2345"] for o in _by_scholar_id(fake).values())


def test_an_unchanged_note_is_not_written_again(fake, client, store):
    (item,) = epmc_items(1)
    noted = item.model_copy(update={"notes": "Hypoxia matters."})
    run(push(client, store, [noted], "reading"))
    fake.log.clear()
    again = run(push(client, store, [noted], "reading"))
    assert (again.notes.created, again.notes.updated, again.items.unchanged) == (0, 0, 1)
    assert fake.writes() == []


def test_an_item_zotero_refuses_is_failed_with_zoteros_code_and_message_and_the_rest_are_written(fake, client, store):
    items = epmc_items(3)
    title = items[1].paper["title"]
    fake.refuse[title] = (413, "Item is too large")
    report = run(push(client, store, items, "reading"))
    assert (report.items.created, report.items.failed) == (2, 1)
    (failed,) = [r for r in report.results if r.status == "failed"]
    assert (failed.item_id, failed.code, failed.message) == (items[1].item_id, 413, "Item is too large")
    # the failed item is retried on the next push, the others are unchanged
    del fake.refuse[title]
    again = run(push(client, store, items, "reading"))
    assert (again.items.created, again.items.unchanged) == (1, 2)


def test_more_than_fifty_items_go_in_batches_of_fifty_with_a_fresh_write_token_each(fake, client, store):
    report = run(push(client, store, many_items(120, "reading"), "reading"))
    assert report.items.created == 120
    item_writes = [s for s in fake.writes() if s.path.endswith("/items")]
    assert len(item_writes) == 3  # ⌈120 / 50⌉
    tokens = [s.headers["zotero-write-token"] for s in fake.writes()]
    assert len(set(tokens)) == len(tokens)


def test_a_429_is_waited_out_as_retry_after_says_and_a_backoff_header_delays_the_next_request(
        fake, client, store, waits):
    fake.throttles.append({"Retry-After": "7"})
    fake.backoffs.append("11")
    report = run(push(client, store, epmc_items(2), "reading"))
    assert report.items.created == 2
    assert waits[:2] == [7.0, waits[1]] and 10.0 < waits[1] <= 11.0
    statuses = [s.path for s in fake.log]
    assert statuses[0] == statuses[1]  # the throttled request was sent again


def test_our_notes_become_a_child_note_updated_in_place_when_they_change(fake, client, store):
    (item,) = epmc_items(1)
    noted = item.model_copy(update={"notes": "Hypoxia <matters>.\n\nSecond thought."})
    report = run(push(client, store, [noted], "reading"))
    assert report.notes.created == 1
    parent = _by_scholar_id(fake)[item.item_id]["key"]
    (note,) = [o for o in fake.libraries[PUBLIC_LIBRARY].items.values() if o["data"].get("parentItem") == parent]
    assert note["data"]["note"] == "<p>Hypoxia &lt;matters&gt;.</p><p>Second thought.</p>"
    again = run(push(client, store, [noted.model_copy(update={"notes": "Changed."})], "reading"))
    assert (again.notes.updated, again.items.unchanged) == (1, 1)
    assert fake.libraries[PUBLIC_LIBRARY].items[note["key"]]["data"]["note"] == "<p>Changed.</p>"


def test_a_dry_run_reports_what_would_change_and_writes_nothing(fake, client, store):
    items = epmc_items(3)
    report = run(push(client, store, items, "reading", dry_run=True))
    assert report.dry_run and report.items.created == 3
    assert fake.writes() == []
    assert run(push(client, store, items, "reading")).items.created == 3
