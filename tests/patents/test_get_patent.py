"""get_patent on the recorded OPS answers: every section, concurrently, cached, absent ≠ error."""

from __future__ import annotations

import json

import pytest

from scholar.core.errors import NOT_FOUND, RATE_LIMITED, ScholarError
from scholar.families.patents.citations import chapter_info, find_doi, parse_npl, parse_references, resolve
from scholar.families.patents.get import get_patent
from scholar.families.patents.models import Citations
from scholar.families.patents.spec import GetPatentInput
from scholar.sources.epo_ops_biblio import exchange_documents, parse_xml
from tests.fixtures_dir import read_fixture
from tests.patents.helpers import OPS, XML, ops_fixture, run

PUB = f"{OPS}/published-data/publication/docdb/EP.2400812.A1"
ALL = ["biblio", "abstract", "claims", "description", "family", "legal", "citations"]


def serve_all(ops) -> dict[str, object]:
    return {
        "biblio": ops.get(f"{PUB}/biblio").respond(200, content=ops_fixture("biblio_EP2400812A1_docdb.xml"),
                                                   headers=XML),
        "claims": ops.get(f"{PUB}/claims").respond(200, content=ops_fixture("claims_EP2400812A1.xml"), headers=XML),
        "description": ops.get(f"{PUB}/description").respond(
            200, content=ops_fixture("description_EP2400812A1.xml"), headers=XML),
        "family": ops.get(f"{OPS}/family/publication/docdb/EP.2400812.A1").respond(
            200, content=ops_fixture("family_EP2400812A1.xml"), headers=XML),
        "legal": ops.get(f"{OPS}/legal/publication/docdb/EP.2400812.A1").respond(
            200, content=ops_fixture("legal_EP2400812A1.xml"), headers=XML),
    }


def test_all_sections_come_from_one_request_each_and_parse_the_recorded_shapes(ops):
    routes = serve_all(ops)

    result = run(get_patent, GetPatentInput(patent_number="EP 2400812 A1", sections=ALL))

    assert {name: route.call_count for name, route in routes.items()} == dict.fromkeys(routes, 1)
    assert ops.routes["token"].call_count == 1  # five concurrent requests wait for one token
    assert result.patent_number == "EP.2400812.A1" and result.patent_id == "EP2400812A1"
    biblio = result.biblio
    assert biblio.title == "BLUETOOTH NETWORKING" and biblio.title_language == "en"
    assert biblio.applicants == ["9Solutions Oy"]  # three spellings of one applicant → one, original spelling
    assert biblio.inventors == ["Herrala, Sami", "Kylmänen, Jari", "Niemi, Jaakko"]  # six entries, three people
    assert (biblio.publication_date, biblio.filing_date, biblio.priority_date) == (
        "2011-12-28", "2010-06-24", "2010-06-24")
    assert biblio.family_id == "43088294" and "H04W84/20" in biblio.classifications
    assert result.abstract.startswith("An apparatus enabling") and result.abstract_language == "en"
    assert result.claims.startswith("1. A communication device") and result.claims_language == "en"
    assert result.description.startswith("Field") and result.description_next_offset == len(result.description)
    assert len(result.model_dump_json()) < 80_000
    assert {(m.country, m.number, m.kind) for m in result.family} == {
        ("EP", "2400812", "A1"), ("EP", "2400812", "B1"), ("CA", "2744162", "A1"), ("US", "2012057518", "A1"),
        ("US", "9648662", "B2")}
    assert len(result.legal) == 69
    assert all(e.date and e.code and e.country for e in result.legal)
    assert result.legal[0].code == "AK" and result.legal[0].description == "DESIGNATED CONTRACTING STATES"
    assert [c.patent_id for c in result.citations.patent_refs][:2] == ["WO02054790A2", "US2003060222A1"]
    assert result.citations.patent_refs[0].category == ["A"] and result.citations.npl_refs == []
    assert result.partial is False and result.absent_sections is None


def test_each_section_is_cached_so_a_repeat_makes_no_request(aws, ops):
    routes = serve_all(ops)
    run(get_patent, GetPatentInput(patent_number="EP2400812A1", sections=ALL))
    run(get_patent, GetPatentInput(patent_number="EP.2400812.A1", sections=["claims", "legal"]))
    assert sum(route.call_count for route in routes.values()) == 5


def test_a_section_ops_lacks_is_absent_not_an_error(ops):
    ops.get(f"{PUB}/biblio").respond(200, content=ops_fixture("biblio_EP2400812A1_docdb.xml"), headers=XML)
    ops.get(f"{PUB}/claims").respond(404, content=ops_fixture("error_404_fault_entity_not_found.xml"), headers=XML)

    result = run(get_patent, GetPatentInput(patent_number="EP2400812A1", sections=["biblio", "claims"]))

    assert result.biblio is not None and result.claims is None
    assert set(result.absent_sections) == {"claims"} and result.partial is False


def test_a_document_ops_does_not_hold_at_all_is_not_found(ops):
    ops.get(f"{PUB}/biblio").respond(404, content=ops_fixture("error_404_fault_entity_not_found.xml"), headers=XML)
    with pytest.raises(ScholarError) as caught:
        run(get_patent, GetPatentInput(patent_number="EP2400812A1"))
    assert caught.value.code == NOT_FOUND


