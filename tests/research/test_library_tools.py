"""The library_* tools through the research family's dispatch (functions.research.app), per caller."""

from __future__ import annotations

import json
from typing import Any

import pytest

from functions.research.app import lambda_handler
from scholar.core.errors import INVALID_ARGUMENT, NOT_FOUND
from scholar.families import get_tool
from scholar.store.library.table import LibraryStore
from tests.library.helpers import recorded_item

pytestmark = pytest.mark.usefixtures("library_table")

PNAS_DOI = "10.1073/pnas.1414271111"
PNAS_S2_ID = "db3720c812a462ef955d5654b65ca9189d4b8372"
JSON = {"Content-Type": "application/json"}
LIBRARY_TOOLS = ("library_add", "library_get", "library_list", "library_update", "library_remove",
                 "library_collections")


@pytest.fixture
def pnas(upstream, fixture_file):
    return upstream.get(f"/s2/graph/v1/paper/DOI:{PNAS_DOI}").respond(
        200, content=fixture_file("upstream/semantic_scholar/paper_by_doi_many_fields_pnas.json"), headers=JSON)


def call(lambda_context, tool: str, arguments: dict[str, Any], principal: str = "alice") -> dict[str, Any]:
    """The family's answer; a result is checked against the tool's output model."""
    answer = lambda_handler({"tool": tool, "arguments": arguments, "principal": principal, "request_id": "r1"},
                            lambda_context)
    if answer.get("ok"):
        get_tool(tool).output_model.model_validate(answer["result"])
        return answer["result"]
    return answer


def test_the_library_tools_are_not_write_tagged_and_only_removal_is_destructive():
    for name in LIBRARY_TOOLS:
        spec = get_tool(name)
        assert spec.family == "research" and "write" not in spec.tags, name
        assert spec.annotations.destructive is (name in ("library_remove", "library_collections")), name
    assert get_tool("library_list").annotations.read_only is True
    assert get_tool("library_add").annotations.idempotent is True


def test_add_then_get_by_item_id_doi_and_s2_id_returns_the_full_record(pnas, lambda_context):
    added = call(lambda_context, "library_add", {"identifier": PNAS_DOI, "tags": ["bio"], "notes": "hypoxia"})
    assert added["created"] is True
    item_id = added["item"]["item_id"]
    got = call(lambda_context, "library_get", {"ids": [item_id, PNAS_DOI, PNAS_S2_ID]})
    assert [e["status"] for e in got["items"]] == ["ok", "ok", "ok"]
    assert {e["item"]["item_id"] for e in got["items"]} == {item_id}
    record = got["items"][0]["item"]
    assert len(record["paper"]["authors"]) == 5 and record["notes"] == "hypoxia" and record["tags"] == ["bio"]


def test_another_caller_sees_none_of_it_and_cannot_change_it(pnas, lambda_context):
    item_id = call(lambda_context, "library_add", {"identifier": PNAS_DOI})["item"]["item_id"]
    got = call(lambda_context, "library_get", {"ids": [item_id]}, principal="bob")
    assert got["items"] == [{"id": item_id, "status": "not_found", "message": "not in your library"}]
    assert call(lambda_context, "library_list", {}, principal="bob")["items"] == []
    update = call(lambda_context, "library_update", {"id": item_id, "notes": "mine"}, principal="bob")
    assert update["error"]["code"] == NOT_FOUND
    removed = call(lambda_context, "library_remove", {"ids": [item_id]}, principal="bob")
    assert removed["removed"] == 0 and removed["results"][0]["status"] == "not_found"
    assert LibraryStore("alice").get(item_id).notes is None


def test_adding_twice_is_one_item(pnas, lambda_context):
    call(lambda_context, "library_add", {"identifier": PNAS_DOI})
    again = call(lambda_context, "library_add", {"identifier": f"doi:{PNAS_DOI}"})
    assert again["created"] is False
    assert call(lambda_context, "library_list", {})["library_items"] == 1


def test_update_adds_and_removes_tags_replaces_notes_and_moves_the_item(pnas, lambda_context):
    item_id = call(lambda_context, "library_add", {"identifier": PNAS_DOI, "tags": ["a", "b"]})["item"]["item_id"]
    updated = call(lambda_context, "library_update",
                   {"id": PNAS_DOI, "add_tags": ["c"], "remove_tags": ["a"], "notes": "read it", "collection": "bio"})
    assert updated["changed"] is True
    assert updated["item"]["tags"] == ["b", "c"] and updated["item"]["collection"] == "bio"
    same = call(lambda_context, "library_update", {"id": item_id, "add_tags": ["c"]})
    assert same["changed"] is False
    cleared = call(lambda_context, "library_update", {"id": item_id, "notes": ""})
    assert "notes" not in cleared["item"]
    collections = call(lambda_context, "library_collections", {})
    assert {c["name"]: c["items"] for c in collections["collections"]} == {"bio": 1, "inbox": 0}


def test_list_filters_by_collection_tag_and_year_and_pages_with_a_cursor(lambda_context):
    store = LibraryStore("alice")
    store.put_many([recorded_item(n, collection="thesis" if n < 7 else "inbox", tags=("ml",) if n % 2 else ())
                    for n in range(10)])
    first = call(lambda_context, "library_list", {"collection": "thesis", "limit": 5})
    assert len(first["items"]) == 5 and first["next_cursor"] and first["library_items"] == 10
    second = call(lambda_context, "library_list", {"collection": "thesis", "limit": 5, "cursor": first["next_cursor"]})
    assert len(second["items"]) == 2 and "next_cursor" not in second
    tagged = call(lambda_context, "library_list", {"tag": "ml", "limit": 100})
    assert len(tagged["items"]) == 5 and all(e["tags"] == ["ml"] for e in tagged["items"])
    # The recorded search records carry no year: a year filter leaves them out (unknown fails a filter).
    assert call(lambda_context, "library_list", {"year_start": 1900})["items"] == []


