"""recommend_books on Open Library subjects: popularity order, work-level records, slug-keyed cache."""

from __future__ import annotations

import httpx
import pytest
from pydantic import ValidationError

from scholar.core.errors import FORBIDDEN, INVALID_ARGUMENT, RATE_LIMITED, ScholarError
from scholar.sources.openlibrary import subject_slug
from tests.books.helpers import call, json_response

# Synthetic: Open Library's subject answer shape (no recorded /subjects/*.json capture exists; see PROVENANCE).
SUBJECT = {
    "key": "/subjects/machine_learning", "name": "Machine learning", "subject_type": "subject", "work_count": 2051,
    "works": [
        {"key": "/works/OL2W", "title": "Pattern Recognition", "edition_count": 4, "cover_id": None,
         "authors": [{"key": "/authors/OL2A", "name": "Christopher Bishop"}], "first_publish_year": 2006},
        {"key": "/works/OL1W", "title": "Machine Learning", "edition_count": 12, "cover_id": 123,
         "cover_edition_key": "OL9M", "authors": [{"key": "/authors/OL1A", "name": "Tom M. Mitchell"}],
         "subject": ["Machine learning"], "first_publish_year": 1997},
        {"key": "/works/OL3W", "title": "Deep Learning", "edition_count": 7,
         "authors": [{"key": "/authors/OL3A", "name": "Ian Goodfellow"}], "first_publish_year": 2016},
    ],
}


def _subject(upstream, slug="machine_learning"):
    return upstream.get(f"/openlibrary/subjects/{slug}.json")


def test_subject_books_come_most_editions_first_and_are_work_level(upstream):
    route = _subject(upstream).mock(return_value=json_response(SUBJECT))
    result = call("recommend_books", subject="Machine Learning")
    assert route.calls.last.request.url.params["limit"] == "50"
    assert result.subject == "machine_learning"
    assert [b.title for b in result.books] == ["Machine Learning", "Deep Learning", "Pattern Recognition"]
    top = result.books[0]
    assert (top.openlibrary_work_id, top.authors, top.edition_count) == ("OL1W", ["Tom M. Mitchell"], 12)
    assert top.cover_url == "https://covers.openlibrary.org/b/id/123-M.jpg"
    assert (top.isbn_13, top.isbn_10, top.openlibrary_edition_id, top.publisher) == (None, None, None, None)
    assert result.books[2].cover_url is None


def test_limit_slices_the_pool(upstream):
    _subject(upstream).mock(return_value=json_response(SUBJECT))
    assert [b.title for b in call("recommend_books", subject="machine learning", limit=1).books] == [
        "Machine Learning"]


@pytest.mark.parametrize(("subject", "slug"), [
    ("Machine Learning", "machine_learning"), ("  machine   learning ", "machine_learning"),
    ("machine-learning", "machine-learning"), ("place:London", "place:london"), ("C++", "c"),
    ("Science fiction!", "science_fiction"),
])
def test_subjects_are_normalised_to_open_library_slugs(subject, slug):
    assert subject_slug(subject) == slug


def test_the_subject_pool_is_cached_under_its_slug(upstream, stores):
    route = _subject(upstream).mock(return_value=json_response(SUBJECT))
    call("recommend_books", subject="Machine Learning", limit=2)
    again = call("recommend_books", subject="machine  learning", limit=3)
    assert route.call_count == 1
    assert len(again.books) == 3


def test_a_subject_without_letters_is_an_invalid_argument(upstream):
    with pytest.raises(ScholarError) as caught:
        call("recommend_books", subject="!!!")
    assert caught.value.code == INVALID_ARGUMENT
    assert caught.value.details["field"] == "subject"


@pytest.mark.parametrize(("status", "code"), [(429, RATE_LIMITED), (403, FORBIDDEN)])
def test_a_refused_subject_lookup_is_a_typed_error_not_an_empty_list(upstream, status, code):
    _subject(upstream).mock(return_value=httpx.Response(status))
    with pytest.raises(ScholarError) as caught:
        call("recommend_books", subject="machine learning")
    assert caught.value.code == code


def test_limit_is_bounded():
    with pytest.raises(ValidationError):
        call("recommend_books", subject="x", limit=0)
