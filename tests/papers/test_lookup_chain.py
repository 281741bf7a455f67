"""One paper by any identifier a tool hands out (scholar.services.paper_lookup): a record one source knows is enough.

Recorded answers: an arXiv-only preprint from the recorded arXiv feed (arxiv/query_testing_start0_max10.xml holds
2503.05378, which has no DOI and no journal reference), the PNAS paper's OpenAlex record (work_by_doi_pnas.json,
whose id is W2109415576: served under its own id's path, as OpenAlex serves one work at both) and S2 record, the
INSPIRE record 1842768, and a Europe PMC core search result.
"""

from __future__ import annotations

import json
import warnings

import bibtexparser
import httpx
import pytest
from bibtexparser.bparser import BibTexParser

from scholar.core import aio
from scholar.core.errors import NOT_FOUND, UNAVAILABLE, ScholarError
from scholar.core.records import Paper
from scholar.families.papers import citations, generate
from scholar.families.papers.spec_export import GenerateCitationsInput
from scholar.families.papers.spec_graph import GetReferencesInput
from scholar.services import paper_lookup
from scholar.services.paper_lookup.s2_forms import DATA_NOT_IN_SOURCES
from tests.fallbacks import answer_nothing
from tests.fixtures_dir import fixtures_dir

ARXIV_ONLY = "2503.05378"
PNAS_DOI = "10.1073/pnas.1414271111"
PNAS_S2 = "db3720c812a462ef955d5654b65ca9189d4b8372"
PNAS_W = "W2109415576"
JSON = {"content-type": "application/json"}
S2_404 = "semantic_scholar/paper_not_found_404.json"


def recorded(name: str) -> bytes:
    return (fixtures_dir() / "upstream" / name).read_bytes()


def resolve(raw: str) -> Paper:
    return aio.run(paper_lookup.get_paper(raw))


@pytest.fixture
def arxiv_only(upstream):
    """S2 and OpenAlex lack the preprint; arXiv's API answers with the recorded feed that holds it."""
    answer_nothing(upstream, openalex=True)
    s2 = upstream.get(f"/s2/graph/v1/paper/ARXIV:{ARXIV_ONLY}").respond(404, content=recorded(S2_404), headers=JSON)
    arxiv = upstream.get("/arxiv_api/api/query").respond(
        200, content=recorded("arxiv/query_testing_start0_max10.xml"), headers={"content-type": "application/atom+xml"})
    upstream.post("/s2/graph/v1/paper/batch").respond(200, json=[None])  # S2's batch answer for an unknown id
    upstream.get("/openalex/works").respond(200, json={"meta": {"count": 0}, "results": []})  # SYNTHETIC empty page
    upstream.get(f"/s2/graph/v1/paper/ARXIV:{ARXIV_ONLY}/references").respond(404, content=recorded(S2_404),
                                                                                headers=JSON)
    return s2, arxiv


def test_a_preprint_only_arxiv_knows_resolves_from_arxiv_s_own_record(aws, arxiv_only):
    paper = resolve(f"arXiv:{ARXIV_ONLY}v2")
    assert paper.title == "A Survey on Web Testing: On the Rise of AI and Applications in Industry"
    assert paper.externalIds == {"ArXiv": ARXIV_ONLY} and paper.sources == ["arxiv"]
    assert paper.biblio.eprint_class == "cs.SE"
    # asked for by its id, arXiv answered the feed it has; the chain picked the entry asked for, and cached it
    assert arxiv_only[1].calls[0].request.url.params["id_list"] == ARXIV_ONLY
    assert resolve(f"https://arxiv.org/abs/{ARXIV_ONLY}") == paper
    assert arxiv_only[0].call_count == 1 and arxiv_only[1].call_count == 1


def test_an_arxiv_only_preprint_is_cited_by_arxiv_s_convention(aws, arxiv_only):
    result = aio.run(generate.generate_citations(GenerateCitationsInput(paper_ids=[f"arXiv:{ARXIV_ONLY}"])))
    with warnings.catch_warnings():  # bibtexparser 1.4 calls pyparsing's deprecated names (third-party)
        warnings.simplefilter("ignore", DeprecationWarning)
        (entry,) = bibtexparser.loads(result.content, parser=BibTexParser(common_strings=True)).entries
    assert entry["ENTRYTYPE"] == "misc"
    assert (entry["eprint"], entry["archiveprefix"], entry["primaryclass"]) == (ARXIV_ONLY, "arXiv", "cs.SE")
    assert "archivePrefix = {arXiv}" in result.content and "primaryClass = {cs.SE}" in result.content


