"""One huge library record must not stall search (issue #22 item 3): every stored field is bounded on add, update
and import (``too_large`` naming the field and the limit); index work stays within the call's budget and resumes
on the next call (a retryable ``timeout``, never ``internal``); one caller's index work never holds up another's.

Records are the recorded ones (tests/library/corpus.py, the recorded PNAS paper); the oversized fields are
SYNTHETIC, grown from those records' own words.
"""

from __future__ import annotations

import json
import threading
import time
import zlib

import anyio
import pytest

from scholar.core.errors import TIMEOUT, TOO_LARGE, WorkTimeoutError
from scholar.services.library import index as index_module
from scholar.services.library.export import to_jsonl
from scholar.services.library.index import Filters, LibraryIndex
from scholar.services.library.index_cache import IndexHolder
from scholar.services.library.index_catchup import catch_up
from scholar.store import aws as aws_clients
from scholar.store.library.bounds import LIMITS, MAX_ABSTRACT_CHARS, MAX_AUTHORS
from scholar.store.library.rows import ITEM
from scholar.store.library.table import LibraryStore
from tests.library.corpus import MemoryLibrary, items
from tests.library.tools import call, fresh_index  # noqa: F401  # fresh_index: a fixture the tests name

ALICE, BOB = "apikey:alice", "apikey:bob"
PNAS_DOI = "10.1073/pnas.1414271111"
MILLION = 1_000_000


