"""recommend_papers: Semantic Scholar recommendations from positive (and negative) examples, cached a day.

Examples in any id form are mapped to S2 paper ids first (one batch request for all of them, none when
they are S2 ids already), so the recommendations API always gets the id form it documents.
"""

from __future__ import annotations

from scholar.core.budget import fit_papers, shorten_for_list
from scholar.core.errors import NotFoundError
from scholar.core.paper_mapping import from_s2
from scholar.families.papers.cache_keys import cache_key
from scholar.families.papers.fields import FIELDS
from scholar.families.papers.neighbours import GraphReader, is_s2_id
from scholar.families.papers.spec_graph import RecommendPapersInput, RecommendPapersResult
from scholar.services.paper_lookup import explain_missing, s2_key_of
from scholar.sources import s2
from scholar.store.cache import Cache


async def _keys(groups: dict[str, list[str]]) -> dict[str, list[str]]:
    return {name: [await s2_key_of(raw, f"{name}[{i}]", tool="recommend_papers") for i, raw in enumerate(raws)]
            for name, raws in groups.items()}


async def _to_s2_ids(
    groups: dict[str, list[str]], keys: dict[str, list[str]], reader: GraphReader
) -> tuple[dict[str, list[str]], list[str]]:
    """S2 ids per group (``positive_ids`` / ``negative_ids``) and the inputs that did not resolve."""
    flat = [k for ks in keys.values() for k in ks]
    rows = {} if all(is_s2_id(k) for k in flat) else await reader.batch(flat, ("paperId",))
    ids: dict[str, list[str]] = {}
    unresolved: list[str] = []
    for name, raws in groups.items():
        ids[name] = []
        for raw, key in zip(raws, keys[name], strict=True):
            paper_id = key if is_s2_id(key) and not rows else (rows.get(key) or {}).get("paperId")
            if paper_id:
                ids[name].append(paper_id)
            else:
                unresolved.append(raw)
        ids[name] = list(dict.fromkeys(ids[name]))
    return ids, unresolved


async def recommend(args: RecommendPapersInput, cache: Cache | None = None) -> RecommendPapersResult:
    """Recommended papers (the single-example endpoint when there is one positive and no negative).

    Raises:
        InvalidArgumentError: a bad identifier.
        NotFoundError: no positive example resolves.
        RateLimitedError / UpstreamError: S2 failed.
    """
    cache = cache or Cache()
    groups = {"positive_ids": list(args.positive_ids), "negative_ids": list(args.negative_ids or [])}
    keys = await _keys(groups)
    key = cache_key("recommend", args, **{name: sorted(ks) for name, ks in keys.items()})
    cached = await cache.aget("search", key)
    if cached is not None:
        return RecommendPapersResult.model_validate(cached)
    ids, unresolved = await _to_s2_ids(groups, keys, GraphReader())
    positives, negatives = ids["positive_ids"], ids["negative_ids"]
    if not positives:
        raise NotFoundError(f"none of the positive examples resolves: {', '.join(args.positive_ids)}", source="s2")
    fields = FIELDS[args.fields]
    if len(positives) == 1 and not negatives:
        try:
            rows = await s2.recommend_for_paper(positives[0], fields, limit=args.limit)
        except NotFoundError as err:
            raise await explain_missing(args.positive_ids[0], err, tool="recommend_papers",
                                        what="its recommendations", cache=cache) from err
    else:
        rows = await s2.recommend_from_lists(positives, negatives, fields, limit=args.limit)
    papers = [from_s2(row, fields) for row in rows[: args.limit]]
    if args.fields != "full":
        papers = [shorten_for_list(p) for p in papers]
    kept, truncated = fit_papers(papers)
    result = RecommendPapersResult(data=kept, unresolved=unresolved, truncated=truncated)
    await cache.aput("search", key, result.model_dump(mode="json"))
    return result
