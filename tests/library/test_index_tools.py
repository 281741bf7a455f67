"""library_search through the research function, on the real LibraryStore (moto) and the artifact bucket."""

from __future__ import annotations

import pytest

from scholar.core.errors import INVALID_ARGUMENT
from scholar.services.fulltext.artifacts import put_markdown
from scholar.store.library.table import LibraryStore
from tests.library.corpus import items
from tests.library.test_index import BODY_WORD, converted_markdown
from tests.library.tools import call, fresh_index  # noqa: F401  # fresh_index: a fixture the tests name

pytestmark = pytest.mark.usefixtures("library_table", "fresh_index")
ALICE, BOB = "apikey:alice", "apikey:bob"


def saved(count: int, principal: str = ALICE, **changes):
    store = LibraryStore(principal)
    corpus = items(count)
    put_markdown("md/converted.md", converted_markdown())
    corpus[5] = corpus[5].model_copy(update={"md_path": "md/converted.md", "notes": "read section 4 first",
                                             "tags": ["writing-support"], **changes})
    store.put_many(corpus)
    return store, corpus


def test_library_search_finds_a_paper_by_a_word_of_its_converted_text():
    _, corpus = saved(40)

    answer = call("library_search", ALICE, query=BODY_WORD)

    hits = answer["result"]["hits"]
    assert [h["item_id"] for h in hits] == [corpus[5].item_id]
    assert hits[0]["matched_fields"] == ["body"]
    assert BODY_WORD in hits[0]["snippet"].lower()
    assert answer["result"]["index_revision"] == LibraryStore(ALICE).revision()


def test_another_caller_searching_the_same_words_finds_none_of_the_first_callers_items():
    saved(40)
    LibraryStore(BOB).put(items(60)[50])

    mine = call("library_search", ALICE, query=BODY_WORD)
    theirs = call("library_search", BOB, query=BODY_WORD)

    assert mine["result"]["total"] == 1
    assert theirs["result"]["total"] == 0


def test_writes_made_elsewhere_after_a_search_are_found_by_the_next_one():
    store, corpus = saved(30)
    call("library_search", ALICE, query="cell")
    # Another process (the library tools' function, download_paper's finish step) writes to the store.
    LibraryStore(ALICE).update(corpus[9].item_id, lambda i: i.model_copy(update={"notes": "zebrafish follow-up"}))
    LibraryStore(ALICE).delete(corpus[5].item_id)

    by_note = call("library_search", ALICE, query="zebrafish")
    deleted = call("library_search", ALICE, query=BODY_WORD)

    assert [(h["item_id"], h["matched_fields"]) for h in by_note["result"]["hits"]] == [(corpus[9].item_id, ["notes"])]
    assert deleted["result"]["total"] == 0


def test_pages_follow_with_next_cursor_bound_to_the_same_query():
    saved(200)
    first = call("library_search", ALICE, query="the", limit=5)["result"]

    second = call("library_search", ALICE, query="the", limit=5, cursor=first["next_cursor"])["result"]
    other = call("library_search", ALICE, query="cell", limit=5, cursor=first["next_cursor"])

    assert first["total"] > 10 and second["offset"] == 5
    assert not {h["item_id"] for h in first["hits"]} & {h["item_id"] for h in second["hits"]}
    assert other["error"]["code"] == INVALID_ARGUMENT
    assert other["error"]["details"]["field"] == "cursor"


def test_tag_and_collection_filters_and_field_syntax_narrow_the_hits():
    _, corpus = saved(40, collection="thesis")

    by_tag = call("library_search", ALICE, query="section OR writing", tag="writing-support")["result"]
    in_notes = call("library_search", ALICE, query="notes: section", collection="thesis")["result"]
    elsewhere = call("library_search", ALICE, query="notes: section", collection="inbox")["result"]

    assert [h["item_id"] for h in by_tag["hits"]] == [corpus[5].item_id]
    assert (in_notes["match"], [h["matched_fields"] for h in in_notes["hits"]]) == ("as_written", [["notes"]])
    assert elsewhere["total"] == 0


@pytest.mark.parametrize("query", ['"', "NEAR(", "*", "'; DROP TABLE items; --", "   ", "x" * 501])
def test_hostile_or_empty_queries_are_answers_or_invalid_arguments_naming_query(query):
    saved(10)

    answer = call("library_search", ALICE, query=query)

    if not answer["ok"]:
        assert answer["error"]["code"] == INVALID_ARGUMENT
        assert "query" in answer["error"]["message"]
