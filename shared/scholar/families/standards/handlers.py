"""The standards family's tool implementations (dispatched by scholar.runtime.family).

``ACTIONS`` holds the background step of get_standard's full text (``convert_full_text``), which the
standards function itself receives as an asynchronous invocation (scholar.families.standards.conversion).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine
from functools import wraps
from typing import Any, TypeVar

from pydantic import BaseModel

from scholar.core.budget import fit_field
from scholar.core.catalogue import CallContext, QueuedResult
from scholar.core.errors import InvalidArgumentError, NotFoundError, UpstreamError
from scholar.core.id_forms import refuse_other_forms
from scholar.families.standards import cold, conversion, fulltext, lookup_source, retry, service
from scholar.families.standards.catalogue_db import Catalogue
from scholar.families.standards.identifiers import guess_bodies
from scholar.families.standards.records import BODIES, StandardRecord
from scholar.families.standards.runs import latest_runs
from scholar.families.standards.spec import (
    GetStandardInput,
    ResolveInput,
    ResolveResult,
    SearchInput,
    SearchResult,
    StandardResult,
    SyncStatusInput,
    SyncStatusResult,
    VersionRef,
)

SOURCE = "standards"
_FILTER_BODIES = frozenset(BODIES) | {"ANSI", "CISPR"}
_ABSTRACT_IN_LISTS = 400


def _compact(record: StandardRecord) -> StandardRecord:
    """A list entry: the record with its abstract shortened (get_standard has it whole)."""
    if record.abstract and len(record.abstract) > _ABSTRACT_IN_LISTS:
        return record.model_copy(update={"abstract": record.abstract[:_ABSTRACT_IN_LISTS].rstrip() + "…"})
    return record


def _versions(records: list[StandardRecord]) -> list[VersionRef]:
    return [VersionRef(id=r.id, identifier=r.identifier, status=r.status, published=r.published) for r in records]


def _missing_bodies(raw: str) -> list[str]:
    """The bodies ``raw`` may belong to that have no data yet (their sync failed)."""
    failed, _lines = service.body_warnings(service.holder().pointer, None)
    return sorted(set(failed) & guess_bodies(raw)) if failed else []


def _not_synced(tool: str, missing: list[str]) -> UpstreamError:
    """The answer when the body a standard belongs to has no data: an error saying so, and a retry started."""
    started = retry.retry_bodies(missing)
    names = ", ".join(missing)
    then = f"a new sync of {', '.join(started)} has started" if started else "a sync is already being retried"
    return UpstreamError(
        f"{tool}: {names} not synced yet (the last sync failed), so the standard may exist; {then}",
        source=SOURCE,
        reason="not_synced",
        retry_after_s=float(retry.RETRY_INTERVAL_S) if not started else 120.0,
        details={"bodies": missing},
        hint="Retry in a few minutes; get_sync_status shows why the body's sync failed.",
    )


# Everything scholar.core.ids does not recognise is left to the catalogue's own fuzzy matching.
_STANDARD_FORMS = "a standard's identifier (RFC 9000, ISO/IEC 27001:2022, NIST SP 800-53 Rev. 5, IEEE 802.11 …)"

Args = TypeVar("Args", bound=BaseModel)
Answer = TypeVar("Answer", bound=BaseModel)
Body = Callable[[Args, CallContext, Catalogue], Awaitable[Answer]]
# A catalogue Handler, and a coroutine function: the Lambda steps (jobs, conversion) hand its call to aio.run.
ToolHandler = Callable[[Any, CallContext], Coroutine[Any, Any, BaseModel]]


def catalogue_tool(tool: str, check: Callable[[Any], None]) -> Callable[[Body[Args, Answer]], ToolHandler]:
    """The prologue of every tool that reads the catalogue: ``check`` the arguments, then run the tool on the loaded
    catalogue, or, while this environment has none yet, start the cold sync and answer queued.

    Arguments are checked first, so a wrong argument is refused whether or not the catalogue is loaded.
    """

    def wrap(body: Body[Args, Answer]) -> ToolHandler:
        @wraps(body)
        async def handler(args: Args, ctx: CallContext) -> Answer | QueuedResult:
            check(args)
            catalogue = service.holder().get()
            if catalogue is None:
                return cold.start_cold_sync(tool, args.model_dump(), ctx)
            return await body(args, ctx, catalogue)

        return handler

    return wrap


def _standard_identifier(tool: str, field: str) -> Callable[[Any], None]:
    """A check refusing, in ``field``, an identifier of another kind (a DOI, an arXiv id …)."""

    def check(args: Any) -> None:
        refuse_other_forms(getattr(args, field), tool=tool, field=field, accepts={"standard"}, takes=_STANDARD_FORMS)

    return check


def _known_body(args: SearchInput) -> None:
    unknown = [p for p in args.body.upper().split("/") if p not in _FILTER_BODIES] if args.body else []
    if unknown:
        raise InvalidArgumentError(
            f"search_standards: body {args.body!r} is not one of {', '.join(sorted(_FILTER_BODIES))}", field="body"
        )


@catalogue_tool("resolve_standard_identifier", _standard_identifier("resolve_standard_identifier", "raw"))
async def resolve_standard_identifier(args: ResolveInput, ctx: CallContext, catalogue: Catalogue) -> ResolveResult:
    found = catalogue.resolve(args.raw)
    if found.record is not None:
        return ResolveResult(
            canonical=found.record.identifier,
            body=found.record.body,
            record=found.record,
            other_versions=_versions(found.others),
            matched_by=found.matched_by,
        )
    if found.candidates:
        ambiguous = ResolveResult(ambiguous=True, candidates=[_compact(r) for r in found.candidates],
                                  matched_by=found.matched_by)
        return fit_field(ambiguous, "candidates", flag="truncated")[0]
    record, failure = await lookup_source.from_source(args.raw)
    if record is not None:
        return ResolveResult(canonical=record.identifier, body=record.body, record=record, matched_by="source",
                             warning=f"not in the synced catalogue: read from its source ({record.source}) just now")
    if missing := _missing_bodies(args.raw):
        return ResolveResult(warning=_not_synced("resolve_standard_identifier", missing).message)
    return ResolveResult(warning=failure)


@catalogue_tool("search_standards", _known_body)
async def search_standards(args: SearchInput, ctx: CallContext, catalogue: Catalogue) -> SearchResult:
    pointer = service.holder().pointer
    results = catalogue.search(args.query, body=args.body, status=args.status, limit=args.limit)
    failed, lines = service.body_warnings(pointer, args.body)
    if failed:
        retry.retry_bodies(failed)  # the answer stays partial; the next one need not be
    result = SearchResult(
        results=[_compact(r) for r in results],
        partial=bool(failed),
        failed_bodies=failed,
        warning="; ".join(lines) or None,
        catalogue_version=pointer.version if pointer else None,
    )
    return fit_field(result, "results", flag="truncated")[0]


async def _lookup(catalogue: Catalogue, identifier: str) -> tuple[StandardRecord, list[StandardRecord]]:
    exact = catalogue.get(identifier)
    if exact is not None:
        found = catalogue.resolve(exact.identifier)
        current = found.record
        # A plain identifier ("NIST SP 800-53 Rev. 5") is also the id of the edition's first release; when an
        # update of the same edition is in force (its id adds "(upd1)"), the caller means that one. So too when
        # the plain identifier's own record is withdrawn or superseded ("NIST SP 800-53", the 2005 original):
        # the caller means what resolve_standard_identifier answers, the revision in force; the old one stays
        # in other_versions.
        if (exact.id == exact.identifier and current is not None and current.id != exact.id
                and (current.identifier == exact.identifier or exact.status != "current")):
            return current, [r for r in [exact, *found.others] if r.id != current.id]
        return exact, found.others
    found = catalogue.resolve(identifier)
    if found.record is not None:
        return found.record, found.others
    failure: str | None = None
    if not found.candidates:
        record, failure = await lookup_source.from_source(identifier)
        if record is not None:
            return record, []
    if found.candidates:
        raise InvalidArgumentError(
            f"get_standard: {identifier!r} matches several standards",
            field="identifier",
            reason="ambiguous",
            details={"candidates": [r.id for r in found.candidates[:10]]},
            hint="Call again with one of the candidate ids (or use resolve_standard_identifier).",
        )
    if missing := _missing_bodies(identifier):
        raise _not_synced("get_standard", missing)
    if failure:
        raise UpstreamError(f"get_standard: the catalogue holds no {identifier!r} and {failure}", source=SOURCE,
                            retryable=True, hint="Retry in a minute; the catalogue's own answer was not found.")
    raise NotFoundError(
        f"the standards catalogue holds no standard {identifier!r}",
        source=SOURCE,
        reason="not_found",
        hint="search_standards lists close matches; stop asking about this identifier.",
    )


@catalogue_tool("get_standard", _standard_identifier("get_standard", "identifier"))
async def get_standard(args: GetStandardInput, ctx: CallContext, catalogue: Catalogue) -> StandardResult | QueuedResult:
    record, others = await _lookup(catalogue, args.identifier)
    result = StandardResult(**record.model_dump(), other_versions=_versions([o for o in others if o.id != record.id]))
    if args.fetch_full_text:
        if not ctx.task_id and fulltext.needs_task(record):
            return conversion.queue_conversion(args, ctx)  # a PDF not converted yet: minutes, not seconds
        page = await fulltext.text_page(record, args.text_offset, args.max_chars)
        result = result.model_copy(update=page)
    return result


async def get_sync_status(args: SyncStatusInput, ctx: CallContext) -> SyncStatusResult:
    return SyncStatusResult(runs=latest_runs())


HANDLERS: dict[str, ToolHandler] = {
    "resolve_standard_identifier": resolve_standard_identifier,
    "search_standards": search_standards,
    "get_standard": get_standard,
    "get_sync_status": get_sync_status,
}


def convert_full_text(event: dict[str, Any]) -> dict[str, Any]:
    """Action: answer a queued get_standard call (download, convert and store the text, then page it)."""
    return conversion.answer_task(event, get_standard)


ACTIONS = {conversion.ACTION: convert_full_text}
