"""The arXiv family's tool implementations (dispatched by scholar.runtime.family)."""

from __future__ import annotations

from scholar.core.catalogue import CallContext, Handler, args_only
from scholar.families.arxiv import fulltext, metadata, search, taxonomy
from scholar.families.arxiv.spec import (
    CategoryItem,
    GetPapersInput,
    GetPapersResult,
    ListCategoriesInput,
    ListCategoriesResult,
)


async def arxiv_get_papers(args: GetPapersInput, ctx: CallContext) -> GetPapersResult:
    ids = [args.paper_ids] if isinstance(args.paper_ids, str) else list(args.paper_ids)
    return await metadata.get_papers(ids)


async def arxiv_list_categories(args: ListCategoriesInput, ctx: CallContext) -> ListCategoriesResult:
    items = [CategoryItem(code=c.code, name=c.name, group=c.group) for c in taxonomy.categories(args.group)]
    notice = None if items else f"No categories in group {args.group!r}; groups: {', '.join(taxonomy.GROUPS)}."
    return ListCategoriesResult(categories=items, totalCount=len(items), notice=notice)


HANDLERS: dict[str, Handler] = {
    "arxiv_search": args_only(search.search),
    "arxiv_get_papers": arxiv_get_papers,
    "arxiv_read_paper": args_only(fulltext.read_paper),
    "arxiv_list_categories": arxiv_list_categories,
}
