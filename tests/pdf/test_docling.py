"""docling-serve async client against respx, with SYNTHETIC payloads (tests/pdf/synthetic_docling.py)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import pytest
import respx

from scholar.core.config import get_settings, load_settings
from scholar.core.errors import TIMEOUT, UNAVAILABLE, UPSTREAM_ERROR, ScholarError
from scholar.services.fulltext import docling
from scholar.services.fulltext.answer_builder import converter_for, vlm_skip_reason
from tests.conftest import UPSTREAM_BASE
from tests.pdf.synthetic_docling import (
    SYNTHETIC_RESULT_FAILURE,
    SYNTHETIC_RESULT_SUCCESS,
    TASK_ID,
    synthetic_task,
)

SUBMIT = "/docling/v1/convert/source/async"
POLL = f"/docling/v1/status/poll/{TASK_ID}"
RESULT = f"/docling/v1/result/{TASK_ID}"
PRESIGNED = "https://artifacts.s3.amazonaws.com/pdfs/abc.pdf?X-Amz-Signature=sig"


@pytest.fixture(autouse=True)
def docling_url(env) -> None:
    """docling-serve is configured by its own URL, here the fake upstream's docling path."""
    env.set(SCHOLAR_DOCLING_URL=f"{UPSTREAM_BASE}/docling")


def sent_json(route: respx.Route, index: int = 0) -> dict:
    return json.loads(route.calls[index].request.content)


def test_submitting_a_url_asks_for_markdown_with_the_standard_pipeline(upstream: respx.MockRouter) -> None:
    route = upstream.post(SUBMIT).respond(200, json=synthetic_task("pending", position=1))
    task = asyncio.run(docling.submit(get_settings(), url=PRESIGNED))
    assert task.task_id == TASK_ID and not task.done
    body = sent_json(route)
    assert body["sources"] == [{"kind": "http", "url": PRESIGNED}]
    assert body["target"] == {"kind": "inbody"}
    assert body["options"]["to_formats"] == ["md"]
    assert "picture_description_api" not in body["options"]


def test_submitting_a_file_sends_it_base64_encoded(upstream: respx.MockRouter, tmp_path: Path) -> None:
    pdf = tmp_path / "p.pdf"
    pdf.write_bytes(b"%PDF-1.7\n%%EOF\n")
    route = upstream.post(SUBMIT).respond(200, json=synthetic_task("pending"))
    asyncio.run(docling.submit(get_settings(), path=pdf, filename="p.pdf"))
    (source,) = sent_json(route)["sources"]
    assert source == {"kind": "file", "base64_string": "JVBERi0xLjcKJSVFT0YK", "filename": "p.pdf"}


def test_the_vlm_option_adds_figure_and_formula_enrichment_through_the_configured_api(
    upstream: respx.MockRouter, env
) -> None:
    env(
        SCHOLAR_VLM_API_URL="https://vlm.example.org/v1/chat/completions",
        SCHOLAR_VLM_MODEL="granite-vision",
        SCHOLAR_VLM_API_KEY="k-123",
    )
    settings = get_settings()
    vlm = docling.vlm_from_settings(settings)
    assert vlm is not None and vlm_skip_reason(True, converter_for(True, settings)) is None
    route = upstream.post(SUBMIT).respond(200, json=synthetic_task("pending"))
    asyncio.run(docling.submit(settings, url=PRESIGNED, vlm=vlm))
    options = sent_json(route)["options"]
    assert options["do_picture_description"] is True
    assert options["do_formula_enrichment"] is True
    api = options["picture_description_api"]
    assert api["url"] == "https://vlm.example.org/v1/chat/completions"
    assert api["params"] == {"model": "granite-vision"}
    assert api["headers"] == {"Authorization": "Bearer k-123"}
    assert "k-123" not in repr(vlm)


def test_vlm_requested_without_configuration_reports_the_skip_reason() -> None:
    assert docling.vlm_from_settings(get_settings()) is None
    assert vlm_skip_reason(True, converter_for(True, get_settings())) == docling.VLM_NOT_CONFIGURED
    assert vlm_skip_reason(False, converter_for(False, get_settings())) is None
    assert docling.converter_name(True) == "docling_vlm"
    assert docling.converter_name(False) == "docling"


