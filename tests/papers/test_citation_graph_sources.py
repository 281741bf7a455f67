"""The merged citation graph (scholar.services.citation_graph) behind get_references and get_citations: a paper
Semantic Scholar does not know still has its references and citations from OpenAlex, Crossref, Europe PMC and
INSPIRE-HEP; rows of one work merge into one, each naming the sources that list it; a failing source is named and
nothing partial is cached.

Recorded bodies: Crossref's deposited references of a PLOS paper, Europe PMC's citations of PMID 15723116 (recorded
at the legacy path-style URL of the same endpoint; served here at the current path), INSPIRE's record 1842768 with
its references, S2's and OpenAlex's recorded 404s. SYNTHETIC: INSPIRE's literature search envelope holding that
recorded record as its one hit, and its empty search ({"hits": {"hits": [], "total": 0}}) as in tests/fallbacks.
"""

import json

import pytest

from scholar.core import aio
from scholar.core.errors import NOT_FOUND, UPSTREAM_ERROR, ScholarError
from scholar.core.paper_mapping import from_s2
from scholar.families.papers import citations
from scholar.families.papers.bridge import find_bridge
from scholar.families.papers.graph import citation_graph
from scholar.families.papers.spec_graph import (
    FindBridgePapersInput,
    GetCitationGraphInput,
    GetCitationsInput,
    GetReferencesInput,
)
from scholar.services.citation_graph import merge
from scholar.services.citation_graph.many import read_many
from scholar.services.citation_graph.rows import from_crossref_reference
from tests.fallbacks import SYNTHETIC_INSPIRE_EMPTY

PLOS = "10.1371/journal.pone.0033693"
NUCL = "10.1016/j.nuclphysa.2021.122138"
JSON = {"Content-Type": "application/json"}
EPMC_CITATIONS = "/europepmc/europepmc/webservices/rest/MED/15723116/citations"


@pytest.fixture
def merged(env):
    # No retries: a failing source is reported at once (the retry budget is tested with the HTTP layer).
    env.set(SCHOLAR_CITATION_SOURCES="s2,openalex,crossref,europepmc,inspire", SCHOLAR_RETRY_BUDGET_S="0")


def nobody_else(upstream, fixture_file, *, skip=()):
    """Every source not routed by the test has no record (register after the test's own routes: first match wins;
    ``skip`` the sources a test routes with the same pattern, which respx would replace)."""
    if "s2" not in skip:
        upstream.route(url__regex=r".*/s2/graph/v1/paper/.*").respond(
            404, content=fixture_file("upstream/semantic_scholar/paper_by_doi_not_found_404.json"), headers=JSON
        )
    upstream.route(url__regex=r".*/openalex/works.*").respond(
        404,
        content=fixture_file("upstream/openalex/work_by_doi_not_found_404.html"),
        headers={"content-type": "text/html"},
    )
    if "crossref" not in skip:
        upstream.route(url__regex=r".*/crossref/works/.*").respond(
            404, content=fixture_file("upstream/crossref/works_by_doi_not_found_404.txt")
        )
    if "europepmc" not in skip:
        upstream.route(url__regex=r".*/europepmc/webservices/rest/search.*").respond(
            200, content=fixture_file("upstream/europepmc/search_no_results.json"), headers=JSON
        )
    upstream.route(url__regex=r".*/inspire/api/literature.*").respond(200, json=SYNTHETIC_INSPIRE_EMPTY)


def references(**kwargs):
    return aio.run(citations.list_papers("references", GetReferencesInput(**kwargs)))


def cited_by(**kwargs):
    return aio.run(citations.list_papers("citations", GetCitationsInput(**kwargs)))


def test_a_paper_s2_does_not_know_has_its_references_from_crossref(aws, upstream, fixture_file, merged):
    route = upstream.get(f"/crossref/works/{PLOS}").respond(
        200, content=fixture_file("upstream/crossref/works_by_doi_plos.json"), headers=JSON
    )
    nobody_else(upstream, fixture_file)
    deposited = json.loads(fixture_file("upstream/crossref/works_by_doi_plos.json"))["message"]["reference"]

    result = references(identifier=PLOS, limit=100)

    assert route.called
    # One work per distinct DOI or title: the deposit lists one report twice (same title, author and year).
    works = {(r.get("DOI") or "").lower() or r.get("article-title") for r in deposited} - {None}
    assert len(result.data) == len(works) > 0
    assert result.data[0].citedPaper.externalIds == {"DOI": deposited[0]["DOI"].lower()}
    assert {tuple(i.sources or []) for i in result.data} == {("crossref",)}
    assert result.sources == ["crossref"] and result.partial is False and result.next_offset is None


