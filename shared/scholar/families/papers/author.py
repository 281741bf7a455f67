"""get_author: a numeric S2 id → profile + a page of publications; a name → up to 5 candidates."""

from __future__ import annotations

import re
from typing import Any

from scholar.core.budget import RESERVE, fit, json_chars
from scholar.core.id_forms import refuse_other_forms
from scholar.core.paper_mapping import from_s2
from scholar.families.papers.cache_keys import cache_key
from scholar.families.papers.fields import COMPACT
from scholar.families.papers.spec_graph import AuthorProfile, GetAuthorInput, GetAuthorResult
from scholar.sources import s2
from scholar.store.cache import Cache

PROFILE_FIELDS = ("authorId", "name", "affiliations", "homepage", "paperCount", "citationCount", "hIndex", "url",
                  "externalIds")
PAPER_FIELDS = (*COMPACT, "externalIds")
CANDIDATES = 5
_ID_RE = re.compile(r"^\d{1,15}$")


def _profile(data: dict[str, Any]) -> AuthorProfile:
    values: dict[str, Any] = {k: data.get(k) for k in PROFILE_FIELDS if data.get(k) is not None}
    if "externalIds" in values:
        ext = values["externalIds"]
        values["externalIds"] = {k: str(v[0] if isinstance(v, list) and v else v) for k, v in ext.items()}
    values["authorId"] = str(data.get("authorId"))
    return AuthorProfile(**values)


async def get_author(args: GetAuthorInput, cache: Cache | None = None) -> GetAuthorResult:
    """Profile and publications, or name candidates (cached as a list for a few days).

    Raises:
        InvalidArgumentError: a paper's (or book's, patent's) identifier instead of an author.
        NotFoundError: no author has this id.
    """
    # A paper's, book's or patent's identifier is no author's name; a name that merely looks like a standard
    # ("Din Xu") is searched as written.
    refuse_other_forms(args.identifier.strip(), tool="get_author", field="identifier", accepts={"standard", "url"},
                       takes="a Semantic Scholar author id (digits) or an author's name")
    cache = cache or Cache()
    key = cache_key("get_author", args)
    cached = await cache.aget("list", key)
    if cached is not None:
        return GetAuthorResult.model_validate(cached)
    ident = args.identifier.strip()
    if _ID_RE.match(ident):
        profile = _profile(await s2.get_author(ident, PROFILE_FIELDS))
        page = await s2.get_author_papers(ident, PAPER_FIELDS, offset=args.offset, limit=args.limit)
        rows = [from_s2(row, PAPER_FIELDS) for row in page.get("data") or []]
        papers, cut = fit(rows, reserve=RESERVE + json_chars(profile))
        result = GetAuthorResult(
            mode="profile", author=profile, papers=papers, offset=args.offset,
            next_offset=args.offset + len(papers) if cut else page.get("next"), truncated=cut,
        )
    else:
        found = await s2.search_authors(ident, PROFILE_FIELDS, limit=CANDIDATES)
        result = GetAuthorResult(
            mode="search",
            candidates=[_profile(row) for row in (found.get("data") or [])[:CANDIDATES]],
            total=found.get("total"),
        )
    await cache.aput("list", key, result.model_dump(mode="json"))
    return result
