"""The documents a newcomer reads fit and hold together: README's first screen, and every relative link resolves.

Links are read from the Markdown outside fenced code; a link to a heading (``file.md#anchor``) must name a heading
of that file, by GitHub's anchor rule (lower case, punctuation dropped, spaces to hyphens).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCUMENTS = sorted([REPO / "README.md", REPO / "CONTRIBUTING.md", *(REPO / "docs").glob("*.md")])
README_MAX_LINES = 200
FIRST_SCREEN_LINES = 40

_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")


def _prose(path: Path) -> list[str]:
    """The lines of a Markdown file outside fenced code blocks."""
    lines, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def _anchor(heading: str) -> str:
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading keeps its text
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    return {_anchor(m.group(1)) for line in _prose(path) if (m := _HEADING.match(line))}


def _relative_links(path: Path) -> list[str]:
    targets = [m.group(1) for line in _prose(path) for m in _LINK.finditer(line)]
    return [t for t in targets if not re.match(r"^[a-z][a-z0-9+.-]*:", t)]  # http:, https:, mailto: …


def test_the_documents_exist_and_link_somewhere() -> None:
    assert {p.name for p in DOCUMENTS} >= {"README.md", "CONTRIBUTING.md", "architecture.md", "performance.md",
                                           "research.md"}
    assert _relative_links(REPO / "README.md")


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_resolves_to_a_file_and_its_heading(document: Path) -> None:
    broken = []
    for target in _relative_links(document):
        file_part, _, anchor = target.partition("#")
        resolved = (document.parent / file_part).resolve() if file_part else document
        if not resolved.exists():
            broken.append(f"{target}: no such file")
        elif anchor and resolved.suffix == ".md" and anchor not in _anchors(resolved):
            broken.append(f"{target}: no heading with that anchor in {resolved.name}")
    assert broken == []


def test_the_anchor_rule_matches_github_s() -> None:
    assert _anchor("Load (`python -m benchmarks load`)") == "load-python--m-benchmarks-load"
    assert _anchor("Usage records and the doctor (`scholar/health/`)") == "usage-records-and-the-doctor-scholarhealth"
    assert _anchor("Research, reading and the library") == "research-reading-and-the-library"


def test_readme_fits_and_shows_the_two_commands_on_its_first_screen() -> None:
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    first_screen = "\n".join(lines[:FIRST_SCREEN_LINES])
    assert len(lines) <= README_MAX_LINES
    assert "make serve" in first_screen and "make test" in first_screen
