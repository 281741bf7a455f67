"""``scholar library push URL`` / ``scholar library pull URL``: this machine's library moved to a hosted deployment and
back, over MCP, with each side's own library tools (the same dicts on both sides).

One flow for both directions, from a source library to a target library:

    1. read both: library_export format=jsonl (the lossless snapshot: every field, collection, tag, note, PDF
       version), the target's whole library, so an item is matched by id wherever it lives there;
    2. plan each source item: ``created`` (the target lacks it), ``unchanged`` (equal but for PDF records, its
       Markdown and ``updated_at``), ``updated`` (the source's copy is newer), ``kept_newer`` (the target's copy
       is newer: it stays, nothing is lost);
    3. create the collections the target lacks (empty ones too), import the planned items in batches with
       library_import (an item the target refuses is named by its line, left out and reported; the rest goes on);
    4. export the target again and hold every written item to the source's copy: what differs is ``failed``;
    5. kept PDFs, per version the source kept: one the target holds already (the same sha256) is ``kept`` without
       a call; the target keeps any other itself (download_paper with the version kind kept): a deployment queues
       it (the task id is reported), this machine runs it to its end (a different file kept is said so).

The non-obvious constraints: a written copy never carries the source's PDF records or Markdown reference (files in
the source's store, which the target may never hold): it carries the target's own for that item, or none. A record
comes to the target only when the target really stores the file (download_paper adds it then, and stamps
``updated_at``: hence an item equal but for them is unchanged, and pushing twice writes nothing). And the report
outlives the session: when the connection to the deployment breaks, the MCP SDK cancels the whole session (the call
waiting never sees its error), so the report is kept by the caller and what each item waited for
(``ItemReport.sending``, a PDF not yet asked for or asked for with no answer yet) is settled from outside.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx

from scholar.core.config import REMOTE_API_KEY_ENV, get_environ
from scholar.core.errors import ForbiddenError, InternalError, InvalidArgumentError, ScholarError, UnavailableError
from scholar.core.ids import InvalidIdError, parse_paper_id
from scholar.core.records import Paper
from scholar.local.backend import entry_backend
from scholar.local.calls import LOCAL_PRINCIPAL, Progress, call
from scholar.local.home import scholar_home
from scholar.local.serving import is_loopback
from scholar.local.transfer_plan import (
    NOT_SENT,
    PDF_FAILING,
    UNKNOWN,
    Direction,
    ItemReport,
    Report,
    comparable,
    copy_for,
    missing_pdfs,
    plan_item,
)
from scholar.services.library.export import to_jsonl
from scholar.services.library.keep import identity_of
from scholar.services.library.snapshot import parse_snapshot, read_reference
from scholar.store.library.models import LibraryItem, PdfVersion
from scholar.store.library.rows import chunks

__all__ = ["BATCH_CHARS", "BATCH_ITEMS", "NOT_SENT", "PDF_FAILING", "UNKNOWN", "Report", "check_url", "copy_for",
           "missing_pdfs", "plan_item", "pull", "push", "sign_in_file"]

Call = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]
Browser = Callable[[str], Awaitable[None]]

# A batch stays far below library_import's inline cap (3,000,000 characters) and the gateway's 4 MiB request.
BATCH_CHARS = 1_000_000
BATCH_ITEMS = 200
DOWNLOAD_TIMEOUT_S = 120.0
SIGN_IN_FOLDER = "sign-in"
READING_TOOLS = ("library_export", "library_collections")
WRITING_TOOLS = (*READING_TOOLS, "library_import")
KEEP_TOOL = "download_paper"
# A kept version's kind → download_paper's prefer that keeps that kind again.
_PREFER = {"published": "published", "accepted": "published", "unknown": "published", "submitted": "preprint",
           "preprint": "preprint"}


def check_url(url: str, field_name: str = "url") -> str:
    """``url`` when it may be called: https, or plain http on a loopback address (a deployment on this machine).

    Raises:
        InvalidArgumentError: (``field_name``) another scheme, no host, or plain http to another machine.
    """
    parts = urlsplit(url)
    if parts.scheme == "https" and parts.hostname:
        return url
    if parts.scheme == "http" and parts.hostname and is_loopback(parts.hostname):
        return url
    raise InvalidArgumentError(f"{url[:200]!r} is not an https URL (plain http only to this machine: 127.0.0.1, "
                               "localhost, ::1)", field=field_name, reason="url_scheme",
                               hint="Give the deployment's https://…/mcp URL.")


def sign_in_file(home: Path, url: str) -> Path:
    """Where the OAuth sign-in for ``url`` is kept: one file per server URL under the data folder."""
    return home / SIGN_IN_FOLDER / f"{hashlib.sha256(url.encode()).hexdigest()[:24]}.json"


@dataclass
class Library:
    """One side of a transfer: its tool calls, how it reads a stored export, the tools it offers."""

    name: str
    call: Call
    read_stored: Callable[[dict[str, Any]], Awaitable[str]]
    tools: frozenset[str]

    async def items(self, collection: str | None = None) -> list[LibraryItem]:
        arguments = {"format": "jsonl", **({"collection": collection} if collection else {})}
        result = await self.call("library_export", arguments)
        text = result.get("content")
        if not isinstance(text, str):
            text = await self.read_stored(result)
        return parse_snapshot(text, "jsonl").items

    async def collections(self) -> list[str]:
        listed = await self.call("library_collections", {"action": "list"})
        return [entry["name"] for entry in listed.get("collections", [])]


def _title(item: LibraryItem) -> str | None:
    title = item.paper.get("title")
    return title[:200] if isinstance(title, str) else None


async def _import(target: Library, batch: list[LibraryItem], reports: dict[str, ItemReport]) -> None:
    """Import ``batch``; an item the target refuses by its line is reported failed and the rest sent again.

    Raises:
        ScholarError: the target refused or failed the batch as a whole (a part of it may be written: _verify).
    """
    pending = list(batch)
    while pending:
        try:
            await target.call("library_import", {"jsonl": to_jsonl(pending)})
            for item in pending:
                reports[item.item_id].sending = None
            return
        except ScholarError as err:
            line = (err.details or {}).get("line")
            if not (isinstance(line, int) and 2 <= line <= len(pending) + 1):
                raise
            reports[pending.pop(line - 2).item_id].fail(err)  # the snapshot's line 1 is its header


def _identifier(item: LibraryItem) -> str | None:
    """The paper's canonical identity (its DOI, else arXiv id, else S2 id): what names this item everywhere."""
    try:
        asked = parse_paper_id(item.ids[0]) if item.ids else None
        paper = Paper.model_validate(item.paper)
    except (InvalidIdError, ValueError):
        return None
    if asked is None:
        doi = (paper.externalIds or {}).get("DOI")
        return f"doi:{doi}" if doi else None
    return identity_of(paper, asked)


