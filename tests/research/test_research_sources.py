"""Sources as capabilities, and each search adapter mapping its real recording to the shared paper record."""

from __future__ import annotations

import httpx
import pytest

from scholar.families import family_tools
from scholar.families.research.handlers import HANDLERS
from scholar.sources.paper_search import ADAPTERS, SearchQuery
from scholar.sources.registry import SOURCES, searchable
from tests.fixtures.waiting import run
from tests.research.helpers import (
    ARXIV_QUERY,
    CROSSREF_WORKS,
    EPMC_SEARCH,
    INSPIRE_SEARCH,
    OPENALEX_WORKS,
    json_response,
    recorded,
    recorded_json,
    synthetic_inspire_search,
)

QUERY = SearchQuery(text="copper oxide films", terms=("copper", "oxide", "films"))


def test_the_six_scholarly_sources_can_search_and_each_has_an_adapter():
    assert {s.name for s in searchable()} == set(ADAPTERS) == {
        "s2", "openalex", "crossref", "arxiv_api", "europepmc", "inspire"}


def test_every_searching_source_states_its_matching_pace_and_page_limit():
    for source in searchable():
        assert source.matching in ("semantic", "keyword")
        assert source.page_limit and source.interval_s >= 0
        assert (source.term_limit is None) == (source.matching == "semantic")


def test_only_semantic_scholar_offers_recommendations_and_the_batch_expansion_needs():
    assert [s.name for s in SOURCES.values() if s.can("recommendations")] == ["s2"]
    assert SOURCES["s2"].can("batch_lookup") and SOURCES["s2"].can("references") and SOURCES["s2"].can("citations")


def test_the_research_family_declares_search_and_implements_it():
    assert set(family_tools("research")) == set(HANDLERS) and "search" in HANDLERS


def test_openalex_search_maps_the_recorded_works(upstream):
    route = upstream.get(OPENALEX_WORKS).mock(return_value=json_response(
        recorded("openalex/works_filter_title_search.json")))
    (paper,) = run(ADAPTERS["openalex"](QUERY, 5))
    assert route.calls[0].request.url.params["search"] == "copper oxide films"
    assert paper.externalIds["DOI"] == "10.1063/1.4938384" and paper.sources == ["openalex"]
    assert paper.abstract and paper.year == 2015


def test_crossref_search_maps_the_recorded_items(upstream):
    upstream.get(CROSSREF_WORKS).mock(return_value=json_response(recorded("crossref/works_query_ecology_rows2.json")))
    papers = run(ADAPTERS["crossref"](QUERY, 2))
    assert len(papers) == 2 and all(p.externalIds and p.externalIds.get("DOI") for p in papers)
    assert all(p.sources == ["crossref"] for p in papers)


def test_arxiv_search_maps_the_recorded_feed_with_pdf_links(upstream):
    route = upstream.get(ARXIV_QUERY).mock(return_value=httpx.Response(
        200, content=recorded("arxiv/query_testing_start0_max10.xml"),
        headers={"content-type": "application/atom+xml"}))
    papers = run(ADAPTERS["arxiv_api"](QUERY, 10))
    assert route.calls[0].request.url.params["search_query"] == "all:copper AND all:oxide AND all:films"
    assert len(papers) == 10
    assert all(p.externalIds["ArXiv"] and "v" not in p.externalIds["ArXiv"] for p in papers)
    assert all(p.openAccessPdf and p.openAccessPdf.url for p in papers)


def test_europepmc_search_asks_for_core_results_and_maps_pmids_and_abstracts(upstream):
    route = upstream.get(EPMC_SEARCH).mock(return_value=json_response(recorded("europepmc/search_cancer_core.json")))
    papers = run(ADAPTERS["europepmc"](QUERY, 25))
    assert route.calls[0].request.url.params["resultType"] == "core"
    assert papers and all(p.externalIds and p.externalIds.get("PubMed") for p in papers if p.externalIds)
    assert any(p.abstract for p in papers)


def test_europepmc_people_are_given_names_first_so_the_surname_is_the_last_word():
    """Europe PMC's fullName is "Schoenfeld JD": read as written, every citation style made "JD" the surname."""
    from scholar.core.paper_mapping import from_europepmc

    core = recorded_json("europepmc/search_cancer_core.json")["resultList"]["result"][0]
    names = [a.name for a in from_europepmc(core).authors or []]
    assert names[:3] == ["Jonathan D Schoenfeld", "Daphne A Haas-Kogan", "Allison F O'Neill"]
    lite = recorded_json("europepmc/search_cancer_lite.json")["resultList"]["result"][0]
    assert [a.name for a in from_europepmc(lite).authors or []] == ["JD Schoenfeld", "DA Haas-Kogan", "AF O'Neill"]
    group = from_europepmc({"authorList": {"author": [{"collectiveName": "The ABC Consortium"},
                                                      {"fullName": "van der Berg AB"}]}})
    assert [a.name for a in group.authors or []] == ["The ABC Consortium", "AB van der Berg"]

def test_inspire_search_maps_the_recorded_literature_record(upstream):
    record = recorded_json("inspire/literature_record_1842768.json")
    upstream.get(INSPIRE_SEARCH).mock(return_value=json_response(synthetic_inspire_search(record)))
    (paper,) = run(ADAPTERS["inspire"](QUERY, 5))
    assert paper.externalIds == {"DOI": "10.1016/j.nuclphysa.2021.122138", "INSPIRE": "1842768"}
    assert paper.title.startswith("Systematics of electric dipole") and paper.year == 2021


@pytest.mark.parametrize("source", sorted(ADAPTERS))
def test_a_refused_search_is_a_typed_error_not_an_empty_list(upstream, env, source):
    env(SCHOLAR_RETRY_BUDGET_S="0")
    upstream.route().mock(return_value=json_response({"message": "down"}, status=503))
    with pytest.raises(Exception) as caught:
        run(ADAPTERS[source](QUERY, 5))
    assert getattr(caught.value, "code", None) == "upstream_error"
