"""enrich_paper: OpenAlex affiliations, funders and awards, open-access status, topics and legacy concepts.

OpenAlex replaced ``grants`` with ``funders`` and ``awards``; we read the current fields first and the
old one when only it is served. Open-access status falls back to Unpaywall when OpenAlex has no record
(or fails). Complete answers are cached 30 days under the DOI and the fields asked for.
"""

from __future__ import annotations

from typing import Any

from scholar.core.budget import fit_field
from scholar.core.errors import NotFoundError, ScholarError
from scholar.core.records import FailedSource
from scholar.families.papers.budget import failed
from scholar.families.papers.spec_export import Concept, EnrichPaperInput, EnrichPaperResult, Funder, OpenAccess, Topic
from scholar.services.paper_lookup import explain_missing, get_paper, identify
from scholar.sources import openalex, unpaywall
from scholar.store.cache import DAY, Cache

TTL_S = 30 * DAY
MAX_ITEMS = 50  # per list, and award ids per funder
# Cut first when the answer passes the size budget: the legacy concepts, then topics, funders, affiliations.
CUT_ORDER = ("concepts", "topics", "funders", "affiliations")


def affiliations(work: dict[str, Any]) -> list[str]:
    names: list[str] = []
    for authorship in work.get("authorships") or []:
        names += [i.get("display_name") for i in authorship.get("institutions") or [] if i.get("display_name")]
    return list(dict.fromkeys(names))[:MAX_ITEMS]


def funders(work: dict[str, Any]) -> list[Funder]:
    """Funders with their award ids: ``funders`` + ``awards`` (current), else ``grants`` (before 2025)."""
    by_name: dict[str, list[str]] = {}
    ids_to_name: dict[str, str] = {}
    for funder in work.get("funders") or []:
        name = funder.get("display_name")
        if name:
            by_name.setdefault(name, [])
            if funder.get("id"):
                ids_to_name[funder["id"]] = name
    for award in work.get("awards") or []:
        name = award.get("funder_display_name") or ids_to_name.get(award.get("funder_id") or award.get("funder") or "")
        if name:
            award_id = award.get("funder_award_id") or award.get("award_id")
            by_name.setdefault(name, []).extend([award_id] if award_id else [])
    if not by_name:
        for grant in work.get("grants") or []:
            name = grant.get("funder_display_name")
            if name:
                by_name.setdefault(name, []).extend([grant["award_id"]] if grant.get("award_id") else [])
    return [Funder(name=n, award_ids=list(dict.fromkeys(a))[:MAX_ITEMS]) for n, a in by_name.items()][:MAX_ITEMS]


def topics(work: dict[str, Any]) -> list[Topic]:
    def name(part: Any) -> str | None:
        return part.get("display_name") if isinstance(part, dict) else None

    return [
        Topic(name=t["display_name"], score=t.get("score"), subfield=name(t.get("subfield")),
              field=name(t.get("field")), domain=name(t.get("domain")))
        for t in (work.get("topics") or [])[:MAX_ITEMS]
        if t.get("display_name")
    ]


def concepts(work: dict[str, Any]) -> list[Concept]:
    return [
        Concept(name=c["display_name"], score=c.get("score"), level=c.get("level"))
        for c in (work.get("concepts") or [])[:MAX_ITEMS]
        if c.get("display_name")
    ]


def open_access(work: dict[str, Any]) -> OpenAccess:
    oa = work.get("open_access") or {}
    return OpenAccess(is_oa=oa.get("is_oa"), oa_status=oa.get("oa_status"), oa_url=oa.get("oa_url"))


def _from_unpaywall(record: dict[str, Any]) -> OpenAccess:
    best = record.get("best_oa_location") or {}
    return OpenAccess(
        is_oa=record.get("is_oa"), oa_status=record.get("oa_status"), oa_url=best.get("url_for_pdf") or best.get("url")
    )


