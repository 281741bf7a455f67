"""download_paper through the research function and statemachines/pdf_pipeline.asl.json executed by moto.

The recorded answers come from the fake upstream and the PDF hosts reach it through WebToFake, as in
tests/pdf/test_pipeline_machine.py. The caller's library is the recorder of tests.research.downloads (in place of
scholar.services.library.keep.keep_pdf): what it receives shows the caller travelled through the state machine to
finish.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from scholar.runtime.invocation import Invocation, Outcome
from scholar.runtime.invoke import invoke_family
from scholar.services.library import kept
from tests.fakes.upstream import FakeUpstream
from tests.fixtures.servers import StackOptions, fake_upstream_fixture, local_server_fixture
from tests.fixtures.waiting import finished_task
from tests.research.downloads import PREPRINT_PDF, PUBLISHED_PDF, Library, serve, sha_of

DOI = "10.1038/nature12373"


fake = fake_upstream_fixture(scope="module", name="fake")


@pytest.fixture(scope="module")
def library() -> Iterator[Library]:
    recorder = Library()
    patch = pytest.MonkeyPatch()
    patch.setattr(kept, "keep_pdf", recorder.keep_pdf)
    yield recorder
    patch.undo()


stack = local_server_fixture(
    StackOptions(upstream="fake", serve_http=False, web=True, contact_email="download-tests@example.org",
                 retry_budget_s="0", retry_wait_s=None, extra_env={"SCHOLAR_READ_ONLY": "false"},
                 requires=("library",)),
    scope="module", name="stack")


def call(arguments: dict[str, Any], principal: str) -> Outcome:
    return invoke_family("research", Invocation(tool="download_paper", arguments=arguments, principal=principal,
                                                request_id="r"))


def test_download_paper_queues_runs_the_pipeline_and_keeps_the_published_pdf_for_the_caller(
    stack: Any, fake: FakeUpstream, library: Library
) -> None:
    # Given the published copy and the preprint are both online
    serve(fake, published=PUBLISHED_PDF, preprint=PREPRINT_PDF)
    # When a caller downloads the paper into a collection
    queued = call({"identifier": DOI, "collection": "thermometry"}, principal="key-keeper")
    assert queued.ok and queued.result["queued"] is True, queued.error
    task = finished_task(queued.result["task_id"], "key-keeper", within_s=30)
    # Then the task completes with the published version kept, and finish recorded it for that caller
    assert task.status == "completed", task.error
    assert (task.result["version"], task.result["sha256"]) == ("published", sha_of(PUBLISHED_PDF))
    assert [f["version"] for f in task.result["also_found"]] == ["submitted"]
    ((principal, identifier, pdf, collection),) = library.calls
    assert (principal, identifier, collection, pdf.version) == ("key-keeper", f"DOI:{DOI}", "thermometry", "published")
    # And the same call again answers at once
    again = call({"identifier": f"doi:{DOI}", "collection": "thermometry"}, principal="key-keeper")
    assert again.ok and again.result["cached"] is True and again.result["newly_kept"] is False
