"""Helpers of the research tests: recorded bodies, synthetic payloads in the recorded shapes, running a search.

Synthetic payloads are built here (never written as fixture files) and named ``synthetic_*``; each says
which recorded shape it follows.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import respx

from scholar.families.research.search.spec import SearchInput
from tests.fixtures_dir import fixtures_dir

S2_SEARCH = "/s2/graph/v1/paper/search"
S2_BATCH = "/s2/graph/v1/paper/batch"
S2_RECOMMEND = "/s2/recommendations/v1/papers/"
OPENALEX_WORKS = "/openalex/works"
CROSSREF_WORKS = "/crossref/works"
ARXIV_QUERY = "/arxiv_api/api/query"
EPMC_SEARCH = "/europepmc/europepmc/webservices/rest/search"
INSPIRE_SEARCH = "/inspire/api/literature"
COPPER_TITLE = ("Effect of native oxide layers on copper thin-film tensile properties: "
                "A reactive molecular dynamics study")
COPPER_DOI = "10.1063/1.4938384"


def recorded(name: str) -> bytes:
    """A recorded upstream body from ``<fixtures>/upstream/<name>``."""
    return (fixtures_dir() / "upstream" / name).read_bytes()


def recorded_json(name: str) -> Any:
    return json.loads(recorded(name))


def json_response(body: bytes | dict[str, Any] | list[Any], status: int = 200) -> httpx.Response:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return httpx.Response(status, content=content, headers={"content-type": "application/json"})


def synthetic_s2_search(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """An S2 ``/paper/search`` answer in the shape of search_paper_turing.json (total, offset, data)."""
    return {"total": len(rows), "offset": 0, "data": rows}


def synthetic_s2_copper_row() -> dict[str, Any]:
    """The copper paper as an S2 search row, in the field shapes of paper_by_doi_many_fields_pnas.json."""
    crossref = recorded_json("crossref/works_query_title_rows1.json")["message"]["items"][0]
    return {
        "paperId": "5e1a2c3b4d5e6f708192a3b4c5d6e7f809102132",
        "title": COPPER_TITLE,
        "year": 2015,
        "venue": "Journal of Applied Physics",
        "citationCount": 3,
        "authors": [{"authorId": "1", "name": f"{a.get('given', '')} {a['family']}".strip()}
                    for a in crossref.get("author", [])],
        "externalIds": {"DOI": crossref["DOI"].upper(), "CorpusId": 221820398},
        "abstract": None,
    }


def synthetic_inspire_search(*records: dict[str, Any]) -> dict[str, Any]:
    """An INSPIRE ``/api/literature?q=`` answer: the recorded record shape (literature_record_1842768.json)
    inside the search envelope ``{"hits": {"hits": [...], "total": n}}``."""
    return {"hits": {"hits": list(records), "total": len(records)}, "links": {}}


def route_all(router: respx.MockRouter, *, s2_rows: list[dict[str, Any]] | None = None) -> None:
    """Every search source answering with a real recording (S2 with synthetic rows: its recordings lack fields)."""
    router.get(S2_SEARCH).mock(return_value=json_response(synthetic_s2_search(s2_rows or [])))
    router.get(OPENALEX_WORKS).mock(return_value=json_response(recorded("openalex/works_filter_title_search.json")))
    router.get(CROSSREF_WORKS).mock(return_value=json_response(recorded("crossref/works_query_title_rows1.json")))
    router.get(ARXIV_QUERY).mock(return_value=httpx.Response(
        200, content=recorded("arxiv/query_testing_start0_max10.xml"),
        headers={"content-type": "application/atom+xml"}))
    router.get(EPMC_SEARCH).mock(return_value=json_response(recorded("europepmc/search_cancer_core.json")))
    router.get(INSPIRE_SEARCH).mock(return_value=json_response(
        synthetic_inspire_search(recorded_json("inspire/literature_record_1842768.json"))))
    router.post(S2_BATCH).mock(side_effect=batch_answer({}))
    router.post(S2_RECOMMEND).mock(return_value=json_response({"recommendedPapers": []}))


def args(**values: Any) -> SearchInput:
    return SearchInput.model_validate(values)




def batch_answer(rows: dict[str, dict[str, Any]]) -> Any:
    """A respx side effect answering S2 ``/paper/batch`` like S2 does: one row (or null) per requested id."""

    def answer(request: httpx.Request) -> httpx.Response:
        ids = json.loads(request.content)["ids"]
        return json_response([rows.get(i.lower()) for i in ids])

    return answer
