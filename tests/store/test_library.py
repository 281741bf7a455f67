"""LibraryStore on both backends: per-caller isolation, idempotent writes, revisions, the change log, limits."""

from __future__ import annotations

import hashlib
import threading

import pytest

from scholar.core.aio import in_this_context
from scholar.core.errors import (
    INVALID_ARGUMENT,
    NOT_FOUND,
    TOO_LARGE,
    InvalidArgumentError,
    NotFoundError,
    TooLargeError,
)
from scholar.store.library.table import FULL_BYTES, FULL_ITEMS, ItemExistsError, LibraryStore
from tests.library.helpers import recorded_item

pytestmark = pytest.mark.usefixtures("library_table")


def test_an_empty_library_has_revision_zero_and_no_usage():
    store = LibraryStore("alice")
    assert store.revision() == 0
    assert store.usage() == (0, 0)
    assert store.list_items() == ([], None)
    assert store.changes_since(0) == ([], 0)


def test_a_stored_item_comes_back_whole_with_the_new_revision():
    store = LibraryStore("alice")
    stored = store.put(recorded_item(0, tags=("ai",)))
    assert stored.rev == 1
    assert store.get(stored.item_id) == stored
    assert store.revision() == 1
    items, size = store.usage()
    assert items == 1 and size > 0


def test_caller_b_cannot_get_list_update_or_delete_caller_a_items():
    alice, bob = LibraryStore("alice"), LibraryStore("bob")
    item = alice.put(recorded_item(0))
    assert bob.get(item.item_id) is None
    assert bob.get_many([item.item_id]) == {}
    assert bob.list_items() == ([], None)
    assert list(bob.iter_items()) == []
    with pytest.raises(NotFoundError) as caught:
        bob.update(item.item_id, lambda i: i.model_copy(update={"notes": "mine now"}))
    assert caught.value.code == NOT_FOUND
    assert bob.delete(item.item_id) is False
    assert bob.collections() == []
    assert bob.revision() == 0
    # Alice's item is untouched by all of it.
    assert alice.get(item.item_id) == item


def test_putting_the_same_paper_twice_keeps_one_item_and_its_added_time():
    store = LibraryStore("alice")
    first = store.put(recorded_item(0))
    again = store.put(recorded_item(0).model_copy(update={"added_at": "2030-01-01T00:00:00Z", "notes": "read"}))
    assert again.item_id == first.item_id
    assert again.added_at == first.added_at and again.notes == "read"
    assert store.usage()[0] == 1
    assert store.revision() == 2


def test_create_only_refuses_an_item_that_exists_and_hands_back_the_stored_one():
    store = LibraryStore("alice")
    stored = store.put(recorded_item(0), create_only=True)
    with pytest.raises(ItemExistsError) as caught:
        store.put(recorded_item(0), create_only=True)
    assert caught.value.item == stored
    assert store.revision() == 1


def test_twenty_threads_adding_different_papers_lose_no_item():
    store = LibraryStore("alice")
    errors: list[BaseException] = []

    def add(n: int) -> None:
        try:
            LibraryStore("alice").put(recorded_item(n))
        except BaseException as exc:  # noqa: BLE001  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=in_this_context(add), args=(n,)) for n in range(20)]  # on this backend
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert len(list(store.iter_items())) == 20
    assert store.revision() == 20
    assert store.usage()[0] == 20
    assert {c.name: c.items for c in store.collections()} == {"inbox": 20}
    ids, latest = store.changes_since(0)
    assert latest == 20 and len(ids) == 20


