"""From a tool call to a job: normalised arguments, a cached answer when there is one, else a queued task.

The task is deduplicated per caller and hour (``scholar.runtime.queue.queue_deduplicated``); different
callers get their own tasks, and their PDFs are still stored once (content-addressed keys).
"""

from __future__ import annotations

import logging

from pydantic import BaseModel

from scholar.core.catalogue import CallContext, QueuedResult
from scholar.core.config import get_settings
from scholar.core.errors import NotFoundError
from scholar.core.ids import S2_KINDS, InvalidIdError, parse_paper_id
from scholar.runtime.cancel import cancel
from scholar.runtime.queue import queue_deduplicated
from scholar.services.fulltext import answer_builder, artifacts
from scholar.services.fulltext.models import Job
from scholar.services.paper_lookup import parse_identifier
from scholar.store.tasks import TaskStore
from scholar.web.fetch import web_access
from scholar.web.ssrf import vet_url

logger = logging.getLogger(__name__)

# DESIGN §5: PDF work is readable for an hour (from completion; see scholar.services.pipeline).
PDF_TASK_TTL_S = 3600
POLL_AFTER_S = 3


def paper_job(tool: str, identifier: str, **options: object) -> Job:
    """A job for a paper identifier (parsed and normalised; every paper form, scholar.core.ids ``PAPER_KINDS``).

    Raises:
        InvalidArgumentError: field ``identifier``: no accepted form, or not a paper (the refusal names the tool
            that takes it).
    """
    parsed = parse_identifier(identifier, tool=tool)
    s2_key = parsed.s2_key() if parsed.kind in S2_KINDS else None
    return Job(kind="paper", tool=tool, identifier=parsed.cache_key(), s2_key=s2_key, **options)


async def url_job(tool: str, url: str, **options: object) -> Job:
    """A job for a caller's URL, vetted before anything is queued (docs/security.md, the URL rule).

    The host is parsed as the socket layer would (every IPv4 spelling) and a name is resolved through the
    injected resolver now, so a refused address fails at once; the pipeline vets every hop again.

    Raises:
        InvalidArgumentError: not an http(s) URL.
        ForbiddenError: the host is (or resolves to) a private, loopback, link-local or metadata address,
            or does not resolve.
    """
    await vet_url(url, resolver=web_access().resolver, allow_hosts=get_settings().test_allow_hosts)
    return Job(kind="url", tool=tool, url=url, **options)


def convert_job(tool: str, pdf_path: str, **options: object) -> Job:
    artifacts.sha_of(pdf_path)
    return Job(kind="convert", tool=tool, pdf_path=pdf_path, **options)


def _converter(job: Job) -> answer_builder.Converter:
    return answer_builder.converter_for(job.use_vlm, get_settings())


def cached_answer(job: Job, principal: str | None = None) -> BaseModel | None:
    """The answer from stored artifacts, or None when work is needed.

    A paper is looked up in the shared record first (open copies), then in ``principal``'s own (a PDF licensed to
    them through their library proxy: scholar.services.fulltext.licensed); no other caller's own record is read.
    """
    if job.kind == "convert":
        if not artifacts.exists(job.pdf_path or ""):
            raise NotFoundError(
                f"the artifact {job.pdf_path} does not exist (it may have expired)",
                hint="Fetch the PDF again with fetch_paper_pdf or fetch_pdf_by_url.",
            )
        md_path = artifacts.md_key_of(job.pdf_path or "", _converter(job))
        if not artifacts.exists(md_path):
            return None
        return answer_builder.build(job, md=(md_path, _converter(job)), cached=True)
    if job.kind == "paper":
        key = artifacts.paper_cache_key(job.identifier or "")
    else:
        key = artifacts.url_cache_key(job.url or "")
    found = artifacts.recall(key)
    if found is None and job.kind == "paper" and principal:
        found = artifacts.recall_owned(principal, job.identifier or "")
    if found is None:
        return None
    metadata, pdf = found
    if job.tool == "fetch_paper_pdf" or not job.convert:
        return answer_builder.build(job, metadata=metadata, pdf=pdf, cached=True)
    converter = answer_builder.converter_of(job.use_vlm, pdf.pdf_path, get_settings())
    md_path = artifacts.md_key_of(pdf.pdf_path, converter, principal or "")
    if not artifacts.exists(md_path):
        return None
    return answer_builder.build(job, metadata=metadata, pdf=pdf, md=(md_path, converter), cached=True,
                                principal=principal or "")


def converted_markdown(identifier: str) -> str | None:
    """The key of the stored Markdown of a paper read_paper or download_paper converted (by any of its ids), or None.

    The same lookup as a read_paper answered from stored artifacts: the paper's remembered PDF, then the Markdown
    the configured converter made of it. An identifier that parses as no paper names nothing stored.
    """
    try:
        key = parse_paper_id(identifier).cache_key()
    except InvalidIdError:
        return None
    found = artifacts.recall(artifacts.paper_cache_key(key))
    if found is None:
        return None
    return artifacts.stored_md(found[1].sha256, answer_builder.converter_for(False, get_settings()))


def queue(job: Job, ctx: CallContext) -> QueuedResult:
    """Create (or find) the caller's task for this job and start its pipeline execution.

    Raises:
        UnavailableError: no PDF state machine is configured, or every generation of the task is used.
    """
    return queue_deduplicated(
        get_settings().resources.pdf_state_machine_arn, {"job": job.model_dump(mode="json")},
        unconfigured="the PDF pipeline is not configured (SCHOLAR_PDF_STATE_MACHINE_ARN)", prefix="pdf",
        principal=ctx.principal, tool=job.tool, dedupe_key=job.dedupe_key(), ttl_s=PDF_TASK_TTL_S,
        poll_after_s=POLL_AFTER_S, exhausted="this request was run too many times in the last hour",
    )


def cancel_task(task_id: str, principal: str) -> bool:
    """Cancel the caller's PDF task: mark it cancelled, then stop its execution.

    Returns:
        True when the task was active and is now cancelled; False when it had already finished.

    Raises:
        NotFoundError: no such task for this caller.
    """
    store = TaskStore()
    task = store.get(task_id, principal)
    if task is None:
        raise NotFoundError(f"no task {task_id} for this caller")
    return cancel(store, task)