def test_a_paper_s2_does_not_know_has_its_citations_from_europe_pmc(aws, upstream, fixture_file, merged):
    recorded = json.loads(fixture_file("upstream/europepmc/citations_MED_15723116_page1.json"))
    route = upstream.get(EPMC_CITATIONS).respond(200, json=recorded)
    nobody_else(upstream, fixture_file)

    result = cited_by(identifier="PMID:15723116", limit=10)

    assert route.calls.last.request.url.params["format"] == "json"
    titles = [r["title"] for r in recorded["citationList"]["citation"]]
    assert [i.citingPaper.title for i in result.data] == titles[:10]
    assert result.data[0].citingPaper.externalIds["PubMed"] == recorded["citationList"]["citation"][0]["id"]
    assert all(i.sources == ["europepmc"] for i in result.data)
    assert result.next_offset == 10


def test_inspire_lists_the_references_of_a_paper_only_it_holds(aws, upstream, fixture_file, merged):
    record = json.loads(fixture_file("upstream/inspire/literature_record_1842768.json"))
    upstream.get("/inspire/api/literature", params={"q": f"doi:{NUCL}"}).respond(
        200, json={"hits": {"hits": [record], "total": 1}}
    )
    upstream.get("/inspire/api/literature/1842768").respond(200, json=record)
    nobody_else(upstream, fixture_file)

    result = references(identifier=NUCL, limit=100)

    refs = record["metadata"]["references"]
    # Entries with neither a cited record, a DOI, an arXiv id nor a title cannot be told apart: they are left out.
    told = [
        r for r in refs if r.get("record") or {k for k in ("dois", "arxiv_eprint", "title") if r["reference"].get(k)}
    ]
    assert len(result.data) == len(told) < len(refs)
    assert result.data[0].citedPaper.externalIds["INSPIRE"] == refs[0]["record"]["$ref"].rsplit("/", 1)[-1]
    assert result.sources == ["inspire"]


def test_a_failing_source_is_named_the_answer_partial_and_nothing_cached(aws, upstream, fixture_file, merged):
    crossref = upstream.get(f"/crossref/works/{PLOS}").respond(
        200, content=fixture_file("upstream/crossref/works_by_doi_plos.json"), headers=JSON
    )
    upstream.route(url__regex=r".*/europepmc/webservices/rest/search.*").respond(503)
    nobody_else(upstream, fixture_file, skip=("europepmc",))

    first = references(identifier=PLOS, limit=5)
    references(identifier=PLOS, limit=5)

    assert first.partial is True and [f.source for f in first.failed_sources] == ["europepmc"]
    assert len(first.data) == 5
    assert crossref.call_count == 2  # not cached


def test_when_every_source_that_could_answer_fails_the_call_fails(aws, upstream, fixture_file, merged):
    upstream.route(url__regex=r".*/s2/graph/v1/paper/.*").respond(503)
    upstream.route(url__regex=r".*/crossref/works/.*").respond(503)
    nobody_else(upstream, fixture_file, skip=("s2", "crossref"))

    with pytest.raises(ScholarError) as caught:
        references(identifier=PLOS, limit=5)

    assert caught.value.code == UPSTREAM_ERROR


def test_a_paper_no_source_lists_is_not_found(aws, upstream, fixture_file, merged):
    nobody_else(upstream, fixture_file)

    with pytest.raises(ScholarError) as caught:
        references(identifier="10.1371/notarealdoi", limit=5)

    assert caught.value.code == NOT_FOUND


