"""The checked bibliographic match (scholar.services.paper_lookup.match) and where users meet it: get_paper with a
title, batch_resolve with citations, check_references.

Upstream answers are recorded: Crossref's title query for "Effect of native oxide layers on copper thin-film tensile
properties" (works_query_title_rows1.json) and its empty answer (works_query_title_no_results.json), OpenAlex's title
search for the same paper, S2's title match for "Attention is All you Need" and its 404, Europe PMC's empty search.
The one SYNTHETIC payload is OpenAlex's empty ``results`` list (``EMPTY_OPENALEX``, OpenAlex's list shape).
"""

from __future__ import annotations

import json

import pytest

from functions.papers.app import lambda_handler
from scholar.core import aio
from scholar.core.errors import NOT_FOUND, UPSTREAM_ERROR, InvalidArgumentError, ScholarError
from scholar.core.ids import reads_as_reference
from scholar.core.paper_mapping import from_crossref
from scholar.core.records import Journal
from scholar.services import paper_lookup
from scholar.services.paper_lookup.match_check import Reference, judge

pytestmark = pytest.mark.usefixtures("no_fallback_source")

JSON = {"Content-Type": "application/json"}
CROSSREF_WORKS = "/crossref/works"
S2_MATCH = "/s2/graph/v1/paper/search/match"
S2_NO_MATCH = "upstream/semantic_scholar/search_match_not_found_404.json"
OPENALEX_WORKS = "/openalex/works"
EMPTY_OPENALEX = {"meta": {"count": 0, "page": 1, "per_page": 5}, "results": []}  # SYNTHETIC, OpenAlex's list shape
COPPER = "Effect of native oxide layers on copper thin-film tensile properties: A reactive molecular dynamics study"
COPPER_CITATION = f"Skarlinski, M. D. & Quesnel, D. J. {COPPER}. J. Appl. Phys. 118, 235306 (2015)."
COPPER_DOI = "10.1063/1.4938384"


def second_wave_finds_nothing(upstream, fixture_file) -> None:
    """OpenAlex and S2 answer "no results" (Europe PMC does through ``no_fallback_source``)."""
    upstream.get(OPENALEX_WORKS).respond(200, json=EMPTY_OPENALEX)
    upstream.get(S2_MATCH).respond(404, content=fixture_file(S2_NO_MATCH))


@pytest.fixture
def copper(upstream, fixture_file):
    """Crossref's recorded answer for the copper paper's title; the second wave finds nothing more."""
    second_wave_finds_nothing(upstream, fixture_file)
    return upstream.get(CROSSREF_WORKS).respond(
        200, content=fixture_file("upstream/crossref/works_query_title_rows1.json"), headers=JSON)


def copper_record(fixture_file):
    return from_crossref(json.loads(fixture_file("upstream/crossref/works_query_title_rows1.json"))
                         ["message"]["items"][0])


def match(text: str | None = None, **fields):
    return aio.run(paper_lookup.match_reference(text, **fields))


# ---------------------------------------------------------------- the check (pure)

def test_the_check_accepts_a_title_with_the_year_and_first_author_agreeing(fixture_file):
    verdict = judge(Reference(text=COPPER_CITATION), copper_record(fixture_file))

    assert verdict.accepted and verdict.check == "title" and verdict.confidence == 1.0


def test_a_year_two_off_or_another_first_author_rejects_the_same_title(fixture_file):
    record = copper_record(fixture_file)

    late = judge(Reference(text=COPPER_CITATION.replace("2015", "2018")), record)
    other = judge(Reference(title=COPPER, authors=("Smith, J.",), year=2015), record)

    assert not late.accepted and "year" in late.disagreements
    assert not other.accepted and "authors" in other.disagreements


def test_a_short_title_needs_the_year_and_the_author(fixture_file):
    record = copper_record(fixture_file).model_copy(update={"title": "Copper films"})

    assert not judge(Reference(title="Copper films"), record).accepted
    assert judge(Reference(title="Copper films", authors=("Skarlinski",), year=2015), record).accepted


