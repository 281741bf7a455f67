"""get_citing_patents (OPS citation search on DOI, then title) and batch_resolve's patent branch."""

from __future__ import annotations

import json

import httpx
import pytest

from scholar.core.errors import INVALID_ARGUMENT, ScholarError
from scholar.families.papers.batch import batch_resolve
from scholar.families.papers.spec_export import BatchResolveInput
from scholar.families.patents.citing import get_citing_patents
from scholar.families.patents.spec import GetCitingPatentsInput
from tests.fixtures_dir import read_fixture
from tests.patents.helpers import OPS, XML, ops_fixture, run

SEARCH = f"{OPS}/published-data/search/biblio"
BULK = f"{OPS}/published-data/publication/docdb/biblio"
PNAS = "10.1073/pnas.1414271111"


def test_a_doi_is_searched_as_a_citation_and_each_hit_says_how_it_matched(ops):
    ops.get(url__regex=r"/s2/graph/v1/paper/.+").respond(
        200, content=read_fixture("upstream/semantic_scholar/paper_by_doi_many_fields_pnas.json"),
        headers={"Content-Type": "application/json"})
    search = ops.get(SEARCH).respond(200, content=ops_fixture("search_biblio_pa-siemens_range1-3.xml"), headers=XML)

    result = run(get_citing_patents, GetCitingPatentsInput(paper_id=f"doi:{PNAS}", limit=3))

    assert dict(search.calls.last.request.url.params) == {"q": f'ct="{PNAS}"', "Range": "1-3"}
    assert search.call_count == 1
    assert [(p.match_source, p.matched_on) for p in result.patents] == [("epo_search", "doi")] * 3
    assert result.patents[0].title and result.patents[0].publication_number == "AU.2024270787.A1"
    assert result.total_count == 10000 and "incomplete" in result.note.lower()


def test_when_the_doi_finds_nothing_the_title_is_searched(ops):
    ops.get(url__regex=r"/s2/graph/v1/paper/.+").respond(
        200, content=read_fixture("upstream/semantic_scholar/paper_by_doi_many_fields_pnas.json"),
        headers={"Content-Type": "application/json"})
    title = json.loads(read_fixture("upstream/semantic_scholar/paper_by_doi_many_fields_pnas.json"))["title"]
    search = ops.get(SEARCH).mock(side_effect=lambda request: (
        httpx.Response(404, content=ops_fixture("error_404_fault_entity_not_found.xml"))
        if "ct=\"10." in request.url.params["q"] else
        httpx.Response(200, content=ops_fixture("search_biblio_pa-siemens_range1-3.xml"))))

    result = run(get_citing_patents, GetCitingPatentsInput(paper_id=PNAS, limit=3))

    assert search.call_count == 2
    assert search.calls.last.request.url.params["q"].startswith(f'ct="{title[:20]}')
    assert {p.matched_on for p in result.patents} == {"title"}


def test_a_paper_id_that_is_no_paper_is_an_invalid_argument(ops):
    with pytest.raises(ScholarError) as caught:
        run(get_citing_patents, GetCitingPatentsInput(paper_id="ISBN:9780262035613"))
    assert caught.value.code == INVALID_ARGUMENT


def test_batch_resolve_sends_every_patent_number_in_one_bulk_request(ops):
    bulk = ops.post(BULK).respond(
        200, content=ops_fixture("biblio_bulk_EP2400812A1_EP2533477A1_EP2533477B1.xml"), headers=XML)

    result = run(batch_resolve, BatchResolveInput(identifiers=["EP 2400812 A1", "EP2533477A1", "EP.2533477.B1",
                                                               "EP9999999A1"]))

    assert bulk.call_count == 1
    assert bulk.calls.last.request.content == b"EP.2400812.A1,EP.2533477.A1,EP.2533477.B1,EP.9999999.A1"
    assert [(i.status, i.source_type) for i in result.items] == [
        ("ok", "patent"), ("ok", "patent"), ("ok", "patent"), ("not_found", "patent")]
    assert result.items[0].patent.title == "BLUETOOTH NETWORKING" and result.items[0].source == "epo_ops"
    assert result.items[2].patent.kind == "B1" and result.items[2].patent.abstract is None


def test_batch_resolve_marks_patents_throttled_when_ops_is(ops):
    ops.post(BULK).respond(403, content=ops_fixture("error_403_fair_use_rejected.xml"), headers=XML)
    result = run(batch_resolve, BatchResolveInput(identifiers=["EP2400812A1"]))
    assert result.items[0].status == "rate_limited" and result.partial
    assert result.failed_sources[0].source == "epo_ops"