def test_a_year_range_that_ends_before_it_starts_names_year_end(lambda_context):
    answer = call(lambda_context, "library_list", {"year_start": 2020, "year_end": 2010})
    assert answer["error"]["code"] == INVALID_ARGUMENT and answer["error"]["details"]["field"] == "year_end"


def test_a_cursor_from_another_listing_names_cursor(lambda_context):
    LibraryStore("alice").put_many([recorded_item(n) for n in range(3)])
    cursor = call(lambda_context, "library_list", {"limit": 1})["next_cursor"]
    answer = call(lambda_context, "library_list", {"limit": 1, "cursor": cursor, "tag": "x"})
    assert answer["error"]["code"] == INVALID_ARGUMENT and answer["error"]["details"]["field"] == "cursor"


def test_remove_takes_several_ids_and_says_what_happened_to_each(lambda_context):
    stored = LibraryStore("alice").put_many([recorded_item(n) for n in range(2)])
    ids = [stored[0].item_id, stored[1].item_id, stored[0].item_id, "not an id at all"]
    answer = call(lambda_context, "library_remove", {"ids": ids})
    assert [r["status"] for r in answer["results"]] == ["removed", "removed", "not_found", "invalid_id"]
    assert answer["removed"] == 2
    assert LibraryStore("alice").usage() == (0, 0)


def test_collections_create_rename_and_delete_with_clear_errors(lambda_context):
    LibraryStore("alice").put_many([recorded_item(n, collection="draft") for n in range(3)])
    created = call(lambda_context, "library_collections", {"action": "create", "name": "to read"})
    assert [c["name"] for c in created["collections"]] == ["draft", "to read"]
    renamed = call(lambda_context, "library_collections", {"action": "rename", "name": "draft", "new_name": "thesis"})
    assert renamed["moved"] == 3
    assert {c["name"]: c["items"] for c in renamed["collections"]} == {"thesis": 3, "to read": 0}
    full = call(lambda_context, "library_collections", {"action": "delete", "name": "thesis"})
    assert full["error"]["code"] == INVALID_ARGUMENT and full["error"]["reason"] == "collection_not_empty"
    deleted = call(lambda_context, "library_collections", {"action": "delete", "name": "to read"})
    assert [c["name"] for c in deleted["collections"]] == ["thesis"]
    missing = call(lambda_context, "library_collections", {"action": "delete", "name": "to read"})
    assert missing["error"]["code"] == NOT_FOUND
    nameless = call(lambda_context, "library_collections", {"action": "rename", "name": "thesis"})
    assert nameless["error"]["details"]["field"] == "new_name"


def test_a_full_library_refuses_the_add_with_too_large_naming_the_limit(pnas, env, lambda_context):
    env(SCHOLAR_LIBRARY_MAX_ITEMS="1")
    LibraryStore("alice").put(recorded_item(0))
    answer = call(lambda_context, "library_add", {"identifier": PNAS_DOI})
    assert answer["error"]["code"] == "too_large"
    assert answer["error"]["details"]["limit"] == "SCHOLAR_LIBRARY_MAX_ITEMS" and answer["error"]["recovery"]["hint"]


def test_library_tools_answer_in_read_only_mode(env, lambda_context):
    env(SCHOLAR_READ_ONLY="true")
    answer = call(lambda_context, "library_collections", {"action": "create", "name": "kept"})
    assert [c["name"] for c in answer["collections"]] == ["kept"]


def test_get_cuts_records_to_the_size_budget_and_names_the_ones_left_out(lambda_context):
    # Given ten saved papers whose notes are 15,000 characters each (the records pass 80,000 together)
    store = LibraryStore("alice")
    stored = store.put_many([recorded_item(n).model_copy(update={"notes": "n" * 15_000}) for n in range(10)])
    ids = [i.item_id for i in stored]
    answer = call(lambda_context, "library_get", {"ids": ids})
    shown = [e["id"] for e in answer["items"]]
    assert answer["truncated"] is True and 0 < len(shown) < 10
    assert shown + answer["omitted"] == ids
    assert len(json.dumps(answer)) < 80_000


def test_an_update_whose_paper_cannot_be_resolved_reports_the_failing_source_not_a_missing_item(
        upstream, env, lambda_context):
    env(SCHOLAR_RETRY_BUDGET_S="0")
    # S2's 429 answer (status and Retry-After matter; no recorded body exists, S2 sends this JSON shape).
    upstream.get(f"/s2/graph/v1/paper/DOI:{PNAS_DOI}").respond(429, headers={"Retry-After": "30"},
                                                              json={"message": "Too Many Requests"})
    answer = call(lambda_context, "library_update", {"id": PNAS_DOI, "notes": "x"})
    assert answer["error"]["code"] == "rate_limited"
    got = call(lambda_context, "library_get", {"ids": [PNAS_DOI]})
    assert got["items"][0]["status"] == "rate_limited"


def test_a_book_s_isbn_is_an_invalid_argument_naming_identifier_and_the_tool_for_books(lambda_context):
    answer = call(lambda_context, "library_add", {"identifier": "ISBN:9780262035613"})
    assert answer["error"]["code"] == INVALID_ARGUMENT and answer["error"]["details"]["field"] == "identifier"
    assert answer["error"]["details"]["use"] == "get_book"
