"""read_paper's answer from a stored conversion: whole pages within a character budget, the outline, one section,
or one figure or table rendered from the PDF.

Core, not a family: the research family answers from stored artifacts with it, and the PDF pipeline's finish
step (scholar.services.fulltext.answer_builder) builds the finished task's result with it, so both give the same answer.
Paging never cuts a page: pages are added while they fit ``max_chars``; only a single page longer than
``max_chars`` on its own is cut, and the answer says so (``truncated``).
"""

from __future__ import annotations

import base64
import re
import tempfile
from typing import Any

from scholar.core.content import ExtraImage, ExtraLink
from scholar.core.errors import InvalidArgumentError, NotFoundError
from scholar.core.resource_uris import PAPER_MARKDOWN
from scholar.services.fulltext import artifacts
from scholar.services.fulltext.models import Converter, Job, PaperSummary
from scholar.services.fulltext.read_options import MAX_READ_CHARS, ReadOptions
from scholar.services.fulltext.read_result import FigureInfo, OutlineEntry, ReadPaperResult, SectionInfo
from scholar.services.pdftext import outline
from scholar.services.pdftext.labels import FigureKind, Label, parse_label

PAGES_FIELD = "pages"
MAX_PAGE = 100_000
MAX_RANGES = 50
SECTION_NOT_FOUND = "section_not_found"
FIGURE_NOT_FOUND = "figure_not_found"
_RANGE = re.compile(r"^(\d{1,6})(?:(-)(\d{1,6})?)?$")

Ranges = list[tuple[int, int | None]]


def parse_pages(spec: str) -> Ranges:
    """``"1-10"``, ``"3,5,7-9"``, ``"12-"`` → ``[(1, 10)]``, ``[(3, 3), (5, 5), (7, 9)]``, ``[(12, None)]``.

    Raises:
        InvalidArgumentError: field ``pages``: not a range list, a page below 1, or a range that runs backwards.
    """
    parts = [p.strip() for p in spec.split(",")]
    if not spec.strip() or len(parts) > MAX_RANGES:
        raise InvalidArgumentError(
            f"pages must be a list of at most {MAX_RANGES} pages or ranges such as 1-10, 3,5,7-9 or 12-",
            field=PAGES_FIELD,
        )
    ranges: Ranges = []
    for part in parts:
        match = _RANGE.match(part)
        if match is None:
            raise InvalidArgumentError(
                f"pages: {part!r} is not a page or a range (write 4, 2-5 or 12-)", field=PAGES_FIELD
            )
        first = int(match.group(1))
        last = None if match.group(2) and match.group(3) is None else int(match.group(3) or first)
        if first < 1 or (last is not None and last < first) or max(first, last or 0) > MAX_PAGE:
            raise InvalidArgumentError(
                f"pages: {part!r} must run forwards from page 1 or later (at most {MAX_PAGE})", field=PAGES_FIELD
            )
        ranges.append((first, last))
    return ranges


def asked_label(options: ReadOptions) -> Label | None:
    """The figure or table label asked for (None when neither was).

    Raises:
        InvalidArgumentError: field ``figure`` / ``table``: not a label such as Figure 3, Fig. 3 or Table 2.
    """
    asked = options.figure or options.table
    if asked is None:
        return None
    field: FigureKind = "figure" if options.figure else "table"
    label = parse_label(asked, field)
    if label is None:
        raise InvalidArgumentError(f"{field}: {asked!r} is not a label such as Figure 3, Fig. 3 or Table 2",
                                   field=field)
    return label


def compress(numbers: list[int]) -> str | None:
    """``[1, 2, 3, 5, 7, 8]`` → ``"1-3,5,7-8"`` (None for no pages)."""
    out: list[str] = []
    for n in sorted(set(numbers)):
        if out and n == _last(out) + 1:
            out[-1] = f"{out[-1].split('-')[0]}-{n}"
        else:
            out.append(str(n))
    return ",".join(out) or None


def _last(parts: list[str]) -> int:
    return int(parts[-1].split("-")[-1])


