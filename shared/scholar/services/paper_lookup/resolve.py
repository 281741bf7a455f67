"""Resolving one paper by any identifier to its full record: a recent search's merged record, the cache, then the
sources in order (scholar.services.paper_lookup.chain).

Cache layout (DESIGN §5): ``recent#<kind>:<value>`` → a recent search's merged record
(scholar.services.paper_lookup.recent),
``alias#<kind>:<value>`` → the canonical record key, ``record#<key>`` → the full record, ``negative#<kind>:<value>``
→ a recent "no source has it". Canonical keys are the S2 paper id when S2 knows the paper, else
``<source>:<kind>:<value>`` of the source that answered. A source that fails fails the call (nothing cached; see
scholar.services.paper_lookup.chain), an incomplete record is answered but not cached, and "no source has it" is cached
only when every source that can look the paper up answered so.
"""

from __future__ import annotations

from scholar.core.errors import InvalidArgumentError, NotFoundError
from scholar.core.id_forms import wrong_form
from scholar.core.ids import PAPER_KINDS, InvalidIdError, PaperId, parse_paper_id, reads_as_reference, written_ids
from scholar.core.records import Paper
from scholar.services.paper_lookup import chain, recent
from scholar.services.paper_lookup.reference import matched_id, written_form
from scholar.store.cache import Cache
from scholar.store.library.table import LibraryStore

NEGATIVE_TTL_S = 3600


def parse_identifier(raw: str, field: str = "identifier", *, tool: str = "this tool",
                     library: bool = False) -> PaperId:
    """Parse a paper identifier, refusing forms that name something else with the tool that takes them.

    Args:
        raw: the identifier as given.
        field: the argument that holds it.
        tool: the tool asking (named in a refusal).
        library: the caller's library item ids (``lib_…``) are accepted too (the tool knows its caller).

    Raises:
        InvalidArgumentError: not a paper identifier (names the field, the form, and the tool that takes it).
    """
    try:
        pid = parse_paper_id(raw)
    except InvalidIdError as exc:
        raise InvalidArgumentError(exc.message, field=field, hint=exc.hint) from exc
    if pid.kind in PAPER_KINDS or (library and pid.kind == "library_item"):
        return pid
    raise wrong_form(raw, pid.kind, tool=tool, field=field)


async def identify(raw: str, field: str = "identifier", *, tool: str = "this tool", library: bool = False,
                   cache: Cache | None = None) -> PaperId:
    """``parse_identifier``, and for a title or citation text the identifier of the one paper it matches.

    Every tool that takes a paper identifier resolves it here (scholar.services.paper_lookup.reference).

    Raises:
        InvalidArgumentError: neither an identifier nor free text (a malformed DOI, a single word).
        NotFoundError: the text matches no paper, or several (reason ``ambiguous_reference``, with candidates).
        RateLimitedError / UpstreamError: a source failed before any candidate passed the check.
    """
    if free_text(raw):
        return await matched_id(raw, cache)
    return parse_identifier(raw, field, tool=tool, library=library)


def free_text(raw: str) -> bool:
    """Whether ``raw`` is no identifier form but a title or citation (scholar.core.ids ``reads_as_reference``)."""
    try:
        parse_paper_id(raw)
    except InvalidIdError:
        return reads_as_reference(raw)
    return False


async def item_paper(principal: str, item_id: str) -> Paper:
    """The paper record of one of the caller's library items.

    Raises:
        NotFoundError: the caller's library has no such item.
    """
    item = await LibraryStore(principal).aget(item_id)
    if item is None:
        raise NotFoundError(f"your library has no item {item_id!r}", reason="library_item_not_found",
                            hint="library_list shows your items; add a paper with library_add.")
    return Paper.model_validate(item.paper)


async def paper_identifier(raw: str, principal: str, *, tool: str, field: str = "identifier") -> str:
    """``raw``, or for one of the caller's library items the paper identifier it was kept by (its first id).

    Raises:
        InvalidArgumentError: not a paper identifier nor a library item id.
        NotFoundError: the caller's library has no such item.
    """
    pid = await identify(raw, field, tool=tool, library=True)
    if pid.kind != "library_item":
        return written_form(pid) if free_text(raw) else raw
    paper = await item_paper(principal, pid.value)
    ids = [paper.paperId, *written_ids(paper.externalIds or {})]
    return next((i for i in ids if i), None) or raw


async def get_paper(raw: str, cache: Cache | None = None, *, principal: str | None = None, tool: str = "get_paper",
                    field: str = "identifier") -> Paper:
    """The full record of one paper.

    Args:
        raw: any paper identifier; with ``principal``, also one of that caller's library item ids.
        cache: the cache to use (default: the configured one).
        principal: the caller, when the tool knows it.
        tool: the tool asking, named when a form is refused.
        field: the argument that holds ``raw``.

    Raises:
        InvalidArgumentError: not a paper identifier.
        NotFoundError: no source holds it (every source that can look it up answered so).
        RateLimitedError / UpstreamError: no source found it while one failed (nothing is cached then).
    """
    pid = await identify(raw, field, tool=tool, library=principal is not None, cache=cache)
    if pid.kind == "library_item":
        return await item_paper(principal or "", pid.value)
    return await resolve(pid, cache)


async def resolve(pid: PaperId, cache: Cache | None = None) -> Paper:
    """The full record of a parsed paper identifier (errors as in ``get_paper``)."""
    cache = cache or Cache()
    key = pid.cache_key()
    if (merged := await recent.recall(key, cache)) is not None:
        return merged
    found = await cache.aget_first(("alias", key), ("negative", key))
    if found is not None and found[0] == "alias":
        cached = await cache.aget("record", found[1])
        if cached is not None:
            return Paper.model_validate(cached)
    elif found is not None:
        raise NotFoundError(f"no source has a paper for {key} (answered within the hour)", details={"cached": True})
    outcome = await chain.look_up(pid)
    if outcome.paper is None:
        await cache.aput("negative", key, True, ttl_s=NEGATIVE_TTL_S)
        raise chain.not_found(pid, outcome.asked)
    paper = outcome.paper
    if outcome.complete:
        record_key = paper.paperId or f"{outcome.source}:{key}"
        await cache.aput("record", record_key, paper.model_dump(mode="json"))
        for alias in sorted({key} | recent.keys_of(paper)):
            await cache.aput("alias", alias, record_key)
    return paper
