"""Pulling from Zotero (the fake): the recorded library mapped in, pagination, and the round trip with a push."""

from __future__ import annotations

import pytest

from scholar.core.errors import FORBIDDEN, ForbiddenError
from scholar.services.connectors.zotero_map import scholar_id
from scholar.services.connectors.zotero_pull import pull
from scholar.services.connectors.zotero_push import push
from scholar.sources.zotero import ZoteroClient, ZoteroLibrary
from scholar.store.connections import ConnectionStore
from scholar.store.library.table import LibraryStore
from tests.connectors.conftest import run
from tests.connectors.items import epmc_items, many_items
from tests.connectors.test_sync_tools import call
from tests.fakes.zotero import PUBLIC_LIBRARY


def test_pulling_the_recorded_library_brings_its_items_with_title_creators_and_tags(fake, client, store):
    report = run(pull(client, store, LibraryStore("alice"), None, into="zotero"))
    recorded = [o for o in fake.libraries[PUBLIC_LIBRARY].items.values()
                if o["data"]["itemType"] not in ("note", "attachment")]
    assert report.items.created == len(recorded) > 0
    listed = LibraryStore("alice").list_items(collection="zotero", limit=100)[0]
    assert len(listed) == len(recorded)
    assert {i.paper.get("title") for i in listed} >= {o["data"]["title"] for o in recorded if o["data"]["title"]}
    again = run(pull(client, store, LibraryStore("alice"), None, into="zotero"))
    assert again.items.unchanged == len(recorded) and again.items.created == 0


def test_a_collection_larger_than_a_page_is_read_through_its_link_headers(fake, client, store):
    run(push(client, store, many_items(130, "big"), "big"))
    fake.log.clear()
    # bob pulls what alice pushed into the same Zotero library: nothing of it is in his library yet
    report = run(pull(client, ConnectionStore("bob"), LibraryStore("bob"), "big", into="big"))
    pages = [s for s in fake.log if s.method == "GET" and s.path.endswith("/items")]
    assert len(pages) == 2  # 100 + 30, the second found through Link: rel="next"
    assert report.items.created == 130


def test_round_trip_an_edit_in_zotero_comes_back_and_the_next_push_writes_nothing(fake, client, store):
    items = epmc_items(4, "reading")
    library = LibraryStore("alice")
    library.put_many(items)
    run(push(client, store, items, "reading"))
    key = next(o["key"] for o in fake.libraries[PUBLIC_LIBRARY].items.values()
               if scholar_id(o["data"]) == items[2].item_id)
    fake.edit(key, title="Edited in Zotero", tags=[{"tag": "from zotero"}])

    pulled = run(pull(client, store, library, "reading", into="reading"))

    assert (pulled.items.updated, pulled.items.unchanged) == (1, 3)
    edited = library.get(items[2].item_id)
    assert edited.paper["title"] == "Edited in Zotero" and edited.tags == ["from-zotero"]
    assert edited.paper["externalIds"]["DOI"] == items[2].paper["externalIds"]["DOI"]
    fake.log.clear()
    again = run(push(client, store, library.list_items(collection="reading", limit=100)[0], "reading"))
    assert again.items.unchanged == 4 and fake.writes() == []


def test_a_pulled_child_note_becomes_our_notes(fake, client, store):
    (item,) = epmc_items(1, "reading")
    library = LibraryStore("alice")
    library.put_many([item.model_copy(update={"notes": "first"})])
    run(push(client, store, library.list_items(collection="reading")[0], "reading"))
    note = next(o for o in fake.libraries[PUBLIC_LIBRARY].items.values() if o["data"].get("itemType") == "note"
                and o["data"].get("note") == "<p>first</p>")
    fake.edit(note["key"], note="<p>first</p><p>and a <b>second</b> thought</p>")
    run(pull(client, store, library, "reading", into="reading"))
    assert library.get(item.item_id).notes == "first\n\nand a second thought"


def test_the_desktops_local_api_refuses_clearly_when_it_is_not_enabled(fake):
    fake.local_enabled = False
    desktop = ZoteroClient(ZoteroLibrary("zotero_local", "users/0"))
    with pytest.raises(ForbiddenError) as refused:
        run(desktop.items())
    assert refused.value.code == FORBIDDEN and refused.value.reason == "local_api_disabled"
    assert fake.log[-1].source == "zotero_local" and fake.log[-1].path == "/api/users/0/items"


def test_the_desktops_local_api_is_read_without_a_key_when_enabled(fake):
    desktop = ZoteroClient(ZoteroLibrary("zotero_local", "users/0"))
    assert run(desktop.items()) == []
    assert "zotero-api-key" not in fake.log[-1].headers


def test_the_desktops_library_is_pulled_through_the_tool_without_a_key(fake, connections_table, lambda_context):
    fake.libraries["users/0"] = fake.libraries[PUBLIC_LIBRARY]  # the desktop holds the recorded library
    pulled = call(lambda_context, "library_sync", {"target": "zotero_local", "direction": "pull"})
    assert pulled["library"] == "users/0" and pulled["items"]["created"] > 0
    assert {s.source for s in fake.log} == {"zotero_local"}
    assert all("zotero-api-key" not in s.headers for s in fake.log)
    fake.local_enabled = False
    refused = call(lambda_context, "library_sync", {"target": "zotero_local", "direction": "pull"})
    assert refused["error"]["code"] == FORBIDDEN and refused["error"]["reason"] == "local_api_disabled"
