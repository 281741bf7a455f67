"""get_patent: the requested sections of one document, fetched concurrently, assembled within the size budget.

A section that fails (throttled, upstream error) while others succeed makes the answer ``partial`` with
``failed_sections``; when every needed OPS answer failed the first failure is raised (so a throttled call
can queue). When OPS holds nothing at all for the number, the call is ``not_found``. The description is
paged; legal events are cut (``legal_omitted``) and the description page shortened to stay under the budget.
"""

from __future__ import annotations

import asyncio
from typing import Any

from scholar.core.catalogue import MAX_RESULT_CHARS
from scholar.core.errors import NotFoundError, ScholarError
from scholar.core.id_forms import refuse_other_forms
from scholar.core.patent_numbers import parse_patent_number
from scholar.core.records import PatentRecord
from scholar.families.patents import citations as npl
from scholar.families.patents.models import Citations, FamilyMember, LegalEvent, PatentResult, SectionFailure
from scholar.families.patents.sections import ABSENT, SERVED_BY, load
from scholar.families.patents.spec import GetPatentInput
from scholar.sources.epo_ops_numbers import standardise
from scholar.store.cache import DAY, Cache

MAX_LEGAL_EVENTS = 300
CITATIONS_TTL_S = 7 * DAY
PATENT_FORMS = "a patent publication number (EP1234567A1, US10123456B2, WO2024/123456)"


async def get_patent(args: GetPatentInput) -> PatentResult:
    """Fetch and assemble the sections of one patent.

    Raises:
        InvalidArgumentError: the number is not a patent number.
        NotFoundError: OPS holds nothing for it.
        RateLimitedError, UnavailableError, UpstreamError: every OPS answer needed failed.
    """
    refuse_other_forms(args.patent_number, tool="get_patent", field="patent_number", accepts={"patent"},
                       takes=PATENT_FORMS)
    number = await standardise(parse_patent_number(args.patent_number))
    sections = list(dict.fromkeys(args.sections))
    parts = list(dict.fromkeys(SERVED_BY[s] for s in sections))
    outcomes = await asyncio.gather(*(load(number, p) for p in parts), return_exceptions=True)
    loaded: dict[str, dict[str, Any]] = {}
    failures: dict[str, ScholarError] = {}
    for part, outcome in zip(parts, outcomes, strict=True):
        if isinstance(outcome, ScholarError):
            failures[part] = outcome
        elif isinstance(outcome, BaseException):
            raise outcome
        else:
            loaded[part] = outcome
    if not loaded:
        raise next(iter(failures.values()))
    if all(ABSENT in value for value in loaded.values()) and not failures:
        raise NotFoundError(f"EPO OPS has no publication {number.docdb}", source="epo_ops", status=404)
    result: dict[str, Any] = {"patent_number": number.docdb, "patent_id": number.compact}
    absent: dict[str, str] = {}
    failed = [SectionFailure(section=s, source=err.source or "epo_ops", code=err.code, status=err.status,
                             message=err.message)
              for s in sections if (err := failures.get(SERVED_BY[s])) is not None]
    for section in sections:
        value = loaded.get(SERVED_BY[section])
        if value is None:
            continue
        if ABSENT in value:
            absent[section] = value[ABSENT]
            continue
        failure = await _fill(result, absent, section, value, args, number.docdb)
        if failure is not None:
            failed.append(failure)
    record = loaded.get("biblio", {}).get("record")
    if record:
        result["patent_number"], result["patent_id"] = record["publication_number"], record["patent_id"]
    result["absent_sections"] = absent or None
    result["failed_sections"] = failed or None
    result["partial"] = bool(failed)
    return _fit(PatentResult.model_validate(result))


async def _fill(result: dict[str, Any], absent: dict[str, str], section: str, value: dict[str, Any],
                args: GetPatentInput, docdb: str) -> SectionFailure | None:
    """Put one section into the result; returns the failure of NPL resolution, if any."""
    if section == "biblio":
        result["biblio"] = PatentRecord.model_validate(value["record"])
    elif section == "abstract":
        record = value["record"]
        if record.get("abstract"):
            result["abstract"], result["abstract_language"] = record["abstract"], record.get("abstract_language")
        else:
            absent["abstract"] = f"EPO OPS holds no abstract for {docdb}"
    elif section in ("claims", "description"):
        text = value["text"] or ""
        result[f"{section}_language"] = value.get("language")
        if section == "claims":
            result["claims"] = text
        else:
            end = args.description_offset + args.description_max_chars
            result["description"] = text[args.description_offset:end]
            result["description_offset"] = args.description_offset
            result["description_next_offset"] = end if end < len(text) else None
            result["description_total_chars"] = len(text)
    elif section == "family":
        result["family"] = [FamilyMember.model_validate(m) for m in value["members"]]
    elif section == "legal":
        events = [LegalEvent.model_validate(e) for e in value["events"]]
        result["legal"] = events[-MAX_LEGAL_EVENTS:]
        result["legal_omitted"] = max(0, len(events) - MAX_LEGAL_EVENTS) or None
    elif section == "citations":
        return await _citations(result, value, docdb)
    return None


async def _citations(result: dict[str, Any], value: dict[str, Any], docdb: str) -> SectionFailure | None:
    cache = Cache()
    key = cache_key_for_citations(docdb)
    held = await cache.aget("result", key)
    if isinstance(held, dict):
        result["citations"] = Citations.model_validate(held)
        return None
    resolved, failure = await npl.resolve(Citations.model_validate(value["references"]))
    result["citations"] = resolved
    if failure is not None:  # raw strings only: reported, and not cached
        return SectionFailure(section="citations", source=failure.source or "s2", code=failure.code,
                              status=failure.status, message=f"NPL resolution failed: {failure.message}")
    await cache.aput("result", key, resolved.model_dump(mode="json"), ttl_s=CITATIONS_TTL_S)
    return None


def cache_key_for_citations(docdb: str) -> str:
    return f"patent:citations-resolved:{docdb}"


def _fit(result: PatentResult) -> PatentResult:
    """Shorten the description page, then keep fewer (the latest) legal events, until the answer fits the budget."""
    excess = len(result.model_dump_json()) - MAX_RESULT_CHARS
    if excess > 0 and result.description:
        keep = max(1000, len(result.description) - excess - 500)
        offset = result.description_offset or 0
        result = result.model_copy(update={"description": result.description[:keep],
                                           "description_next_offset": offset + keep})
        excess = len(result.model_dump_json()) - MAX_RESULT_CHARS
    while excess > 0 and result.legal and len(result.legal) > 10:
        kept = result.legal[len(result.legal) // 2:]
        omitted = (result.legal_omitted or 0) + len(result.legal) - len(kept)
        result = result.model_copy(update={"legal": kept, "legal_omitted": omitted})
        excess = len(result.model_dump_json()) - MAX_RESULT_CHARS
    return result
