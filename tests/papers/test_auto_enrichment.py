"""Auto-enrichment (scholar.families.papers.autoenrich): Crossref details by DOI, Open Library book_metadata by ISBN.

Failures are reported as failed_sources (never silently dropped); "not found" leaves the record as it was.
"""

import json

from scholar.core import aio
from scholar.core.records import Paper
from scholar.families.papers import autoenrich, citations
from scholar.families.papers.spec_graph import GetReferencesInput

JSON = {"Content-Type": "application/json"}
PLOS = "10.1371/journal.pone.0033693"
ISBN13 = "9780060273224"


def enrich(papers, **kwargs):
    return aio.run(autoenrich.enrich(papers, **kwargs))


def openlibrary_routes(upstream, fixture_file):
    isbn = upstream.get(f"/openlibrary/isbn/{ISBN13}.json").respond(
        200, content=fixture_file("upstream/openlibrary/books_OL22951843M.json"), headers=JSON)
    upstream.get("/openlibrary/works/OL15832982W.json").respond(
        200, content=fixture_file("upstream/openlibrary/works_OL15832982W.json"), headers=JSON)
    upstream.get("/openlibrary/authors/OL382982A.json").respond(404, json={"error": "notfound"})
    return isbn


def test_a_doi_gets_crossref_details_once_then_from_the_cache(aws, upstream, fixture_file):
    route = upstream.get(f"/crossref/works/{PLOS}").respond(
        200, content=fixture_file("upstream/crossref/works_by_doi_plos.json"), headers=JSON)
    paper = Paper(title="x", externalIds={"DOI": PLOS}, sources=["s2"])

    (first,), failures = enrich([paper], crossref=True, books=False)
    (again,), _ = enrich([paper], crossref=True, books=False)

    assert failures == []
    assert (first.biblio.volume, first.biblio.issue, first.biblio.pages) == ("7", "3", "e33693")
    assert first.biblio.publisher == "Public Library of Science (PLoS)" and first.biblio.month == 3
    assert first.sources == ["s2", "crossref"]
    assert again == first and route.call_count == 1


def test_a_doi_crossref_lacks_stays_as_it_was_without_a_failure(aws, upstream, fixture_file):
    upstream.get("/crossref/works/10.1371/notarealdoi").respond(
        404, content=fixture_file("upstream/crossref/works_by_doi_not_found_404.txt"))
    paper = Paper(externalIds={"DOI": "10.1371/notarealdoi"}, sources=["s2"])
    assert enrich([paper], crossref=True, books=False) == ([paper], [])


def test_arxiv_datacite_dois_are_not_sent_to_crossref(aws, upstream):
    crossref = upstream.route(path__startswith="/crossref/")
    paper = Paper(externalIds={"DOI": "10.48550/arXiv.2312.07559"}, sources=["s2"])
    assert enrich([paper], crossref=True, books=False) == ([paper], [])
    assert crossref.call_count == 0


def test_an_isbn_gets_open_library_book_metadata(aws, upstream, fixture_file):
    openlibrary_routes(upstream, fixture_file)
    paper = Paper(title="Sabriel", externalIds={"ISBN": "0060273224"}, sources=["s2"])

    (found,), failures = enrich([paper], crossref=False, books=True)

    assert failures == []
    assert found.book_metadata["publisher"] == "Harper Trophy"
    assert found.book_metadata["isbn_13"] == ISBN13
    assert found.book_metadata["openlibrary_work_id"] == "OL15832982W"
    assert found.sources == ["s2", "openlibrary"]


def test_a_failing_source_is_reported_not_dropped(aws, upstream, env):
    env(SCHOLAR_RETRY_BUDGET_S="0")
    upstream.get(f"/crossref/works/{PLOS}").respond(503, text="Service Unavailable")
    upstream.get(f"/openlibrary/isbn/{ISBN13}.json").respond(429, headers={"Retry-After": "5"}, json={})
    paper = Paper(externalIds={"DOI": PLOS, "ISBN": ISBN13}, sources=["s2"])

    (same,), failures = enrich([paper], crossref=True, books=True)

    assert same == paper
    assert sorted((f.source, f.code) for f in failures) == [("crossref", "upstream_error"),
                                                            ("openlibrary", "rate_limited")]


def test_a_reference_list_attaches_book_metadata_and_is_partial_when_open_library_fails(aws, upstream, env,
                                                                                        fixture_file):
    env(SCHOLAR_RETRY_BUDGET_S="0")
    # SYNTHETIC: the recorded reference page with an ISBN added to the first cited paper's externalIds.
    page = json.loads(fixture_file("upstream/semantic_scholar/paper_references_offset0.json"))
    page["data"][0]["citedPaper"]["externalIds"] = {"ISBN": ISBN13}
    route = upstream.get("/s2/graph/v1/paper/DOI:10.2139/ssrn.2250500/references").respond(200, json=page)
    isbn = upstream.get(f"/openlibrary/isbn/{ISBN13}.json")
    isbn.respond(429, headers={"Retry-After": "5"}, json={})
    args = GetReferencesInput(identifier="10.2139/ssrn.2250500", fields="standard", limit=3)

    failing = aio.run(citations.list_papers("references", args))
    assert failing.partial is True and failing.failed_sources[0].source == "openlibrary"
    assert failing.data[0].citedPaper.book_metadata is None

    openlibrary_routes(upstream, fixture_file)
    fine = aio.run(citations.list_papers("references", args))
    assert fine.partial is False
    assert fine.data[0].citedPaper.book_metadata["publisher"] == "Harper Trophy"
    assert route.call_count == 2  # the partial answer was not cached
