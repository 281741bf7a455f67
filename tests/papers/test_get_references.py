"""get_references (scholar.families.papers.citations): the recorded two-page reference list of an SSRN DOI."""

import json

from scholar.core import aio
from scholar.families.papers import citations
from scholar.families.papers.spec_graph import GetReferencesInput

DOI = "10.2139/ssrn.2250500"
REFERENCES = f"/s2/graph/v1/paper/DOI:{DOI}/references"
PAGE1 = "upstream/semantic_scholar/paper_references_offset0.json"
PAGE2 = "upstream/semantic_scholar/paper_references_offset50_last_page.json"
JSON = {"Content-Type": "application/json"}


def run(**kwargs):
    return aio.run(citations.list_papers("references", GetReferencesInput(**kwargs)))


def test_the_first_page_lists_cited_papers_and_points_to_the_next(aws, upstream, fixture_file):
    upstream.get(REFERENCES, params={"offset": "0"}).respond(200, content=fixture_file(PAGE1), headers=JSON)
    recorded = json.loads(fixture_file(PAGE1))

    result = run(identifier=f"https://doi.org/{DOI}")

    assert [i.citedPaper.title for i in result.data] == [r["citedPaper"]["title"] for r in recorded["data"]]
    assert result.next_offset == recorded["next"] == 50


def test_the_last_page_has_no_next_offset_and_keeps_unmatched_references(aws, upstream, fixture_file):
    upstream.get(REFERENCES, params={"offset": "50"}).respond(200, content=fixture_file(PAGE2), headers=JSON)
    recorded = json.loads(fixture_file(PAGE2))

    result = run(identifier=DOI, offset=50)

    assert result.next_offset is None
    assert len(result.data) == len(recorded["data"])
    unmatched = [i.citedPaper for i in result.data if i.citedPaper.paperId is None]
    assert unmatched and all(p.title for p in unmatched)


def test_a_page_over_the_size_budget_is_cut_with_a_continuation(aws, upstream, fixture_file, monkeypatch):
    upstream.get(REFERENCES).respond(200, content=fixture_file(PAGE1), headers=JSON)
    monkeypatch.setattr(citations, "MAX_RESULT_CHARS", 4_000)

    result = run(identifier=DOI)

    assert 0 < len(result.data) < 50
    assert result.truncated is True
    assert result.next_offset == len(result.data)
    assert len(result.model_dump_json()) < 4_000
