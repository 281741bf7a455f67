"""The records the PDF tools and the pipeline share: candidates, attempts, artifacts, paper summaries, jobs.

Pydantic only (spec.py imports this module, and spec.py must stay cheap to import).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from scholar.services.fulltext.read_options import ReadOptions
from scholar.store.library.models import COLLECTION_PATTERN, DEFAULT_COLLECTION, PdfVersionKind

# local / upload: a PDF the caller brought (a path on this machine, an upload); library_proxy: the publisher's version
# through the caller's library proxy, licensed to that caller alone.
PdfSource = Literal["s2_oa", "arxiv", "pmc", "unpaywall", "openalex", "publisher", "url", "local", "upload",
                    "library_proxy"]
Converter = Literal["builtin", "docling", "docling_vlm"]
JobKind = Literal["paper", "url", "convert"]

MAX_CHARS_LIMIT = 100_000
# The most characters of a PDF tool's answer as sent: max_chars of Markdown, its JSON escaping and the other fields.
PDF_RESULT_CHARS = MAX_CHARS_LIMIT + 20_000
DEFAULT_MAX_CHARS = 40_000


class Candidate(BaseModel):
    """A URL that may serve the paper's PDF, and the source that pointed to it."""

    source: PdfSource
    url: str = Field(max_length=4000)
    version: PdfVersionKind | None = None  # as the source labels it (Unpaywall, OpenAlex, Crossref); arXiv: preprint


class Attempt(BaseModel):
    """One candidate tried by the download step: taken, or rejected with the reason."""

    source: PdfSource
    url: str = Field(description="The URL as the source gave it")
    ok: bool
    code: str | None = Field(default=None, description="Error code of the rejection (not_found, upstream_error, ...)")
    reason: str | None = Field(default=None, description="Why it was rejected: html_page, not_pdf, http_error, ...")
    status: int | None = Field(default=None, description="HTTP status of the rejection, when there was one")
    retryable: bool = Field(default=False, description="Whether the same candidate may give the PDF later")
    message: str | None = None


class PaperSummary(BaseModel):
    """The paper the PDF belongs to (resolved through Semantic Scholar)."""

    model_config = ConfigDict(extra="ignore")

    paper_id: str | None = Field(default=None, description="Semantic Scholar paper id")
    title: str | None = None
    year: int | None = None
    venue: str | None = None
    authors: list[str] = Field(default_factory=list, description="First authors (at most 10)")
    doi: str | None = None
    arxiv_id: str | None = None
    pmid: str | None = None
    pmcid: str | None = None
    url: str | None = None


class StoredPdf(BaseModel):
    """A PDF in the artifact bucket (content-addressed) and where it came from."""

    pdf_path: str = Field(description="Artifact reference: pdfs/<sha256>.pdf (mine/<sha256>.pdf: the caller's own)")
    sha256: str
    size_bytes: int
    pdf_source: PdfSource
    source_url: str


Prefer = Literal["published", "preprint"]


class KeepOptions(BaseModel):
    """download_paper's part of a job: keep the best PDF in the caller's library (the principal is the task's)."""

    collection: str = Field(default=DEFAULT_COLLECTION, pattern=COLLECTION_PATTERN)
    prefer: Prefer = "published"


class Job(BaseModel):
    """What one pipeline execution does; also the normalised arguments its dedupe key is made of."""

    kind: JobKind
    tool: str
    identifier: str | None = None  # paper: the normalised id (``kind:value``) ...
    s2_key: str | None = None  # ... and the form S2 accepts
    url: str | None = None  # url ...
    filename: str | None = None  # ... and the caller's label for it (not part of the dedupe key)
    pdf_path: str | None = None  # convert
    convert: bool = True
    use_vlm: bool = False
    offset: int = 0
    max_chars: int = DEFAULT_MAX_CHARS
    keep: KeepOptions | None = None  # download_paper: the collection and the preferred version
    read: ReadOptions | None = None  # read_paper: pages, outline, section, figure

    def dedupe_key(self) -> str:
        """The arguments that decide the work (paging does not).

        read_paper's options are part of it: a task's result is one answer, so a section asked while the same
        PDF's figure is being read is a task of its own (the conversion is still made once: it is content-
        addressed, and the convert step skips a Markdown that exists).
        """
        target = self.identifier or self.url or self.pdf_path or ""
        kept = f"|{self.keep.prefer}|{self.keep.collection}" if self.keep else ""
        key = f"{self.tool}|{self.kind}|{target}|{int(self.convert)}|{int(self.use_vlm)}{kept}"
        return key if self.read is None else f"{key}|{self.read.model_dump_json()}"
