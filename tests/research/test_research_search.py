"""The federated search end to end on recorded responses: merging, ranking, partial answers, errors, paging."""

from __future__ import annotations

import json

import pytest

from scholar.core.errors import INVALID_ARGUMENT, NOT_FOUND, UPSTREAM_ERROR, ScholarError
from scholar.core.ids import parse_paper_id
from scholar.families.research.search import pages
from scholar.families.research.search.federated import search
from scholar.families.research.search.pages import ResultSets
from scholar.store.cache import Cache
from tests.fixtures.waiting import run
from tests.research.helpers import (
    COPPER_DOI,
    COPPER_TITLE,
    EPMC_SEARCH,
    S2_BATCH,
    S2_SEARCH,
    args,
    batch_answer,
    json_response,
    recorded_json,
    route_all,
    synthetic_s2_copper_row,
)


def _search(principal: str = "alice", **values):
    return run(search(args(**values), principal, sets=ResultSets(Cache())))


def test_the_same_paper_from_three_sources_is_one_result_found_by_all_three(upstream, aws):
    route_all(upstream, s2_rows=[synthetic_s2_copper_row()])
    result = _search(query="copper thin film oxide tensile", expand=False)
    copper = [h for h in result.results if h.title and h.title.startswith("Effect of native oxide")]
    assert len(copper) == 1
    assert copper[0].found_by == ["crossref", "openalex", "s2"]
    assert COPPER_DOI in copper[0].ids
    assert copper[0].provenance["title"] == "s2"


def test_a_paper_whose_exact_title_is_the_query_ranks_first(upstream, aws):
    route_all(upstream)
    result = _search(query=COPPER_TITLE, expand=False)
    assert result.results[0].title == COPPER_TITLE
    assert result.results[0].signals.title == 1.0
    assert result.ranker == "bm25"


def test_one_failing_source_gives_a_partial_answer_that_names_it(upstream, aws, env):
    env(SCHOLAR_RETRY_BUDGET_S="0")  # report the 503 at once instead of retrying it
    route_all(upstream)
    upstream.get(EPMC_SEARCH).mock(return_value=json_response({"error": "down"}, status=503))
    result = _search(query="cancer immunotherapy", expand=False)
    assert result.partial is True
    assert [(f.source, f.code, f.status) for f in result.failed_sources] == [("europepmc", UPSTREAM_ERROR, 503)]
    assert "europepmc" not in result.sources_answered
    assert result.results


def test_every_source_failing_is_an_error_never_an_empty_list(upstream, aws, env):
    env(SCHOLAR_RETRY_BUDGET_S="0")
    upstream.route().mock(return_value=json_response({"error": "down"}, status=500))
    with pytest.raises(ScholarError) as caught:
        _search(query="anything at all")
    assert caught.value.code == UPSTREAM_ERROR
    assert {f["source"] for f in caught.value.details["failed_sources"]} == {
        "s2", "openalex", "crossref", "arxiv_api", "europepmc", "inspire"}


def test_every_identifier_a_result_carries_is_accepted_by_the_identifier_parser(upstream, aws):
    route_all(upstream, s2_rows=[synthetic_s2_copper_row()])
    result = _search(query="cancer testing copper", expand=False, limit=50)
    assert result.results
    for hit in result.results:
        for raw in hit.ids:
            assert parse_paper_id(raw).kind != "url"


def test_page_two_is_the_next_slice_of_the_same_ranking(upstream, aws):
    route_all(upstream)
    first = _search(query="cancer", expand=False, limit=5)
    whole = _search(query="cancer", expand=False, limit=10)
    calls = len(upstream.calls)
    second = _search(cursor=first.next_cursor, limit=5)
    assert len(upstream.calls) == calls  # served from the stored set: no new search
    assert second.offset == 5
    assert [h.title for h in first.results + second.results] == [h.title for h in whole.results]


def test_a_cursor_of_another_caller_is_not_found(upstream, aws):
    route_all(upstream)
    first = _search(query="cancer", expand=False, limit=5)
    with pytest.raises(ScholarError) as caught:
        _search("mallory", cursor=first.next_cursor)
    assert caught.value.code == NOT_FOUND


def test_a_cursor_this_tool_never_wrote_is_an_invalid_argument_naming_cursor(aws):
    with pytest.raises(ScholarError) as caught:
        _search(cursor="not-a-cursor!")
    assert (caught.value.code, caught.value.field) == (INVALID_ARGUMENT, "cursor")


def test_an_inverted_year_range_is_an_invalid_argument_naming_year_start(aws):
    with pytest.raises(ScholarError) as caught:
        _search(query="graphs", year_start=2020, year_end=2010)
    assert (caught.value.code, caught.value.field) == (INVALID_ARGUMENT, "year_start")


def test_filters_apply_after_scoring_and_keep_only_matching_papers(upstream, aws):
    route_all(upstream)
    result = _search(query="cancer", expand=False, year_start=2025, limit=50)
    assert result.results and all(h.year is not None and h.year >= 2025 for h in result.results)


def test_sort_by_citations_replaces_the_order(upstream, aws):
    route_all(upstream)
    result = _search(query="cancer", expand=False, sort="citations", limit=50)
    counts = [h.citation_count if h.citation_count is not None else -1 for h in result.results]
    assert counts == sorted(counts, reverse=True)


def test_semantic_sources_get_the_question_as_written_and_keyword_sources_compact_terms(upstream, aws):
    route_all(upstream)
    _search(query='What are the recent papers about "graph neural networks" for molecule property prediction?',
            expand=False)
    sent = {call.request.url.path: call.request.url.params for call in upstream.calls}
    assert sent[S2_SEARCH]["query"].startswith("What are the recent papers about")
    assert sent["/openalex/works"]["search"] == '"graph neural networks" molecule property prediction'


def test_records_missing_a_field_a_filter_reads_are_completed_in_one_lookup_that_is_not_agreement(upstream, aws):
    route_all(upstream)
    first = recorded_json("europepmc/search_cancer_core.json")["resultList"]["result"][0]
    row = {"paperId": "ab" * 20, "title": first["title"], "externalIds": {"PubMed": first["pmid"]},
           "fieldsOfStudy": ["Medicine"]}  # synthetic S2 batch row (shape of paper_batch_many_fields_…json)
    batch = upstream.post(S2_BATCH).mock(side_effect=batch_answer({f"doi:{first['doi'].lower()}": row}))
    result = _search(query="cancer", sources=["europepmc"], expand=False, fields_of_study=["medicine"])
    assert batch.call_count == 1
    assert len(json.loads(batch.calls[0].request.content)["ids"]) > 1  # every incomplete record, one request
    (hit,) = result.results
    assert hit.found_by == ["europepmc"] and hit.provenance["fieldsOfStudy"] == "s2"


def test_without_filters_no_record_is_looked_up(upstream, aws):
    route_all(upstream)
    batch = upstream.post(S2_BATCH).mock(side_effect=batch_answer({}))
    _search(query="cancer", sources=["europepmc"], expand=False)
    assert batch.call_count == 0


def test_an_expired_cursor_is_not_found_saying_to_search_again(upstream, aws, monkeypatch):
    route_all(upstream)
    monkeypatch.setattr(pages, "SET_TTL_S", -1)  # the set is written already expired (DynamoDB TTL is lazy)
    first = _search(query="cancer", expand=False, limit=5)
    with pytest.raises(ScholarError) as caught:
        _search(cursor=first.next_cursor)
    assert caught.value.code == NOT_FOUND and caught.value.hint
