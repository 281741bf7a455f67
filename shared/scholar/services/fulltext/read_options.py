"""What a read_paper call asks for, carried inside the pipeline's Job (``Job.read``) so the finished task answers it.

Pydantic only (fulltext/models.py and research/read/spec.py import it; both must stay cheap to import). Part
of the job's dedupe key (a task's result is one answer); the conversion itself is content-addressed and made once.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

READ_TOOL = "read_paper"
DEFAULT_PAGES = "1-10"
DEFAULT_READ_CHARS = 100_000
# Hard cap of one answer: ~2× as JSON text plus structuredContent stays far below runtime/results.py's 5 MiB.
MAX_READ_CHARS = 200_000
# The most characters of one read_paper answer as sent (its JSON text): max_chars of Markdown, its escaping in
# JSON (newlines, quotes, LaTeX backslashes) and the answer's other fields. Advertised as the tool's result size.
READ_RESULT_CHARS = MAX_READ_CHARS + 20_000
MIN_READ_CHARS = 1_000


class ReadOptions(BaseModel):
    """The reading part of a read_paper call (validated by the tool's input model before it gets here)."""

    model_config = ConfigDict(extra="forbid")

    pages: str = DEFAULT_PAGES
    max_chars: int = Field(default=DEFAULT_READ_CHARS, ge=MIN_READ_CHARS, le=MAX_READ_CHARS)
    outline: bool = False
    section: str | None = None
    figure: str | None = None
    table: str | None = None
