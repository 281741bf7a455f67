"""The papers tools beyond get_paper/search_papers, through the local server and the fake upstream.

Recorded responses answer wherever our request has a recording; explicit routes serve recorded files
under the paths our clients ask (S2 id forms differ from the recordings'), and the citation graph is the
SYNTHETIC graph of tests/papers/synthetic_graph.py. The server's cache lives for the session: every test
uses arguments of its own.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import anyio
import bibtexparser
import pytest
from bibtexparser.bparser import BibTexParser
from mcp import Client

from scholar.core.errors import INVALID_ARGUMENT, NOT_FOUND, UPSTREAM_ERROR
from tests.e2e.polling import poll_task
from tests.fixtures_dir import fixtures_dir
from tests.papers.synthetic_graph import SyntheticGraph, recorded_papers

pytestmark = pytest.mark.e2e



def _file(rel: str):
    return fixtures_dir() / "upstream" / rel


def _json(rel: str) -> Any:
    return json.loads(_file(rel).read_text())


async def _call(url: str, tool: str, args: dict[str, Any]) -> Any:
    async with Client(url) as client:
        return await client.call_tool(tool, args)


def call(server, tool: str, args: dict[str, Any]) -> Any:
    return anyio.run(_call, server.url, tool, args)


def test_every_papers_tool_is_listed_with_schemas(local_server):
    async def main():
        async with Client(local_server.url) as client:
            return (await client.list_tools()).tools

    names = {t.name for t in anyio.run(main)}
    assert {"get_author", "get_citations", "get_references", "get_citation_graph", "find_bridge_papers",
            "recommend_papers", "enrich_paper", "generate_citations", "batch_resolve"} <= names


def test_get_author_by_name_returns_candidates_from_the_recording(local_server, fake):
    recorded = _json("semantic_scholar/search_author_turing.json")
    result = call(local_server, "get_author", {"identifier": "turing"})
    assert not result.is_error, result.structured_content
    assert [c["authorId"] for c in result.structured_content["candidates"]] == [
        a["authorId"] for a in recorded["data"][:5]]


def test_get_author_by_id_returns_profile_and_publications(local_server, fake):
    fake.add_route("GET", "s2", "/graph/v1/author/2262347/papers",
                   body=_file("semantic_scholar/author_papers_offset0.json"), content_type="application/json")
    result = call(local_server, "get_author", {"identifier": "2262347", "limit": 100})
    assert not result.is_error, result.structured_content
    assert result.structured_content["author"]["name"] == "A. Turing"
    assert len(result.structured_content["papers"]) == 100


def test_get_citations_pages_the_recorded_list(local_server, fake):
    fake.add_route("GET", "s2", "/graph/v1/paper/CorpusId:14514057/citations",
                   body=_file("semantic_scholar/paper_citations_offset0.json"), content_type="application/json")
    recorded = _json("semantic_scholar/paper_citations_offset0.json")
    result = call(local_server, "get_citations", {"identifier": "CorpusId:14514057", "limit": 10})
    assert not result.is_error, result.structured_content
    page = result.structured_content
    assert [i["citingPaper"]["paperId"] for i in page["data"]] == [
        r["citingPaper"]["paperId"] for r in recorded["data"][:10]]
    assert page["next_offset"] == 10


def test_get_references_reads_both_recorded_pages(local_server, fake):
    path = "/graph/v1/paper/DOI:10.2139/ssrn.2250500/references"
    fake.add_route("GET", "s2", path, query=None, body=_file("semantic_scholar/paper_references_offset0.json"))
    first = call(local_server, "get_references", {"identifier": "10.2139/ssrn.2250500"})
    fake.add_route("GET", "s2", path, body=_file("semantic_scholar/paper_references_offset50_last_page.json"))
    last = call(local_server, "get_references", {"identifier": "10.2139/ssrn.2250500", "offset": 50})
    assert first.structured_content["next_offset"] == 50
    assert "next_offset" not in last.structured_content  # the last page: absent, not null
    assert len(last.structured_content["data"]) == 17


def test_a_paper_s2_does_not_know_has_its_references_from_crossref(local_server, fake):
    # S2 has no recording of the PLOS paper (the fake's 404); Crossref's recorded work deposits its references.
    result = call(local_server, "get_references", {"identifier": "10.1371/journal.pone.0033693", "limit": 100})
    assert not result.is_error, result.structured_content
    page = result.structured_content
    deposited = _json("crossref/works_by_doi_plos.json")["message"]["reference"]
    assert page["sources"] == ["crossref"] and "next_offset" not in page
    assert page["data"][0]["sources"] == ["crossref"]
    assert page["data"][0]["citedPaper"]["externalIds"]["DOI"] == deposited[0]["DOI"].lower()
    assert 60 < len(page["data"]) <= len(deposited)


def test_a_recorded_400_body_becomes_an_upstream_error(local_server, fake):
    fake.add_route("GET", "s2", "/graph/v1/paper/CorpusId:1/citations", status=400,
                   body=_file("semantic_scholar/paper_invalid_fields_400.json"), content_type="application/json")
    result = call(local_server, "get_citations", {"identifier": "CorpusId:1"})
    assert result.is_error
    error = result.structured_content["error"]
    assert (error["code"], error["status"], error["source"]) == (UPSTREAM_ERROR, 400, "s2")


def test_a_recorded_404_body_becomes_not_found(local_server, fake):
    fake.add_route("GET", "s2", "/graph/v1/author/0", status=404,
                   body=_file("semantic_scholar/author_not_found_404.json"), content_type="application/json")
    result = call(local_server, "get_author", {"identifier": "0"})
    assert result.is_error and result.structured_content["error"]["code"] == NOT_FOUND


def test_a_throttled_citation_list_is_queued_and_its_task_completes(local_server, fake):
    fake.add_route("GET", "s2", "/graph/v1/paper/CorpusId:14514058/citations",
                   body=_file("semantic_scholar/paper_citations_offset0.json"), content_type="application/json")
    fake.inject("s2", "/graph/v1/paper/CorpusId:14514058/citations", status=429, headers={"Retry-After": "5"})
    args = {"identifier": "CorpusId:14514058", "limit": 3}

    async def main():
        async with Client(local_server.url) as client:
            queued = await client.call_tool("get_citations", args)
            task_id = queued.structured_content["task_id"]
            polled = await poll_task(client, task_id)
            return queued, polled

    queued, polled = anyio.run(main)
    assert queued.structured_content["queued"] is True
    assert polled.structured_content["status"] == "completed", polled.structured_content
    assert len(polled.structured_content["result"]["data"]) == 3


def _graph() -> SyntheticGraph:
    papers = recorded_papers(fixtures_dir())[:6]
    s, a, b, c, d, e = (p["paperId"] for p in papers)
    graph = SyntheticGraph(papers, {a: [s], b: [s], c: [s], d: [a], e: [d]})
    graph.ids = dict(zip("SABCDE", (s, a, b, c, d, e), strict=True))
    return graph


def test_get_citation_graph_walks_the_synthetic_graph(local_server, fake):
    graph = _graph()
    graph.install_fake(fake, batches=[graph.bfs(graph.ids["S"], 2)])
    result = call(local_server, "get_citation_graph", {"seed_ids": [graph.ids["S"]], "depth": 2})
    assert not result.is_error, result.structured_content
    out = result.structured_content
    assert {n["id"] for n in out["nodes"]} == {graph.ids[x] for x in "SABCD"}
    assert out["stats"]["truncated"] is False
    # The merged graph (docs/papers.md, "Where citations come from"): S2 answers one list per expanded node (4) and
    # the hydration of the nodes (1 batch), and is asked for the seed's own identifiers, which the other sources need
    # (the seed batch, which this fake answers only for the walk's ids, then the seed by id: 2). The synthetic rows
    # carry no DOI, so no other source is asked. Every request is counted.
    assert out["stats"]["upstream_requests"] == fake.count() == fake.count(source="s2") == 4 + 1 + 2


def test_find_bridge_papers_finds_the_synthetic_path(local_server, fake):
    graph = _graph()
    graph.install_fake(fake, batches=[[graph.ids[x] for x in "EDAS"]])
    result = call(local_server, "find_bridge_papers", {
        "source_id": graph.ids["E"], "target_id": graph.ids["S"], "direction": "references", "max_depth": 3})
    assert not result.is_error, result.structured_content
    assert [p["paperId"] for p in result.structured_content["path"]] == [graph.ids[x] for x in "EDAS"]


def test_recommend_papers_returns_the_recorded_recommendations(local_server, fake):
    s2_id = "cb1ebd913c3724c599f6b276b14b5c6253da68f3"
    fake.add_route("POST", "s2", "/graph/v1/paper/batch", body=json.dumps([{"paperId": s2_id}]).encode(),
                   content_type="application/json")
    fake.add_route("GET", "s2", f"/recommendations/v1/papers/forpaper/{s2_id}",
                   body=_file("semantic_scholar/recommendations_forpaper.json"), content_type="application/json")
    recorded = _json("semantic_scholar/recommendations_forpaper.json")
    result = call(local_server, "recommend_papers", {"positive_ids": ["10.2139/ssrn.2250500"], "limit": 5})
    assert not result.is_error, result.structured_content
    assert [p["paperId"] for p in result.structured_content["data"]] == [
        p["paperId"] for p in recorded["recommendedPapers"][:5]]


def test_enrich_paper_reads_the_recorded_openalex_work(local_server, fake):
    result = call(local_server, "enrich_paper", {"identifier": "10.1073/pnas.1414271111",
                                                 "fields": ["topics", "oa_status"]})
    assert not result.is_error, result.structured_content
    assert result.structured_content["oa_status"]["oa_status"] == "bronze"
    assert result.structured_content["topics"][0]["name"] == _json("openalex/work_by_doi_pnas.json")["topics"][0][
        "display_name"]


def test_generate_citations_writes_parseable_bibtex_from_the_crossref_record(local_server, fake):
    fake.add_route("POST", "s2", "/graph/v1/paper/batch", body=b"[null, null]", content_type="application/json")
    ids = ["10.1371/journal.pone.0033693", "10.1371/notarealdoi"]
    result = call(local_server, "generate_citations", {"paper_ids": ids})
    assert not result.is_error, result.structured_content
    out = result.structured_content
    with warnings.catch_warnings():  # bibtexparser 1.4 uses pyparsing's deprecated API
        warnings.simplefilter("ignore", DeprecationWarning)
        parsed = bibtexparser.loads(out["content"], parser=BibTexParser(common_strings=True))
    assert [(e["ENTRYTYPE"], e["volume"], e["number"]) for e in parsed.entries] == [("article", "7", "3")]
    assert [e["id"] for e in out["errors"]] == ["10.1371/notarealdoi"]


def test_batch_resolve_gives_each_item_its_status(local_server, fake):
    ids = ["CorpusId:211530585", "CorpusId:470667", "10.2139/ssrn.2250500", "0f40b1f08821e22e859c6050916cec3667778613"]
    body = json.dumps({"ids": ["CorpusId:211530585", "CorpusId:470667", "DOI:10.2139/ssrn.2250500", ids[3]]})
    fake.add_route("POST", "s2", "/graph/v1/paper/batch", request_body=body.encode(),
                   body=_file("semantic_scholar/paper_batch_many_fields_with_unknown_id.json"))
    fake.add_route("GET", "openlibrary", "/isbn/9780060273224.json", body=_file("openlibrary/books_OL22951843M.json"))
    result = call(local_server, "batch_resolve", {"identifiers": [*ids, "ISBN:0060273224", "EP1234567A1", "nope"]})
    assert not result.is_error, result.structured_content
    statuses = [i["status"] for i in result.structured_content["items"]]
    assert statuses == ["not_found", "ok", "ok", "ok", "ok", "unavailable", "invalid_id"]


def test_bad_arguments_name_the_field(local_server):
    result = call(local_server, "get_citation_graph", {"seed_ids": [], "depth": 9})
    assert result.is_error
    assert result.structured_content["error"]["code"] == INVALID_ARGUMENT
