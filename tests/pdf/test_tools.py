"""The PDF tools in-process (moto): contracts, argument refusals, answers from stored artifacts, queuing and dedupe."""

from __future__ import annotations

import asyncio
import hashlib
import json
from typing import Any

import pytest

from scholar.core.catalogue import WRITE_OPEN
from scholar.core.config import get_settings
from scholar.core.errors import FORBIDDEN, INVALID_ARGUMENT, NOT_FOUND, UNAVAILABLE, ScholarError
from scholar.families import family_tools, result_size_hint
from scholar.gateway.mcp.dispatch import success_result
from scholar.gateway.mcp.tools import visible_tools
from scholar.runtime.family import run_tool
from scholar.runtime.invocation import Invocation
from scholar.services.fulltext import artifacts
from scholar.services.fulltext.models import MAX_CHARS_LIMIT, PaperSummary, StoredPdf
from scholar.services.pdftext.convert import convert_pdf
from scholar.store.tasks import TaskStore
from tests.fixtures.aws import AwsResources
from tests.fixtures.env import Env
from tests.fixtures_dir import fixtures_dir

PDF_TOOLS = {"fetch_paper_pdf", "fetch_and_convert", "fetch_pdf_by_url", "convert_pdf_to_markdown"}
MACHINE_DEFINITION = {"StartAt": "Done", "States": {"Done": {"Type": "Succeed"}}}
SHA = hashlib.sha256(b"%PDF-1.7 synthetic").hexdigest()
MARKDOWN = "<!-- page 1 -->\n\n# Title\n\n" + "word " * 3000 + "\n\n<!-- page 2 -->\n\nThe end.\n"


def tool(name: str, arguments: dict[str, Any], principal: str = "key-1") -> dict[str, Any]:
    return asyncio.run(run_tool("pdf", Invocation(tool=name, arguments=arguments, principal=principal)))


def refused(name: str, arguments: dict[str, Any]) -> ScholarError:
    with pytest.raises(ScholarError) as caught:
        tool(name, arguments)
    return caught.value


@pytest.fixture
def machine(aws: AwsResources, env: Env) -> str:
    """A state machine that does nothing (moto does not execute here): queuing is what is tested."""
    sfn = aws.client("stepfunctions")
    arn = sfn.create_state_machine(
        name="pdf-pipeline", definition=json.dumps(MACHINE_DEFINITION), roleArn="arn:aws:iam::123456789012:role/x"
    )["stateMachineArn"]
    env(SCHOLAR_PDF_STATE_MACHINE_ARN=arn)
    return arn


def stored_paper(identifier: str) -> StoredPdf:
    """A PDF and its Markdown in the bucket, and the cache record of a paper (synthetic bytes)."""
    artifacts.BlobStore().put(artifacts.pdf_key(SHA), b"%PDF-1.7 synthetic", "application/pdf")
    artifacts.put_markdown(artifacts.md_key(SHA, "builtin"), MARKDOWN)
    pdf = StoredPdf(pdf_path=artifacts.pdf_key(SHA), sha256=SHA, size_bytes=18, pdf_source="arxiv",
                    source_url="https://arxiv.org/pdf/2312.07559")
    artifacts.remember_paper(identifier, PaperSummary(title="PaperQA", arxiv_id="2312.07559"), pdf)
    return pdf


def test_every_pdf_tool_is_write_tagged_open_world_and_may_run_as_a_task() -> None:
    tools = dict(family_tools("pdf"))
    assert set(tools) == PDF_TOOLS | {"upload_pdf"}
    upload = tools.pop("upload_pdf")  # hands out a link: no upstream, never a task, a new link each call
    assert (upload.tags, upload.annotations.open_world, upload.annotations.idempotent) == (frozenset({"write"}),
                                                                                            False, False)
    for spec in tools.values():
        assert spec.tags == frozenset({"write"})
        assert spec.annotations == WRITE_OPEN
        assert spec.task_support == "optional"
        properties = spec.input_schema()["properties"]
        if "max_chars" in properties:
            assert properties["max_chars"]["maximum"] == MAX_CHARS_LIMIT


def test_pdf_tools_are_hidden_in_read_only_mode(env: Env) -> None:
    env(SCHOLAR_READ_ONLY="true")
    assert not PDF_TOOLS & {spec.name for spec in visible_tools(get_settings(), None)}
    env(SCHOLAR_READ_ONLY="false")
    assert {spec.name for spec in visible_tools(get_settings(), None)} >= PDF_TOOLS


def test_convert_refuses_server_paths(aws: AwsResources) -> None:
    for path in ("/etc/passwd", "../pdfs/x.pdf", "file:///tmp/a.pdf", "pdfs/abc.pdf"):
        err = refused("convert_pdf_to_markdown", {"file_path": path})
        assert err.code == INVALID_ARGUMENT
        assert err.details["field"] == "file_path"


def test_fetch_by_url_refuses_other_schemes_and_literal_private_addresses(aws: AwsResources) -> None:
    assert refused("fetch_pdf_by_url", {"url": "file:///etc/passwd"}).code == INVALID_ARGUMENT
    assert refused("fetch_pdf_by_url", {"url": "ftp://example.org/a.pdf"}).code == INVALID_ARGUMENT
    for url in ("http://169.254.169.254/latest/meta-data", "http://127.0.0.1:8080/a.pdf", "http://[::1]/a.pdf",
                "http://10.1.2.3/a.pdf"):
        err = refused("fetch_pdf_by_url", {"url": url})
        assert err.code == FORBIDDEN
        assert err.reason == "blocked_address"


def test_an_unparsable_identifier_is_an_invalid_argument(aws: AwsResources) -> None:
    assert refused("fetch_paper_pdf", {"identifier": "not-an-id"}).code == INVALID_ARGUMENT


