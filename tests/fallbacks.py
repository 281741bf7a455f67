"""The sources of the paper-lookup chain past S2, OpenAlex and Crossref (scholar.services.paper_lookup.chain), answering
"no such paper" with recorded bodies, for respx-backed tests whose paper no source holds.

Europe PMC answers its recorded empty search (europepmc/search_no_results.json), arXiv its recorded empty feed
(arxiv/id_list_0000.0000_no_results.xml), INSPIRE-HEP a SYNTHETIC empty search envelope in the shape of its
literature search ({"hits": {"hits": [], "total": 0}}; no empty search was recorded), OpenAlex (when asked) its
recorded 404 page (openalex/work_by_doi_not_found_404.html) and Crossref its recorded 404
(crossref/works_by_doi_not_found_404.txt).
"""

from __future__ import annotations

import json

import httpx
import respx

from tests.fixtures_dir import fixtures_dir

EPMC_SEARCH = "/europepmc/europepmc/webservices/rest/search"
ARXIV_QUERY = "/arxiv_api/api/query"
INSPIRE_LITERATURE = "/inspire/api/literature"
SYNTHETIC_INSPIRE_EMPTY = {"hits": {"hits": [], "total": 0}}


def _recorded(name: str) -> bytes:
    return (fixtures_dir() / "upstream" / name).read_bytes()


def answer_nothing(router: respx.MockRouter, *, openalex: bool = False, titles: bool = False) -> None:
    """Route the chain's later sources (and OpenAlex's and Crossref's works, when ``openalex``) to "no such paper";
    with ``titles``, the checked title match's queries too (Crossref's recorded empty query answer, S2's recorded
    title-match 404, OpenAlex's empty list: SYNTHETIC, its list shape).

    Register it before a test's own routes: respx replaces a route by a later one of the same pattern, and
    otherwise answers with the first route that matches.
    """
    router.get(EPMC_SEARCH).mock(return_value=httpx.Response(
        200, content=_recorded("europepmc/search_no_results.json"), headers={"content-type": "application/json"}))
    router.get(ARXIV_QUERY).mock(return_value=httpx.Response(
        200, content=_recorded("arxiv/id_list_0000.0000_no_results.xml"),
        headers={"content-type": "application/atom+xml"}))
    router.get(INSPIRE_LITERATURE).mock(return_value=httpx.Response(
        200, content=json.dumps(SYNTHETIC_INSPIRE_EMPTY).encode(), headers={"content-type": "application/json"}))
    if titles:
        router.get(url__regex=r".*/crossref/works\?.*").mock(return_value=httpx.Response(
            200, content=_recorded("crossref/works_query_title_no_results.json"),
            headers={"content-type": "application/json"}))
        router.get(url__regex=r".*/openalex/works\?.*").mock(return_value=httpx.Response(
            200, json={"meta": {"count": 0, "page": 1, "per_page": 5}, "results": []}))
        router.get(url__regex=r".*/s2/graph/v1/paper/search/match.*").mock(return_value=httpx.Response(
            404, content=_recorded("semantic_scholar/search_match_not_found_404.json"),
            headers={"content-type": "application/json"}))
    if openalex:
        router.get(url__regex=r".*/openalex/works/.*").mock(return_value=httpx.Response(
            404, content=_recorded("openalex/work_by_doi_not_found_404.html"), headers={"content-type": "text/html"}))
        router.get(url__regex=r".*/crossref/works/.*").mock(return_value=httpx.Response(
            404, content=_recorded("crossref/works_by_doi_not_found_404.txt"), headers={"content-type": "text/plain"}))
