"""library_search by meaning (issue 39, item 2): hybrid for plain words, FTS5 syntax as written, like=item_id,
and vectors kept beside the index, re-embedded only for items whose title or abstract changed."""

from __future__ import annotations

import pytest

from scholar.core.errors import INVALID_ARGUMENT, NOT_FOUND
from scholar.services.library import vectors
from scholar.services.library.index import Filters, LibraryIndex
from scholar.services.semantic import model
from scholar.store.library.table import LibraryStore
from tests.library.corpus import items
from tests.library.tools import call, fresh_index  # noqa: F401  # fresh_index: a fixture the tests name

ALICE = "apikey:alice"


def _saved(count: int) -> list:
    corpus = items(count)
    LibraryStore(ALICE).put_many(corpus)
    return corpus


@pytest.mark.usefixtures("library_table", "fresh_index")
def test_plain_words_find_papers_by_meaning_though_they_hold_none_of_the_words():
    corpus = _saved(60)
    titles = {i.item_id: i.paper["title"] for i in corpus}

    answer = call("library_search", ALICE, query="tumour")["result"]

    assert answer["match"] == "hybrid" and answer["total"] >= 1
    assert all(h["matched_fields"] == [] and "cancer" in titles[h["item_id"]].lower() for h in answer["hits"])
    assert answer["hits"][0]["snippet"]  # the start of the abstract stands in for a matched passage


@pytest.mark.usefixtures("library_table", "fresh_index")
@pytest.mark.parametrize("query", ['"prostate cancer"', "tumour OR cancer", "title: cancer", "prostat*"])
def test_a_query_written_in_fts5_syntax_is_searched_as_written(query):
    _saved(60)

    answer = call("library_search", ALICE, query=query)["result"]

    assert answer["match"] == "as_written" and answer["total"] >= 1
    assert all(h["matched_fields"] for h in answer["hits"])


@pytest.mark.usefixtures("library_table", "fresh_index")
def test_a_sentence_with_punctuation_is_words_not_syntax():
    _saved(60)

    answer = call("library_search", ALICE, query="Screening for cancer (early detection), a review: what works?")

    assert answer["result"]["match"] == "hybrid" and answer["result"]["total"] >= 1


@pytest.mark.usefixtures("library_table", "fresh_index")
def test_like_answers_the_papers_nearest_one_item_and_never_the_item_itself():
    corpus = _saved(40)
    twin = corpus[26].model_copy(update={"item_id": corpus[26].item_id[:-2] + "ff", "collection": "thesis"})
    LibraryStore(ALICE).put(twin)

    answer = call("library_search", ALICE, like=corpus[26].item_id, limit=5)["result"]
    narrowed = call("library_search", ALICE, like=corpus[26].item_id, collection="inbox")["result"]

    assert answer["match"] == "like" and answer["like"] == corpus[26].item_id
    assert answer["hits"][0]["item_id"] == twin.item_id and answer["hits"][0]["score"] > 0.99
    assert corpus[26].item_id not in {h["item_id"] for h in answer["hits"]}
    assert twin.item_id not in {h["item_id"] for h in narrowed["hits"]}


@pytest.mark.usefixtures("library_table", "fresh_index")
def test_like_of_an_unknown_item_is_not_found_and_like_with_a_query_is_refused():
    _saved(10)

    unknown = call("library_search", ALICE, like="no-such-item")
    both = call("library_search", ALICE, like="x", query="cancer")
    neither = call("library_search", ALICE)

    assert unknown["error"]["code"] == NOT_FOUND
    assert both["error"]["code"] == INVALID_ARGUMENT and neither["error"]["code"] == INVALID_ARGUMENT
    assert "query or like" in both["error"]["message"]


def test_only_items_whose_title_or_abstract_changed_are_embedded_again(tmp_path, monkeypatch):
    corpus = items(30)
    index = LibraryIndex(tmp_path / "index.sqlite")
    index.apply(corpus, [], 1, lambda key: None)
    index.search("cancer", Filters(), limit=5, offset=0)  # the vectors read: later changes are patched into them
    embedded: list[str] = []
    real = model.embed
    monkeypatch.setattr(model, "embed", lambda texts: embedded.extend(texts) or real(texts))

    index.apply([corpus[3].model_copy(update={"notes": "a note", "tags": ["new"]})], [], 2, lambda key: None)
    noted = list(embedded)
    retitled = corpus[4].model_copy(update={"paper": {**corpus[4].paper, "title": "Tumour growth in zebrafish"}})
    index.apply([retitled], [corpus[5].item_id], 3, lambda key: None)

    assert noted == []
    assert embedded == [f"Tumour growth in zebrafish. {corpus[4].paper.get('abstract') or ''}"]
    hits = index.search("tumour", Filters(), limit=50, offset=0).hits
    assert retitled.item_id in {h.item_id for h in hits} and corpus[5].item_id not in {h.item_id for h in hits}
    index.close()


