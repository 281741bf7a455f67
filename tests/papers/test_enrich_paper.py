"""enrich_paper (scholar.families.papers.enrich) on recorded OpenAlex and Unpaywall answers."""

import json

import httpx
import pytest

from scholar.core import aio
from scholar.core.errors import NOT_FOUND, RATE_LIMITED, TIMEOUT, UNAVAILABLE, ScholarError, UnavailableError
from scholar.families.papers import enrich
from scholar.families.papers.spec_export import EnrichPaperInput

JSON = {"Content-Type": "application/json"}
HTML = {"Content-Type": "text/html"}
PNAS = "10.1073/pnas.1414271111"
OPENALEX_PNAS = "/openalex/works/https://doi.org/10.1073%2Fpnas.1414271111"
NATURE = "10.1038/nature12373"
OPENALEX_NATURE = "/openalex/works/https://doi.org/10.1038%2Fnature12373"


def run(identifier, fields):
    return aio.run(enrich.enrich_paper(EnrichPaperInput(identifier=identifier, fields=fields)))


def test_topics_concepts_and_oa_status_come_from_the_recorded_work(aws, upstream, fixture_file):
    upstream.get(OPENALEX_PNAS).respond(
        200, content=fixture_file("upstream/openalex/work_by_doi_pnas.json"), headers=JSON
    )
    work = json.loads(fixture_file("upstream/openalex/work_by_doi_pnas.json"))

    result = run(PNAS, ["topics", "concepts", "oa_status"])

    assert [t.name for t in result.topics] == [t["display_name"] for t in work["topics"]]
    assert result.topics[0].field == work["topics"][0]["field"]["display_name"]
    assert [c.name for c in result.concepts] == [c["display_name"] for c in work["concepts"]]
    assert (result.oa_status.is_oa, result.oa_status.oa_status) == (True, "bronze")
    assert result.openalex_id == work["id"].rsplit("/", 1)[-1]
    assert result.sources == ["openalex"] and result.partial is False
    assert result.affiliations is None


def test_affiliations_are_the_institutions_of_the_authors(aws, upstream, fixture_file):
    upstream.get("/openalex/works/W2741809807").respond(
        200, content=fixture_file("upstream/openalex/work_W2741809807.json"), headers=JSON
    )
    work = json.loads(fixture_file("upstream/openalex/work_W2741809807.json"))
    expected = list(dict.fromkeys(i["display_name"] for a in work["authorships"] for i in a["institutions"]))

    result = run("W2741809807", ["affiliations"])

    assert result.affiliations == expected and expected


def test_funders_are_read_from_the_current_funders_and_awards_fields(aws, upstream, fixture_file):
    # SYNTHETIC: the recorded work with its (null) funders/awards filled in OpenAlex's current shape.
    work = json.loads(fixture_file("upstream/openalex/work_by_doi_pnas.json"))
    work["funders"] = [{"id": "https://openalex.org/F4320306076", "display_name": "National Institutes of Health"}]
    work["awards"] = [{"id": "https://openalex.org/G1", "funder_award_id": "R01AR061496",
                       "funder_id": "https://openalex.org/F4320306076",
                       "funder_display_name": "National Institutes of Health"}]
    upstream.get(OPENALEX_PNAS).respond(200, json=work, headers=JSON)

    result = run(PNAS, ["funders"])

    assert [(f.name, f.award_ids) for f in result.funders] == [("National Institutes of Health", ["R01AR061496"])]


def test_funders_fall_back_to_the_older_grants_field(aws, upstream, fixture_file):
    work = json.loads(fixture_file("upstream/openalex/work_by_doi_pnas.json"))
    work["grants"] = [{"funder_display_name": "Wellcome Trust", "award_id": "WT-1"}]  # SYNTHETIC, pre-2025 shape
    upstream.get(OPENALEX_PNAS).respond(200, json=work, headers=JSON)
    assert [(f.name, f.award_ids) for f in run(PNAS, ["funders"]).funders] == [("Wellcome Trust", ["WT-1"])]


def test_without_openalex_oa_status_comes_from_unpaywall(aws, upstream, env, fixture_file):
    env(SCHOLAR_CONTACT_EMAIL="tests@example.org")
    upstream.get(OPENALEX_NATURE).respond(
        404, content=fixture_file("upstream/openalex/work_by_doi_not_found_404.html"), headers=HTML
    )
    route = upstream.get(f"/unpaywall/v2/{NATURE}").respond(
        200, content=fixture_file("upstream/unpaywall/doi_10.1038_nature12373_green.json"), headers=JSON
    )
    recorded = json.loads(fixture_file("upstream/unpaywall/doi_10.1038_nature12373_green.json"))

    result = run(NATURE, ["oa_status"])

    assert result.oa_status.oa_status == recorded["oa_status"] == "green"
    assert result.sources == ["unpaywall"]
    assert route.calls.last.request.url.params["email"] == "tests@example.org"


def test_no_source_with_the_paper_is_not_found(aws, upstream, fixture_file):
    upstream.get(OPENALEX_NATURE).respond(
        404, content=fixture_file("upstream/openalex/work_by_doi_not_found_404.html"), headers=HTML
    )
    asked_around = upstream.route().respond(404)  # the other sources of the lookup chain know it no better
    with pytest.raises(ScholarError) as info:
        run(NATURE, ["topics"])
    assert info.value.code == NOT_FOUND
    assert asked_around.called  # "not found" only after the chain asked the others


def test_a_throttled_openalex_is_rate_limited_not_empty(aws, upstream, env):
    env(SCHOLAR_RETRY_BUDGET_S="0")
    upstream.get(OPENALEX_PNAS).respond(429, headers={"Retry-After": "20"}, json={"error": "Too Many Requests"})
    with pytest.raises(ScholarError) as info:
        run(PNAS, ["topics"])
    assert info.value.code == RATE_LIMITED


def test_a_slow_openalex_stays_a_timeout(aws, upstream, env):
    env(SCHOLAR_RETRY_BUDGET_S="0")
    upstream.get(OPENALEX_PNAS).mock(side_effect=httpx.ReadTimeout("timed out"))
    with pytest.raises(ScholarError) as info:
        run(PNAS, ["topics"])
    assert (info.value.code, info.value.retryable) == (TIMEOUT, True)


def test_an_unavailable_openalex_stays_unavailable(aws, monkeypatch):
    # e.g. the shared limiter's table cannot be reached: a part of ours is missing, not OpenAlex failing.
    async def unavailable(doi: str) -> dict:
        raise UnavailableError("the shared rate limiter is not reachable", source="openalex")

    monkeypatch.setattr(enrich.openalex, "get_work_by_doi", unavailable)
    with pytest.raises(ScholarError) as info:
        run(PNAS, ["topics"])
    assert info.value.code == UNAVAILABLE


def test_a_complete_answer_is_cached(aws, upstream, fixture_file):
    route = upstream.get(OPENALEX_PNAS).respond(
        200, content=fixture_file("upstream/openalex/work_by_doi_pnas.json"), headers=JSON
    )
    assert run(PNAS, ["topics", "oa_status"]) == run(f"doi:{PNAS}", ["oa_status", "topics"])
    assert route.call_count == 1
