"""docling-serve client for its async API: submit, poll, fetch the Markdown (seed 000 PDF Conversion).

``POST /v1/convert/source/async`` takes the PDF as a URL the server fetches itself (a short-lived
presigned S3 URL: nothing is uploaded from Lambda) or as base64; ``GET /v1/status/poll/{task_id}``
reports ``pending | started | success | failure`` (with ``?wait=`` long polling) and
``GET /v1/result/{task_id}`` returns ``{"document": {"md_content": ...}, "status": ...}``.
The Step Functions pipeline calls ``submit`` / ``poll`` / ``fetch_result`` in separate states; a
script can call ``convert`` which does all three. Standard and VLM outputs are distinct
converters (``docling`` / ``docling_vlm``) so their Markdown is cached separately.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from scholar.core.config import Settings
from scholar.core.errors import UnavailableError, UpstreamError, UpstreamTimeoutError
from scholar.sources.http import get_json, post_json
from scholar.store.secrets import get_secret

SOURCE = "docling"
SUBMIT_PATH = "/v1/convert/source/async"
POLL_PATH = "/v1/status/poll/{task_id}"
RESULT_PATH = "/v1/result/{task_id}"
MAX_POLL_WAIT_S = 10.0  # stays under scholar.sources.http's read timeout
VLM_NOT_CONFIGURED = "vlm_api_url_not_configured"
DOCLING_NOT_CONFIGURED = "docling_url_not_configured"
DOCLING_FAILED = "docling_failed"
_PICTURE_PROMPT = (
    "Describe this figure from a scholarly paper: its type, what it shows, axes, legends and the "
    "main finding, in a few sentences."
)

Converter = Literal["docling", "docling_vlm"]


class VlmOptions(BaseModel):
    """The external vision model docling-serve calls for figures (an OpenAI-compatible endpoint)."""

    api_url: str = Field(max_length=2000)
    api_key: SecretStr | None = None
    model: str | None = Field(default=None, max_length=200)
    timeout_s: float = Field(default=60.0, gt=0, le=600)


class DoclingTask(BaseModel):
    """docling-serve's TaskStatusResponse (fields we use; others ignored)."""

    model_config = ConfigDict(extra="ignore")

    task_id: str = Field(min_length=1, max_length=200)
    task_status: str
    task_position: int | None = None
    task_meta: dict[str, Any] | None = None

    @property
    def done(self) -> bool:
        return self.task_status in ("success", "failure")


class DoclingMarkdown(BaseModel):
    """The Markdown docling-serve produced for one PDF."""

    converter: Converter
    markdown: str
    vlm_used: bool
    status: str
    processing_time_s: float | None = None
    errors: list[str] = Field(default_factory=list)


def vlm_from_settings(settings: Settings) -> VlmOptions | None:
    """The VLM options when ``SCHOLAR_VLM_API_URL`` is set, else None."""
    if not settings.vlm_api_url:
        return None
    key = get_secret("vlm_api_key", settings)
    return VlmOptions(api_url=settings.vlm_api_url, api_key=key, model=settings.vlm_model)


def converter_name(vlm_used: bool) -> Converter:
    """The converter label used in artifact keys: ``md/<sha256>.<converter>.md``."""
    return "docling_vlm" if vlm_used else "docling"


def build_options(vlm: VlmOptions | None) -> dict[str, Any]:
    """docling-serve conversion options: Markdown out, images as placeholders, optional VLM enrichment."""
    options: dict[str, Any] = {
        "from_formats": ["pdf"],
        "to_formats": ["md"],
        "image_export_mode": "placeholder",
        "do_ocr": True,
        "abort_on_error": False,
    }
    if vlm is not None:
        api: dict[str, Any] = {"url": vlm.api_url, "timeout": vlm.timeout_s, "prompt": _PICTURE_PROMPT}
        if vlm.model:
            api["params"] = {"model": vlm.model}
        if vlm.api_key is not None:
            api["headers"] = {"Authorization": f"Bearer {vlm.api_key.get_secret_value()}"}
        options.update(do_formula_enrichment=True, do_picture_description=True, picture_description_api=api)
    return options


def configured(settings: Settings) -> bool:
    """Whether this deployment runs a docling-serve: its own URL is set (``SCHOLAR_DOCLING_URL``).

    docling has no public default, and a proxy base (DESIGN §6) stands in for the public upstreams only: with a
    proxy base alone, PDFs go to the built-in converter and this client refuses.
    """
    return bool(settings.docling_url)


def _require_configured(settings: Settings) -> None:
    if not configured(settings):
        raise UnavailableError(
            "docling-serve is not configured (SCHOLAR_DOCLING_URL)",
            reason=DOCLING_NOT_CONFIGURED,
            hint="Use the built-in converter, or set SCHOLAR_DOCLING_URL to a docling-serve instance.",
        )


