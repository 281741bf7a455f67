"""The research family's ``download_paper`` tool (seed 003, issue 12): a verified PDF kept in the caller's library."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from scholar.catalogue import WRITE_OPEN, ToolSpec
from scholar.fulltext.keep_result import DownloadPaperResult
from scholar.fulltext.models import Prefer
from scholar.store.library_models import COLLECTION_PATTERN, DEFAULT_COLLECTION


class DownloadPaperInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    identifier: Annotated[
        str,
        Field(min_length=1, max_length=300,
              description="Paper identifier: DOI, arXiv id, S2 id, PMID:…, PMCID:…, CorpusId:…, a doi.org / "
              "arxiv.org URL, or an id from a search result"),
    ]
    collection: Annotated[
        str, Field(pattern=COLLECTION_PATTERN, description="Library collection to keep the paper in")
    ] = DEFAULT_COLLECTION
    prefer: Prefer = Field(
        default="published",
        description="Which version to keep when several are found: published (the version of record; an accepted "
        "manuscript next) or preprint (arXiv / submitted manuscript first)",
    )


TOOLS = (
    ToolSpec(
        name="download_paper",
        family="research",
        title="Download and keep paper",
        description="Keep a paper's PDF in your library (collection, default inbox). Every open location is tried at "
        "once (Semantic Scholar, arXiv, PubMed Central, Unpaywall, OpenAlex, publisher links); each download is "
        "checked to be a real, readable PDF before it is stored. The version of record is preferred over a preprint "
        "(prefer=preprint reverses it); the answer says which version it kept (version, pdf_source, source_url), "
        "what else it found (also_found) and every version the library item holds. A later call that finds a better "
        "version keeps it beside the older one (own sha256); nothing is overwritten. Answers at once when the "
        "preferred version is already stored; otherwise answers {queued: true, task_id} at once: poll "
        "get_task_result(task_id) (usually 5-60 s). No PDF anywhere is not_found only when every location answered; "
        "a throttled or failing one gives a retryable error naming it.",
        input_model=DownloadPaperInput,
        output_model=DownloadPaperResult,
        annotations=WRITE_OPEN,
        tags=frozenset({"write"}),
        task_support="optional",
    ),
)
