"""batch_resolve (scholar.families.papers.batch): mixed ids, per-item status, S2 batch → OpenAlex OR-filter →
Crossref."""

import json
from urllib.parse import parse_qs

import httpx
import pytest

from scholar.core import aio
from scholar.families.papers import batch
from scholar.families.papers.chapters import split_citation
from scholar.families.papers.spec_export import BatchResolveInput

# Past S2, OpenAlex and Crossref, the lookup chain's other sources hold none of these papers.
pytestmark = pytest.mark.usefixtures("no_fallback_source")

JSON = {"Content-Type": "application/json"}
S2_BATCH = "/s2/graph/v1/paper/batch"
RECORDED_IDS = ["CorpusId:211530585", "CorpusId:470667", "10.2139/ssrn.2250500",
                "0f40b1f08821e22e859c6050916cec3667778613"]


def run(identifiers, **kwargs):
    return aio.run(batch.batch_resolve(BatchResolveInput(identifiers=identifiers, **kwargs)))


def openalex_results(fixture_file, *names):
    """SYNTHETIC list page (meta + results) wrapping recorded OpenAlex works."""
    works = [json.loads(fixture_file(f"upstream/openalex/{n}")) for n in names]
    return {"meta": {"count": len(works), "page": 1, "per_page": 50}, "results": works}


@pytest.fixture
def book_routes(upstream, fixture_file):
    upstream.get("/openlibrary/isbn/9780060273224.json").respond(
        200, content=fixture_file("upstream/openlibrary/books_OL22951843M.json"), headers=JSON
    )
    upstream.get("/openlibrary/works/OL15832982W.json").respond(
        200, content=fixture_file("upstream/openlibrary/works_OL15832982W.json"), headers=JSON
    )
    upstream.get("/openlibrary/authors/OL382982A.json").respond(404, json={"error": "notfound"})


def test_mixed_identifiers_each_get_a_status_from_one_s2_batch_request(aws, upstream, fixture_file, book_routes):
    s2 = upstream.post(S2_BATCH).respond(
        200, content=fixture_file("upstream/semantic_scholar/paper_batch_many_fields_with_unknown_id.json"),
        headers=JSON,
    )
    ids = [*RECORDED_IDS[:2], f"{RECORDED_IDS[2]}, ch. 3, pp. 45-67", RECORDED_IDS[3],
           "ISBN:0060273224", "EP1234567A1", "10.1234/", "https://example.org/paper.pdf"]

    result = run(ids)

    assert s2.call_count == 1
    assert json.loads(s2.calls.last.request.content)["ids"] == [
        "CorpusId:211530585", "CorpusId:470667", "DOI:10.2139/ssrn.2250500", RECORDED_IDS[3]]
    statuses = [(i.status, i.source_type) for i in result.items]
    assert statuses == [
        ("not_found", "paper"), ("ok", "paper"), ("ok", "paper"), ("ok", "paper"),
        ("ok", "book"), ("unavailable", "patent"), ("invalid_id", None), ("invalid_id", None),
    ]
    assert result.items[2].paper.externalIds["DOI"] == "10.2139/ssrn.2250500"
    assert result.items[2].chapter_info.chapter == "3" and result.items[2].chapter_info.pages == "45-67"
    assert result.items[4].book["title"] == "Sabriel" and result.items[4].source == "openlibrary"
    assert "patents" in result.items[5].error
    assert result.counts == {"not_found": 1, "ok": 4, "unavailable": 1, "invalid_id": 2}
    assert result.partial is False


