"""check_references: each reference matched to one checked record (scholar.services.paper_lookup.match).

Crossref answers every reference first (its bibliographic query, paced at its polite-pool rate); only those it does
not settle go on to OpenAlex and Europe PMC, and, for a list of at most ``S2_MAX_ITEMS``, Semantic Scholar (paced at
one request a second, it would make a long list outlive the request). An item whose sources failed says so
(rate_limited / upstream_error), never "unmatched". When the pace leaves no slot before the call's deadline the
whole call is queued as a task (papers tools queue on rate limits).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from scholar.core.budget import RESERVE, json_chars
from scholar.core.ids import written_ids
from scholar.core.matching import MatchOutcome
from scholar.core.records import FailedSource
from scholar.families.papers.budget import MAX_RESULT_CHARS
from scholar.families.papers.spec_check import CheckedReference, CheckReferencesInput, CheckReferencesResult
from scholar.services.cite import build_entries, to_bibtex
from scholar.services.paper_lookup import match_many
from scholar.services.paper_lookup.match import WAVES

S2_MAX_ITEMS = 10
_WITHOUT_S2 = tuple(tuple(s for s in wave if s != "s2") for wave in WAVES)
_SHOWN = 300
_STUB_INPUT = 120
LEFT_OUT = "details left out to keep the answer under the size budget; check this reference alone"
_ENTRY_RE = re.compile(r"^\s*@\w+\s*\{", re.IGNORECASE)
_FIELD_RE = re.compile(r"(\w+)\s*=\s*(\{(?:[^{}]|\{[^{}]*\})*\}|\"[^\"]*\"|\d+)", re.DOTALL)


def bibtex_fields(entry: str) -> dict[str, Any] | None:
    """``match_reference``'s arguments from a BibTeX entry (title, authors, year, venue; a DOI as text), or None
    when ``entry`` is no BibTeX entry or has no title."""
    if not _ENTRY_RE.match(entry):
        return None
    fields = {name.lower(): re.sub(r"[{}]", "", value.strip('"')).strip() for name, value in _FIELD_RE.findall(entry)}
    if not fields.get("title"):
        return None
    year = fields.get("year", "")[:4]
    return {"title": " ".join(fields["title"].split()),
            "authors": [a.strip() for a in fields.get("author", "").split(" and ") if a.strip()],
            "year": int(year) if year.isdigit() else None,
            "venue": fields.get("journal") or fields.get("booktitle"),
            "text": f"doi:{fields['doi']}" if fields.get("doi") else None}


def _status(outcome: MatchOutcome) -> str:
    if outcome.status == "not_found" and outcome.failed_sources:
        return "rate_limited" if outcome.failed_sources[0].code == "rate_limited" else "upstream_error"
    return "unmatched" if outcome.status == "not_found" else outcome.status


def _item(raw: str, outcome: MatchOutcome) -> CheckedReference:
    shown = raw if len(raw) <= _SHOWN else raw[: _SHOWN - 3] + "..."
    status = _status(outcome)
    item = CheckedReference(input=shown, status=status, candidates=outcome.candidates or None)
    if status == "unmatched":
        return item.model_copy(update={"error": f"no candidate passed the check; asked {', '.join(outcome.tried)}"})
    if status in ("rate_limited", "upstream_error"):
        failed = outcome.failed_sources[0]
        return item.model_copy(update={"error": f"{failed.source} failed: {failed.message}"})
    paper = outcome.paper
    if paper is None:
        return item
    names = [a.name for a in paper.authors or [] if a.name]
    return item.model_copy(update={
        "identifiers": written_ids(paper.externalIds or {}) or None, "title": paper.title, "year": paper.year,
        "authors": names[:3] or None, "venue": paper.venue, "matched_by": outcome.matched_by,
        "confidence": outcome.confidence, "disagreements": outcome.disagreements or None,
        "candidates": None})


def _fit(result: CheckReferencesResult) -> CheckReferencesResult:
    """Within the size budget (``truncated`` says when something was left out): candidates go first, then the
    BibTeX; then each item counts as its stub (input, status, first identifier, why its details are left out) and,
    in order, every item whose whole form still fits takes its stub's place. The stubs of 100 inputs fit."""
    budget = MAX_RESULT_CHARS - RESERVE
    if json_chars(result) <= budget:
        return result
    result = result.model_copy(update={"items": [i.model_copy(update={"candidates": None}) for i in result.items],
                                       "truncated": True})
    if json_chars(result) <= budget:
        return result
    result = result.model_copy(update={"bibtex": None})
    stubs = [CheckedReference(input=i.input[:_STUB_INPUT], status=i.status, identifiers=(i.identifiers or [])[:1]
                              or None, confidence=i.confidence, error=LEFT_OUT) for i in result.items]
    used = json_chars(result.model_copy(update={"items": stubs}))
    fitted = []
    for item, stub in zip(result.items, stubs, strict=True):
        more = json_chars(item) - json_chars(stub)
        if used + more <= budget:
            used += more
            fitted.append(item)
        else:
            fitted.append(stub)
    return result.model_copy(update={"items": fitted})


async def check_references(args: CheckReferencesInput) -> CheckReferencesResult:
    """Match every reference; each item has its own status, and the summary counts them."""
    refs = {i: bibtex_fields(raw) or raw for i, raw in enumerate(args.references)}
    waves = WAVES if len(refs) <= S2_MAX_ITEMS else _WITHOUT_S2
    outcomes = await match_many(refs, waves=waves)
    items = [_item(raw, outcomes[i]) for i, raw in enumerate(args.references)]
    failures: dict[tuple[str, str], FailedSource] = {}
    for outcome in outcomes.values():
        for failed in outcome.failed_sources:
            failures.setdefault((failed.source, failed.code), failed)
    bibtex = None
    if args.bibtex:
        matched = [o.paper for o in outcomes.values() if o.status == "matched" and o.paper is not None]
        bibtex = to_bibtex(build_entries(matched)) if matched else ""
    result = CheckReferencesResult(items=items, summary=dict(Counter(i.status for i in items)), bibtex=bibtex,
                                   partial=bool(failures), failed_sources=list(failures.values()))
    return _fit(result)