def test_convert_polls_until_success_then_returns_the_markdown(upstream: respx.MockRouter) -> None:
    upstream.post(SUBMIT).respond(200, json=synthetic_task("pending"))
    poll = upstream.get(POLL).mock(
        side_effect=[
            httpx.Response(200, json=synthetic_task("started")),
            httpx.Response(200, json=synthetic_task("success")),
        ]
    )
    upstream.get(RESULT).respond(200, json=SYNTHETIC_RESULT_SUCCESS)
    seen: list[str] = []

    async def on_status(task: docling.DoclingTask) -> None:
        seen.append(task.task_status)

    result = asyncio.run(docling.convert(get_settings(), url=PRESIGNED, on_status=on_status))
    assert result.markdown.startswith("## PaSa")
    assert result.converter == "docling" and result.vlm_used is False
    assert result.processing_time_s == 12.5
    assert seen == ["started", "success"]
    assert poll.calls[0].request.url.params["wait"] == str(docling.MAX_POLL_WAIT_S)


def test_a_failed_task_is_an_upstream_error_that_retrying_will_not_fix(upstream: respx.MockRouter) -> None:
    upstream.post(SUBMIT).respond(200, json=synthetic_task("pending"))
    upstream.get(POLL).respond(200, json=synthetic_task("failure"))
    with pytest.raises(ScholarError) as caught:
        asyncio.run(docling.convert(get_settings(), url=PRESIGNED))
    assert caught.value.code == UPSTREAM_ERROR
    assert caught.value.reason == docling.DOCLING_FAILED
    assert caught.value.retryable is False


def test_a_result_with_failure_status_is_reported_with_docling_s_message(upstream: respx.MockRouter) -> None:
    upstream.get(RESULT).respond(200, json=SYNTHETIC_RESULT_FAILURE)
    with pytest.raises(ScholarError) as caught:
        asyncio.run(docling.fetch_result(get_settings(), TASK_ID, vlm_used=False))
    assert caught.value.reason == docling.DOCLING_FAILED
    assert "not valid" in caught.value.message


def test_a_task_that_never_finishes_times_out_after_the_poll_budget(upstream: respx.MockRouter) -> None:
    upstream.post(SUBMIT).respond(200, json=synthetic_task("pending"))
    upstream.get(POLL).respond(200, json=synthetic_task("started"))
    with pytest.raises(ScholarError) as caught:
        asyncio.run(docling.convert(get_settings(), url=PRESIGNED, max_polls=3))
    assert caught.value.code == TIMEOUT


def test_without_a_docling_url_the_client_is_unavailable(env) -> None:
    env.delete("SCHOLAR_DOCLING_URL", "SCHOLAR_UPSTREAM_PROXY_BASE")
    with pytest.raises(ScholarError) as caught:
        asyncio.run(docling.submit(get_settings(), url=PRESIGNED))
    assert caught.value.code == UNAVAILABLE
    assert caught.value.reason == docling.DOCLING_NOT_CONFIGURED


def test_a_proxy_base_alone_configures_no_docling_for_the_pipeline_nor_for_the_client(env) -> None:
    # The two used to disagree: the pipeline chose the built-in converter while the client sent to the proxy.
    env.delete("SCHOLAR_DOCLING_URL")
    env.set(SCHOLAR_UPSTREAM_PROXY_BASE=UPSTREAM_BASE)
    settings = get_settings()

    assert docling.configured(settings) is False and converter_for(False, settings) == "builtin"
    with pytest.raises(ScholarError) as caught:
        asyncio.run(docling.submit(settings, url=PRESIGNED))
    assert (caught.value.code, caught.value.reason) == (UNAVAILABLE, docling.DOCLING_NOT_CONFIGURED)
    assert docling.configured(load_settings({"SCHOLAR_DOCLING_URL": "http://docling.test"})) is True