def test_the_references_of_an_arxiv_only_preprint_are_said_to_be_missing_not_the_paper(aws, arxiv_only):
    with pytest.raises(ScholarError) as caught:
        aio.run(citations.get_references(GetReferencesInput(identifier=f"arXiv:{ARXIV_ONLY}")))
    assert (caught.value.code, caught.value.reason) == (UNAVAILABLE, DATA_NOT_IN_SOURCES)
    assert caught.value.details["known_by"] == ["arxiv"] and caught.value.retryable is False


def test_an_openalex_id_resolves_to_the_same_canonical_record_as_the_doi(aws, upstream):
    work = upstream.get(f"/openalex/works/{PNAS_W}").respond(200, content=recorded("openalex/work_by_doi_pnas.json"),
                                                             headers=JSON)
    s2 = upstream.get(f"/s2/graph/v1/paper/DOI:{PNAS_DOI}").respond(
        200, content=recorded("semantic_scholar/paper_by_doi_many_fields_pnas.json"), headers=JSON)
    paper = resolve(f"https://openalex.org/{PNAS_W}")
    assert paper.paperId == PNAS_S2 and paper.sources == ["s2", "openalex"]
    assert paper.externalIds["OpenAlex"] == PNAS_W and paper.externalIds["DOI"] == PNAS_DOI
    # the DOI now names the same record without another request
    assert resolve(PNAS_DOI) == paper and (work.call_count, s2.call_count) == (1, 1)


def test_an_inspire_record_resolves_by_its_control_number(aws, upstream):
    upstream.get("/inspire/api/literature/1842768").respond(
        200, content=recorded("inspire/literature_record_1842768.json"), headers=JSON)
    upstream.get("/s2/graph/v1/paper/DOI:10.1016/j.nuclphysa.2021.122138").respond(
        404, content=recorded(S2_404), headers=JSON)
    paper = resolve("INSPIRE:1842768")
    assert paper.sources == ["inspire"] and paper.externalIds["INSPIRE"] == "1842768"
    assert paper.biblio.citation_key == "Tabar:2021rrw" and paper.journal.volume == "1008"


def test_a_pubmed_id_s2_and_openalex_lack_is_found_in_europe_pmc(aws, upstream):
    core = json.loads(recorded("europepmc/search_cancer_core.json"))
    pmid = core["resultList"]["result"][0]["pmid"]
    upstream.get(f"/s2/graph/v1/paper/PMID:{pmid}").respond(404, content=recorded(S2_404), headers=JSON)
    upstream.get(f"/openalex/works/pmid:{pmid}").respond(
        404, content=recorded("openalex/work_by_doi_not_found_404.html"), headers={"content-type": "text/html"})
    search = upstream.get("/europepmc/europepmc/webservices/rest/search").respond(200, json=core)
    paper = resolve(f"PMID:{pmid}")
    assert paper.externalIds["PubMed"] == pmid and paper.sources == ["europepmc"]
    assert search.calls[0].request.url.params["query"] == f"EXT_ID:{pmid} AND SRC:MED"


def test_no_source_holding_an_arxiv_id_is_not_found_naming_every_source_asked(aws, upstream):
    upstream.get("/s2/graph/v1/paper/ARXIV:0000.00001").respond(404, content=recorded(S2_404), headers=JSON)
    answer_nothing(upstream, openalex=True)
    with pytest.raises(ScholarError) as caught:
        resolve("arXiv:0000.00001")
    assert caught.value.code == NOT_FOUND
    assert caught.value.details["asked"] == ["s2", "openalex", "arxiv_api", "inspire"]


def test_a_recent_search_record_answers_every_id_it_lists_without_an_upstream_request(aws, upstream):
    merged = Paper(paperId=PNAS_S2, title="Developing functional musculoskeletal tissues", sources=["s2", "openalex"],
                   externalIds={"DOI": PNAS_DOI, "OpenAlex": PNAS_W, "PubMed": "25349395", "CorpusId": "10888161"})
    aio.run(paper_lookup.remember([merged]))
    for raw in (PNAS_S2, PNAS_DOI, PNAS_W, "PMID:25349395", "CorpusId:10888161"):
        assert resolve(raw) == merged
    assert upstream.calls.call_count == 0


def test_a_source_that_fails_stops_the_chain_with_its_error(aws, upstream, env):
    env(SCHOLAR_RETRY_BUDGET_S="0")
    upstream.get(f"/s2/graph/v1/paper/ARXIV:{ARXIV_ONLY}").mock(return_value=httpx.Response(503, json={"e": 1}))
    with pytest.raises(ScholarError) as caught:
        resolve(f"arXiv:{ARXIV_ONLY}")
    assert caught.value.code == "upstream_error" and caught.value.source == "s2"
    assert aws.dynamodb.scan(TableName=aws.cache_table)["Count"] == 0
