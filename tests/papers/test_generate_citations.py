"""generate_citations (scholar.families.papers.generate, scholar.services.cite): every output parsed by a real parser.

BibTeX with bibtexparser 1.4, RIS with rispy, CSL-JSON validated against shared/schemas/csl-data.json.
Papers: PNAS (S2 record), an IEEE proceedings paper and a PLOS article (Crossref records), the PaperQA
arXiv preprint (S2 record), a book by ISBN (Open Library records) and a DOI nobody has.
"""

import json
import warnings
from pathlib import Path

import bibtexparser
import httpx
import jsonschema
import pytest
import rispy
from bibtexparser.bparser import BibTexParser

from scholar.core import aio
from scholar.core.errors import NOT_FOUND, TIMEOUT, UPSTREAM_ERROR, ScholarError
from scholar.core.records import Author, Paper
from scholar.families.papers import generate
from scholar.families.papers.spec_export import GenerateCitationsInput
from scholar.services.cite import build_entries, to_bibtex, to_csl, to_ris
from scholar.services.cite.names import parse_name
from tests.fixtures_dir import fixtures_dir

# Past S2, OpenAlex and Crossref, the lookup chain's other sources hold none of these papers.
pytestmark = pytest.mark.usefixtures("no_fallback_source")

JSON = {"Content-Type": "application/json"}
PNAS = "10.1073/pnas.1414271111"
IEEE = "10.1109/icdcsw.2003.1203662"
PLOS = "10.1371/journal.pone.0033693"
MISSING = "10.1371/notarealdoi"
IDS = [PNAS, IEEE, PLOS, "arXiv:2312.07559", MISSING, "ISBN:0060273224"]


def parse_bibtex(text: str):
    # bibtexparser 1.4 calls pyparsing's deprecated camelCase API (third-party; pytest turns warnings into errors).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return bibtexparser.loads(text, parser=BibTexParser(common_strings=True))


def csl_schema():
    return json.loads((fixtures_dir().parent / "schemas" / "csl-data.json").read_text())


@pytest.fixture
def routes(upstream, fixture_file):
    s2 = [json.loads(fixture_file("upstream/semantic_scholar/paper_by_doi_many_fields_pnas.json")), None, None,
          json.loads(fixture_file("upstream/semantic_scholar/paper_by_arxiv_doi.json")), None]
    upstream.post("/s2/graph/v1/paper/batch").respond(200, json=s2, headers=JSON)  # SYNTHETIC batch of recorded records
    upstream.get("/openalex/works").respond(200, json={"meta": {"count": 0}, "results": []})  # SYNTHETIC empty page
    upstream.get(f"/crossref/works/{IEEE}").respond(
        200, content=fixture_file("upstream/crossref/works_by_doi_proceedings_article.json"), headers=JSON)
    upstream.get(f"/crossref/works/{PLOS}").respond(
        200, content=fixture_file("upstream/crossref/works_by_doi_plos.json"), headers=JSON)
    for doi in (MISSING, PNAS):
        upstream.get(f"/crossref/works/{doi}").respond(
            404, content=fixture_file("upstream/crossref/works_by_doi_not_found_404.txt"))
    upstream.get("/openlibrary/isbn/9780060273224.json").respond(
        200, content=fixture_file("upstream/openlibrary/books_OL22951843M.json"), headers=JSON)
    upstream.get("/openlibrary/works/OL15832982W.json").respond(
        200, content=fixture_file("upstream/openlibrary/works_OL15832982W.json"), headers=JSON)
    upstream.get("/openlibrary/authors/OL382982A.json").respond(404, json={"error": "notfound"})


def run(fmt, ids=IDS, **kwargs):
    return aio.run(generate.generate_citations(GenerateCitationsInput(paper_ids=ids, citation_format=fmt, **kwargs)))


