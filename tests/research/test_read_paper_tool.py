"""read_paper in-process (moto): the recorded PDFs stored and converted, then read by pages, outline, section, figure.

Each stored paper is a real PDF of ../shared/fixtures/pdfs with the Markdown the built-in converter makes of it
(converted once per module), filed under the paper's cache record as the PDF pipeline files it.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import io
import json
import re
from collections.abc import Sequence
from functools import cache
from typing import Any

import pytest
from PIL import Image

from scholar.core.catalogue import READ_ONLY_OPEN
from scholar.core.config import get_settings
from scholar.core.errors import FORBIDDEN, INVALID_ARGUMENT, NOT_FOUND, ScholarError
from scholar.families import get_tool, result_size_hint
from scholar.gateway.mcp.dispatch import success_result
from scholar.gateway.mcp.tools import visible_tools
from scholar.runtime.family import run_tool
from scholar.runtime.invocation import Invocation
from scholar.services.fulltext import artifacts
from scholar.services.fulltext.models import PaperSummary, StoredPdf
from scholar.services.fulltext.read_options import MAX_READ_CHARS, READ_RESULT_CHARS
from scholar.services.pdftext.convert import convert_pdf
from scholar.store.tasks import TaskStore
from scholar.web import fetch
from tests.fixtures.aws import AwsResources
from tests.fixtures.env import Env
from tests.fixtures_dir import fixtures_dir

PASA = "arxiv_2501.10120v1_pasa.pdf"  # 15 pages, figures 1-3, tables with captions below them
PARAPHRASE = "arxiv_2202.00535v1_novelty_controlled_paraphrase.pdf"  # 12 pages, tables with captions above
PASA_ID = "arxiv:2501.10120"
PARAPHRASE_ID = "arxiv:2202.00535"
MARKER = re.compile(r"<!-- page (\d+) -->")
MACHINE_DEFINITION = {"StartAt": "Done", "States": {"Done": {"Type": "Succeed"}}}


@cache
def pdf_bytes(name: str) -> bytes:
    return (fixtures_dir() / "pdfs" / name).read_bytes()


@cache
def converted(name: str) -> str:
    return convert_pdf(fixtures_dir() / "pdfs" / name).markdown


def store(name: str, identifier: str | None = None) -> str:
    """The PDF and its Markdown in the bucket (and the paper's record when ``identifier``); its pdf_path."""
    data = pdf_bytes(name)
    sha = hashlib.sha256(data).hexdigest()
    artifacts.BlobStore().put(artifacts.pdf_key(sha), data, "application/pdf")
    artifacts.put_markdown(artifacts.md_key(sha, "builtin"), converted(name))
    if identifier:
        pdf = StoredPdf(pdf_path=artifacts.pdf_key(sha), sha256=sha, size_bytes=len(data), pdf_source="arxiv",
                        source_url=f"https://arxiv.org/pdf/{identifier.removeprefix('arxiv:')}")
        artifacts.remember_paper(identifier, PaperSummary(title=name, arxiv_id=identifier), pdf)
    return artifacts.pdf_key(sha)


def read(arguments: dict[str, Any], principal: str = "key-1") -> dict[str, Any]:
    return asyncio.run(run_tool("research", Invocation(tool="read_paper", arguments=arguments, principal=principal)))


def refused(arguments: dict[str, Any]) -> ScholarError:
    with pytest.raises(ScholarError) as caught:
        read(arguments)
    return caught.value


def markers(markdown: str) -> list[int]:
    return [int(n) for n in MARKER.findall(markdown)]


@pytest.fixture
def pasa(aws: AwsResources) -> str:
    return store(PASA, PASA_ID)


def test_read_paper_is_a_read_only_open_world_tool_that_may_queue_and_stays_in_read_only_mode(env: Env) -> None:
    spec = get_tool("read_paper")
    assert spec is not None and spec.family == "research"
    assert spec.annotations == READ_ONLY_OPEN and "write" not in spec.tags
    assert spec.task_support == "optional"
    assert spec.input_schema()["properties"]["max_chars"]["maximum"] == MAX_READ_CHARS
    forms = spec.output_schema()["anyOf"]
    assert any("queued" in f.get("properties", {}) for f in forms)
    assert any("error" in f.get("properties", {}) for f in forms)
    assert "extra_content" not in json.dumps(forms)  # the image travels as a content block, not in the schema
    env(SCHOLAR_READ_ONLY="true")
    assert "read_paper" in {s.name for s in visible_tools(get_settings(), None)}


def test_the_default_read_is_pages_one_to_ten_each_after_its_marker(pasa: str) -> None:
    answer = read({"identifier": "arXiv:2501.10120v1"})
    assert answer["cached"] is True
    assert markers(answer["markdown"]) == list(range(1, 11))
    assert answer["pages_returned"] == "1-10" and answer["page_count"] == 15
    assert answer.get("next_pages") is None and answer["truncated"] is False
    assert answer["chars"] == len(answer["markdown"]) <= 100_000
    assert answer["md_path"].startswith("md/") and answer["pdf_path"] == pasa
    assert answer["metadata"]["title"] == PASA


@pytest.mark.parametrize(("pages", "expected"), [("2-3", [2, 3]), ("1,3", [1, 3]), ("3-", list(range(3, 16))),
                                                 ("5, 3,7-8", [3, 5, 7, 8])])
def test_page_ranges_return_exactly_those_pages(pasa: str, pages: str, expected: list[int]) -> None:
    answer = read({"identifier": PASA_ID, "pages": pages})
    assert markers(answer["markdown"]) == expected
    whole = converted(PASA)
    # Each page is the converter's page, whole: from its marker to the next one
    for number in expected:
        start = whole.index(f"<!-- page {number} -->")
        end = whole.find("<!-- page ", start + 1)
        assert whole[start:end if end > 0 else None] in answer["markdown"]


def test_a_small_budget_stops_at_a_page_boundary_and_next_pages_reads_on(pasa: str) -> None:
    first = read({"identifier": PASA_ID, "pages": "1-6", "max_chars": 9000})
    returned = markers(first["markdown"])
    assert returned and returned[0] == 1 and first["chars"] <= 9000
    assert first["truncated"] is False
    whole = converted(PASA)
    next_page = returned[-1] + 1
    assert first["markdown"] == whole[:whole.index(f"<!-- page {next_page} -->")]  # never mid-page
    assert first["next_pages"] == f"{next_page}-6"
    rest = read({"identifier": PASA_ID, "pages": first["next_pages"], "max_chars": 9000})
    assert markers(rest["markdown"])[0] == next_page


def test_the_longest_read_as_sent_stays_under_the_tools_advertised_result_size(pasa: str) -> None:
    # Given a long paper: the recorded PDF's real pages, repeated (renumbered) well past max_chars
    pages = re.split(r"(?=<!-- page \d+ -->)", converted(PASA))[1:]
    long = [MARKER.sub(f"<!-- page {n + 1} -->", page, count=1) for n, page in enumerate(pages * 12)]
    artifacts.put_markdown(artifacts.md_key(hashlib.sha256(pdf_bytes(PASA)).hexdigest(), "builtin"), "".join(long))

    # When the most one answer may hold is read
    answer = read({"identifier": PASA_ID, "pages": "1-", "max_chars": MAX_READ_CHARS})

    # Then it is close to max_chars of Markdown, and what a client receives stays under the advertised size
    sent = success_result(answer).content[0].text
    assert MAX_READ_CHARS * 0.9 < answer["chars"] <= MAX_READ_CHARS and answer["next_pages"]
    assert len(sent) <= result_size_hint(get_tool("read_paper")) == READ_RESULT_CHARS


def test_a_page_longer_than_the_budget_alone_is_cut_and_says_so(pasa: str) -> None:
    answer = read({"identifier": PASA_ID, "pages": "2-3", "max_chars": 1000})
    assert answer["truncated"] is True and answer["chars"] == 1000
    assert answer["pages_returned"] == "2" and answer["next_pages"] == "3"
    assert "page 2" in answer["note"]


def test_pages_past_the_end_are_stated_and_the_existing_ones_returned(pasa: str) -> None:
    answer = read({"identifier": PASA_ID, "pages": "14-20"})
    assert markers(answer["markdown"]) == [14, 15]
    assert answer["pages_missing"] == "16-20"
    assert "15 page" in answer["note"]


def test_pages_that_do_not_exist_at_all_are_an_invalid_argument_naming_pages(pasa: str) -> None:
    err = refused({"identifier": PASA_ID, "pages": "30-"})
    assert err.code == INVALID_ARGUMENT and err.details["field"] == "pages"
    assert err.details["page_count"] == 15


@pytest.mark.parametrize("pages", ["0-3", "5-2", "1-2-3", "a", ",", "1,,2"])
def test_a_malformed_page_range_is_an_invalid_argument_naming_pages(aws: AwsResources, pages: str) -> None:
    err = refused({"identifier": PASA_ID, "pages": pages})
    assert err.code == INVALID_ARGUMENT and err.details["field"] == "pages"


def test_the_outline_lists_headings_with_their_pages_and_no_body(pasa: str) -> None:
    answer = read({"identifier": PASA_ID, "outline": True})
    assert answer.get("markdown") is None
    entries = {(e["heading"], e["page"]) for e in answer["outline"]}
    assert {("4 Methodology", 4), ("5 Experiments", 7), ("References", 10), ("6 Conclusion", 9)} <= entries
    assert answer["outline"][0]["level"] == 1 and answer["outline"][0]["heading"].startswith("PaSa")


def test_a_section_by_heading_text_returns_that_section_only(pasa: str) -> None:
    answer = read({"identifier": PASA_ID, "section": "methodology"})
    assert answer["section"] == {"heading": "4 Methodology", "level": 2, "pages": "4-7"}
    body = answer["markdown"]
    assert body.startswith("<!-- page 4 -->\n\n## 4 Methodology")
    assert "### 4.3 Selector" in body and "## 5 Experiments" not in body
    assert markers(body) == [4, 5, 6, 7]


def test_an_unknown_section_is_not_found_with_a_hint_to_read_the_outline(pasa: str) -> None:
    err = refused({"identifier": PASA_ID, "section": "Quantum gravity"})
    assert err.code == NOT_FOUND and err.reason == "section_not_found"


def test_a_figure_comes_back_as_a_png_image_block_with_its_caption(pasa: str) -> None:
    answer = read({"identifier": PASA_ID, "figure": "Fig. 3"})
    figure = answer["figure"]
    assert (figure["label"], figure["kind"], figure["page"], figure["region"]) == ("Figure 3", "figure", 9, "figure")
    assert figure["caption"].startswith("Figure 3: Return and value function loss curves")
    (image,) = answer["extra_content"]
    assert image["media_type"] == "image/png"
    picture = Image.open(io.BytesIO(base64.b64decode(image["data"])))
    assert picture.format == "PNG" and picture.size == (figure["width_px"], figure["height_px"])
    left, bottom, right, top = figure["box"]
    assert right - left < 300 and top - bottom < 300  # the figure in its column, not the whole 595 x 842 page
    # Through the gateway the picture is an MCP image block after the JSON text; structuredContent has no image
    result = success_result(answer)
    assert [block.type for block in result.content] == ["text", "image"]
    assert result.content[1].mime_type == "image/png" and "extra_content" not in result.structured_content


def test_a_table_comes_back_as_an_image_with_its_caption_and_its_markdown_rows(aws: AwsResources) -> None:
    store(PARAPHRASE, PARAPHRASE_ID)
    answer = read({"identifier": PARAPHRASE_ID, "table": "Table 2"})
    table = answer["figure"]
    assert (table["kind"], table["page"], table["region"]) == ("table", 4, "table")
    assert table["caption"].startswith("Table 2: Comparison on the number of trainable parameters")
    assert table["markdown_table"].startswith("|") and "354,823,168" in table["markdown_table"]
    picture = Image.open(io.BytesIO(base64.b64decode(answer["extra_content"][0]["data"])))
    assert picture.size == (table["width_px"], table["height_px"])


def test_a_table_never_comes_back_with_the_next_tables_rows(aws: AwsResources) -> None:
    # Table 1's caption sits below its picture and Table 2's caption and rows follow it on the same page
    store(PARAPHRASE, PARAPHRASE_ID)
    first = read({"identifier": PARAPHRASE_ID, "table": "Table 1"})["figure"]
    second = read({"identifier": PARAPHRASE_ID, "table": "Table 2"})["figure"]

    assert first["caption"].startswith("Table 1") and second["caption"].startswith("Table 2")
    assert second["markdown_table"].startswith("| Model |")
    assert first.get("markdown_table") != second["markdown_table"]  # it was Table 2's rows under Table 1's label


def test_a_figure_label_the_paper_does_not_have_is_not_found(pasa: str) -> None:
    err = refused({"identifier": PASA_ID, "figure": "Figure 42"})
    assert err.code == NOT_FOUND and err.reason == "figure_not_found"


def test_a_stored_pdf_is_read_by_its_artifact_reference(pasa: str) -> None:
    answer = read({"identifier": pasa, "pages": "1"})
    assert markers(answer["markdown"]) == [1]
    assert answer["pdf_path"] == pasa and answer.get("metadata") is None


def test_asking_for_two_views_at_once_is_refused(aws: AwsResources) -> None:
    assert refused({"identifier": PASA_ID, "outline": True, "figure": "Figure 1"}).code == INVALID_ARGUMENT


def test_an_unparsable_identifier_is_an_invalid_argument_naming_identifier(aws: AwsResources) -> None:
    err = refused({"identifier": "not-an-id"})
    assert err.code == INVALID_ARGUMENT and err.details["field"] == "identifier"


def _resolver(addresses: Sequence[str]):
    async def resolve(host: str, port: int) -> Sequence[str]:
        return addresses

    return resolve


def test_a_url_on_a_private_address_is_refused_before_anything_is_queued(aws: AwsResources) -> None:
    fetch.set_web_access(fetch.WebAccess(resolver=_resolver(["10.0.0.7"])))
    try:
        for url in ("https://intranet.example.org/paper.pdf", "http://169.254.169.254/latest/meta-data"):
            err = refused({"identifier": url})
            assert err.code == FORBIDDEN and err.reason == "blocked_address"
    finally:
        fetch.set_web_access(None)
    assert TaskStore().list("key-1") == []


def test_a_paper_not_yet_converted_is_queued_as_a_read_paper_task(aws: AwsResources, env: Env) -> None:
    sfn = aws.client("stepfunctions")
    arn = sfn.create_state_machine(name="pdf-pipeline", definition=json.dumps(MACHINE_DEFINITION),
                                   roleArn="arn:aws:iam::123456789012:role/x")["stateMachineArn"]
    env(SCHOLAR_PDF_STATE_MACHINE_ARN=arn)
    queued = read({"identifier": "arXiv:2304.02623", "pages": "2-3"})
    assert queued["queued"] is True and queued["tool"] == "read_paper"
    # The same read, with the paper written another way, is the same task
    assert read({"identifier": "2304.02623", "pages": "2-3"})["task_id"] == queued["task_id"]
    # Another view of the paper is a task of its own: a task's result is one answer
    other = read({"identifier": "2304.02623", "pages": "4"})
    assert other["task_id"] != queued["task_id"]
    executions = sfn.list_executions(stateMachineArn=arn)["executions"]
    jobs = {e["name"]: json.loads(sfn.describe_execution(executionArn=e["executionArn"])["input"])["job"]
            for e in executions}
    assert jobs[queued["task_id"]]["read"]["pages"] == "2-3" and jobs[queued["task_id"]]["convert"] is True
    assert jobs[other["task_id"]]["read"]["pages"] == "4"


@pytest.mark.parametrize(("field", "label"), [("figure", "Picture 3"), ("table", "Table two"), ("figure", "Fig. 3 x")])
def test_a_label_that_is_no_figure_or_table_label_is_refused_naming_its_field(aws: AwsResources, field: str,
                                                                              label: str) -> None:
    err = refused({"identifier": "arXiv:2304.02623", field: label})  # refused before anything is queued
    assert err.code == INVALID_ARGUMENT and err.details["field"] == field


def test_markdown_without_page_markers_is_read_as_one_page_and_says_so(aws: AwsResources) -> None:
    # synthetic_markdown_without_markers: the shape docling-serve writes (headings and paragraphs, no markers)
    ref = store(PASA)
    sha = artifacts.sha_of(ref)
    artifacts.put_markdown(artifacts.md_key(sha, "builtin"), "# Title\n\n## 1 Intro\n\nText.\n")
    answer = read({"identifier": ref, "pages": "1-3"})
    assert answer["markdown"].startswith("# Title") and answer["pages_returned"] == "1"
    assert answer.get("page_count") is None and answer["pages_missing"] == "2-3"
    assert "no page markers" in answer["note"]