async def _keep_pdfs(target: Library, item: LibraryItem, missing: list[PdfVersion], report: ItemReport) -> None:
    """Have the target keep the ``missing`` versions of ``item`` itself; ``report.pdf`` says what it kept."""
    identifier = _identifier(item)
    if identifier is None:
        report.pdf = {"status": "failed", "code": "invalid_argument", "message": "the item names no paper identifier"}
        return
    wanted: dict[str, set[str]] = {}
    for pdf in missing:
        wanted.setdefault(_PREFER.get(pdf.version, "published"), set()).add(pdf.sha256)
    tasks: list[str] = []
    others: list[str] = []
    for prefer, shas in wanted.items():
        report.asking_pdf = True  # left set when the session breaks meanwhile (the call is cancelled): unknown
        try:
            answer = await target.call(KEEP_TOOL, {"identifier": identifier, "collection": item.collection,
                                                   "prefer": prefer})
        except ScholarError as err:
            report.asking_pdf = False
            report.pdf = {"status": "failed", "code": err.code, "message": err.message[:300], "prefer": prefer}
            return
        report.asking_pdf = False
        if answer.get("queued") is True and isinstance(answer.get("task_id"), str):
            tasks.append(answer["task_id"])
        elif answer.get("sha256") not in shas:
            others.append(str(answer.get("sha256")))
    report.pdf = {"status": "kept_other" if others else "queued" if tasks else "kept",
                  **({"task_ids": tasks} if tasks else {})}
    if others:
        report.pdf |= {"sha256": others, "message": f"the {target.name} library kept a different file than this "
                                                    f"one's: sha256 {', '.join(sha[:16] for sha in others)}…"}


