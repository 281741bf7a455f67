"""download_paper into the real library (scholar.services.library.keep.keep_pdf, scholar.store.library.table on moto).

The paper is the PNAS article whose Semantic Scholar, Unpaywall and OpenAlex answers are recorded: the library
resolves its full record through the fake upstream, and the publisher's PDF location serves a real PDF.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from scholar.services.fulltext.models import Job, KeepOptions
from scholar.store.cache import forget_memory
from scholar.store.library.models import item_id_for
from scholar.store.library.table import LibraryStore
from tests.fakes.upstream import FakeUpstream
from tests.fixtures.aws import AwsResources
from tests.fixtures.env import Env
from tests.fixtures.servers import fake_upstream_fixture
from tests.pdf.test_pipeline_machine import PNAS_PDF_PATH
from tests.research.downloads import PUBLISHED_PDF, fake_web, idle_machine, pdf_file, run_pipeline, sha_of, tool

PNAS_DOI = "10.1073/pnas.1414271111"
ITEM_ID = item_id_for(f"doi:{PNAS_DOI}")


fake = fake_upstream_fixture(scope="module", name="fake")


@pytest.fixture
def web(fake: FakeUpstream, aws: AwsResources, library_table: str, env: Env) -> Iterator[FakeUpstream]:
    with fake_web(fake, env):
        fake.add_route("GET", "web", PNAS_PDF_PATH, body=pdf_file(PUBLISHED_PDF), content_type="application/pdf")
        yield fake


@pytest.fixture
def machine(aws: AwsResources, env: Env) -> str:
    return idle_machine(aws, env)


def pnas_job(collection: str = "inbox") -> Job:
    return Job(kind="paper", tool="download_paper", identifier=f"doi:{PNAS_DOI}", s2_key=f"DOI:{PNAS_DOI}",
               convert=False, keep=KeepOptions(collection=collection))


def test_the_kept_pdf_is_recorded_on_the_caller_s_item_with_the_paper_s_full_record(
    web: FakeUpstream, machine: str
) -> None:
    # Given nothing is stored: the first call queues the pipeline
    assert tool({"identifier": PNAS_DOI, "collection": "tissue"}, principal="key-a")["queued"] is True
    task = run_pipeline(pnas_job("tissue"), principal="key-a")
    assert task.status == "completed", task.error
    assert (task.result["item_id"], task.result["version"], task.result["pdf_source"]) == (ITEM_ID, "published",
                                                                                           "s2_oa")
    # Then the caller's library holds the item, its full record and the PDF version
    item = LibraryStore("key-a").get(ITEM_ID)
    assert item is not None and item.collection == "tissue"
    assert item.paper["title"].startswith("Developing functional musculoskeletal tissues")
    assert [(v.sha256, v.version, v.pdf_source) for v in item.pdfs] == [(sha_of(PUBLISHED_PDF), "published", "s2_oa")]
    # And another caller sees none of it
    assert LibraryStore("key-b").get(ITEM_ID) is None


def test_a_paper_the_library_holds_in_the_preferred_version_answers_at_once_from_the_item(
    web: FakeUpstream, machine: str
) -> None:
    run_pipeline(pnas_job(), principal="key-a")
    forget_memory()
    before = len(web.requests)
    answer = tool({"identifier": f"https://doi.org/{PNAS_DOI}"}, principal="key-a")
    assert (answer["cached"], answer["newly_kept"], answer["item_id"]) == (True, False, ITEM_ID)
    assert answer["sha256"] == sha_of(PUBLISHED_PDF) and answer["pdf_url"].startswith("http")
    assert len(web.requests) == before  # neither a download nor a metadata lookup


def test_a_second_caller_gets_the_stored_pdf_in_an_item_of_their_own_without_a_download(
    web: FakeUpstream, machine: str
) -> None:
    run_pipeline(pnas_job(), principal="key-a")
    downloads = web.count("web")
    answer = tool({"identifier": PNAS_DOI, "collection": "reading"}, principal="key-b")
    assert (answer["cached"], answer["newly_kept"], answer["collection"]) == (True, True, "reading")
    assert web.count("web") == downloads
    item_b = LibraryStore("key-b").get(ITEM_ID)
    assert item_b is not None and item_b.collection == "reading" and len(item_b.pdfs) == 1
    assert LibraryStore("key-a").get(ITEM_ID).collection == "inbox"


@pytest.mark.parametrize("converted", [True, False], ids=["markdown stored", "pdf only"])
def test_a_second_caller_s_item_keeps_the_markdown_stored_of_that_pdf(
    web: FakeUpstream, machine: str, converted: bool
) -> None:
    # Given the first caller's download stored the PDF, and its Markdown when the job converted it
    first = run_pipeline(pnas_job().model_copy(update={"convert": converted}), principal="key-a")
    md_path = first.result.get("md_path")
    assert bool(md_path) is converted
    # When a second caller keeps the paper at once (no task), then its item has that Markdown as a queued keep would
    answer = tool({"identifier": PNAS_DOI, "collection": "reading"}, principal="key-b")
    assert (answer["cached"], answer["newly_kept"], answer.get("md_path")) == (True, True, md_path)
    assert LibraryStore("key-b").get(ITEM_ID).md_path == md_path