def test_bibtex_parses_and_carries_crossref_grade_fields_and_entry_types(aws, routes):
    result = run("bibtex")

    parsed = parse_bibtex(result.content)
    entries = {e["ID"]: e for e in parsed.entries}
    assert result.count == len(parsed.entries) == 5
    by_type = sorted(e["ENTRYTYPE"] for e in parsed.entries)
    assert by_type == ["article", "article", "book", "inproceedings", "misc"]
    plos = next(e for e in entries.values() if e.get("doi") == PLOS)
    assert (plos["volume"], plos["number"], plos["pages"], plos["issn"]) == ("7", "3", "e33693", "1932-6203")
    assert plos["publisher"] == "Public Library of Science (PLoS)"
    assert plos["month"] == "March" and plos["year"] == "2012"
    assert plos["author"].startswith("Sadasivan, Shankar and Pond, Brooks B.")
    ieee = next(e for e in entries.values() if e.get("doi") == IEEE)
    assert ieee["ENTRYTYPE"] == "inproceedings" and ieee["pages"] == "877--882" and ieee["publisher"] == "IEEE"
    assert ieee["booktitle"].startswith("23rd International Conference")
    preprint = next(e for e in entries.values() if e["ENTRYTYPE"] == "misc")
    assert (preprint["eprint"], preprint["archiveprefix"]) == ("2312.07559", "arXiv")
    assert "volume" not in preprint
    book = next(e for e in entries.values() if e["ENTRYTYPE"] == "book")
    assert book["publisher"] == "Harper Trophy" and book["isbn"] == "9780060273224"
    pnas = next(e for e in entries.values() if e.get("doi") == PNAS)
    assert (pnas["journal"], pnas["volume"], pnas["pages"]) == (
        "Proceedings of the National Academy of Sciences", "111", "E4832--E4841")


def test_unresolved_ids_are_listed_apart_and_only_commented_in_bibtex(aws, routes):
    result = run("bibtex")
    assert [(e.id, e.code) for e in result.errors] == [(MISSING, "not_found")]
    parsed = parse_bibtex(result.content)
    assert all(e.get("doi") != MISSING for e in parsed.entries)
    assert any(MISSING in c for c in parsed.comments)


def test_ris_parses_with_types_and_never_mentions_unresolved_ids(aws, routes):
    result = run("ris")

    records = rispy.loads(result.content)
    assert [r["type_of_reference"] for r in records] == ["JOUR", "CONF", "JOUR", "UNPB", "BOOK"]
    assert MISSING not in result.content
    assert [(e.id, e.code) for e in result.errors] == [(MISSING, "not_found")]
    plos = records[2]
    assert (plos["volume"], plos["number"], plos["start_page"]) == ("7", "3", "e33693")
    assert plos["publisher"] == "Public Library of Science (PLoS)" and plos["issn"] == "1932-6203"
    assert records[4]["issn"] == "9780060273224"  # RIS carries the ISBN in SN
    assert records[1]["end_page"] == "882"


def test_csl_json_is_valid_against_the_csl_schema(aws, routes):
    result = run("csl-json")

    jsonschema.validate(result.citations, csl_schema())
    types = [c["type"] for c in result.citations]
    assert types == ["article-journal", "paper-conference", "article-journal", "article", "book"]
    plos = result.citations[2]
    assert plos["issued"] == {"date-parts": [[2012, 3]]} and plos["ISSN"] == "1932-6203"
    assert result.citations[3]["number"] == "2312.07559"
    assert result.content is None and result.errors[0].id == MISSING


def test_nothing_resolved_is_a_structured_not_found(aws, upstream, fixture_file):
    upstream.post("/s2/graph/v1/paper/batch").respond(200, json=[None], headers=JSON)
    upstream.get("/openalex/works").respond(200, json={"meta": {"count": 0}, "results": []})
    upstream.get(f"/crossref/works/{MISSING}").respond(
        404, content=fixture_file("upstream/crossref/works_by_doi_not_found_404.txt"))
    with pytest.raises(ScholarError) as info:
        run("bibtex", ids=[MISSING, "not-an-id"])
    assert info.value.code == NOT_FOUND and info.value.reason == "no_papers_resolved"
    assert [f["id"] for f in info.value.details["failed"]] == ["not-an-id", MISSING]


CROSSREF_FAULTS = {
    "500": httpx.Response(500, text="Internal Server Error"),
    "503": httpx.Response(503, text="Service Unavailable"),
    # SYNTHETIC bodies: an HTML page on 200, and the recorded PLOS record cut in half.
    "html-on-200": httpx.Response(200, text="<html><body>Crossref is down for maintenance</body></html>",
                                  headers={"Content-Type": "text/html"}),
    "truncated": "truncated",
    "dropped": httpx.RemoteProtocolError("peer closed connection without sending complete message body"),
    "slow": httpx.ReadTimeout("timed out"),
}


