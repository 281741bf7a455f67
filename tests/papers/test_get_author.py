"""get_author (scholar.families.papers.author): numeric id → profile + publications; a name → up to 5 candidates."""

import json

import pytest

from scholar.core import aio
from scholar.core.errors import NOT_FOUND, ScholarError
from scholar.families.papers import author
from scholar.families.papers.spec_graph import GetAuthorInput

JSON = {"Content-Type": "application/json"}


def run(**kwargs):
    return aio.run(author.get_author(GetAuthorInput(**kwargs)))


def test_a_numeric_id_gives_the_profile_and_a_page_of_publications(aws, upstream, fixture_file):
    upstream.get("/s2/graph/v1/author/1723755").respond(
        200, content=fixture_file("upstream/semantic_scholar/author_by_id.json"), headers=JSON
    )
    papers = upstream.get("/s2/graph/v1/author/1723755/papers").respond(
        200, content=fixture_file("upstream/semantic_scholar/author_papers_offset0.json"), headers=JSON
    )
    recorded = json.loads(fixture_file("upstream/semantic_scholar/author_papers_offset0.json"))

    result = run(identifier="1723755", limit=100)

    assert result.mode == "profile"
    assert result.author.name == "A. Turing"
    assert [p.paperId for p in result.papers] == [r["paperId"] for r in recorded["data"]]
    assert result.next_offset == recorded["next"]
    assert papers.calls.last.request.url.params["limit"] == "100"


def test_a_name_gives_at_most_five_candidates(aws, upstream, fixture_file):
    route = upstream.get("/s2/graph/v1/author/search").respond(
        200, content=fixture_file("upstream/semantic_scholar/search_author_turing.json"), headers=JSON
    )
    recorded = json.loads(fixture_file("upstream/semantic_scholar/search_author_turing.json"))

    result = run(identifier="turing")

    assert result.mode == "search"
    assert [c.authorId for c in result.candidates] == [r["authorId"] for r in recorded["data"][:5]]
    assert result.total == recorded["total"]
    assert route.calls.last.request.url.params["query"] == "turing"


def test_an_unknown_author_id_is_not_found(aws, upstream, fixture_file):
    upstream.get("/s2/graph/v1/author/0").respond(
        404, content=fixture_file("upstream/semantic_scholar/author_not_found_404.json"), headers=JSON
    )
    with pytest.raises(ScholarError) as info:
        run(identifier="0")
    assert info.value.code == NOT_FOUND


def test_a_repeated_lookup_is_served_from_the_cache(aws, upstream, fixture_file):
    route = upstream.get("/s2/graph/v1/author/search").respond(
        200, content=fixture_file("upstream/semantic_scholar/search_author_turing.json"), headers=JSON
    )
    assert run(identifier="turing") == run(identifier="turing")
    assert route.call_count == 1