def grown(text: str, size: int) -> str:
    """``text`` repeated to ``size`` characters (a record's own words, as the hostile trial's abstract was)."""
    return (text + " ") * (size // (len(text) + 1) + 1)


def assert_too_large(answer: dict, field: str) -> dict:
    error = answer["error"]
    assert answer["ok"] is False and error["code"] == TOO_LARGE, answer
    assert (error["details"]["field"], error["details"]["limit"]) == (field, LIMITS[field])
    assert field in error["message"] and str(LIMITS[field]) in error["message"]
    return error


# -- import -----------------------------------------------------------------------------------------------------


def base():
    """A recorded paper with an abstract (the first two recorded search hits have none)."""
    return items(3)[2]


def _oversized(field: str):
    item = base()
    paper = item.paper
    if field == "paper.abstract":
        return item.model_copy(update={"paper": {**paper, "abstract": grown(paper["abstract"], MILLION)}})
    if field == "paper.title":
        return item.model_copy(update={"paper": {**paper, "title": grown(paper["title"], 5_000)}})
    if field == "paper.authors":
        authors = (paper["authors"] * (MAX_AUTHORS // len(paper["authors"]) + 1))[: MAX_AUTHORS + 1]
        return item.model_copy(update={"paper": {**paper, "authors": authors}})
    if field == "paper.venue":
        return item.model_copy(update={"paper": {**paper, "venue": grown("Proceedings", 1_000)}})
    if field == "notes":
        return item.model_copy(update={"notes": grown(paper["title"], 20_001)})
    if field == "tags":
        return item.model_copy(update={"tags": [f"t{n}" for n in range(51)]})
    if field == "ids":
        return item.model_copy(update={"ids": [f"CorpusId:{n}" for n in range(51)]})
    raise AssertionError(field)


@pytest.mark.usefixtures("library_table", "fresh_index")
@pytest.mark.parametrize("field", ["paper.abstract", "paper.title", "paper.authors", "paper.venue", "notes", "tags",
                                   "ids"])
def test_an_import_holding_a_field_past_its_bound_is_too_large_and_writes_nothing(field: str) -> None:
    snapshot = to_jsonl([*items(2), _oversized(field)])

    answer = call("library_import", ALICE, jsonl=snapshot)

    error = assert_too_large(answer, field)
    assert error["details"]["line"] == 4  # the header is line 1
    assert LibraryStore(ALICE).revision() == 0


# -- add --------------------------------------------------------------------------------------------------------


@pytest.mark.usefixtures("library_table", "fresh_index")
def test_an_added_paper_whose_record_is_past_a_bound_is_too_large_and_nothing_is_stored(upstream, fixture_file):
    record = json.loads(fixture_file("upstream/semantic_scholar/paper_by_doi_many_fields_pnas.json"))
    record["abstract"] = grown(record["title"], MILLION)  # SYNTHETIC: the recorded title, repeated
    upstream.get(f"/s2/graph/v1/paper/DOI:{PNAS_DOI}").respond(200, json=record)

    answer = call("library_add", ALICE, identifier=PNAS_DOI)

    assert_too_large(answer, "paper.abstract")
    assert LibraryStore(ALICE).revision() == 0


# -- update -----------------------------------------------------------------------------------------------------


@pytest.mark.usefixtures("fresh_index")
def test_updating_an_item_stored_before_the_bounds_is_too_large_naming_the_field(library_table) -> None:
    # Given an item written by an earlier version, with no bound on its abstract (stored row by row) …
    item = base()
    legacy = item.model_copy(update={"paper": {**item.paper, "abstract": grown(item.paper["abstract"], 300_000)}})
    LibraryStore(ALICE).put(item)
    doc = zlib.compress(legacy.model_copy(update={"rev": 1}).model_dump_json(exclude_none=True).encode())
    key = {"pk": {"S": ALICE}, "sk": {"S": ITEM + item.item_id}}
    aws_clients.dynamodb().update_item(TableName=library_table, Key=key, UpdateExpression="SET #d = :d",
                                       ExpressionAttributeNames={"#d": "doc"},
                                       ExpressionAttributeValues={":d": {"B": doc}})

    # … any change to it is refused until the field is within its bound.
    answer = call("library_update", ALICE, id=item.item_id, add_tags=["later"])

    assert_too_large(answer, "paper.abstract")
    assert LibraryStore(ALICE).get(item.item_id).tags == []


# -- index work within the call -----------------------------------------------------------------------------------


def test_a_build_cut_off_by_its_deadline_resumes_and_ends_as_a_whole_build_would(tmp_path) -> None:
    store = MemoryLibrary(items(120))
    budgeted, whole = LibraryIndex(tmp_path / "budgeted.sqlite"), LibraryIndex(tmp_path / "whole.sqlite")
    catch_up(whole, store, lambda key: None)

    rounds = []
    while True:
        done = catch_up(budgeted, store, lambda key: None, deadline=time.monotonic())  # spent at once
        rounds.append(done.indexed)
        if done.complete:
            break
        assert len(rounds) < 20, "no progress"

    assert rounds == sorted(rounds) and len(rounds) > 2  # several calls, each one batch further
    query = items(120)[77].paper["title"]
    assert ([h.item_id for h in budgeted.search(query, Filters(), limit=10, offset=0).hits]
            == [h.item_id for h in whole.search(query, Filters(), limit=10, offset=0).hits])
    assert budgeted.revision == whole.revision == store.rev
    budgeted.close()
    whole.close()


def test_a_catch_up_of_a_long_change_log_is_sliced_and_resumed(tmp_path) -> None:
    corpus = items(200)
    store = MemoryLibrary(corpus[:10])
    index = LibraryIndex(tmp_path / "index.sqlite")
    catch_up(index, store, lambda key: None)
    for value in corpus[10:]:
        store.put(value)  # 190 revisions

    first = catch_up(index, store, lambda key: None, deadline=time.monotonic())

    assert first.changed and not first.complete
    assert 10 < (index.revision or 0) < store.rev
    assert catch_up(index, store, lambda key: None).complete
    assert index.revision == store.rev and index.count() == 200
    index.close()


@pytest.mark.usefixtures("library_table", "fresh_index")
def test_library_search_answers_a_retryable_timeout_while_indexing_then_the_hits(env) -> None:
    corpus = items(150)
    LibraryStore(ALICE).put_many(corpus)
    env.set(SCHOLAR_LIBRARY_SEARCH_BUDGET_S="0.000001")  # every call is past its budget after one batch
    query = corpus[140].paper["title"]

    answers = [call("library_search", ALICE, query=query) for _ in range(12)]

    timeouts = [a["error"] for a in answers if not a["ok"]]
    assert timeouts and all(e["code"] == TIMEOUT and e["retryable"] is True for e in timeouts)
    assert [e["details"]["indexed"] for e in timeouts] == sorted(e["details"]["indexed"] for e in timeouts)
    done = [a["result"] for a in answers if a["ok"]]
    assert done and done[0]["hits"][0]["item_id"] == corpus[140].item_id
    assert all(a["ok"] for a in answers[len(timeouts):])  # once built, every call answers


def test_a_search_still_running_at_its_deadline_is_interrupted_as_a_timeout(tmp_path, monkeypatch) -> None:
    index = LibraryIndex(tmp_path / "index.sqlite")
    catch_up(index, MemoryLibrary(items(200)), lambda key: None)
    monkeypatch.setattr(index_module, "_PROGRESS_STEPS", 1)  # look at the deadline at every step

    with pytest.raises(WorkTimeoutError) as caught:
        index.search("cell", Filters(), limit=50, offset=0, deadline=time.monotonic() - 1)

    assert caught.value.code == TIMEOUT and caught.value.retryable
    assert index.search("cell", Filters(), limit=5, offset=0).total > 0  # the connection is usable again
    index.close()


def test_one_item_as_large_as_the_bounds_allow_is_indexed_and_searched_in_one_call(tmp_path) -> None:
    # Every text field at its bound, in the record's own words (the trial's 1,000,000 characters are refused).
    item = base()
    words = item.paper["abstract"]
    abstract = grown(words, MAX_ABSTRACT_CHARS)[:MAX_ABSTRACT_CHARS]
    big = item.model_copy(update={"notes": grown(words, 20_000)[:20_000], "md_path": "md/big.md",
                                  "paper": {**item.paper, "abstract": abstract}})
    index = LibraryIndex(tmp_path / "index.sqlite")
    body = grown(words, index_module.MAX_BODY_CHARS)

    others = [i for i in items(20) if i.item_id != big.item_id]
    done = catch_up(index, MemoryLibrary([big, *others]), lambda key: body, deadline=time.monotonic() + 60)
    page = index.search(words.split()[3], Filters(), limit=10, offset=0, deadline=time.monotonic() + 60)

    # The word ("has") is in most items (BM25 near 0 for all): meaning orders them, the big item among them.
    hit = next(h for h in page.hits if h.item_id == big.item_id)
    assert done.complete
    assert "**" in hit.snippet
    assert set(hit.matched) >= {"abstract", "notes", "body"}
    index.close()


# -- one caller's index work and another's search -------------------------------------------------------------------


class BlockedLibrary(MemoryLibrary):
    """A library whose reads wait until released: a caller whose index work takes as long as we like."""

    def __init__(self, values, release: threading.Event, entered: threading.Event) -> None:
        super().__init__(values)
        self.release, self.entered = release, entered

    def iter_items(self, after=None):
        self.entered.set()
        assert self.release.wait(30), "never released"
        return super().iter_items(after)


def test_a_callers_index_work_never_holds_up_another_callers_search(aws, tmp_path) -> None:
    holder = IndexHolder(directory=tmp_path / "idx")
    release, entered = threading.Event(), threading.Event()
    slow = BlockedLibrary(items(40), release, entered)
    bob = MemoryLibrary(items(60)[40:])
    alice_done: list[object] = []
    alice = threading.Thread(target=lambda: alice_done.append(
        holder.search(ALICE, slow, "cell", Filters(), limit=5, offset=0)))
    alice.start()
    try:
        assert entered.wait(10)  # Alice's build is under way, and stays so …

        async def bobs_search():
            with anyio.fail_after(10):  # … while Bob's search runs to its answer.
                return await anyio.to_thread.run_sync(
                    lambda: holder.search(BOB, bob, items(60)[45].paper["title"], Filters(), limit=5, offset=0))

        page = anyio.run(bobs_search)
        assert page.hits[0].item_id == items(60)[45].item_id
        assert alice_done == []
    finally:
        release.set()
        alice.join(30)
        holder.reset()
    assert alice_done


# -- the gateway never repeats a slow family call ------------------------------------------------------------------


@pytest.mark.usefixtures("aws")
def test_the_gateways_lambda_client_outwaits_the_family_functions_it_calls() -> None:
    from samtranslator.yaml_helper import yaml_parse

    from tests.events import EVENTS

    resources = yaml_parse((EVENTS.parent / "template.yaml").read_text())["Resources"]
    # The families whose tools answer inline (standards and patents run up to 300 s, but only for work started
    # in the background; their inline answers come within runtime.family's deadline).
    inline = ("Gateway", "Papers", "Arxiv", "Books", "Research", "Pdf", "Tasks")
    longest = max(resources[f"{name}Function"]["Properties"]["Timeout"] for name in inline)
    # botocore retries a read timeout: it must never fire before Lambda has stopped the function it waits for.
    assert aws_clients.client("lambda").meta.config.read_timeout > longest
