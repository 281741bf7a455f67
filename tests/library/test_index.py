"""The per-caller full-text index (scholar.services.library.index) over real recorded papers, in moto's S3.

Bodies are the built-in converter's Markdown of a recorded arXiv PDF (2304.02623v1), stored where the PDF
pipeline stores it; the library store is the in-memory stand-in of tests/library/corpus.py.
"""

from __future__ import annotations

import sqlite3
import time
from functools import cache

import pytest

from scholar.core.errors import INVALID_ARGUMENT, ScholarError, UnavailableError, WorkTimeoutError
from scholar.services.fulltext.artifacts import put_markdown
from scholar.services.library import index_cache
from scholar.services.library.index import FIELDS, Filters, LibraryIndex
from scholar.services.library.index_cache import IndexHolder
from scholar.services.library.keys import caller_digest, index_key
from scholar.services.pdftext.convert import convert_pdf
from scholar.store.blobs import BlobStore
from scholar.store.boundary import DISK_FULL
from scholar.store.library.models import PdfVersion
from tests.fixtures_dir import fixtures_dir
from tests.library.corpus import STAMP, MemoryLibrary, items

ALICE, BOB = "apikey:alice", "apikey:bob"
BODY_SHA = "054848230deb6461" + "0" * 48  # the PDF's hash prefix (PROVENANCE), padded to a key's length
BODY_WORD = "expository"  # in the converted body ("expository writing"), in no recorded title, abstract or author


@cache
def converted_markdown() -> str:
    return convert_pdf(fixtures_dir() / "pdfs" / "arxiv_2304.02623v1_beyond_summarization.pdf").markdown


@pytest.fixture
def holder(aws, tmp_path):
    value = IndexHolder(directory=tmp_path / "idx")
    yield value
    value.reset()


def search(holder, principal, store, query, limit=10, offset=0, **filters):
    return holder.search(principal, store, query, Filters(**filters), limit=limit, offset=offset)


def text_of(item) -> str:
    paper = item.paper
    authors = [a["name"] for a in paper.get("authors") or []]
    return " ".join([paper.get("title") or "", paper.get("abstract") or "", *authors])


def test_a_word_only_in_a_converted_papers_markdown_finds_it(holder):
    corpus = items(200)
    assert not any(BODY_WORD in text_of(i).lower() for i in corpus)
    put_markdown("md/converted.md", converted_markdown())
    target = corpus[7].model_copy(update={"md_path": "md/converted.md"})
    store = MemoryLibrary([*corpus[:7], target, *corpus[8:]])

    page = search(holder, ALICE, store, BODY_WORD)

    assert [h.item_id for h in page.hits] == [target.item_id]
    assert page.hits[0].matched == ["body"]
    assert f"**{BODY_WORD}**" in page.hits[0].snippet


def test_the_newest_pdfs_markdown_is_the_body_when_the_item_names_none(holder):
    put_markdown(f"md/{BODY_SHA}.md", converted_markdown())
    pdf = PdfVersion(pdf_path=f"pdfs/{BODY_SHA}.pdf", sha256=BODY_SHA, size_bytes=936214, version="preprint",
                     pdf_source="arxiv", source_url="https://arxiv.org/pdf/2304.02623v1", kept_at=STAMP)
    corpus = items(20)
    store = MemoryLibrary([*corpus[:3], corpus[3].model_copy(update={"pdfs": [pdf]}), *corpus[4:]])

    page = search(holder, ALICE, store, BODY_WORD)

    assert [h.item_id for h in page.hits] == [corpus[3].item_id]


def test_notes_and_tags_are_searchable_and_named_as_the_matching_fields(holder):
    corpus = items(50)
    store = MemoryLibrary(corpus)
    search(holder, ALICE, store, "turing")  # built before the edits: the edits arrive by catch-up
    store.put(corpus[10].model_copy(update={"notes": "Compare with the zebrafish regeneration results"}))
    store.put(corpus[11].model_copy(update={"tags": ["to-read", "thesis:chapter2"]}))

    by_note = search(holder, ALICE, store, "zebrafish")
    by_tag = search(holder, ALICE, store, "chapter2")

    assert [(h.item_id, h.matched) for h in by_note.hits] == [(corpus[10].item_id, ["notes"])]
    assert [(h.item_id, h.matched) for h in by_tag.hits] == [(corpus[11].item_id, ["tags"])]
    assert by_note.revision == store.rev


def test_deleted_items_disappear_from_the_index(holder):
    corpus = items(30)
    store = MemoryLibrary(corpus)
    word = corpus[0].paper["title"].split()[0]
    before = {h.item_id for h in search(holder, ALICE, store, word, limit=50).hits}
    assert corpus[0].item_id in before

    store.delete(corpus[0].item_id)
    after = search(holder, ALICE, store, word, limit=50)

    assert corpus[0].item_id not in {h.item_id for h in after.hits}
    assert after.total == len(before) - 1