async def transfer(source: Library, target: Library, report: Report, *, pdfs: bool,
                   progress: Progress | None = None) -> None:
    """Move ``source``'s library (or ``report.collection``) into ``target``, filling ``report`` (see the module
    docstring); ``report.dry_run`` plans only.

    Raises:
        ScholarError: a side could not be read, or the target lacks the tools (a read-only deployment); nothing
            was written then (``report.writing`` is False). Failures once writing began are reported per item,
            except a failure of the session itself: then the caller settles the report (``Report.stop``).
    """
    direction, collection = report.direction, report.collection

    def tell(status: str, hint: str = "") -> None:
        if progress is not None:
            progress({"tool": f"library {direction}", "status": status, "hint": hint})

    for side, needed in ((source, READING_TOOLS), (target, WRITING_TOOLS)):
        if missing := [name for name in needed if name not in side.tools]:
            raise ForbiddenError(f"the {side.name} library does not offer {', '.join(missing)}",
                                 reason="library_tools_hidden",
                                 hint="The deployment hides them (its toolsets or profile); ask its operator.")
    tell("reading")
    mine = await source.items(collection)
    theirs = {item.item_id: item for item in await target.items()}
    lacking = {item.item_id: missing_pdfs(item, theirs.get(item.item_id)) for item in mine}
    if pdfs and any(lacking.values()) and KEEP_TOOL not in target.tools:
        raise ForbiddenError(f"the {target.name} library hides {KEEP_TOOL} (read-only mode), so kept PDFs cannot be "
                             "kept there again", reason="read_only",
                             hint="Move the items alone with --no-pdfs, or turn read-only mode off there.")
    planned = {item.item_id: plan_item(item, theirs.get(item.item_id)) for item in mine}
    report.items = [ItemReport(item.item_id, _title(item), planned[item.item_id][0],
                               wants_pdf=pdfs and bool(lacking[item.item_id]),
                               sending="queued" if planned[item.item_id][1] is not None else None) for item in mine]
    reports = {r.item_id: r for r in report.items}
    for item in mine:  # the target's own records stay whatever is written: a version it holds is kept already
        if item.pdfs and not lacking[item.item_id]:
            reports[item.item_id].pdf = {"status": "kept"}
        elif lacking[item.item_id] and not pdfs:
            reports[item.item_id].pdf = {"status": "skipped", "versions": len(lacking[item.item_id])}
    wanted = [collection] if collection else await source.collections()
    have = set(await target.collections())
    report.collections_created = [name for name in dict.fromkeys([*wanted, *(i.collection for i in mine)])
                                  if name not in have]
    if report.dry_run:
        for item in mine:
            if reports[item.item_id].wants_pdf:
                reports[item.item_id].pdf = {"status": "would_keep", "versions": len(lacking[item.item_id])}
        return
    report.writing = True
    for name in report.collections_created:
        await target.call("library_collections", {"action": "create", "name": name})
    writes = [copy for _, (_, copy) in planned.items() if copy is not None]
    await _write(target, writes, reports, report, tell)
    await _verify(target, {copy.item_id: copy for copy in writes}, reports, report)
    kept = [item for item in mine if reports[item.item_id].wants_pdf and reports[item.item_id].outcome != "failed"]
    for number, item in enumerate(kept, 1):
        tell(f"pdfs {number}/{len(kept)}", reports[item.item_id].title or item.item_id)
        await _keep_pdfs(target, item, lacking[item.item_id], reports[item.item_id])
    tell("completed")


async def _write(target: Library, writes: list[LibraryItem], reports: dict[str, ItemReport], report: Report,
                 tell: Callable[[str, str], None]) -> None:
    batches = list(chunks(writes, BATCH_ITEMS, BATCH_CHARS))
    for number, batch in enumerate(batches, 1):
        tell(f"writing {number}/{len(batches)}", f"{len(batch)} items")
        for item in batch:
            reports[item.item_id].sending = "sent"
        try:
            await _import(target, batch, reports)
        except ScholarError as err:  # the target is failing: what is written stays, the rest is not sent
            report.stop(err)
            return


async def _verify(target: Library, written: dict[str, LibraryItem], reports: dict[str, ItemReport],
                  report: Report) -> None:
    """Hold every item sent to the target's stored copy: what differs or is missing is failed, and an item of a
    failed batch the target stored all the same (a batch is written in several transactions) is written."""
    if not written:
        return
    try:
        stored = {item.item_id: item for item in await target.items()}
    except ScholarError as err:
        report.warnings.append(f"the written items could not be read back to check them: {err.message[:300]}")
        return
    for item_id, copy in written.items():
        entry = reports[item_id]
        found = stored.get(item_id)
        if entry.outcome == "failed":
            if found is not None and comparable(found) == comparable(copy):
                entry.written()
            continue
        if found is None or comparable(found) != comparable(copy):
            entry.fail(InternalError("written, but the copy read back " + (
                "is missing" if found is None else "differs (written by someone else meanwhile?)")))


