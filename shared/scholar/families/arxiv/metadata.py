"""Paper metadata by id: the cache first, then one ``id_list`` request for everything still missing.

Cache layout (DESIGN §5): ``record#arxiv:<id>[vN]`` holds a paper; a versioned key keeps the record
for the namespace's 30 days, an unversioned one (the latest version, which can change) for a day.
``negative#arxiv:<id>[vN]`` remembers for an hour that arXiv had no such paper.
"""

from __future__ import annotations

from dataclasses import dataclass

from scholar.core.budget import RESERVE, fit_papers, json_chars
from scholar.core.errors import InvalidArgumentError, NotFoundError
from scholar.core.id_forms import refuse_other_forms
from scholar.core.ids import parse_arxiv_id
from scholar.families.arxiv import reasons
from scholar.families.arxiv.spec import ArxivPaper, GetPapersResult, NotFoundItem
from scholar.sources import arxiv
from scholar.store.cache import DAY, Cache

LATEST_TTL_S = DAY
NEGATIVE_TTL_S = 3600
NO_MATCH_HINT = "Check the id (new style 2401.12345, legacy hep-th/9901001) or find the paper with arxiv_search."
ARXIV_FORMS = "arXiv ids (2401.12345, 2401.12345v2, hep-th/9901001, arXiv:…, an arxiv.org URL)"


def refuse_non_arxiv(raw: str, *, tool: str, field: str) -> None:
    """Refuse an identifier that is unmistakably of another kind (a DOI, an S2 id …), naming the tool for it.

    Raises:
        InvalidArgumentError: reason ``wrong_identifier_form``.
    """
    refuse_other_forms(raw.strip(), tool=tool, field=field, accepts={"arxiv"}, takes=ARXIV_FORMS)


@dataclass(frozen=True)
class Wanted:
    raw: str
    base_id: str
    version: str | None

    @property
    def key(self) -> str:
        return f"arxiv:{self.base_id}{self.version or ''}"

    @property
    def request_id(self) -> str:
        return f"{self.base_id}{self.version or ''}"


def to_paper(entry: arxiv.Entry) -> ArxivPaper:
    """Map an Atom entry to the tool's paper record: the entry's own fields, with its summary as the abstract."""
    return ArxivPaper.model_validate(entry.model_dump() | {"abstract": entry.summary})


def _match(wanted: Wanted, entries: list[arxiv.Entry]) -> arxiv.Entry | None:
    for entry in entries:
        if entry.base_id == wanted.base_id and (wanted.version is None or entry.version == wanted.version):
            return entry
    return None


@dataclass
class Fetched:
    """What one id_list exchange gave: entries by requested id, and the ids arXiv refused (with its reason)."""

    entries: dict[str, arxiv.Entry]
    refused: dict[str, str]


def _culprit(ids: list[str], message: str) -> str | None:
    """The id arXiv's refusal names: a whole word of its message ("incorrect id format for 9912.0001")."""
    words = set(message.replace(",", " ").split())
    return next((i for i in ids if i in words), None) or next((i for i in ids if i in message), None)


async def _fetch(wanted: list[Wanted], refused: dict[str, str] | None = None) -> Fetched:
    """One id_list request for ``wanted``; an id arXiv refuses is dropped and the rest asked again.

    A dropped id is reported as refused (arXiv's own reason), never as missing: arXiv said nothing about
    whether the paper exists.

    Returns:
        Entries by requested id (``Wanted.request_id``; missing ids are absent) and the refused ids.
    """
    refused = dict(refused or {})
    ids = list(dict.fromkeys(w.request_id for w in wanted))
    params = {"id_list": ",".join(ids), "start": 0, "max_results": len(ids)}
    try:
        feed = await arxiv.query(params, field="paper_ids")
    except InvalidArgumentError as exc:
        culprit = _culprit(ids, exc.message)
        if culprit is None or len(ids) == 1:
            raise
        refused[culprit] = exc.message
        return await _fetch([w for w in wanted if w.request_id != culprit], refused)
    entries = {w.request_id: e for w in wanted if (e := _match(w, feed.entries)) is not None}
    return Fetched(entries, refused)


def _parse(raw_ids: list[str]) -> tuple[list[Wanted], list[NotFoundItem]]:
    wanted, invalid = [], []
    for raw in dict.fromkeys(r.strip() for r in raw_ids):
        try:
            refuse_non_arxiv(raw, tool="arxiv_get_papers", field="paper_ids")
            base_id, version = parse_arxiv_id(raw)
        except InvalidArgumentError as exc:
            invalid.append(NotFoundItem(id=raw, reason="invalid_id", detail=exc.message))
            continue
        wanted.append(Wanted(raw, base_id, version))
    return wanted, invalid