def test_a_citation_without_a_title_matches_by_venue_volume_page_and_year(fixture_file):
    record = copper_record(fixture_file).model_copy(update={"journal": Journal(
        name="Journal of Applied Physics", volume="118", pages="235306")})

    verdict = judge(Reference(text="J. Appl. Phys. 118, 235306 (2015)."), record)
    wrong_page = judge(Reference(text="J. Appl. Phys. 118, 235307 (2015)."), record)

    assert verdict.accepted and verdict.check == "venue+volume+page+year"
    assert not wrong_page.accepted


@pytest.mark.parametrize("text", ["Attention is all you need", "Deep learning", COPPER_CITATION])
def test_titles_and_citations_read_as_references(text):
    assert reads_as_reference(text)


@pytest.mark.parametrize("text", ["10.1038/", "10.1038/nature with a typed space", "doi:not a doi", "not-an-id",
                                  "not-an-identifier", "PMID 12345", "hep-th 9901001", "https://example.org/a b"])
def test_malformed_identifiers_and_single_words_do_not(text):
    assert not reads_as_reference(text)


# ---------------------------------------------------------------- the match (recorded answers)

def test_a_citation_matches_crossrefs_record_by_its_title_in_one_request(aws, copper):
    outcome = match(COPPER_CITATION)

    assert outcome.status == "matched" and outcome.paper.externalIds["DOI"] == COPPER_DOI
    assert outcome.matched_by.source == "crossref" and outcome.matched_by.check == "title"
    assert outcome.tried == ["crossref"] and copper.call_count == 1
    assert copper.calls.last.request.url.params["query.bibliographic"] == COPPER_CITATION


def test_a_citation_with_the_wrong_year_is_ambiguous_with_ranked_candidates(aws, copper):
    outcome = match(COPPER_CITATION.replace("2015", "2009"))

    assert outcome.status == "ambiguous" and outcome.paper is None
    assert outcome.candidates[0].identifiers == [COPPER_DOI] and not outcome.candidates[0].accepted
    assert outcome.tried == ["crossref", "openalex", "europepmc", "s2"]


def test_a_title_no_source_knows_is_not_found_naming_what_was_tried(aws, upstream, fixture_file):
    upstream.get(CROSSREF_WORKS).respond(200, content=fixture_file(
        "upstream/crossref/works_query_title_no_results.json"), headers=JSON)
    second_wave_finds_nothing(upstream, fixture_file)

    outcome = match(title="askldjrq3rjaw938h qwerty zxcvb")

    assert outcome.status == "not_found" and outcome.failed_sources == []
    assert outcome.tried == ["crossref", "openalex", "europepmc", "s2"]


def test_a_failing_source_is_named_never_read_as_no_such_paper_and_nothing_is_cached(aws, env, upstream, fixture_file):
    env(SCHOLAR_RETRY_BUDGET_S="0")
    crossref = upstream.get(CROSSREF_WORKS).respond(503, json={"message": "down"})
    second_wave_finds_nothing(upstream, fixture_file)

    outcome = match(COPPER_CITATION)
    again = match(COPPER_CITATION)

    assert outcome.status == "not_found" and [f.source for f in outcome.failed_sources] == ["crossref"]
    assert again.failed_sources and crossref.call_count == 2  # the failed answer was not cached
    with pytest.raises(ScholarError) as caught:
        aio.run(paper_lookup.identify(COPPER_CITATION))
    assert caught.value.code == UPSTREAM_ERROR and caught.value.source == "crossref"


def test_an_exact_title_is_matched_by_s2s_title_match_when_crossref_has_nothing(aws, upstream, fixture_file):
    upstream.get(CROSSREF_WORKS).respond(200, content=fixture_file(
        "upstream/crossref/works_query_title_no_results.json"), headers=JSON)
    upstream.get(OPENALEX_WORKS).respond(200, json=EMPTY_OPENALEX)
    upstream.get(S2_MATCH).respond(200, content=fixture_file("upstream/semantic_scholar/search_match_attention.json"),
                                   headers=JSON)

    pid = aio.run(paper_lookup.identify("Attention is all you need", tool="get_paper"))

    assert pid.cache_key() == "arxiv:1706.03762"