def fit(result: EnrichPaperResult) -> EnrichPaperResult:
    """``result`` within the size budget: its lists cut in CUT_ORDER until it fits, with ``truncated``."""
    for name in CUT_ORDER:
        result, _ = fit_field(result, name, flag="truncated")
    return result


async def _locate(raw: str) -> tuple[str | None, str | None]:
    """(DOI, OpenAlex id) of a paper: straight from the identifier when it holds one, else via get_paper."""
    pid = await identify(raw, tool="enrich_paper")
    if pid.kind == "doi":
        return pid.value, None
    if pid.kind == "openalex":
        return None, pid.value
    if pid.kind == "arxiv":
        return f"10.48550/arxiv.{pid.value}", None
    paper = await get_paper(raw, tool="enrich_paper")
    ext = paper.externalIds or {}
    doi = ext.get("DOI")
    if not doi and not ext.get("OpenAlex"):
        raise NotFoundError(f"{raw!r} has no DOI, so OpenAlex cannot be asked about it", source="openalex",
                            hint="Pass the paper's DOI if you know it.")
    return (doi.lower() if doi else None), ext.get("OpenAlex")


async def enrich_paper(args: EnrichPaperInput, cache: Cache | None = None) -> EnrichPaperResult:
    """OpenAlex (and Unpaywall) data for one paper.

    Raises:
        InvalidArgumentError: a bad identifier.
        NotFoundError: neither OpenAlex nor Unpaywall has the paper.
        ScholarError: every source asked failed: the first failure as it happened (rate_limited, timeout,
            upstream_error, unavailable ...).
    """
    cache = cache or Cache()
    doi, work_id = await _locate(args.identifier)
    wanted = sorted(set(args.fields))
    key = f"enrich:{doi or work_id}:{','.join(wanted)}"
    cached = await cache.aget("result", key)
    if cached is not None:
        return EnrichPaperResult.model_validate(cached)
    failures: list[FailedSource] = []
    errors: list[ScholarError] = []  # the failures as raised: the first is re-raised when nothing answered
    work: dict[str, Any] | None = None
    missing: ScholarError | None = None
    try:
        work = await (openalex.get_work(work_id) if work_id else openalex.get_work_by_doi(doi or ""))
    except NotFoundError as err:
        missing = err
    except ScholarError as err:
        failures.append(failed(err, "openalex"))
        errors.append(err)
    values: dict[str, Any] = {"doi": doi, "sources": []}
    if work is not None:
        values.update(openalex_id=str(work.get("id", "")).rsplit("/", 1)[-1] or None, sources=["openalex"])
        doi = doi or (work.get("doi") or "").removeprefix("https://doi.org/").lower() or None
        values["doi"] = doi
        extractors = {"affiliations": affiliations, "funders": funders, "topics": topics, "concepts": concepts,
                      "oa_status": open_access}
        for name in wanted:
            values[name] = extractors[name](work)
    if "oa_status" in wanted and work is None and doi:
        try:
            values["oa_status"] = _from_unpaywall(await unpaywall.get_doi(doi))
            values["sources"] = [*values["sources"], "unpaywall"]
        except NotFoundError:
            pass
        except ScholarError as err:
            failures.append(failed(err, "unpaywall"))
            errors.append(err)
    if not values["sources"]:
        if errors:
            # Keep the code that happened: a timeout stays timeout, unavailable stays unavailable.
            raise errors[0]
        gone = missing or NotFoundError(f"OpenAlex has no record of {args.identifier!r}", source="openalex")
        raise await explain_missing(args.identifier, gone, tool="enrich_paper", what="its OpenAlex data",
                                    lacking="openalex", cache=cache) if isinstance(gone, NotFoundError) else gone
    result = fit(EnrichPaperResult(**values, failed_sources=failures, partial=bool(failures)))
    if not failures:
        await cache.aput("result", key, result.model_dump(mode="json"), ttl_s=TTL_S)
    return result