def test_a_stored_paper_answers_at_once_with_paged_markdown(aws: AwsResources) -> None:
    pdf = stored_paper("arxiv:2312.07559")
    first = tool("fetch_and_convert", {"identifier": "arXiv:2312.07559v2", "max_chars": 1000})
    assert first["cached"] is True
    assert first["pdf_path"] == pdf.pdf_path and first["pdf_source"] == "arxiv"
    assert first["pdf_url"].startswith("https://")
    assert first["md_path"] == f"md/{SHA}.md"
    assert first["markdown"] == MARKDOWN[:1000]
    assert first["next_offset"] == 1000 and first["truncated"] is True
    assert first["total_chars"] == len(MARKDOWN) and first["page_count"] == 2
    assert first["metadata"]["title"] == "PaperQA"
    last = tool("fetch_and_convert", {"identifier": "2312.07559", "offset": len(MARKDOWN) - 10, "max_chars": 1000})
    assert last["markdown"] == MARKDOWN[-10:]
    assert last.get("next_offset") is None and last["truncated"] is False  # absent when there is no next page
    assert tool("fetch_paper_pdf", {"identifier": "arxiv:2312.07559"})["pdf_path"] == pdf.pdf_path


def test_the_longest_page_as_sent_stays_under_the_tools_advertised_result_size(aws: AwsResources) -> None:
    # Given a stored conversion longer than one page may be: a recorded PDF's real Markdown, four times over
    stored_paper("arxiv:2312.07559")
    real = convert_pdf(fixtures_dir() / "pdfs" / "arxiv_2501.10120v1_pasa.pdf").markdown
    artifacts.put_markdown(artifacts.md_key(SHA, "builtin"), real * (MAX_CHARS_LIMIT // len(real) + 1))

    # When the most one page may hold is asked for, of each tool that pages Markdown
    for name, arguments in (("fetch_and_convert", {"identifier": "arXiv:2312.07559"}),
                            ("convert_pdf_to_markdown", {"file_path": f"pdfs/{SHA}.pdf"})):
        answer = tool(name, {**arguments, "max_chars": MAX_CHARS_LIMIT})

        # Then what a client receives stays under the size the tool advertises
        assert len(answer["markdown"]) == MAX_CHARS_LIMIT
        assert len(success_result(answer).content[0].text) <= result_size_hint(family_tools("pdf")[name])


def test_a_vlm_request_without_docling_says_why_vlm_was_skipped(aws: AwsResources) -> None:
    stored_paper("arxiv:2312.07559")
    answer = tool("fetch_and_convert", {"identifier": "arXiv:2312.07559", "use_vlm": True})
    assert answer["converter"] == "builtin"
    assert answer["vlm_used"] is False
    assert answer["vlm_skip_reason"] == "vlm_api_url_not_configured"


def test_converting_a_stored_pdf_twice_reads_the_stored_markdown(aws: AwsResources) -> None:
    stored_paper("arxiv:2312.07559")
    answer = tool("convert_pdf_to_markdown", {"file_path": f"pdfs/{SHA}.pdf", "max_chars": 2000})
    assert answer["cached"] is True
    assert answer["pdf_path"] == f"pdfs/{SHA}.pdf" and answer["sha256"] == SHA
    assert answer["markdown"] == MARKDOWN[:2000]


def test_converting_an_unknown_artifact_is_not_found(aws: AwsResources) -> None:
    assert refused("convert_pdf_to_markdown", {"file_path": f"pdfs/{'a' * 64}.pdf"}).code == NOT_FOUND


def test_without_a_pipeline_a_miss_is_unavailable_not_a_crash(aws: AwsResources, env: Env) -> None:
    env(SCHOLAR_PDF_STATE_MACHINE_ARN=None)
    assert refused("fetch_paper_pdf", {"identifier": "10.1234/x"}).code == UNAVAILABLE


def test_a_miss_is_queued_with_a_pending_task_bound_to_the_caller(aws: AwsResources, machine: str) -> None:
    queued = tool("fetch_paper_pdf", {"identifier": "DOI:10.1234/x"})
    assert queued["queued"] is True and queued["tool"] == "fetch_paper_pdf" and queued["poll_after_s"] >= 1
    task = TaskStore().get(queued["task_id"], "key-1")
    assert task is not None and task.status == "pending"
    assert task.execution_arn and task.execution_arn.endswith(f":{queued['task_id']}")
    assert TaskStore().get(queued["task_id"], "key-2") is None


def test_repeated_requests_share_one_task_and_one_execution(aws: AwsResources, machine: str) -> None:
    first = tool("fetch_paper_pdf", {"identifier": "DOI:10.1234/x"})
    second = tool("fetch_paper_pdf", {"identifier": "https://doi.org/10.1234/X"})  # the same paper, another form
    assert first["task_id"] == second["task_id"]
    executions = aws.client("stepfunctions").list_executions(stateMachineArn=machine)["executions"]
    assert [e["name"] for e in executions] == [first["task_id"]]
    other = tool("fetch_paper_pdf", {"identifier": "DOI:10.1234/x"}, principal="key-2")
    assert other["task_id"] != first["task_id"]  # tasks are bound to their caller


def test_after_a_failed_run_the_next_request_starts_a_new_one(aws: AwsResources, machine: str) -> None:
    first = tool("fetch_paper_pdf", {"identifier": "DOI:10.1234/x"})
    TaskStore().transition(first["task_id"], "failed", allowed_from=("pending",), error={"code": "internal"})
    second = tool("fetch_paper_pdf", {"identifier": "DOI:10.1234/x"})
    assert second["task_id"] != first["task_id"]
    assert second["task_id"].endswith("g1")