def _missing_detail(w: Wanted) -> str:
    if w.version:
        return f"arXiv has no version {w.version} of {w.base_id} (or no such paper)"
    return f"arXiv has no paper {w.base_id}"


async def get_papers(raw_ids: list[str], cache: Cache | None = None) -> GetPapersResult:
    """Metadata for up to 10 ids in request order, with per-id reasons for the rest.

    Raises:
        InvalidArgumentError: reason ``invalid_request``: no id is an arXiv id, or arXiv refused the request.
        NotFoundError: reason ``no_match``: none of the ids returned a paper.
        RateLimitedError / UpstreamError: arXiv failed (nothing is cached).
    """
    cache = cache or Cache()
    wanted, not_found = _parse(raw_ids)
    if not wanted:
        first = not_found[0].detail if not_found else None
        raise InvalidArgumentError(
            f"none of the ids is an arXiv id: {', '.join(n.id for n in not_found)}" + (f" ({first})" if first else ""),
            field="paper_ids",
            reason=reasons.INVALID_REQUEST,
            hint=NO_MATCH_HINT,
            details={"not_found": [n.model_dump(exclude_none=True) for n in not_found]},
        )
    cached = await cache.aget_many("record", [w.key for w in wanted])
    negative = await cache.aget_many("negative", [w.key for w in wanted if w.key not in cached])
    to_fetch = [w for w in wanted if w.key not in cached and w.key not in negative]
    fetched = await _fetch(to_fetch) if to_fetch else Fetched({}, {})
    papers: list[ArxivPaper] = []
    for w in wanted:
        if w.key in cached:
            papers.append(ArxivPaper.model_validate(cached[w.key]))
        elif (entry := fetched.entries.get(w.request_id)) is not None:
            paper = to_paper(entry)
            await cache.aput("record", w.key, paper.model_dump(mode="json"),
                           ttl_s=None if w.version else LATEST_TTL_S)
            papers.append(paper)
        elif (refusal := fetched.refused.get(w.request_id)) is not None:
            # arXiv refused the id itself: not remembered, since it said nothing about the paper.
            not_found.append(NotFoundItem(id=w.raw, reason="invalid_id", detail=refusal))
        else:
            if w in to_fetch:
                await cache.aput("negative", w.key, True, ttl_s=NEGATIVE_TTL_S)
            not_found.append(NotFoundItem(id=w.raw, reason="not_in_arxiv", detail=_missing_detail(w)))
    if not papers:
        raise NotFoundError(
            "none of the requested ids returned a paper from arXiv",
            source=arxiv.API,
            reason=reasons.NO_MATCH,
            hint=NO_MATCH_HINT,
            details={"not_found": [n.model_dump(exclude_none=True) for n in not_found]},
        )
    order = {raw: i for i, raw in enumerate(dict.fromkeys(r.strip() for r in raw_ids))}
    not_found.sort(key=lambda n: order.get(n.id, len(order)))
    # A record over the budget alone (5,154 authors of 1503.07589) is shortened, not left out of an empty answer.
    kept, _ = fit_papers(papers, reserve=RESERVE + json_chars([n.model_dump() for n in not_found]))
    omitted = [p.id for p in papers[len(kept):]]
    return GetPapersResult(papers=kept, totalSucceeded=len(papers), not_found=not_found or None,
                           omitted=omitted or None)


async def get_paper(raw_id: str, cache: Cache | None = None) -> ArxivPaper:
    """Metadata of one paper.

    Raises:
        InvalidArgumentError: reason ``invalid_request`` (field ``paper_id``): not an arXiv id.
        NotFoundError: reason ``no_match``: arXiv has no such paper.
    """
    refuse_non_arxiv(raw_id, tool="arxiv_read_paper", field="paper_id")
    try:
        parse_arxiv_id(raw_id)
    except InvalidArgumentError as exc:
        raise InvalidArgumentError(
            exc.message, field="paper_id", reason=reasons.INVALID_REQUEST, hint=NO_MATCH_HINT
        ) from exc
    try:
        result = await get_papers([raw_id], cache)
    except NotFoundError as exc:
        raise NotFoundError(
            f"arXiv has no paper {raw_id.strip()!r}", source=arxiv.API, reason=reasons.NO_MATCH, hint=NO_MATCH_HINT
        ) from exc
    except InvalidArgumentError as exc:
        exc.field = "paper_id"
        exc.details["field"] = "paper_id"
        raise
    return result.papers[0]