# ---------------------------------------------------------------------------------------------- the two sides


def _local_library(progress: Progress | None) -> Library:
    from scholar.local.calls import local_tools  # noqa: PLC0415  # after the backend is entered

    async def local_call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return await anyio.to_thread.run_sync(functools.partial(call, name, arguments, progress=progress))

    async def read_stored(result: dict[str, Any]) -> str:
        return await anyio.to_thread.run_sync(read_reference, str(result.get("reference")), LOCAL_PRINCIPAL)

    return Library("local", local_call, read_stored, frozenset(local_tools()))


async def _download(result: dict[str, Any]) -> str:
    """A stored export of the deployment, by its short-lived link (https, or http on this machine)."""
    link = result.get("url")
    if not isinstance(link, str):
        raise UnavailableError("the deployment's export has neither content nor a download link")
    check_url(link, "url")
    async with httpx.AsyncClient(trust_env=False, timeout=DOWNLOAD_TIMEOUT_S) as http:
        try:
            answer = await http.get(link)
        except httpx.HTTPError as exc:
            raise UnavailableError(f"the export's download link failed: {exc}", retryable=True) from exc
    if answer.status_code != 200:
        raise UnavailableError(f"the export's download link answered HTTP {answer.status_code}", retryable=True)
    return answer.text


async def _run(direction: Direction, url: str, *, api_key: str | None, collection: str | None, dry_run: bool,
               pdfs: bool, progress: Progress | None, browser: Browser | None, home: Path) -> Report:
    from scholar.gateway.mcp.remote import remote_session  # noqa: PLC0415  # imports mcp (~0.7 s): only here

    report = Report(direction=direction, url=url, dry_run=dry_run, collection=collection)
    try:
        async with AsyncExitStack() as stack:
            auth = None
            if not api_key:
                from scholar.gateway.mcp.remote_auth import oauth_flow, open_in_browser  # noqa: PLC0415  # sign-in only

                auth = stack.enter_context(oauth_flow(url, sign_in_file(home, url), browser or open_in_browser))
            remote = await stack.enter_async_context(remote_session(url, api_key=api_key, auth=auth))
            deployment = Library("remote", remote.call, _download, remote.tools)
            local = _local_library(progress)
            source, target = (local, deployment) if direction == "push" else (deployment, local)
            await transfer(source, target, report, pdfs=pdfs, progress=progress)
    except ScholarError as err:
        if not report.writing:
            raise
        report.stop(err, pdfs=True)  # the session broke midway: the report stands, settled by what was answered
        report.warnings.append(f"the session with the deployment failed midway ({err.message[:300]}); nothing was "
                               "sent after it, and what was written was not read back")
    return report


def _transfer(direction: Direction, url: str, *, api_key: str | None = None, collection: str | None = None,
              dry_run: bool = False, pdfs: bool = True, progress: Progress | None = None,
              browser: Browser | None = None) -> dict[str, Any]:
    check_url(url)
    key = api_key or get_environ(REMOTE_API_KEY_ENV) or None
    home = scholar_home()
    with entry_backend():
        report = anyio.run(functools.partial(_run, direction, url, api_key=key, collection=collection,
                                             dry_run=dry_run, pdfs=pdfs, progress=progress, browser=browser,
                                             home=home))
    return report.as_dict()


def push(url: str, **options: Any) -> dict[str, Any]:
    """Move this machine's library (or ``collection``) to the deployment at ``url``; the per-item report.

    Args:
        url: the deployment's MCP endpoint (https; plain http only on loopback).
        api_key: sent as x-api-key (default ``SCHOLAR_REMOTE_API_KEY``); without one, OAuth signs in (browser).
        collection: only this collection.
        dry_run: read both sides and report the plan; write nothing.
        pdfs: have the deployment keep each kept PDF it lacks (download_paper); False leaves them behind.
        progress: told what runs (the command line's progress line).
        browser: opens the sign-in URL (default: the system browser).

    Raises:
        InvalidArgumentError: a URL that is not https (or loopback http), or not an MCP endpoint.
        UnavailableError: the deployment cannot be reached.
        ForbiddenError: the key or sign-in was refused, or the deployment hides the tools needed.
    """
    return _transfer("push", url, **options)


def pull(url: str, **options: Any) -> dict[str, Any]:
    """Move the deployment's library (or ``collection``) at ``url`` to this machine; options and errors as ``push``.

    Kept PDFs are kept again on this machine by its own pipeline (waited for: this process runs it).
    """
    return _transfer("pull", url, **options)
