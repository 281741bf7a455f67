"""The research family's ``download_paper`` tool (seed 003, issue 12): a verified PDF kept in the caller's library."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from scholar.core.catalogue import MAX_RESULT_CHARS, WRITE_OPEN, ToolInput, ToolSpec
from scholar.core.ids import PaperIdentifier
from scholar.services.fulltext.keep_result import DownloadPaperResult
from scholar.services.fulltext.models import Prefer
from scholar.store.library.models import COLLECTION_PATTERN, DEFAULT_COLLECTION


class DownloadPaperInput(ToolInput):
    identifier: PaperIdentifier
    collection: Annotated[str, Field(pattern=COLLECTION_PATTERN)] = DEFAULT_COLLECTION
    prefer: Prefer = Field(
        default="published",
        description="published: the version of record, then an accepted manuscript; preprint: arXiv or the "
        "submitted manuscript first",
    )


TOOLS = (
    ToolSpec(
        name="download_paper",
        family="research",
        title="Download and keep paper",
        description="Keep a paper's PDF in your library. Every open location is tried at once (S2, arXiv, PMC, "
        "Unpaywall, OpenAlex, publishers); each download must be a real, readable PDF. Your PDF (local path, upload/…) "
        "is kept at once, as library_add keeps it. "
        "The answer names the kept version (version, pdf_source, source_url), what else it found (also_found) and "
        "every version the item holds; a better version found later is kept beside the older one. Answers at once "
        "when the preferred version is stored, else queued (usually 5-60 s). No PDF is "
        "not_found only when every location answered; a throttled or failing one gives a retryable error naming it.",
        input_model=DownloadPaperInput,
        output_model=DownloadPaperResult,
        annotations=WRITE_OPEN,
        tags=frozenset({"write"}),
        task_support="optional",
        max_result_chars=MAX_RESULT_CHARS,  # pdf_results.fit_outcome; versions are bounded by the library's bounds
    ),
)
