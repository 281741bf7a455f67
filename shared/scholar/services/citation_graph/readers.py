"""One reader per source: the papers a seed cites (``references``) or that cite it (``citations``).

    source     references                                   citations                        asked by
    s2         /paper/{id}/references                       /paper/{id}/citations            S2 form
    openalex   the work's referenced_works, then one         /works?filter=cites:W…           W id, DOI, PMID
               OR-filter request per 50 (openalex:W1|W2…)
    crossref   the work's deposited ``reference`` array      (none: Crossref's cited-by is     DOI
                                                             for its members only)
    europepmc  /{source}/{id}/references                    /{source}/{id}/citations         PMID, PMCID, DOI
    inspire    the record's ``references``                  q=refersto:recid:N               record id, DOI, arXiv

A reader returns ``Listed`` (the rows read and whether that was the whole list); a source with no record of the
seed lists nothing (NotFoundError is an answer, not a failure); any other error is raised for the caller to
record. Ids a reader learns on the way (OpenAlex's W id, Europe PMC's PMID) go back into the seed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from scholar.core.paper_mapping import from_inspire, from_openalex, from_s2
from scholar.core.records import Paper
from scholar.services.citation_graph.rows import from_crossref_reference, from_europepmc_link, from_inspire_reference
from scholar.services.citation_graph.seed import Seed
from scholar.sources import crossref, europepmc, inspire, openalex, s2

Kind = Literal["citations", "references"]
NESTED = {"citations": "citingPaper", "references": "citedPaper"}
# The fields asked of OpenAlex for a neighbour (enough for the identity rules and a compact record).
OPENALEX_SELECT = "id,doi,ids,display_name,publication_year,cited_by_count,authorships,primary_location,type"


@dataclass
class Listed:
    """Rows a source listed for one seed and direction; ``complete`` False when the list was longer than read."""

    papers: list[Paper] = field(default_factory=list)
    complete: bool = True
    requests: int = 0  # requests the reader made
    known: bool = False  # the source has a record of the seed (an empty list is then its answer)


async def read_s2(seed: Seed, kind: Kind, limit: int, fields: Sequence[str]) -> Listed:
    if not seed.s2_key:
        return Listed()
    page = await s2.get_citation_page(seed.s2_key, kind, fields=fields, offset=0, limit=limit)
    rows = [r.get(NESTED[kind]) or {} for r in page.get("data") or []]
    papers = [from_s2(r, tuple(fields)) for r in rows if r.get("paperId") or r.get("title")]
    return Listed(papers, complete=not page.get("next"), requests=1, known=True)


def _openalex_key(seed: Seed) -> str | None:
    if "openalex" in seed.ids:
        return seed.ids["openalex"]
    if seed.doi:
        return f"doi:{seed.doi}"
    return f"pmid:{seed.ids['pmid']}" if "pmid" in seed.ids else None


async def read_openalex(seed: Seed, kind: Kind, limit: int) -> Listed:
    key = _openalex_key(seed)
    if key is None:
        return Listed()
    if kind == "citations" and "openalex" in seed.ids:
        work_id = seed.ids["openalex"]
        referenced: list[str] = []
    else:
        work = await openalex.get_work_select(key, select="id,referenced_works")
        work_id = str(work.get("id") or "").rsplit("/", 1)[-1]
        referenced = [str(w).rsplit("/", 1)[-1] for w in work.get("referenced_works") or []]
        seed.add({f"openalex:{work_id}"} if work_id else set())
    asked = 0 if kind == "citations" and "openalex" in seed.ids and not referenced else 1
    if kind == "citations":
        works, total = await openalex.get_citing_works(work_id, limit=limit, select=OPENALEX_SELECT)
        return Listed([from_openalex(w) for w in works], complete=len(works) >= total, requests=asked + 1, known=True)
    works = await openalex.get_works_by_filter("openalex", referenced[:limit], select=OPENALEX_SELECT)
    asked += -(-len(referenced[:limit]) // openalex.OR_FILTER_MAX)
    order = {w: i for i, w in enumerate(referenced)}
    works.sort(key=lambda w: order.get(str(w.get("id") or "").rsplit("/", 1)[-1], len(order)))
    return Listed([from_openalex(w) for w in works], complete=len(referenced) <= limit, requests=asked, known=True)


async def read_crossref(seed: Seed, kind: Kind, limit: int) -> Listed:
    if kind != "references" or "doi" not in seed.ids:
        return Listed()
    refs = await crossref.get_references(seed.ids["doi"])
    papers = [p for r in refs[:limit] if (p := from_crossref_reference(r))]
    return Listed(papers, complete=len(refs) <= limit, requests=1, known=True)


async def _europepmc_record(seed: Seed) -> tuple[str, str] | None:
    if "pmid" in seed.ids:
        return "MED", seed.ids["pmid"]
    if "pmcid" in seed.ids:
        return "PMC", seed.ids["pmcid"]
    if "doi" not in seed.ids:
        return None
    for hit in await europepmc.search(f'DOI:"{seed.ids["doi"]}"', page_size=1):
        if str(hit.get("doi") or "").lower() == seed.ids["doi"] and hit.get("source") and hit.get("id"):
            return str(hit["source"]), str(hit["id"])
    return None


async def read_europepmc(seed: Seed, kind: Kind, limit: int) -> Listed:
    searched = 0 if "pmid" in seed.ids or "pmcid" in seed.ids or "doi" not in seed.ids else 1
    record = await _europepmc_record(seed)
    if record is None:
        return Listed(requests=searched)
    rows, total = await europepmc.get_links(*record, kind, limit=limit)
    papers = [p for r in rows if (p := from_europepmc_link(r))]
    return Listed(papers, complete=len(rows) >= total, requests=searched + 1, known=True)


async def _inspire_recid(seed: Seed) -> str | None:
    if "inspire" in seed.ids:
        return seed.ids["inspire"]
    query = (
        f"doi:{seed.ids['doi']}" if "doi" in seed.ids else f"arxiv:{seed.ids['arxiv']}" if "arxiv" in seed.ids else None
    )
    if query is None:
        return None
    hits = await inspire.search_literature(query, size=1)
    recid = str((hits[0].get("metadata") or {}).get("control_number") or "") if hits else ""
    if recid:
        seed.add({f"inspire:{recid}"})
    return recid or None


async def read_inspire(seed: Seed, kind: Kind, limit: int) -> Listed:
    searched = 0 if "inspire" in seed.ids or not ({"doi", "arxiv"} & seed.ids.keys()) else 1
    recid = await _inspire_recid(seed)
    if recid is None:
        return Listed(requests=searched)
    if kind == "references":
        refs = await inspire.get_references(recid)
        papers = [p for r in refs[:limit] if (p := from_inspire_reference(r))]
        return Listed(papers, complete=len(refs) <= limit, requests=searched + 1, known=True)
    hits = await inspire.search_literature(f"refersto:recid:{recid}", size=limit)
    return Listed([from_inspire(h) for h in hits], complete=len(hits) < limit, requests=searched + 1, known=True)


Reader = Callable[[Seed, Kind, int], Awaitable[Listed]]
OTHERS: dict[str, Reader] = {
    "openalex": read_openalex,
    "crossref": read_crossref,
    "europepmc": read_europepmc,
    "inspire": read_inspire,
}