def test_rows_of_one_work_from_two_sources_are_one_link_naming_both(fixture_file):
    deposited = json.loads(fixture_file("upstream/crossref/works_by_doi_plos.json"))["message"]["reference"]
    from_crossref = [p for r in deposited[:3] if (p := from_crossref_reference(r))]
    # S2's row for the first reference: the same DOI in S2's form (its 40-hex id made up for the test).
    s2_row = from_s2(
        {"paperId": "a" * 40, "externalIds": {"DOI": deposited[0]["DOI"].upper()}}, ("paperId", "externalIds")
    )

    links = merge({"s2": [s2_row], "crossref": from_crossref})

    assert len(links) == 3
    assert links[0].sources == ["s2", "crossref"] and links[0].paper.paperId == "a" * 40
    assert [link.sources for link in links[1:]] == [["crossref"], ["crossref"]]


def test_the_citation_graph_of_a_paper_s2_does_not_know_is_built_from_the_others(aws, upstream, fixture_file, merged):
    upstream.get(f"/crossref/works/{PLOS}").respond(
        200, content=fixture_file("upstream/crossref/works_by_doi_plos.json"), headers=JSON)
    nobody_else(upstream, fixture_file)

    result = aio.run(citation_graph(GetCitationGraphInput(seed_ids=[PLOS], direction="references", max_nodes=20)))

    seed = f"doi:{PLOS}"
    assert result.nodes[0].id == seed and result.nodes[0].depth == 0
    cited = [e for e in result.edges if e.source == seed]
    assert len(result.nodes) == len(cited) + 1 > 10
    assert all(e.sources == ["crossref"] for e in cited) and result.sources == ["crossref"]
    assert result.nodes[1].id == "doi:10.1038/sj.npp.1301164" and result.nodes[1].title
    assert result.partial is False


def test_search_expansion_asks_openalex_once_per_hop_for_all_seeds(aws, upstream, fixture_file):
    # A recorded /works list answer (a title search's) stands for the filter's answer: the same list shape.
    recorded = json.loads(fixture_file("upstream/openalex/works_filter_title_search.json"))
    route = upstream.get("/openalex/works").respond(200, json=recorded)

    many = aio.run(read_many([], ["W1", "W2"], ["references", "citations"], s2_fields=[], per_hop=30,
                             sources=("s2", "openalex")))

    assert sorted(c.request.url.params["filter"] for c in route.calls) == ["cited_by:W1|W2", "cites:W1|W2"]
    assert [p.title for p in many.openalex["citations"]] == [w["display_name"] for w in recorded["results"]]
    assert many.failed == []


def test_a_failing_openalex_hop_is_named_not_empty(aws, upstream, env):
    env.set(SCHOLAR_RETRY_BUDGET_S="0")
    upstream.get("/openalex/works").respond(503)

    many = aio.run(read_many([], ["W1"], ["citations"], s2_fields=[], per_hop=15, sources=("openalex",)))

    assert "citations" not in many.openalex
    assert [(f.source, f.code) for f in many.failed] == [("openalex", UPSTREAM_ERROR)]


def test_a_bridge_from_a_paper_s2_does_not_know_follows_the_merged_graph(aws, upstream, fixture_file, merged):
    upstream.get(f"/crossref/works/{PLOS}").respond(
        200, content=fixture_file("upstream/crossref/works_by_doi_plos.json"), headers=JSON)
    nobody_else(upstream, fixture_file)
    cited = "10.1038/sj.npp.1301164"  # the PLOS paper's first deposited reference

    result = aio.run(find_bridge(FindBridgePapersInput(source_id=PLOS, target_id=cited, direction="references",
                                                       max_depth=1)))

    assert result.found is True and result.length == 1
    assert [(h.source, h.target, h.sources) for h in result.hops] == [(f"doi:{PLOS}", f"doi:{cited}", ["crossref"])]
    assert result.path[1].title == "Stimulants: Therapeutic actions in ADHD."


def test_a_paper_a_source_knows_without_references_has_an_empty_list_not_an_error(aws, upstream, fixture_file, merged):
    doi = "10.3892/ijo_00000353"  # Crossref's recorded sparse record deposits no references
    upstream.get(f"/crossref/works/{doi}").respond(
        200, content=fixture_file("upstream/crossref/works_by_doi_minimal_record.json"), headers=JSON)
    nobody_else(upstream, fixture_file)

    result = references(identifier=doi, limit=5)

    assert result.data == [] and result.partial is False and result.next_offset is None