def test_a_second_callers_index_never_sees_the_first_callers_items(holder, aws):
    corpus = items(40)
    alice, bob = MemoryLibrary(corpus[:20]), MemoryLibrary(corpus[20:])
    alice_word = corpus[0].paper["title"].split()[-1]

    mine = search(holder, ALICE, alice, alice_word)
    theirs = search(holder, BOB, bob, alice_word)

    assert corpus[0].item_id in {h.item_id for h in mine.hits}
    assert not {h.item_id for h in theirs.hits} & {i.item_id for i in corpus[:20]}
    keys = [o["Key"] for o in aws.s3.list_objects_v2(Bucket=aws.bucket, Prefix="library/")["Contents"]]
    assert sorted(keys) == sorted([index_key(ALICE), index_key(BOB)])
    assert all("alice" not in k and "bob" not in k for k in keys)
    assert index_key(ALICE) == f"library/{caller_digest(ALICE)}/index.sqlite"


def test_another_instance_starts_from_the_s3_copy_and_catches_up_with_later_writes(aws, tmp_path):
    corpus = items(60)
    store = MemoryLibrary(corpus[:50])
    first = IndexHolder(directory=tmp_path / "one")
    search(first, ALICE, store, "cell")
    built_at = store.rev
    # Given writes by another process after the first instance wrote its copy back …
    for value in corpus[50:]:
        store.put(value)
    store.delete(corpus[1].item_id)
    second = IndexHolder(directory=tmp_path / "two")
    calls = []
    original = store.changes_since
    store.changes_since = lambda rev, **kw: calls.append(rev) or original(rev, **kw)

    # … a second instance reads that copy and applies only the changes since.
    page = search(second, ALICE, store, corpus[55].paper["title"])

    assert calls[0] == built_at and calls == sorted(calls)  # from the copy's revision on, slice by slice
    assert page.hits[0].item_id == corpus[55].item_id
    assert page.revision == store.rev
    assert corpus[1].item_id not in {h.item_id for h in search(second, ALICE, store, corpus[1].paper["title"]).hits}
    first.reset()
    second.reset()


def test_a_few_changes_are_written_back_once_enough_gather_and_a_cold_instance_catches_up_the_rest(
    holder, aws, tmp_path, monkeypatch
):
    monkeypatch.setattr(index_cache, "WRITE_BACK_ITEMS", 3)
    corpus = items(40)
    store = MemoryLibrary(corpus[:30])
    search(holder, ALICE, store, "cell")  # a build is written back

    def stored() -> str:
        return aws.s3.head_object(Bucket=aws.bucket, Key=index_key(ALICE))["ETag"]

    built = stored()
    copies = []
    for value in corpus[30:34]:
        store.put(value)
        search(holder, ALICE, store, "cell")
        copies.append(stored())
    second = IndexHolder(directory=tmp_path / "two")
    page = search(second, ALICE, store, corpus[33].paper["title"])

    assert copies[:2] == [built, built] and copies[2] != built and copies[3] == copies[2]
    assert page.hits[0].item_id == corpus[33].item_id and page.revision == store.rev  # the copy lacked it
    second.reset()


def test_a_catch_up_cut_off_by_its_deadline_is_written_back_however_few_items_it_applied(holder, aws):
    corpus = items(45)
    store = MemoryLibrary(corpus[:30])
    search(holder, ALICE, store, "cell")
    built = aws.s3.head_object(Bucket=aws.bucket, Key=index_key(ALICE))["ETag"]
    for value in corpus[30:]:  # more revisions than one slice of the catch-up, fewer items than a write-back's
        store.put(value)

    with pytest.raises(WorkTimeoutError):
        holder.search(ALICE, store, "cell", Filters(), limit=10, offset=0, index_by=time.monotonic())

    assert aws.s3.head_object(Bucket=aws.bucket, Key=index_key(ALICE))["ETag"] != built  # the next call resumes


def test_a_write_back_refused_for_a_full_disk_is_tried_again_at_the_next_change(holder, aws, monkeypatch):
    corpus = items(31)
    store = MemoryLibrary(corpus[:30])
    real = BlobStore.put_file

    def full(*args, **kwargs):
        raise UnavailableError("the disk is full", reason=DISK_FULL)

    monkeypatch.setattr(BlobStore, "put_file", full)
    assert search(holder, ALICE, store, "cell").hits  # the build is searched, though not written back
    monkeypatch.setattr(BlobStore, "put_file", real)
    store.put(corpus[30])  # one change, far fewer than a write-back waits for
    search(holder, ALICE, store, "cell")

    assert [o["Key"] for o in aws.s3.list_objects_v2(Bucket=aws.bucket, Prefix="library/")["Contents"]] == [
        index_key(ALICE)
    ]


def test_a_warm_index_with_no_changes_writes_nothing_back(holder, aws):
    store = MemoryLibrary(items(10))
    search(holder, ALICE, store, "cell")
    aws.s3.delete_object(Bucket=aws.bucket, Key=index_key(ALICE))

    search(holder, ALICE, store, "cell")

    assert "Contents" not in aws.s3.list_objects_v2(Bucket=aws.bucket, Prefix="library/")