def test_the_best_hits_meaning_reorders_the_pool_and_never_widens_it(monkeypatch):
    np = pytest.importorskip("numpy")

    # Unit vectors in a 3-d corner of the model's space: the query; item 1 holds its words; item 2 is close in
    # meaning to item 1; item 3 is a little closer to the query than item 2 but far from item 1; item 4 is item 1's
    # twin in meaning, but neither holds a word nor is near enough the query to be in the pool.
    def unit(*xs: float) -> np.ndarray:
        v = np.zeros(model.DIM, dtype=np.float32)
        v[: len(xs)] = xs
        return v / np.linalg.norm(v)

    asked = unit(1.0, 0.0, 0.0)
    rows = [unit(0.6, 0.8, 0.0), unit(0.45, 0.89, 0.0), unit(0.47, 0.0, 0.88), unit(0.29, 0.96, 0.0)]
    matrix = vectors.Matrix(rids=np.arange(1, 5, dtype=np.int64), vecs=np.stack(rows))
    monkeypatch.setattr(model, "embed", lambda texts: np.stack([asked]))
    monkeypatch.setattr(vectors, "FEEDBACK", 1)

    ranked = [rid for rid, _ in vectors.hybrid("q", {1: 5.0}, None, matrix)]
    monkeypatch.setattr(vectors, "FEEDBACK_WEIGHT", 0.0)
    plain = [rid for rid, _ in vectors.hybrid("q", {1: 5.0}, None, matrix)]

    assert ranked == [1, 2, 3] and plain == [1, 3, 2]


@pytest.mark.usefixtures("library_table", "fresh_index")
def test_the_vectors_kept_between_searches_are_those_of_the_file_after_every_kind_of_change(tmp_path):
    np = pytest.importorskip("numpy")
    corpus = items(12)
    index = LibraryIndex(tmp_path / "index.sqlite")
    index.apply(corpus[:10], [], 1, lambda key: None)
    index.search("cancer", Filters(), limit=5, offset=0)  # the vectors read once, then patched by each change
    edited = corpus[2].model_copy(update={"paper": {**corpus[2].paper, "abstract": "Zebrafish tumour growth."}})
    changes = [([edited], []), ([corpus[10]], []), ([], [corpus[4].item_id]), ([corpus[11], edited], [])]

    for revision, (upserts, deletes) in enumerate(changes, start=2):
        index.apply(upserts, deletes, revision, lambda key: None)
        kept, stored = index._matrix, vectors.read(index._conn)
        assert kept is not None and np.array_equal(kept.rids, stored.rids) and np.array_equal(kept.vecs, stored.vecs)
    index.close()


@pytest.mark.usefixtures("library_table", "fresh_index")
def test_a_word_the_query_says_twice_counts_twice(tmp_path, monkeypatch):
    np = pytest.importorskip("numpy")
    corpus = items(12)
    paper = corpus[0].paper  # two items alike but for one word of the title: only the words can part them
    zebrafish = corpus[0].model_copy(update={"paper": {**paper, "title": "Zebrafish growth"}})
    medaka = corpus[1].model_copy(update={"paper": {**paper, "title": "Medaka growth"}})
    same = np.full(model.DIM, model.DIM**-0.5, dtype=np.float32)  # one meaning for every text
    monkeypatch.setattr(model, "embed", lambda texts: np.tile(same, (len(texts), 1)))
    index = LibraryIndex(tmp_path / "index.sqlite")
    index.apply([zebrafish, medaka, *corpus[2:]], [], 1, lambda key: None)

    def first(query: str) -> str:
        return index.search(query, Filters(), limit=1, offset=0).hits[0].item_id

    assert first("zebrafish zebrafish medaka") == zebrafish.item_id
    assert first("medaka medaka zebrafish") == medaka.item_id
    index.close()