def test_a_throttled_section_makes_the_answer_partial_and_is_not_cached(aws, ops):
    ops.get(f"{PUB}/biblio").respond(200, content=ops_fixture("biblio_EP2400812A1_docdb.xml"), headers=XML)
    legal = ops.get(f"{OPS}/legal/publication/docdb/EP.2400812.A1").respond(
        403, content=ops_fixture("error_403_fair_use_rejected.xml"),
        headers={"X-Rejection-Reason": "IndividualQuotaPerHour"})

    result = run(get_patent, GetPatentInput(patent_number="EP2400812A1", sections=["biblio", "legal"]))

    assert result.partial and result.failed_sections[0].section == "legal"
    assert result.failed_sections[0].code == RATE_LIMITED and result.legal is None
    legal.respond(200, content=ops_fixture("legal_EP2400812A1.xml"), headers=XML)
    again = run(get_patent, GetPatentInput(patent_number="EP2400812A1", sections=["legal"]))
    assert again.legal and not again.partial


def test_when_every_needed_answer_is_throttled_the_call_is_rate_limited(ops):
    ops.get(f"{PUB}/claims").respond(403, content=ops_fixture("error_403_fair_use_rejected.xml"), headers=XML)
    with pytest.raises(ScholarError) as caught:
        run(get_patent, GetPatentInput(patent_number="EP2400812A1", sections=["claims"]))
    assert caught.value.code == RATE_LIMITED


def test_the_description_is_paged(ops):
    serve_all(ops)
    first = run(get_patent, GetPatentInput(patent_number="EP2400812A1", sections=["description"],
                                           description_max_chars=5000))
    second = run(get_patent, GetPatentInput(patent_number="EP2400812A1", sections=["description"],
                                            description_offset=first.description_next_offset,
                                            description_max_chars=5000))
    assert len(first.description) == 5000 and first.description_total_chars > 10_000
    assert second.description_offset == 5000 and second.description != first.description


def test_npl_citations_of_the_bulk_biblio_are_parsed_with_doi_and_pages():
    docs = exchange_documents(parse_xml(ops_fixture("biblio_bulk_EP2400812A1_EP2533477A1_EP2533477B1.xml"),
                                        what="bulk"))
    npl = [n for d in docs for n in parse_references(d)["npl_refs"]]
    assert npl, "the recorded bulk biblio holds non-patent literature"
    wcnc = next(n for n in npl if "SEWOOK" in n["raw"])
    assert wcnc["doi"] == "10.1109/wcnc.2006.1683515"
    assert wcnc["chapter_info"] == {"citation_source": "parsed", "page_start": 505, "page_end": 510}
    assert wcnc["category"] == ["X", "I"]  # one category per claim group, as the search report prints them


@pytest.mark.parametrize(("raw", "doi"), [
    ("Smith, Widget, 2018, doi:10.1234/test.", "10.1234/test"),
    ("see https://doi.org/10.1000/XYZ-1", "10.1000/xyz-1"),
    ("DOI: 10.1109/WCNC.2006.1683515, ISBN 978", "10.1109/wcnc.2006.1683515"),
    ("no identifier here", None),
])
def test_a_doi_in_any_form_is_found(raw, doi):
    assert find_doi(raw) == doi


def test_chapter_and_page_patterns_become_chapter_info():
    info = chapter_info('Doe, "Advanced Widgets", Ch. 5, pp. 112-130, 2019')
    assert (info.chapter_number, info.page_start, info.page_end) == (5, 112, 130)
    assert chapter_info("nothing") is None


def test_npl_with_a_doi_s2_knows_is_resolved_with_high_confidence(ops):
    recorded = json.loads(read_fixture("upstream/semantic_scholar/paper_batch_many_fields_with_unknown_id.json"))
    s2 = ops.post("/s2/graph/v1/paper/batch").respond(200, json=[recorded[1], None])
    cites = Citations(npl_refs=[parse_npl("X, doi:10.2139/ssrn.288970"), parse_npl("Y, doi:10.9999/unknown")])

    resolved, failure = run(resolve, cites)

    assert failure is None
    assert json.loads(s2.calls.last.request.content)["ids"] == ["DOI:10.2139/ssrn.288970", "DOI:10.9999/unknown"]
    assert resolved.npl_refs[0].confidence == "high" and resolved.npl_refs[0].paper.paperId == recorded[1]["paperId"]
    assert resolved.npl_refs[1].confidence is None and resolved.npl_refs[1].paper is None


def test_npl_resolution_failing_leaves_raw_strings_and_reports_the_failure(ops):
    ops.post("/s2/graph/v1/paper/batch").respond(503)
    resolved, failure = run(resolve, Citations(npl_refs=[parse_npl("X, doi:10.2139/ssrn.288970")]))
    assert failure is not None and resolved.npl_refs[0].confidence is None


def test_an_answer_over_the_size_budget_shortens_the_description_then_keeps_the_latest_legal_events():
    from scholar.families.patents.get import MAX_RESULT_CHARS, _fit
    from scholar.families.patents.models import LegalEvent, PatentResult

    events = [LegalEvent(date=f"2019-{i % 12 + 1:02d}-01", code="PG25", description="LAPSED IN A CONTRACTING STATE "
                         * 4, country="EP", patent_id="EP2400812A1") for i in range(600)]
    big = PatentResult(patent_number="EP.2400812.A1", patent_id="EP2400812A1", description="x" * 40_000,
                       description_offset=0, legal=events)

    fitted = _fit(big)

    assert len(fitted.model_dump_json()) <= MAX_RESULT_CHARS
    assert fitted.description_next_offset == len(fitted.description) < 40_000
    assert fitted.legal_omitted and fitted.legal[-1] == events[-1]
    assert len(fitted.legal) + fitted.legal_omitted == 600