async def submit(
    settings: Settings,
    *,
    url: str | None = None,
    path: str | os.PathLike[str] | None = None,
    filename: str = "paper.pdf",
    vlm: VlmOptions | None = None,
) -> DoclingTask:
    """Start an async conversion of a PDF given by URL (preferred) or by local file.

    Args:
        settings: the settings (docling base URL).
        url: a URL docling-serve can fetch (e.g. a presigned S3 URL).
        path: a local PDF, sent base64-encoded when no URL is given.
        filename: the name docling-serve reports for a file source.
        vlm: VLM enrichment options, or None for the standard pipeline.

    Returns:
        The queued task (``task_id``, ``task_status``).

    Raises:
        UnavailableError: docling-serve is not configured.
        UpstreamError: docling-serve refused or failed.
    """
    _require_configured(settings)
    if url is not None:
        source: dict[str, Any] = {"kind": "http", "url": url}
    elif path is not None:
        encoded = base64.b64encode(Path(path).read_bytes()).decode("ascii")
        source = {"kind": "file", "base64_string": encoded, "filename": filename}
    else:
        raise ValueError("submit needs a url or a path")
    body = {"options": build_options(vlm), "sources": [source], "target": {"kind": "inbody"}}
    data = await post_json(SOURCE, SUBMIT_PATH, body, what="conversion task")
    return _task(data)


async def poll(settings: Settings, task_id: str, *, wait_s: float = 0.0) -> DoclingTask:
    """The task's status; ``wait_s`` > 0 lets docling-serve hold the answer until it changes."""
    _require_configured(settings)
    params = {"wait": min(max(wait_s, 0.0), MAX_POLL_WAIT_S)} if wait_s > 0 else None
    data = await get_json(SOURCE, POLL_PATH.format(task_id=task_id), what=f"task {task_id}", params=params)
    return _task(data)


async def fetch_result(settings: Settings, task_id: str, *, vlm_used: bool) -> DoclingMarkdown:
    """The Markdown of a finished task.

    Raises:
        UpstreamError: the conversion failed or produced no Markdown (reason ``docling_failed``).
    """
    _require_configured(settings)
    data = await get_json(SOURCE, RESULT_PATH.format(task_id=task_id), what=f"result of task {task_id}")
    if not isinstance(data, dict):
        raise UpstreamError("docling-serve answered a result that is not an object", source=SOURCE)
    document = data.get("document") or {}
    markdown = document.get("md_content") if isinstance(document, dict) else None
    status = str(data.get("status", ""))
    errors = [str(e.get("error_message", e)) if isinstance(e, dict) else str(e) for e in data.get("errors") or []]
    if status not in ("success", "partial_success") or not markdown:
        raise UpstreamError(
            f"docling-serve could not convert the PDF (status {status or 'unknown'})"
            + (f": {errors[0][:200]}" if errors else ""),
            source=SOURCE,
            reason=DOCLING_FAILED,
            retryable=False,
        )
    processing = data.get("processing_time")
    return DoclingMarkdown(
        converter=converter_name(vlm_used),
        markdown=markdown,
        vlm_used=vlm_used,
        status=status,
        processing_time_s=float(processing) if isinstance(processing, (int, float)) else None,
        errors=errors,
    )


async def convert(
    settings: Settings,
    *,
    url: str | None = None,
    path: str | os.PathLike[str] | None = None,
    vlm: VlmOptions | None = None,
    max_polls: int = 60,
    wait_s: float = MAX_POLL_WAIT_S,
    on_status: Callable[[DoclingTask], Awaitable[None]] | None = None,
) -> DoclingMarkdown:
    """Submit, long-poll until done, and fetch the Markdown (for scripts; the pipeline uses the steps).

    Raises:
        UpstreamTimeoutError: still not done after ``max_polls`` polls.
        UpstreamError: the task failed.
    """
    task = await submit(settings, url=url, path=path, vlm=vlm)
    polls = 0
    while not task.done:
        if polls >= max_polls:
            raise UpstreamTimeoutError(
                f"docling-serve task {task.task_id} did not finish after {max_polls} polls", source=SOURCE
            )
        task = await poll(settings, task.task_id, wait_s=wait_s)
        polls += 1
        if on_status is not None:
            await on_status(task)
    if task.task_status == "failure":
        raise UpstreamError(
            f"docling-serve task {task.task_id} failed", source=SOURCE, reason=DOCLING_FAILED, retryable=False
        )
    return await fetch_result(settings, task.task_id, vlm_used=vlm is not None)


def _task(data: Any) -> DoclingTask:
    if not isinstance(data, dict) or not data.get("task_id"):
        raise UpstreamError("docling-serve answered without a task_id", source=SOURCE)
    return DoclingTask.model_validate(data)