def test_concurrent_updates_of_one_item_apply_every_tag():
    store = LibraryStore("alice")
    item = store.put(recorded_item(0))

    def tag(n: int) -> None:
        LibraryStore("alice").update(item.item_id, lambda i: i.model_copy(update={"tags": [*i.tags, f"t{n}"]}))

    threads = [threading.Thread(target=in_this_context(tag), args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(store.get(item.item_id).tags) == sorted(f"t{n}" for n in range(8))
    assert store.revision() == 9


def test_changes_since_names_items_written_or_deleted_after_a_revision():
    store = LibraryStore("alice")
    a, b, c = (store.put(recorded_item(n)) for n in range(3))
    store.delete(a.item_id)
    store.update(b.item_id, lambda i: i.model_copy(update={"notes": "n"}))
    assert store.changes_since(3) == ([a.item_id, b.item_id], 5)
    assert store.changes_since(5) == ([], 5)
    ids, latest = store.changes_since(0)
    assert set(ids) == {a.item_id, b.item_id, c.item_id} and latest == 5


def test_deleting_an_item_frees_its_count_and_bytes():
    store = LibraryStore("alice")
    item = store.put(recorded_item(0))
    assert store.delete(item.item_id) is True
    assert store.get(item.item_id) is None
    assert store.usage() == (0, 0)
    assert store.delete(item.item_id) is False


def test_the_item_limit_refuses_one_more_paper_naming_the_limit(env):
    env(SCHOLAR_LIBRARY_MAX_ITEMS="2")
    store = LibraryStore("alice")
    store.put(recorded_item(0))
    store.put(recorded_item(1))
    with pytest.raises(TooLargeError) as caught:
        store.put(recorded_item(2))
    assert caught.value.code == TOO_LARGE and caught.value.reason == FULL_ITEMS
    assert caught.value.details["limit"] == "SCHOLAR_LIBRARY_MAX_ITEMS"
    assert caught.value.hint
    # Replacing a stored item is no new item: still allowed at the limit.
    store.put(recorded_item(1).model_copy(update={"notes": "still fine"}))
    assert store.usage()[0] == 2


def test_the_byte_limit_refuses_a_write_that_would_pass_it(env):
    env(SCHOLAR_LIBRARY_MAX_BYTES="1024")
    store = LibraryStore("alice")
    store.put(recorded_item(0))
    with pytest.raises(TooLargeError) as caught:
        store.update(recorded_item(0).item_id, lambda i: i.model_copy(update={"notes": "x" * 2000}))
    assert caught.value.reason == FULL_BYTES and caught.value.details["limit"] == "SCHOLAR_LIBRARY_MAX_BYTES"


def test_list_filters_by_collection_and_tag_and_pages_with_a_cursor():
    store = LibraryStore("alice")
    store.put_many([recorded_item(n, collection="thesis" if n % 2 else "inbox", tags=("ml",) if n < 6 else ())
                    for n in range(12)])
    thesis, cursor = store.list_items(collection="thesis", limit=4)
    assert len(thesis) == 4 and cursor
    rest, last = store.list_items(collection="thesis", limit=4, cursor=cursor)
    assert len(rest) == 2 and last is None
    assert {i.collection for i in thesis + rest} == {"thesis"}
    assert len({i.item_id for i in thesis + rest}) == 6
    tagged, _ = store.list_items(tag="ml", limit=50)
    assert len(tagged) == 6
    both, _ = store.list_items(collection="thesis", tag="ml")
    assert len(both) == 3


def test_a_cursor_from_other_filters_or_garbage_is_an_invalid_argument():
    store = LibraryStore("alice")
    store.put_many([recorded_item(n) for n in range(3)])
    _, cursor = store.list_items(limit=1)
    for bad in (cursor, "not-a-cursor"):
        with pytest.raises(InvalidArgumentError) as caught:
            store.list_items(collection="inbox", cursor=bad)
        assert caught.value.code == INVALID_ARGUMENT and caught.value.field == "cursor"


def test_get_many_returns_the_callers_items_by_id_and_skips_unknown_ones():
    store = LibraryStore("alice")
    stored = store.put_many([recorded_item(n) for n in range(5)])
    ids = [i.item_id for i in stored] + ["lib_00000000000000000000"]
    found = store.get_many(ids)
    assert set(found) == {i.item_id for i in stored}


def test_renaming_a_collection_moves_its_items_and_keeps_the_others():
    store = LibraryStore("alice")
    store.put_many([recorded_item(n, collection="draft" if n < 3 else "inbox") for n in range(5)])
    assert store.rename_collection("draft", "thesis") == 3
    counts = {c.name: c.items for c in store.collections()}
    assert counts == {"inbox": 2, "thesis": 3}
    assert {i.collection for i in store.list_items(collection="thesis")[0]} == {"thesis"}


def test_renaming_onto_an_existing_collection_or_from_a_missing_one_is_refused():
    store = LibraryStore("alice")
    store.create_collection("a")
    store.create_collection("b")
    with pytest.raises(InvalidArgumentError):
        store.rename_collection("a", "b")
    with pytest.raises(NotFoundError):
        store.rename_collection("missing", "c")


def test_a_collection_is_deleted_only_when_empty():
    store = LibraryStore("alice")
    store.put(recorded_item(0, collection="reading"))
    with pytest.raises(InvalidArgumentError) as caught:
        store.delete_collection("reading")
    assert caught.value.reason == "collection_not_empty"
    store.delete(recorded_item(0).item_id)
    store.delete_collection("reading")
    assert store.collections() == []
    with pytest.raises(NotFoundError):
        store.delete_collection("reading")


def test_creating_a_collection_twice_is_one_collection():
    store = LibraryStore("alice")
    first = store.create_collection("to read")
    assert store.create_collection("to read") == first
    assert [c.name for c in store.collections()] == ["to read"]


def test_put_many_stores_an_id_given_twice_once_and_can_keep_a_snapshots_times():
    store = LibraryStore("alice")
    older = recorded_item(0).model_copy(update={"added_at": "2020-01-01T00:00:00Z",
                                                "updated_at": "2021-01-01T00:00:00Z"})
    stored = store.put_many([recorded_item(0), older], keep_times=True)
    assert len(stored) == 1 and store.usage()[0] == 1
    again = store.get(older.item_id)
    assert (again.added_at, again.updated_at) == ("2020-01-01T00:00:00Z", "2021-01-01T00:00:00Z")


def test_a_record_over_dynamodbs_item_size_is_too_large_and_nothing_is_written():
    store = LibraryStore("alice")
    # Within every field bound (4,000 authors of 100 characters), but CJK characters drawn from hashes take three
    # bytes each and barely compress: past the 350 KB one record may take.
    digests = (hashlib.sha256(str(n).encode()).digest() for n in range(4_000 * 50))
    noise = "".join(chr(0x4E00 + (d[0] << 4 | d[1] >> 4)) + chr(0x4E00 + (d[2] << 4 | d[3] >> 4)) for d in digests)
    authors = [{"name": noise[k * 100:(k + 1) * 100]} for k in range(4_000)]
    item = recorded_item(0)
    with pytest.raises(TooLargeError) as caught:
        store.put(item.model_copy(update={"paper": {**item.paper, "authors": authors}}))
    assert caught.value.reason == "library_record_too_large"
    assert store.revision() == 0 and store.get(item.item_id) is None


def test_a_page_that_holds_the_last_item_hands_out_no_cursor():
    store = LibraryStore("alice")
    store.put_many([recorded_item(n) for n in range(3)])
    items, cursor = store.list_items(limit=3)
    assert len(items) == 3 and cursor is None
    first, cursor = store.list_items(limit=2)
    rest, last = store.list_items(limit=2, cursor=cursor)
    assert len(first) == 2 and len(rest) == 1 and last is None