def build_answer(job: Job, fields: dict[str, Any], md: tuple[str, Converter] | None,
                 principal: str = "") -> ReadPaperResult:
    """read_paper's answer for a job whose Markdown is stored.

    Args:
        job: the read_paper job (``job.read`` holds what was asked).
        fields: the answer's PDF and paper fields, as scholar.services.fulltext.answer_builder gathers them for every
        tool.
        md: the stored Markdown's key and converter.
        principal: the caller (a figure of a PDF licensed to them is rendered from their own copy).

    Raises:
        NotFoundError: the Markdown or PDF artifact is gone, or no heading / figure matches what was asked.
        InvalidArgumentError: field ``pages``: none of the asked pages exists.
    """
    options = job.read or ReadOptions()
    if md is None:
        raise NotFoundError("the paper has no stored Markdown yet", hint="Call read_paper again to convert it.")
    md_path, converter = md
    markdown = artifacts.get_markdown(md_path)
    if markdown is None:
        raise NotFoundError(f"the artifact {md_path} does not exist (it may have expired)",
                            hint="Call read_paper again: the PDF will be converted anew.")
    all_pages = outline.pages(markdown)
    base = {**fields, "md_path": md_path, "converter": converter, "page_count": _page_count(markdown, all_pages)}
    if options.outline:
        entries = [OutlineEntry(level=h.level, heading=h.text, page=h.page) for h in outline.headings(markdown)]
        note = None if entries else "the converter found no headings in this paper; read it by pages"
        return ReadPaperResult.model_validate({**base, "outline": entries, "note": note})
    if options.figure or options.table:
        return _figure_answer(options, base, markdown, all_pages, principal, job.pdf_path)
    if options.section:
        return _section_answer(options, base, markdown, all_pages)
    answer = _pages_answer(options, base, markdown, all_pages)
    # Only part of the paper in the answer: link to the whole of it (MCP resource_link).
    if answer.chars < len(markdown) and (link := _whole_markdown(fields.get("metadata"))) is not None:
        answer.extra_content = [link]
    return answer


def _whole_markdown(metadata: Any) -> ExtraLink | None:
    """A link to the MCP resource holding the paper's whole Markdown, named by the paper's DOI, arXiv id or S2 id."""
    if not isinstance(metadata, PaperSummary):
        return None
    written = metadata.doi or (f"arXiv:{metadata.arxiv_id}" if metadata.arxiv_id else None) or metadata.paper_id
    if not written:
        return None
    return ExtraLink(uri=PAPER_MARKDOWN.uri(id=written), name=PAPER_MARKDOWN.name,
                     title=f"{metadata.title or written}, whole Markdown", media_type=PAPER_MARKDOWN.mime_type)


def _page_count(markdown: str, all_pages: list[outline.Page]) -> int | None:
    return all_pages[-1].number if outline.PAGE_MARKER.search(markdown) else None


def _pages_answer(options: ReadOptions, base: dict[str, Any], markdown: str,
                  all_pages: list[outline.Page]) -> ReadPaperResult:
    ranges = parse_pages(options.pages)
    last_page = all_pages[-1].number
    asked: list[int] = []
    missing: list[int] = []
    for first, last in ranges:
        for n in range(first, (last_page if last is None else last) + 1):
            (asked if n <= last_page else missing).append(n)
        if last is None and first > last_page:
            missing.append(first)
    by_number = {p.number: p for p in all_pages}
    present = sorted(set(n for n in asked if n in by_number))
    if not present:
        raise InvalidArgumentError(
            f"pages: the paper has {last_page} page(s); none of {options.pages!r} exists", field=PAGES_FIELD,
            details={"page_count": last_page},
        )
    texts = [(n, markdown[by_number[n].start:by_number[n].end]) for n in present]
    answer = _fit(texts, options.max_chars)
    missing_text = compress(missing)
    notes = [answer.pop("note")] if answer.get("note") else []
    if missing_text:
        notes.append(f"the paper has {last_page} page(s): pages {missing_text} do not exist")
    if base.get("page_count") is None:
        notes.append("the converter wrote no page markers: the whole text counts as page 1")
    return ReadPaperResult.model_validate({
        **base, **answer, "pages_requested": compress(present + missing), "pages_missing": missing_text,
        "note": "; ".join(notes) or None,
    })