def test_a_malformed_doi_is_still_refused_naming_the_field():
    with pytest.raises(InvalidArgumentError) as caught:
        aio.run(paper_lookup.identify("10.1038/", "identifier", tool="get_paper"))
    assert caught.value.field == "identifier"


# ---------------------------------------------------------------- where users meet it

def invoke(tool: str, arguments: dict, context) -> dict:
    return lambda_handler({"tool": tool, "arguments": arguments, "principal": "alice", "request_id": "r"}, context)


def test_batch_resolve_marks_a_near_miss_ambiguous_with_candidates(aws, copper, lambda_context):
    outcome = invoke("batch_resolve", {"identifiers": [COPPER_CITATION.replace("2015", "2009")]}, lambda_context)

    item = outcome["result"]["items"][0]
    assert item["status"] == "ambiguous" and item["candidates"][0]["identifiers"] == [COPPER_DOI]
    assert outcome["result"]["counts"] == {"ambiguous": 1}


def test_check_references_answers_each_reference_a_summary_and_bibtex(aws, copper, lambda_context):
    entry = "@article{sk15, title={" + COPPER + "}, author={Skarlinski, Michael D. and Quesnel, David J.}, year=2015}"
    references = [COPPER_CITATION, entry, COPPER_CITATION.replace("2015", "2009")]

    outcome = invoke("check_references", {"references": references, "bibtex": True}, lambda_context)

    result = outcome["result"]
    assert [i["status"] for i in result["items"]] == ["matched", "matched", "ambiguous"]
    assert result["items"][0]["identifiers"] == [COPPER_DOI] and result["items"][0]["matched_by"]["check"] == "title"
    assert result["summary"] == {"matched": 2, "ambiguous": 1}
    assert result["bibtex"].count("@article") == 2 and COPPER_DOI in result["bibtex"]


def test_check_references_refuses_more_than_100_references(lambda_context):
    outcome = invoke("check_references", {"references": ["A title of a paper"] * 101}, lambda_context)

    assert outcome["ok"] is False and outcome["error"]["code"] == "invalid_argument"


def test_get_paper_with_a_title_nobody_matches_is_not_found(aws, upstream, fixture_file, lambda_context):
    upstream.get(CROSSREF_WORKS).respond(200, content=fixture_file(
        "upstream/crossref/works_query_title_no_results.json"), headers=JSON)
    second_wave_finds_nothing(upstream, fixture_file)

    outcome = invoke("get_paper", {"identifier": "askldjrq3rjaw938h qwerty zxcvb"}, lambda_context)

    assert outcome["ok"] is False and outcome["error"]["code"] == NOT_FOUND
    assert outcome["error"]["details"]["tried"] == ["crossref", "openalex", "europepmc", "s2"]


def test_read_and_download_take_a_citation_as_the_doi_it_matched(aws, copper):
    written = aio.run(paper_lookup.paper_identifier(COPPER_CITATION, "alice", tool="read_paper"))

    assert written == COPPER_DOI


def test_a_pdf_a_caller_brings_without_an_identifier_is_linked_by_its_checked_metadata_title(aws, copper):
    from scholar.services.fulltext.identity import PdfIdentity  # issue 38's use of the match
    from scholar.services.library.brought import _by_title

    linked = aio.run(_by_title(PdfIdentity(identifier=None, title=COPPER, titled=True)))
    unlinked = aio.run(_by_title(PdfIdentity(identifier=None, title="Copper films", titled=True)))

    assert linked.identifier == f"DOI:{COPPER_DOI}"
    assert unlinked.identifier is None  # a short title with no year or author: not checked enough to link
