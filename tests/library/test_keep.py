"""add_paper and keep_pdf (scholar.services.library.keep) on recorded Semantic Scholar answers, the store in moto."""

from __future__ import annotations

import asyncio

import pytest

from scholar.core import aio
from scholar.core.errors import INVALID_ARGUMENT, NOT_FOUND, RATE_LIMITED, ScholarError
from scholar.services.library.keep import add_paper, keep_pdf
from scholar.store.blobs import BlobStore
from scholar.store.library.models import PdfVersion
from scholar.store.library.table import LibraryStore
from tests.fallbacks import answer_nothing
from tests.store.content import put_pdf

pytestmark = pytest.mark.usefixtures("library_table")

PNAS_DOI = "10.1073/pnas.1414271111"
S2_PNAS = f"/s2/graph/v1/paper/DOI:{PNAS_DOI}"
S2_PAPERQA = "/s2/graph/v1/paper/ARXIV:2312.07559"
JSON = {"Content-Type": "application/json"}


@pytest.fixture
def pnas(upstream, fixture_file):
    return upstream.get(S2_PNAS).respond(
        200, content=fixture_file("upstream/semantic_scholar/paper_by_doi_many_fields_pnas.json"), headers=JSON)


@pytest.fixture
def paperqa(upstream, fixture_file):
    # Recorded for DOI:10.48550/arxiv.2312.07559, the arXiv DataCite DOI: S2's record of the same paper.
    return upstream.get(S2_PAPERQA).respond(
        200, content=fixture_file("upstream/semantic_scholar/paper_by_arxiv_doi.json"), headers=JSON)


def _pdf(sha: str, version: str = "preprint") -> PdfVersion:
    return PdfVersion(pdf_path=f"pdfs/{sha}.pdf", sha256=sha, size_bytes=1000, version=version, pdf_source="arxiv",
                      source_url="https://arxiv.org/pdf/2312.07559", kept_at="2026-12-01T12:00:00Z")


def test_adding_a_paper_stores_its_full_record_every_author_and_every_id(pnas):
    item, created = aio.run(add_paper("alice", PNAS_DOI, tags=["bio"]))
    assert created is True
    assert item.paper["title"].startswith("Developing functional musculoskeletal tissues")
    assert len(item.paper["authors"]) == 5
    assert item.ids[0] == "db3720c812a462ef955d5654b65ca9189d4b8372"
    assert {PNAS_DOI, "PMID:25349395", "CorpusId:10888161"} <= set(item.ids)
    assert item.tags == ["bio"] and item.collection == "inbox"
    assert LibraryStore("alice").get(item.item_id) == item


def test_adding_the_same_paper_by_another_form_is_one_item_and_adds_the_new_tags(pnas):
    first, _ = aio.run(add_paper("alice", PNAS_DOI))
    again, created = aio.run(add_paper("alice", f"https://doi.org/{PNAS_DOI.upper()}", tags=["later"]))
    assert created is False
    assert again.item_id == first.item_id and again.tags == ["later"]
    assert LibraryStore("alice").usage()[0] == 1


def test_an_arxiv_paper_added_by_its_id_or_its_datacite_doi_is_one_item(paperqa):
    by_id, _ = aio.run(add_paper("alice", "arXiv:2312.07559"))
    by_doi, created = aio.run(add_paper("alice", "10.48550/arXiv.2312.07559"))
    assert created is False and by_doi.item_id == by_id.item_id
    assert "arXiv:2312.07559" in by_id.ids and len(by_id.paper["authors"]) == 6


def test_two_callers_adding_the_same_paper_each_get_their_own_item(pnas):
    alice, _ = aio.run(add_paper("alice", PNAS_DOI, notes="for the review"))
    bob, created = aio.run(add_paper("bob", PNAS_DOI))
    assert created is True and bob.notes is None
    assert LibraryStore("bob").get(alice.item_id).notes is None


def test_a_paper_no_source_has_is_not_found_and_stores_nothing(upstream, fixture_file):
    upstream.get("/s2/graph/v1/paper/PMID:1").respond(
        404, content=fixture_file("upstream/semantic_scholar/paper_not_found_404.json"), headers=JSON)
    answer_nothing(upstream, openalex=True)  # nor OpenAlex, nor Europe PMC
    with pytest.raises(ScholarError) as caught:
        aio.run(add_paper("alice", "PMID:1"))
    assert caught.value.code == NOT_FOUND
    assert LibraryStore("alice").revision() == 0


def test_a_throttled_source_is_its_typed_error_and_stores_nothing(upstream, env):
    env(SCHOLAR_RETRY_BUDGET_S="0")
    # S2's 429 answer: status and Retry-After matter here (no recorded body exists; S2 sends this JSON shape).
    upstream.get(S2_PNAS).respond(429, headers={"Retry-After": "30"}, json={"message": "Too Many Requests"})
    with pytest.raises(ScholarError) as caught:
        aio.run(add_paper("alice", PNAS_DOI))
    assert caught.value.code == RATE_LIMITED
    assert LibraryStore("alice").revision() == 0