def test_titles_rank_above_bodies_and_filters_narrow_the_hits(holder):
    put_markdown("md/converted.md", converted_markdown())
    corpus = items(300)
    word = "language"
    titled = [i for i in corpus if word in (i.paper.get("title") or "").lower()]
    assert titled
    body_only = next(i for i in corpus if "languag" not in text_of(i).lower())
    store = MemoryLibrary(corpus)
    store.put(body_only.model_copy(update={"md_path": "md/converted.md", "collection": "thesis", "tags": ["x"]}))

    page = search(holder, ALICE, store, word, limit=50)
    in_thesis = search(holder, ALICE, store, word, collection="thesis")
    tagged = search(holder, ALICE, store, word, tag="x")
    untagged = search(holder, ALICE, store, word, tag="y")

    ids = [h.item_id for h in page.hits]
    assert ids.index(body_only.item_id) == len(ids) - 1
    assert [h.score for h in page.hits] == sorted((h.score for h in page.hits), reverse=True)
    assert [h.item_id for h in in_thesis.hits] == [h.item_id for h in tagged.hits] == [body_only.item_id]
    assert untagged.total == 0


def test_years_filter_and_pages_follow_the_ranking(holder):
    corpus = items(400)
    store = MemoryLibrary(corpus)
    every = search(holder, ALICE, store, "the", limit=50)
    first = search(holder, ALICE, store, "the", limit=5)
    second = search(holder, ALICE, store, "the", limit=5, offset=5)
    recent = search(holder, ALICE, store, "the", limit=50, year_start=2020)

    assert [h.item_id for h in first.hits + second.hits] == [h.item_id for h in every.hits[:10]]
    years = {i.item_id: i.paper.get("year") for i in corpus}
    assert recent.hits and all(years[h.item_id] >= 2020 for h in recent.hits)
    assert recent.total < every.total


HOSTILE = ['"', '"unbalanced', "NEAR(", "NEAR(cell", "*", "cell*", "a OR", "AND", "NOT cell", "title:", "nofield: cell",
           "'; DROP TABLE items; --", "1 UNION SELECT * FROM meta", "(((((cell", "cell)", "^cell", "-cell", "+",
           "{title body}: cell", "rank: 1", "\x00cell", "cel\u0301l", "🧬 cell", "c" * 500]


@pytest.mark.parametrize("query", HOSTILE)
def test_hostile_query_strings_answer_or_are_invalid_arguments_never_internal(holder, query):
    store = MemoryLibrary(items(30))
    try:
        page = search(holder, ALICE, store, query)
    except ScholarError as exc:
        assert exc.code == INVALID_ARGUMENT
        assert exc.details["field"] == "query"
    else:  # an answer is a consistent page of the caller's own items
        assert len(page.hits) <= min(page.total, 10)
        assert {hit.item_id for hit in page.hits} <= set(store.items)
    assert search(holder, ALICE, store, "cell").total > 0  # the index is intact afterwards


def test_a_query_fts5_cannot_parse_is_searched_as_its_words(holder):
    store = MemoryLibrary(items(50))

    page = search(holder, ALICE, store, 'NEAR("cell')

    # No recorded paper holds "near" and "cell" both, so the words are searched as any of them.
    assert (page.match, page.terms) == ("any", ["near", "cell"])
    assert page.total > 0


def test_an_index_file_of_another_schema_is_rebuilt(tmp_path):
    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE meta(name TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.execute("INSERT INTO meta VALUES ('schema', '0')")
    conn.commit()
    conn.close()

    index = LibraryIndex(path)

    assert index.revision is None
    assert index.count() == 0
    assert len(FIELDS) == 6
    index.close()


def test_a_library_started_again_below_the_index_revision_is_indexed_from_scratch(holder):
    corpus = items(20)
    search(holder, ALICE, MemoryLibrary(corpus[:10]), "cell")
    fresh = MemoryLibrary(corpus[10:12])  # revision 2, the index was at 10

    page = search(holder, ALICE, fresh, corpus[10].paper["title"])

    assert page.revision == 2
    assert {h.item_id for h in page.hits} <= {corpus[10].item_id, corpus[11].item_id}
    assert page.hits[0].item_id == corpus[10].item_id


def test_an_index_closed_to_make_room_is_read_back_from_s3_when_its_caller_returns(aws, tmp_path):
    corpus = items(40)
    alice, bob = MemoryLibrary(corpus[:20]), MemoryLibrary(corpus[20:])
    small = IndexHolder(directory=tmp_path / "one", max_open=1)
    word = corpus[0].paper["title"].split()[-1]
    search(small, ALICE, alice, word)
    search(small, BOB, bob, "cell")
    assert [p.name for p in (tmp_path / "one").glob("*.sqlite")] == [f"{caller_digest(BOB)}.sqlite"]
    calls = []
    original = alice.iter_items
    alice.iter_items = lambda **kw: calls.append(1) or original(**kw)

    again = search(small, ALICE, alice, word)

    assert corpus[0].item_id in {h.item_id for h in again.hits}
    assert calls == []  # caught up from the S3 copy, not rebuilt
    small.reset()