@pytest.mark.parametrize("fault", list(CROSSREF_FAULTS))
def test_a_failing_crossref_is_a_retryable_error_never_not_found(aws, upstream, fixture_file, env, fault):
    # Given a DOI only Crossref knows (S2 and OpenAlex have no record), and Crossref failing
    env(SCHOLAR_RETRY_BUDGET_S="0")
    plos = fixture_file("upstream/crossref/works_by_doi_plos.json")
    upstream.post("/s2/graph/v1/paper/batch").respond(200, json=[None], headers=JSON)
    upstream.get("/openalex/works").respond(200, json={"meta": {"count": 0}, "results": []})
    answer = CROSSREF_FAULTS[fault]
    if answer == "truncated":
        answer = httpx.Response(200, content=plos[: len(plos) // 2], headers=JSON)
    route = upstream.get(f"/crossref/works/{PLOS}")
    route.side_effect = [answer]
    # Then the call fails with a typed retryable error naming Crossref, not "no such paper"
    with pytest.raises(ScholarError) as info:
        run("bibtex", ids=[PLOS])
    assert info.value.code == (TIMEOUT if fault == "slow" else UPSTREAM_ERROR)
    assert info.value.retryable is True
    assert [f["source"] for f in info.value.details["failed_sources"]] == ["crossref"]
    # And once Crossref answers, the same call gives the citation (nothing failed was kept)
    route.side_effect = None
    route.respond(200, content=plos, headers=JSON)
    assert run("bibtex", ids=[PLOS]).count == 1


def test_without_enrichment_no_crossref_detail_is_asked_for(aws, upstream, fixture_file):
    upstream.post("/s2/graph/v1/paper/batch").respond(
        200, json=[json.loads(fixture_file("upstream/semantic_scholar/paper_by_doi_many_fields_pnas.json"))])
    crossref = upstream.route(path__startswith="/crossref/")
    result = run("bibtex", ids=[PNAS], enrich=False)
    assert result.count == 1 and crossref.call_count == 0


def hard_paper() -> Paper:
    return Paper(
        title="Deep & Wide: 100% of $x_i$ {BERT} models for the iPhone #1 ~ ^ \\",
        year=2020,
        venue="Journal of Hard Cases",
        authors=[Author(name=n) for n in ("Jan van der Berg", "Ludwig von Mises", "Martin Luther King Jr.",
                                          "World Health Organization", "Cher")],
        externalIds={"DOI": "10.5555/hard_case"},
        publicationTypes=["JournalArticle"],
        sources=["s2"],
    )


def test_special_characters_are_escaped_and_survive_a_parse():
    text = to_bibtex(build_entries([hard_paper()]))
    entry = parse_bibtex(text).entries[0]
    assert r"Deep \& Wide: 100\% of \$x\_i\$" in entry["title"]
    # Literal braces become balanced commands; words with inner capitals are protected by braces.
    assert r"{\textbraceleft{}BERT\textbraceright{}} models for the {iPhone}" in entry["title"]
    assert entry["title"].endswith(r"\#1 \textasciitilde{} \textasciicircum{} \textbackslash{}")
    assert entry["doi"] == "10.5555/hard_case"


def test_name_particles_suffixes_and_organisations_are_written_per_format():
    entries = build_entries([hard_paper()])
    author = parse_bibtex(to_bibtex(entries)).entries[0]["author"]
    assert author == ("van der Berg, Jan and von Mises, Ludwig and King, Jr., Martin Luther and "
                      "{World Health Organization} and Cher")
    csl = to_csl(entries)
    jsonschema.validate(csl, csl_schema())
    assert csl[0]["author"][0] == {"family": "Berg", "given": "Jan", "non-dropping-particle": "van der"}
    assert csl[0]["author"][2] == {"family": "King", "given": "Martin Luther", "suffix": "Jr."}
    assert csl[0]["author"][3] == {"literal": "World Health Organization"}
    ris = rispy.loads(to_ris(entries))[0]
    assert ris["authors"][:3] == ["van der Berg, Jan", "von Mises, Ludwig", "King, Martin Luther, Jr."]


@pytest.mark.parametrize(
    ("name", "given", "particle", "family"),
    [
        ("Ludwig van Beethoven", "Ludwig", "van", "Beethoven"),
        ("Charles de la Vallée Poussin", "Charles", "de la", "Vallée Poussin"),
        ("Berg, Jan van der", "Jan van der", None, "Berg"),
        ("A. Turing", "A.", None, "Turing"),
    ],
)
def test_display_names_are_split_into_given_particle_family(name, given, particle, family):
    parsed = parse_name(name)
    assert (parsed.given, parsed.particle, parsed.family) == (given, particle, family)


def test_citation_keys_are_unique(tmp_path: Path):
    entries = build_entries([hard_paper(), hard_paper()])
    assert entries[0].key != entries[1].key
    assert len(parse_bibtex(to_bibtex(entries)).entries) == 2


def test_entries_over_the_size_budget_are_listed_as_too_large(aws, routes, monkeypatch):
    monkeypatch.setattr(generate, "MAX_RESULT_CHARS", 6_000)
    result = run("csl-json")
    assert 0 < result.count < 5
    assert len(json.dumps(result.citations)) < 6_000
    too_large = [e.id for e in result.errors if e.code == "too_large"]
    resolved = [i for i in IDS if i != MISSING]
    assert too_large == resolved[result.count:]
