"""Tools whose data only Semantic Scholar holds (citations, references, graphs, recommendations): the S2 form of any
identifier, and the honest answer when S2 lacks a paper another source knows.

An identifier S2 looks up itself (S2 id, DOI, arXiv, PMID, PMCID, CorpusId) costs nothing here. An OpenAlex or
INSPIRE id, or a library item, is resolved first (a recent search's record, the cache, the source that knows it)
to the DOI, arXiv id or S2 id its record carries. When S2 has no record of a paper that another source does know,
the tool answers ``unavailable`` with reason ``data_not_in_sources`` (``missing_data``), never ``not_found``: not
retryable, since the source has to index the paper first.
"""

from __future__ import annotations

from scholar.core.errors import NotFoundError, ScholarError, UnavailableError
from scholar.core.ids import PAPER_KINDS, S2_KINDS, InvalidIdError, parse_paper_id
from scholar.core.records import Paper
from scholar.services.paper_lookup import chain, recent
from scholar.services.paper_lookup.resolve import identify, item_paper, resolve
from scholar.store.cache import Cache

DATA_NOT_IN_SOURCES = "data_not_in_sources"
_S2_FORMS = (("DOI", "DOI:{}"), ("ArXiv", "ARXIV:{}"), ("PubMed", "PMID:{}"), ("PubMedCentral", "PMCID:{}"),
             ("CorpusId", "CorpusId:{}"))


def s2_form_of(paper: Paper) -> str | None:
    """The form S2 looks a record up by: its S2 id, else its DOI, arXiv id, PMID, PMCID or CorpusId."""
    if paper.paperId:
        return paper.paperId
    ext = paper.externalIds or {}
    for name, form in _S2_FORMS:
        if ext.get(name):
            return form.format(ext[name])
    return None


async def s2_key_of(raw: str, field: str, *, tool: str, principal: str | None = None,
                    cache: Cache | None = None) -> str:
    """The form Semantic Scholar accepts for any paper identifier (``DOI:…``, ``ARXIV:…``, a 40-hex id …).

    Raises:
        InvalidArgumentError: not a paper identifier (names ``field`` and the tool that takes it).
        UnavailableError: reason ``data_not_in_sources``: the paper is known, but carries no id Semantic Scholar
            can look up.
        NotFoundError / RateLimitedError / UpstreamError: resolving an OpenAlex or INSPIRE id failed.
    """
    pid = await identify(raw, field, tool=tool, library=principal is not None, cache=cache)
    if pid.kind in S2_KINDS:
        return pid.s2_key()
    paper = await (item_paper(principal or "", pid.value) if pid.kind == "library_item" else resolve(pid, cache))
    form = s2_form_of(paper)
    if form is None:
        raise missing_data(raw, paper, tool, needs="an identifier Semantic Scholar can look up")
    return form


async def explain_missing(raw: str, err: NotFoundError, *, tool: str, what: str, lacking: str = "s2",
                          cache: Cache | None = None) -> ScholarError:
    """What to raise when ``lacking`` (the source ``tool`` reads) answered "no such paper" for ``raw``:
    ``missing_data`` when another source knows the paper (a recent search's record, or the other sources in order),
    else ``err`` unchanged."""
    try:
        pid = parse_paper_id(raw)
    except InvalidIdError:
        return err
    if pid.kind not in PAPER_KINDS:
        return err
    paper = await recent.recall(pid.cache_key(), cache)
    if paper is None:
        try:
            paper = (await chain.look_up(pid, skip={lacking})).paper
        except ScholarError:
            paper = None  # asking around failed: S2's own answer stands
    return err if paper is None else missing_data(raw, paper, tool, needs=what, lacking=lacking)


def missing_data(raw: str, paper: Paper, tool: str, *, needs: str, lacking: str = "s2") -> UnavailableError:
    """The paper exists (a source knows it) but ``lacking``, the source ``tool`` reads, holds nothing for it."""
    known_by = [s for s in paper.sources if s != lacking] or paper.sources
    names = ", ".join(chain.NAMES.get(s, s) for s in known_by)
    return UnavailableError(
        f"{raw!r} is known to {names}, but {chain.NAMES.get(lacking, lacking)}, the source {tool} reads, has no "
        f"record of it, so {needs} is not available",
        source=lacking,
        reason=DATA_NOT_IN_SOURCES,
        retryable=False,
        details={"known_by": known_by, "title": paper.title},
        hint="get_paper, generate_citations, read_paper and library_add work for it; its references are in its "
        "full text (read_paper).",
    )
