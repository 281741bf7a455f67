"""What the download_paper tests share: the recorded paper's PDF locations, a library recorder, the pipeline run.

10.1038/nature12373's recorded Unpaywall answer names a published copy on dash.harvard.edu, an accepted manuscript
in PubMed Central and the submitted manuscript on arXiv; the PDFs served are the real ones of
../shared/fixtures/pdfs. Hosts that are not our sources reach the fake upstream through
tests.fakes.web.WebToFake.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from scholar.core.errors import ScholarError
from scholar.runtime.family import run_tool
from scholar.runtime.invocation import Invocation
from scholar.services.fulltext.models import Job, KeepOptions
from scholar.services.pipeline import convert, download, finish, resolve
from scholar.store.cache import forget_memory
from scholar.store.library.models import LibraryItem, PdfVersion, item_id_for
from scholar.store.tasks import TaskItem, TaskStore
from scholar.web import fetch
from tests.fakes.upstream import FakeUpstream
from tests.fakes.web import web_access
from tests.fixtures.aws import AwsResources
from tests.fixtures.env import Env
from tests.fixtures_dir import fixtures_dir

DOI = "10.1038/nature12373"
PUBLISHED = "/dash.harvard.edu/bitstream/1/12285462/1/Nanometer-Scale Thermometry.pdf"  # the fake decodes paths
ACCEPTED = "/europepmc.org/articles/PMC4221854"
PREPRINT = "/pdf/1304.1068"  # arxiv.org, one of our sources
PUBLISHED_PDF = "arxiv_2305.03393v1_page9_only.pdf"
PREPRINT_PDF = "arxiv_2304.02623v1_beyond_summarization.pdf"
MACHINE_DEFINITION = {"StartAt": "Done", "States": {"Done": {"Type": "Succeed"}}}


def pdf_file(name: str) -> Path:
    return fixtures_dir() / "pdfs" / name


def sha_of(name: str) -> str:
    return hashlib.sha256(pdf_file(name).read_bytes()).hexdigest()


class Library:
    """Stands in for scholar.services.library.keep.keep_pdf: one item per (caller, identifier), a PDF kept once per
    hash."""

    def __init__(self) -> None:
        self.items: dict[tuple[str, str], LibraryItem] = {}
        self.calls: list[tuple[str, str, PdfVersion, str]] = []
        self.md_paths: list[str | None] = []
        self.refusal: ScholarError | None = None

    async def keep_pdf(self, principal: str, *, identifier: str, pdf: PdfVersion,
                       collection: str = "inbox", md_path: str | None = None) -> tuple[LibraryItem, bool]:
        self.calls.append((principal, identifier, pdf, collection))
        self.md_paths.append(md_path)
        if self.refusal is not None:
            raise self.refusal
        key = (principal, identifier)
        item = self.items.get(key) or LibraryItem(item_id=item_id_for(identifier), collection=collection, paper={},
                                                  added_at=pdf.kept_at, updated_at=pdf.kept_at)
        if md_path:
            item = item.model_copy(update={"md_path": md_path})
        if any(kept.sha256 == pdf.sha256 for kept in item.pdfs):
            self.items[key] = item
            return item, False
        self.items[key] = item.model_copy(update={"pdfs": [*item.pdfs, pdf]})
        return self.items[key], True


@contextmanager
def fake_web(fake: FakeUpstream, env: Env) -> Iterator[FakeUpstream]:
    """Every source and PDF host answered by ``fake`` for one test; routes and cached values forgotten after."""
    env(SCHOLAR_UPSTREAM_PROXY_BASE=fake.base_url, SCHOLAR_CONTACT_EMAIL="download-tests@example.org",
        SCHOLAR_RETRY_BUDGET_S="0", SCHOLAR_TEST_ALLOW_HOSTS=fake.base_url.removeprefix("http://"))
    forget_memory()
    fetch.set_web_access(web_access(fake))
    try:
        yield fake
    finally:
        fetch.set_web_access(None)
        fake.reset()
        forget_memory()


def idle_machine(aws: AwsResources, env: Env) -> str:
    """A state machine that does nothing (moto does not execute here): whether a call queues is what is tested."""
    arn = aws.client("stepfunctions").create_state_machine(
        name="pdf-pipeline", definition=json.dumps(MACHINE_DEFINITION), roleArn="arn:aws:iam::123456789012:role/x"
    )["stateMachineArn"]
    env(SCHOLAR_PDF_STATE_MACHINE_ARN=arn)
    return arn


def serve(fake: FakeUpstream, *, published: str | None = None, accepted: bytes | None = None,
          preprint: str | None = None) -> None:
    """What each location answers: a real PDF (fixture name), a page (bytes), or nothing (404)."""
    if published:
        fake.add_route("GET", "web", PUBLISHED, body=pdf_file(published), content_type="application/pdf")
    if accepted is not None:
        fake.add_route("GET", "web", ACCEPTED, body=accepted, content_type="text/html; charset=utf-8")
    if preprint:
        fake.add_route("GET", "arxiv", PREPRINT, body=pdf_file(preprint), content_type="application/pdf")


def tool(arguments: dict[str, Any], principal: str = "key-1") -> dict[str, Any]:
    return asyncio.run(run_tool("research", Invocation(tool="download_paper", arguments=arguments,
                                                       principal=principal)))


def job(prefer: str = "published", collection: str = "inbox") -> Job:
    return Job(kind="paper", tool="download_paper", identifier=f"doi:{DOI}", s2_key=f"DOI:{DOI}", convert=True,
               keep=KeepOptions(prefer=prefer, collection=collection))


def run_pipeline(the_job: Job, principal: str = "key-1", task_id: str = "pdfdownload0001") -> TaskItem:
    """resolve → download → convert → finish, as the state machine runs them (convert only when the job asks)."""
    TaskStore().create(TaskItem(task_id=task_id, principal=principal, tool=the_job.tool,
                                expires_at=int(time.time()) + 60))
    event = {"task_id": task_id, "principal": principal, "job": the_job.model_dump(mode="json")}
    resolved = resolve(event)
    downloaded = {} if resolved.get("error") else download({**event, "resolved": resolved})
    converted = {}
    if the_job.convert and downloaded.get("pdf") and not downloaded.get("error"):
        converted = convert({**event, "resolved": resolved, "downloaded": downloaded})
    finish({**event, "resolved": resolved, "downloaded": downloaded, "converted": converted, "failure": {}})
    task = TaskStore().get(task_id, principal)
    assert task is not None
    return task
