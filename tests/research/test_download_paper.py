"""download_paper: every PDF location at once, each checked, the version of record preferred and kept in the library.

The pipeline's steps run in-process (moto tables and bucket) against the fake upstream, which replays the recorded
Unpaywall answer for 10.1038/nature12373: a published copy on dash.harvard.edu, an accepted manuscript in PubMed
Central and the submitted manuscript on arXiv (Semantic Scholar has no record of it here, so the DOI alone is
resolved). Hosts that are not our sources reach the fake through tests.fakes.web.WebToFake; the PDFs
served are the real ones of ../shared/fixtures/pdfs. The caller's library is a recorder in place of
scholar.services.library.keep.keep_pdf (test_download_paper_library.py keeps into the real one).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from scholar.core.catalogue import WRITE_OPEN
from scholar.core.config import get_settings
from scholar.core.errors import INVALID_ARGUMENT, TOO_LARGE, UPSTREAM_ERROR, ScholarError, TooLargeError
from scholar.families import family_tools
from scholar.gateway.mcp.tools import visible_tools
from scholar.services.fulltext import artifacts
from scholar.services.fulltext import keep_step as keeping
from scholar.services.fulltext.locate import resolve_paper
from scholar.services.library import kept
from scholar.services.pdftext import convert as converter
from scholar.store.library.models import item_id_for
from tests.fakes.upstream import FakeUpstream
from tests.fixtures.aws import AwsResources
from tests.fixtures.env import Env
from tests.fixtures.servers import fake_upstream_fixture
from tests.pdf.test_pipeline_machine import BLOCK_PAGE
from tests.research.downloads import (
    DOI,
    PREPRINT_PDF,
    PUBLISHED_PDF,
    Library,
    fake_web,
    idle_machine,
    job,
    run_pipeline,
    serve,
    sha_of,
    tool,
)

fake = fake_upstream_fixture(scope="module", name="fake")


@pytest.fixture
def web(fake: FakeUpstream, aws: AwsResources, library_table: str, env: Env) -> Iterator[FakeUpstream]:
    with fake_web(fake, env):
        yield fake


@pytest.fixture
def library(monkeypatch: pytest.MonkeyPatch) -> Library:
    recorder = Library()
    monkeypatch.setattr(kept, "keep_pdf", recorder.keep_pdf)
    return recorder


@pytest.fixture
def machine(aws: AwsResources, env: Env) -> str:
    return idle_machine(aws, env)


def test_download_paper_is_a_write_tool_that_may_queue_with_result_queued_and_error_forms() -> None:
    spec = family_tools("research")["download_paper"]
    assert spec.tags == frozenset({"write"})
    assert spec.annotations == WRITE_OPEN
    assert spec.task_support == "optional"
    forms = spec.output_schema()["anyOf"]
    assert len(forms) == 3
    assert {"item_id", "version", "also_found", "versions", "pdf_path"} <= set(forms[0]["properties"])
    assert "queued" in forms[1]["properties"] and "error" in forms[2]["properties"]
    schema = spec.input_schema()
    assert schema["properties"]["collection"]["default"] == "inbox"
    assert schema["properties"]["prefer"]["enum"] == ["published", "preprint"]


def test_read_only_mode_hides_download_paper(env: Env) -> None:
    env(SCHOLAR_READ_ONLY="true")
    assert "download_paper" not in {spec.name for spec in visible_tools(get_settings(), None)}
    env(SCHOLAR_READ_ONLY="false")
    assert "download_paper" in {spec.name for spec in visible_tools(get_settings(), None)}


def test_a_collection_outside_the_pattern_is_refused_naming_the_field(aws: AwsResources) -> None:
    with pytest.raises(ScholarError) as caught:
        tool({"identifier": DOI, "collection": "../other caller"})
    assert caught.value.code == INVALID_ARGUMENT
    assert caught.value.details["field"] == "collection"


@pytest.mark.parametrize("identifier", ["0", "ISBN:9780262035613"])  # no accepted form; a book, not a paper
def test_an_identifier_that_names_no_paper_pdf_is_refused_naming_the_field(aws: AwsResources, identifier: str) -> None:
    with pytest.raises(ScholarError) as caught:
        tool({"identifier": identifier})
    assert caught.value.code == INVALID_ARGUMENT
    assert caught.value.details["field"] == "identifier"


def test_each_location_s_version_label_comes_with_its_candidate(web: FakeUpstream) -> None:
    resolution = asyncio.run(resolve_paper(f"doi:{DOI}", publisher_links=True))
    assert [(c.source, c.version) for c in resolution.candidates] == [
        ("pmc", "accepted"),  # Unpaywall's label of the same PMC copy (it names it over http)
        ("unpaywall", "published"),
        ("unpaywall", "submitted"),
    ]


def test_crossref_s_pdf_link_is_a_publisher_candidate_only_when_asked_for(web: FakeUpstream) -> None:
    doi = "10.1038/s42256-024-00832-8"
    kept = asyncio.run(resolve_paper(f"doi:{doi}", publisher_links=True))
    assert [(c.source, c.url, c.version) for c in kept.candidates] == [
        ("publisher", "https://www.nature.com/articles/s42256-024-00832-8.pdf", "published")
    ]
    assert asyncio.run(resolve_paper(f"doi:{doi}")).candidates == []


def test_a_404_and_an_html_page_are_rejected_with_their_reasons_and_the_real_pdf_is_kept(
    web: FakeUpstream, library: Library
) -> None:
    # Given the published copy is gone (404), PMC answers a block page with status 200, arXiv serves the PDF
    serve(web, accepted=BLOCK_PAGE, preprint=PREPRINT_PDF)
    # When the paper is downloaded
    task = run_pipeline(job())
    # Then the arXiv PDF is kept, and the others are named with why they gave nothing
    assert task.status == "completed", task.error
    result = task.result
    assert (result["pdf_source"], result["version"], result["sha256"]) == ("unpaywall", "submitted",
                                                                           sha_of(PREPRINT_PDF))
    assert result["source_url"] == "http://arxiv.org/pdf/1304.1068"
    assert [(a["source"], a["ok"], a.get("reason"), a.get("status")) for a in result["attempts"]] == [
        ("unpaywall", False, "http_error", 404),
        ("pmc", False, "html_page", None),
        ("unpaywall", True, None, None),
    ]
    assert artifacts.exists(result["pdf_path"])
    # And it is recorded in the caller's library, in the default collection
    ((principal, identifier, pdf, collection),) = library.calls
    assert (principal, identifier, collection) == ("key-1", f"DOI:{DOI}", "inbox")
    assert (pdf.sha256, pdf.version, pdf.pdf_path) == (sha_of(PREPRINT_PDF), "submitted", result["pdf_path"])
    assert result["newly_kept"] is True and result["item_id"] == item_id_for(f"DOI:{DOI}")


def test_the_published_version_is_preferred_over_the_preprint_and_the_answer_says_so(
    web: FakeUpstream, library: Library
) -> None:
    serve(web, published=PUBLISHED_PDF, preprint=PREPRINT_PDF)
    task = run_pipeline(job(collection="thermometry"))
    assert task.status == "completed", task.error
    result = task.result
    assert (result["version"], result["sha256"], result["collection"]) == ("published", sha_of(PUBLISHED_PDF),
                                                                          "thermometry")
    assert [(f["version"], f["sha256"]) for f in result["also_found"]] == [("submitted", sha_of(PREPRINT_PDF))]
    # Only the kept PDF is stored; the other was checked and let go
    assert artifacts.exists(result["pdf_path"])
    assert not artifacts.exists(artifacts.pdf_key(sha_of(PREPRINT_PDF)))
    assert [v["version"] for v in result["versions"]] == ["published"]


def test_prefer_preprint_keeps_the_preprint_and_names_the_published_version_it_also_found(
    web: FakeUpstream, library: Library
) -> None:
    serve(web, published=PUBLISHED_PDF, preprint=PREPRINT_PDF)
    result = run_pipeline(job(prefer="preprint")).result
    assert (result["version"], result["prefer"]) == ("submitted", "preprint")
    assert [f["version"] for f in result["also_found"]] == ["published"]


def test_a_publication_found_after_the_preprint_is_kept_beside_it_with_its_own_hash(
    web: FakeUpstream, library: Library, machine: str
) -> None:
    # Given a first download found only the preprint
    serve(web, preprint=PREPRINT_PDF)
    first = run_pipeline(job(), task_id="pdfdownload0001")
    assert first.result["version"] == "submitted"
    # When the paper is asked for again, the stored preprint is not the preferred version: the pipeline runs again
    assert tool({"identifier": f"https://doi.org/{DOI}"})["queued"] is True
    # And the publication has appeared meanwhile
    serve(web, published=PUBLISHED_PDF)
    second = run_pipeline(job(), task_id="pdfdownload0002")
    # Then both versions are kept, each under its own hash, the older one untouched
    assert second.status == "completed", second.error
    versions = second.result["versions"]
    assert [(v["version"], v["sha256"]) for v in versions] == [
        ("submitted", sha_of(PREPRINT_PDF)), ("published", sha_of(PUBLISHED_PDF))
    ]
    assert all(artifacts.exists(v["pdf_path"]) for v in versions)
    # And a third call answers at once from what is stored, without any download
    before = len(web.requests)
    again = tool({"identifier": DOI})
    assert again["cached"] is True and again["version"] == "published"
    assert again["newly_kept"] is False and len(again["versions"]) == 2
    assert len(web.requests) == before


def test_an_already_kept_paper_in_another_caller_s_library_is_kept_there_without_a_download(
    web: FakeUpstream, library: Library
) -> None:
    serve(web, published=PUBLISHED_PDF)
    run_pipeline(job())
    before = len(web.requests)
    answer = tool({"identifier": DOI, "collection": "reading"}, principal="key-2")
    assert answer["cached"] is True and answer["newly_kept"] is True and answer["collection"] == "reading"
    assert [c[0] for c in library.calls] == ["key-1", "key-2"]
    assert len(web.requests) == before


def test_every_location_failing_with_503_is_a_retryable_error_not_not_found(
    web: FakeUpstream, library: Library
) -> None:
    web.inject("web", "/", status=503, times=None)
    web.inject("arxiv", "/", status=503, times=None)
    task = run_pipeline(job())
    assert task.status == "failed" and task.result is None
    error = task.error
    assert (error["code"], error["retryable"]) == (UPSTREAM_ERROR, True)
    assert {(f["source"], f.get("status")) for f in error["details"]["failed_sources"]} == {
        ("pmc", 503), ("unpaywall", 503)
    }
    assert [a["status"] for a in error["details"]["attempts"]] == [503, 503, 503]
    assert library.calls == []
    # And nothing was remembered: the next call queues again
    assert keeping.recall(job()) is None


def test_a_library_that_refuses_the_pdf_fails_the_task_with_its_error_keeping_the_stored_pdf(
    web: FakeUpstream, library: Library
) -> None:
    serve(web, published=PUBLISHED_PDF)
    library.refusal = TooLargeError("the library holds its maximum of items", reason="library_full")
    task = run_pipeline(job())
    assert task.status == "failed"
    assert task.error["code"] == TOO_LARGE
    assert task.error["details"]["pdf"]["sha256"] == sha_of(PUBLISHED_PDF)


def test_once_the_preferred_version_is_verified_candidates_not_yet_started_are_left_untried(
    web: FakeUpstream, library: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given one download at a time, so the published copy (tried first) is verified before any other starts
    monkeypatch.setattr(keeping, "CONCURRENCY", 1)
    serve(web, published=PUBLISHED_PDF, accepted=BLOCK_PAGE, preprint=PREPRINT_PDF)
    result = run_pipeline(job()).result
    assert result["version"] == "published"
    assert [(a["ok"], a.get("reason")) for a in result["attempts"]] == [
        (True, None), (False, keeping.NOT_NEEDED), (False, keeping.NOT_NEEDED)
    ]
    assert web.count("arxiv") == 0 and result["also_found"] == []


def test_the_kept_pdf_is_converted_and_its_markdown_is_recorded_on_the_library_item(
    web: FakeUpstream, library: Library
) -> None:
    # Given the published copy is a real PDF with a text layer
    serve(web, published=PUBLISHED_PDF)
    # When the paper is downloaded
    task = run_pipeline(job())
    # Then its Markdown is stored and handed to the library (library_search indexes it, read_paper reads it)
    assert task.status == "completed", task.error
    md_path = task.result["md_path"]
    assert md_path == artifacts.md_key(sha_of(PUBLISHED_PDF), "builtin") and artifacts.exists(md_path)
    assert library.md_paths == [md_path]
    assert "md_skip_reason" not in task.result or task.result["md_skip_reason"] is None


def test_a_kept_pdf_without_a_text_layer_is_still_kept_and_says_why_it_has_no_markdown(
    web: FakeUpstream, library: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(converter, "ocr_engine", lambda: None)  # no OCR engine here (a Lambda's layer has none)
    # Given the only copy is a scan (a real PDF, no text layer)
    serve(web, published="scanned_image_only_two_column_page.pdf")
    # When the paper is downloaded
    task = run_pipeline(job())
    # Then the PDF is kept all the same, without Markdown, and the answer says why
    assert task.status == "completed", task.error
    assert task.result["sha256"] == sha_of("scanned_image_only_two_column_page.pdf")
    assert task.result.get("md_path") is None and task.result["md_skip_reason"]
    assert library.md_paths == [None]