def _fit(texts: list[tuple[int, str]], max_chars: int) -> dict[str, Any]:
    """Whole pages while they fit ``max_chars``; a first page longer than that alone is cut (``truncated``)."""
    taken: list[tuple[int, str]] = []
    size = 0
    for number, text in texts:
        if taken and size + len(text) > max_chars:
            break
        taken.append((number, text))
        size += len(text)
    truncated = size > max_chars
    body = "".join(t for _, t in taken)
    note = None
    if truncated:
        body = body[:max_chars]
        note = (f"page {taken[0][0]} alone has {size:,} characters, more than max_chars ({max_chars:,}); it was cut "
                f"at max_chars (max_chars may be raised to {MAX_READ_CHARS:,})")
    rest = [n for n, _ in texts[len(taken):]]
    return {
        "markdown": body,
        "chars": len(body),
        "pages_returned": compress([n for n, _ in taken]),
        "ocr_pages": compress([n for n, text in taken if outline.OCR_MARK in text]),
        "next_pages": compress(rest),
        "truncated": truncated,
        "note": note,
    }


def _section_answer(options: ReadOptions, base: dict[str, Any], markdown: str,
                    all_pages: list[outline.Page]) -> ReadPaperResult:
    section = outline.find_section(markdown, options.section or "")
    if section is None:
        raise NotFoundError(
            f"no heading matches section {options.section!r}",
            reason=SECTION_NOT_FOUND,
            hint="Call read_paper with outline=true to list the headings, then pass one as section.",
        )
    texts = []
    for page in all_pages:
        if page.end <= section.heading.start or page.start >= section.end:
            continue
        start = max(page.start, section.heading.start)
        marker = f"<!-- page {page.number} -->\n\n" if start > page.start else ""
        texts.append((page.number, marker + markdown[start:min(page.end, section.end)].rstrip() + "\n\n"))
    answer = _fit(texts, options.max_chars)
    info = SectionInfo(heading=section.heading.text, level=section.heading.level,
                       pages=compress(list(range(section.first_page, section.last_page + 1))) or "")
    return ReadPaperResult.model_validate({**base, **answer, "section": info, "pages_requested": info.pages})


def _figure_answer(options: ReadOptions, base: dict[str, Any], markdown: str,
                   all_pages: list[outline.Page], principal: str, key: str | None = None) -> ReadPaperResult:
    from scholar.services.pdftext import figures  # noqa: PLC0415  # pdfium's figure finder, Pillow: for a figure only

    label = asked_label(options)
    if label is None:
        raise InvalidArgumentError("neither figure nor table was asked for", field="figure")
    pdf_path = key or str(base.get("pdf_path") or "")  # a caller's own PDF: the job holds its key, base its ref
    with tempfile.TemporaryDirectory(prefix="scholar-read-") as dest:
        local = artifacts.pdf_to_file(pdf_path, dest, principal=principal)  # a licensed copy: the caller's own
        found = figures.find_figure(local, label)
    if found is None:
        raise NotFoundError(
            f"no caption starting with {label.text!r} was found in the paper",
            reason=FIGURE_NOT_FOUND,
            hint="Check the label in the text (read_paper pages), e.g. Figure 3 or Table 2.",
        )
    by_number = {p.number: p for p in all_pages}
    page = by_number.get(found.page)
    table = None
    if label.kind == "table" and page is not None:
        table = figures.markdown_table(markdown[page.start:page.end], found.caption, above=found.above_caption)
    info = FigureInfo(label=label.text, kind=label.kind, page=found.page, caption=found.caption,
                      region=found.region, box=[round(v, 1) for v in found.box], width_px=found.width_px,
                      height_px=found.height_px, markdown_table=table)
    note = None
    if found.region == "page":
        note = f"no {label.kind} region could be told apart on page {found.page}: the image is the whole page"
    image = ExtraImage(data=base64.b64encode(found.png).decode("ascii"), media_type="image/png")
    return ReadPaperResult.model_validate({
        **base, "figure": info, "note": note, "pages_returned": str(found.page), "extra_content": [image],
    })