def test_papers_s2_lacks_fall_back_to_one_openalex_request_then_crossref(aws, upstream, fixture_file):
    dois = ["10.1073/pnas.1414271111", "10.1023/a:1007154515475", "10.1371/journal.pone.0033693",
            "10.1371/notarealdoi"]
    upstream.post(S2_BATCH).respond(200, json=[None] * 4, headers=JSON)  # the recorded null-entry shape
    openalex = upstream.get("/openalex/works").respond(
        200, json=openalex_results(fixture_file, "work_by_doi_pnas.json", "work_by_doi_springer_1999.json")
    )
    plos = upstream.get("/crossref/works/10.1371/journal.pone.0033693").respond(
        200, content=fixture_file("upstream/crossref/works_by_doi_plos.json"), headers=JSON
    )
    missing = upstream.get("/crossref/works/10.1371/notarealdoi").respond(
        404, content=fixture_file("upstream/crossref/works_by_doi_not_found_404.txt")
    )

    result = run(dois)

    assert [(i.status, i.source) for i in result.items] == [
        ("ok", "openalex"), ("ok", "openalex"), ("ok", "crossref"), ("not_found", None)]
    assert openalex.call_count == 1
    assert parse_qs(openalex.calls.last.request.url.query.decode())["filter"] == [f"doi:{'|'.join(dois)}"]
    assert (plos.call_count, missing.call_count) == (1, 1)
    assert result.items[2].paper.title.startswith("Methylphenidate")


def test_a_throttled_s2_gives_rate_limited_items_and_names_the_failed_source(aws, upstream, env, fixture_file):
    env(SCHOLAR_RETRY_BUDGET_S="0")
    upstream.post(S2_BATCH).respond(429, headers={"Retry-After": "30"}, json={"message": "Too Many Requests"})
    upstream.get("/openalex/works").respond(200, json=openalex_results(fixture_file, "work_by_doi_pnas.json"))

    result = run(["10.1073/pnas.1414271111", "c31c87c591a25c64fbaa82e8ac6a81831b6ac7ce"])

    assert [(i.status, i.source) for i in result.items] == [("ok", "openalex"), ("rate_limited", None)]
    assert result.partial is True
    assert [(f.source, f.code, f.status) for f in result.failed_sources] == [("s2", "rate_limited", 429)]


def test_a_hundred_dois_cost_one_s2_request_and_two_openalex_requests(aws, upstream, fixture_file):
    template = json.loads(fixture_file("upstream/openalex/work_by_doi_pnas.json"))
    dois = [f"10.5555/bench.{i}" for i in range(100)]

    def openalex(request):
        wanted = parse_qs(request.url.query.decode())["filter"][0].removeprefix("doi:").split("|")
        works = [{**template, "doi": f"https://doi.org/{d}", "id": f"https://openalex.org/W{n}"}
                 for n, d in enumerate(wanted)]  # SYNTHETIC: the recorded work under each asked DOI
        return httpx.Response(200, json={"meta": {"count": len(works)}, "results": works})

    s2 = upstream.post(S2_BATCH).mock(side_effect=lambda r: httpx.Response(200, json=[None] * 100))
    alex = upstream.get("/openalex/works").mock(side_effect=openalex)
    crossref = upstream.route(path__startswith="/crossref/")

    result = run(dois)

    assert result.counts == {"ok": 100}
    assert (s2.call_count, alex.call_count, crossref.call_count) == (1, 2, 0)


def test_an_s2_hex_id_that_starts_like_a_patent_office_is_a_paper(aws, upstream):
    hex_id = "de" + "1234567890abcdef" * 2 + "123456"
    route = upstream.post(S2_BATCH).respond(200, json=[{"paperId": hex_id, "title": "T"}], headers=JSON)
    result = run([hex_id])
    assert result.items[0].status == "ok" and result.items[0].source_type == "paper"
    assert route.call_count == 1


@pytest.mark.parametrize(
    ("text", "ident", "chapter", "pages", "section"),
    [
        ("10.1007/978-3-030-12345-6, Chapter 3", "10.1007/978-3-030-12345-6", "3", None, None),
        ("10.1007/978-3-030-12345-6 pp. 45–67", "10.1007/978-3-030-12345-6", None, "45-67", None),
        ("ISBN:9780262035613, ch. IV, p. 12", "ISBN:9780262035613", "IV", "12", None),
        ("10.1002/ch.123", "10.1002/ch.123", None, None, None),
        ("10.1145/1234567.890 § 4.2", "10.1145/1234567.890", None, None, "4.2"),
    ],
)
def test_chapter_and_page_references_are_split_off_the_identifier(text, ident, chapter, pages, section):
    found, info = split_citation(text)
    assert found == ident
    if chapter is None and pages is None and section is None:
        assert info is None
    else:
        assert (info.chapter, info.pages, info.section) == (chapter, pages, section)
