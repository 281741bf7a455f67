"""The resolve step's candidate list and the routing of candidate URLs, replayed from recorded responses (respx)."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
import respx

from scholar.services.fulltext.locate import openalex_locations, resolve_paper, unpaywall_locations
from scholar.web.fetch import registry_source, routed_url
from tests.fallbacks import answer_nothing
from tests.fixtures_dir import read_fixture

PNAS_DOI = "10.1073/pnas.1414271111"


def _json(relpath: str) -> dict:
    return json.loads(read_fixture(relpath))


def _pnas_routes(upstream: respx.MockRouter) -> None:
    upstream.get(f"/s2/graph/v1/paper/DOI:{PNAS_DOI}").respond(
        200, content=read_fixture("upstream/semantic_scholar/paper_by_doi_many_fields_pnas.json")
    )
    upstream.get(f"/unpaywall/v2/{PNAS_DOI}").respond(
        200, content=read_fixture("upstream/unpaywall/doi_10.1073_pnas.1414271111.json")
    )
    upstream.route(method="GET", path__startswith="/openalex/works/").respond(
        200, content=read_fixture("upstream/openalex/work_by_doi_pnas.json")
    )
    upstream.get("/europepmc/europepmc/webservices/rest/search").respond(
        200, content=read_fixture("upstream/europepmc/search_no_results.json")
    )


def test_candidates_come_in_source_order_without_duplicates(upstream: respx.MockRouter, env) -> None:
    # Given S2, Unpaywall, OpenAlex and Europe PMC answers recorded for one PNAS paper
    env(SCHOLAR_CONTACT_EMAIL="tests@example.org")
    _pnas_routes(upstream)
    # When the paper is resolved
    resolution = asyncio.run(resolve_paper(f"doi:{PNAS_DOI}"))
    # Then S2's link comes first, PMC (found through Unpaywall's PMC record) next, and the remaining OpenAlex
    # location last; the Unpaywall and OpenAlex copies of earlier URLs are dropped
    assert [(c.source, c.url) for c in resolution.candidates] == [
        ("s2_oa", "https://www.pnas.org/content/pnas/111/45/E4832.full.pdf"),
        ("pmc", "https://europepmc.org/articles/PMC4234579?pdf=render"),
        ("openalex", "https://escholarship.org/content/qt4ws805f2/qt4ws805f2.pdf?t=rt3n16"),
    ]
    assert resolution.metadata.title.startswith("Developing functional musculoskeletal tissues")
    assert resolution.metadata.doi == PNAS_DOI
    assert resolution.metadata.pmcid == "PMC4234579"
    assert resolution.failed_sources == []


def test_a_failing_secondary_source_is_named_not_fatal(upstream: respx.MockRouter, env) -> None:
    env(SCHOLAR_CONTACT_EMAIL="tests@example.org", SCHOLAR_RETRY_BUDGET_S="0")
    _pnas_routes(upstream)
    upstream.get(f"/unpaywall/v2/{PNAS_DOI}").respond(503, json={"error": "down"})
    resolution = asyncio.run(resolve_paper(f"doi:{PNAS_DOI}"))
    assert [f.source for f in resolution.failed_sources] == ["unpaywall"]
    assert resolution.candidates[0].source == "s2_oa"  # the others still count


def test_an_arxiv_paper_gets_its_arxiv_pdf_even_when_s2_has_no_link(upstream: respx.MockRouter) -> None:
    upstream.get("/s2/graph/v1/paper/ARXIV:2312.07559").respond(
        200, content=read_fixture("upstream/semantic_scholar/paper_by_arxiv_doi.json")
    )
    upstream.route(method="GET", path__startswith="/openalex/").respond(404, json={"error": "not found"})
    upstream.route(method="GET", path__startswith="/europepmc/").respond(
        200, content=read_fixture("upstream/europepmc/search_no_results.json")
    )
    resolution = asyncio.run(resolve_paper("arxiv:2312.07559"))
    assert [(c.source, c.url) for c in resolution.candidates] == [("arxiv", "https://arxiv.org/pdf/2312.07559")]


def test_a_paper_s2_does_not_know_is_still_tried_by_its_arxiv_id(upstream: respx.MockRouter) -> None:
    upstream.get("/s2/graph/v1/paper/ARXIV:2501.10120").respond(
        404, content=read_fixture("upstream/semantic_scholar/paper_not_found_404.json")
    )
    answer_nothing(upstream, openalex=True)  # nor does any other source
    resolution = asyncio.run(resolve_paper("arxiv:2501.10120"))
    assert resolution.metadata.arxiv_id == "2501.10120"
    assert [c.source for c in resolution.candidates] == ["arxiv"]


def test_every_unpaywall_location_with_a_pdf_counts() -> None:
    record = _json("upstream/unpaywall/doi_10.1038_nature12373_green.json")
    urls = [url for url, _ in unpaywall_locations(record)]
    expected = [loc["url_for_pdf"] for loc in record["oa_locations"] if loc.get("url_for_pdf")]
    assert set(expected) <= set(urls)
    assert len(set(expected)) >= 2  # not only the best location


def test_openalex_locations_with_a_pdf_count() -> None:
    urls = [url for url, _ in openalex_locations(_json("upstream/openalex/work_W2741809807.json"))]
    assert "https://peerj.com/articles/4375.pdf" in urls
    assert "https://europepmc.org/articles/pmc5815332?pdf=render" in urls


def test_registry_hosts_are_routed_to_the_configured_base_and_others_are_not(env) -> None:
    env(SCHOLAR_UPSTREAM_PROXY_BASE="http://127.0.0.1:9")
    assert routed_url("https://arxiv.org/pdf/2312.07559") == ("http://127.0.0.1:9/arxiv/pdf/2312.07559", "arxiv")
    assert registry_source("https://www.ebi.ac.uk/europepmc/x?y=1") == "europepmc"
    assert routed_url("https://www.pnas.org/content/x.pdf") == ("https://www.pnas.org/content/x.pdf", None)


def test_without_overrides_a_registry_url_is_left_as_it_is(env) -> None:
    env(SCHOLAR_UPSTREAM_PROXY_BASE=None)
    assert routed_url("https://arxiv.org/pdf/2312.07559?v=2") == ("https://arxiv.org/pdf/2312.07559?v=2", "arxiv")
    assert httpx.URL(routed_url("https://arxiv.org/pdf/1")[0]).host == "arxiv.org"


@pytest.mark.parametrize(
    "answer",
    [
        httpx.Response(503, json={"error": "down"}),
        httpx.Response(200, text="<html><body>Europe PMC is under maintenance</body></html>",
                       headers={"content-type": "text/html"}),
    ],
    ids=["503", "html-on-200"],
)
def test_a_failing_europe_pmc_is_named_in_failed_sources(upstream: respx.MockRouter, env, answer) -> None:
    env(SCHOLAR_RETRY_BUDGET_S="0")
    _pnas_routes(upstream)
    upstream.get("/europepmc/europepmc/webservices/rest/search").mock(return_value=answer)
    resolution = asyncio.run(resolve_paper(f"doi:{PNAS_DOI}"))
    assert [(f.source, f.code) for f in resolution.failed_sources] == [("europepmc", "upstream_error")]