def test_an_identifier_that_names_no_paper_is_an_invalid_argument_naming_the_field(library_table):
    with pytest.raises(ScholarError) as caught:
        aio.run(add_paper("alice", "ISBN 978-0-262-03384-8"))
    assert caught.value.code == INVALID_ARGUMENT and caught.value.details["field"] == "identifier"


def test_a_library_item_id_names_the_callers_item_and_nobody_elses(pnas):
    item, _ = aio.run(add_paper("alice", PNAS_DOI))
    same, created = aio.run(add_paper("alice", item.item_id))
    assert same == item and created is False
    with pytest.raises(ScholarError) as caught:
        aio.run(add_paper("bob", item.item_id))
    assert caught.value.code == NOT_FOUND


def test_keeping_a_pdf_creates_the_item_in_its_collection_and_a_second_version_sits_beside_it(paperqa):
    item, kept = aio.run(keep_pdf("alice", identifier="arXiv:2312.07559", pdf=_pdf("a" * 64), collection="agents"))
    assert kept is True and item.collection == "agents" and [p.sha256 for p in item.pdfs] == ["a" * 64]
    item, kept = aio.run(keep_pdf("alice", identifier="arXiv:2312.07559", pdf=_pdf("b" * 64, "published")))
    assert kept is True and [p.sha256 for p in item.pdfs] == ["a" * 64, "b" * 64]
    assert item.collection == "agents"  # a later version does not move the paper


def test_keeping_the_same_pdf_again_is_not_newly_kept_and_writes_nothing(paperqa):
    aio.run(keep_pdf("alice", identifier="arXiv:2312.07559", pdf=_pdf("a" * 64)))
    revision = LibraryStore("alice").revision()
    item, kept = aio.run(keep_pdf("alice", identifier="10.48550/arXiv.2312.07559", pdf=_pdf("a" * 64)))
    assert kept is False and len(item.pdfs) == 1
    assert LibraryStore("alice").revision() == revision


def test_a_pdf_kept_for_a_paper_added_earlier_joins_that_item(paperqa):
    added, _ = aio.run(add_paper("alice", "arXiv:2312.07559", tags=["agents"]))
    item, kept = aio.run(keep_pdf("alice", identifier="arXiv:2312.07559", pdf=_pdf("c" * 64)))
    assert kept is True and item.item_id == added.item_id and item.tags == ["agents"]


def test_five_concurrent_adds_of_one_paper_make_one_item_and_one_of_them_created_it(pnas):
    async def five() -> list:
        return await asyncio.gather(*(add_paper("alice", PNAS_DOI, tags=[f"t{n}"]) for n in range(5)))

    outcomes = aio.run(five())
    assert len({item.item_id for item, _ in outcomes}) == 1
    assert sum(created for _, created in outcomes) == 1
    stored = LibraryStore("alice").get(outcomes[0][0].item_id)
    assert sorted(stored.tags) == [f"t{n}" for n in range(5)]  # every caller's tags were kept
    assert LibraryStore("alice").usage()[0] == 1


def test_the_markdown_of_a_kept_pdf_becomes_the_item_s_even_when_the_pdf_was_kept_before(paperqa):
    store = LibraryStore("alice")
    aio.run(keep_pdf("alice", identifier="arXiv:2312.07559", pdf=_pdf("a" * 64)))
    before = store.revision()
    item, kept = aio.run(keep_pdf("alice", identifier="arXiv:2312.07559", pdf=_pdf("a" * 64),
                                  md_path=f"md/{'a' * 64}.md"))
    assert (kept, item.md_path, len(item.pdfs)) == (False, f"md/{'a' * 64}.md", 1)
    assert store.revision() == before + 1  # one write, which the index catches up with
    again, _ = aio.run(keep_pdf("alice", identifier="arXiv:2312.07559", pdf=_pdf("a" * 64),
                                md_path=f"md/{'a' * 64}.md"))
    assert again.md_path == item.md_path and store.revision() == before + 1  # nothing new: nothing written


def test_a_kept_pdf_and_its_markdown_leave_the_cache_s_expiry(paperqa, aws):
    pdf_key = put_pdf(b"%PDF-1.7 a kept paper (synthetic bytes)")
    sha = pdf_key.removeprefix("pdfs/").removesuffix(".pdf")
    md_key = BlobStore().put(f"md/{sha}.md", b"# A kept paper", "text/markdown")
    aio.run(keep_pdf("alice", identifier="arXiv:2312.07559", pdf=_pdf(sha), md_path=md_key))
    for key in (pdf_key, md_key):
        assert aws.s3.get_object_tagging(Bucket=aws.bucket, Key=key)["TagSet"] == [
            {"Key": "retention", "Value": "kept"}]
