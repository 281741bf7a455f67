"""search_patents: CQL with safe quoting, Range paging, the 2,000 cap, total_count, hits with biblio."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from scholar.core.errors import INVALID_ARGUMENT, InvalidArgumentError
from scholar.families.patents.search import build_cql, page_range, search_patents
from scholar.families.patents.spec import SearchPatentsInput
from tests.patents.helpers import OPS, XML, ops_fixture, run

SEARCH = f"{OPS}/published-data/search/biblio"


def cql(**fields) -> str:
    return build_cql(SearchPatentsInput(**fields))


def test_structured_filters_become_quoted_cql_clauses():
    assert cql(applicant="Siemens", inventor="Smith", cpc_classification="h01m 10/0525", jurisdiction="ep") == (
        'pa="Siemens" and in="Smith" and cpc="H01M10/0525" and pn=EP')


def test_keywords_search_title_and_abstract_with_phrases_kept():
    assert cql(query='"solid state" lithium anode') == 'ta="solid state" and ta all "lithium anode"'


def test_a_callers_quotes_and_boolean_words_never_break_the_query():
    query = cql(query='battery OR ti=x) and "unclosed', applicant='Foo "Bar" \\ Baz')
    assert query == 'ta all "battery OR ti=x) and unclosed" and pa="Foo \\"Bar\\" \\\\ Baz"'


def test_dates_filter_the_chosen_date_field():
    assert cql(applicant="x", date_from="2020-01-01", date_to="2020-12-31") == (
        'pa="x" and pd within "20200101 20201231"')
    assert cql(applicant="x", date_from="2020-01-01", date_type="filing") == 'pa="x" and ad>=20200101'
    assert cql(applicant="x", date_to="2019-06-30", date_type="priority") == 'pa="x" and prd<=20190630'


def test_bad_filters_are_invalid_arguments_naming_the_field():
    with pytest.raises(InvalidArgumentError) as caught:
        cql(cpc_classification="battery")
    assert caught.value.field == "cpc_classification"
    with pytest.raises(InvalidArgumentError) as caught:
        cql(applicant="x", date_from="2021-01-01", date_to="2020-01-01")
    assert caught.value.field == "date_from"
    with pytest.raises(ValidationError):
        SearchPatentsInput(limit=10)  # at least one parameter


def test_paging_past_two_thousand_hits_is_an_invalid_argument_with_a_narrowing_hint():
    assert page_range(0, 100) == "1-100" and page_range(1900, 100) == "1901-2000"
    with pytest.raises(InvalidArgumentError) as caught:
        page_range(1950, 100)
    assert caught.value.code == INVALID_ARGUMENT and caught.value.field == "offset"
    assert "date" in (caught.value.hint or "")


def test_a_recorded_search_returns_hits_with_biblio_total_count_and_the_cql(ops):
    route = ops.get(SEARCH).respond(200, content=ops_fixture("search_biblio_pa-siemens_range1-3.xml"), headers=XML)

    result = run(search_patents, SearchPatentsInput(applicant="Siemens", limit=3))

    params = dict(route.calls.last.request.url.params)
    assert params == {"q": 'pa="Siemens"', "Range": "1-3"}
    assert result.effective_query == 'pa="Siemens"'
    assert result.total_count == 10000 and result.total_count_is_capped
    assert [r.patent_id for r in result.references] == ["AU2024270787A1", "AU2024265697A1", "DK3740998T3"]
    first = result.references[0]
    assert first.title == "MONITORING THE OPERATION OF A WIND TURBINE" and first.applicants
    assert first.publication_date and first.classifications
    assert result.references[2].title_language == "ol"  # only the original-language title exists
    assert result.references[1].abstract and result.references[1].abstract_language == "en"
    assert result.next_offset == 3


def test_no_hits_is_an_empty_page_not_an_error(ops):
    ops.get(SEARCH).respond(404, content=ops_fixture("error_404_fault_entity_not_found.xml"), headers=XML)
    result = run(search_patents, SearchPatentsInput(query="zzzz qqqq", limit=5))
    assert result.total_count == 0 and result.references == [] and result.next_offset is None


def test_cql_ops_rejects_is_an_invalid_argument_on_query(ops):
    ops.get(SEARCH).respond(400, content=b"<fault><code>CLIENT.CQL</code></fault>", headers=XML)
    with pytest.raises(InvalidArgumentError) as caught:
        run(search_patents, SearchPatentsInput(query="x"))
    assert caught.value.field == "query"


def test_a_repeated_search_is_answered_from_the_cache(aws, ops):
    route = ops.get(SEARCH).respond(200, content=ops_fixture("search_biblio_pa-siemens_range1-3.xml"), headers=XML)
    run(search_patents, SearchPatentsInput(applicant="Siemens", limit=3))
    run(search_patents, SearchPatentsInput(applicant="Siemens", limit=3))
    assert route.call_count == 1


def test_a_page_over_the_size_budget_has_its_abstracts_shortened_and_says_so():
    from scholar.families.patents.search import MAX_RESULT_CHARS, fit, parse_search

    page = parse_search(ops_fixture("search_biblio_pa-siemens_range1-3.xml"), 0, 3, 'pa="Siemens"')
    record = page.references[1]
    big = page.model_copy(update={"references": [record.model_copy(update={"abstract": "word " * 1000})] * 100})

    fitted = fit(big)

    assert len(fitted.model_dump_json()) <= MAX_RESULT_CHARS
    assert fitted.abstracts_shortened and all(r.abstract_truncated for r in fitted.references)
    assert fit(page) is page
