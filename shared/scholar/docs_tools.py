"""docs/tools.md, generated from the catalogue: ``python -m scholar.docs_tools`` (``--check`` fails when stale).

A developer tool, never imported by a function. It describes every tool of the catalogue (not only those a
deployment shows) through scholar.reference, the same reading the landing page uses.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path
from typing import get_args

from scholar.catalogue import all_tools, families
from scholar.errors import ErrorCode
from scholar.reference import ToolReference, tool_reference

DOC = Path(__file__).resolve().parents[2] / "docs" / "tools.md"
COMMAND = "python -m scholar.docs_tools"
ERROR_CODES: tuple[str, ...] = get_args(ErrorCode)
OPEN_WORLD_CODES = ("not_found", "rate_limited", "upstream_error", "timeout")


def render() -> str:
    """The whole Markdown document."""
    refs = [tool_reference(spec) for spec in all_tools().values()]
    lines = [
        "# Tool reference",
        "",
        f"Generated from the catalogue by `{COMMAND}`; do not edit by hand (a test fails when this file is stale).",
        f"{len(refs)} tools. Which of them a deployment shows depends on read-only mode (hides `write` tools), missing",
        "credentials (e.g. `patent` tools without EPO keys) and `?toolsets=` / `SCHOLAR_TOOLSETS`.",
        "",
        "Every tool answers `structuredContent` matching its `outputSchema` plus the same JSON as text. A failure is",
        "a result with `isError: true` and `{\"error\": {\"code\", \"message\", \"retryable\", \"retry_after_s\"?,",
        "\"source\"?, \"status\"?, \"reason\"?, \"recovery\": {\"hint\"}}}`; codes: "
        + ", ".join(f"`{c}`" for c in ERROR_CODES) + ".",
        "",
    ]
    for family in families():
        members = [r for r in refs if r.family == family]
        if not members:
            continue
        lines += [f"## {family}", "", " · ".join(f"[`{r.name}`](#{r.name})" for r in members), ""]
        for ref in members:
            lines += _tool(ref, _family_reasons(family))
    return "\n".join(lines).rstrip() + "\n"


def _tool(ref: ToolReference, reasons: list[str]) -> list[str]:
    lines = [f"### {ref.name}", "", f"**{ref.title}** — {_cell(ref.description)}", ""]
    facts = [f"annotations: {', '.join(ref.annotations) or 'none'}"]
    if ref.tags:
        facts.append(f"tags: {', '.join(ref.tags)}")
    if ref.may_queue:
        facts.append(
            "may answer `{queued: true, task_id, poll_after_s}` (poll `get_task_result`, or run as an MCP task)"
        )
    lines += [f"- {fact}" for fact in facts] + [""]
    if ref.parameters:
        lines += ["| parameter | type | default | bounds | meaning |", "|---|---|---|---|---|"]
        for p in ref.parameters:
            default = "**required**" if p.required else (f"`{p.default}`" if p.default is not None else "")
            lines.append(
                f"| `{p.name}` | {_cell(p.type)} | {_cell(default)} | {_cell(p.bounds)} | {_cell(p.description)} |"
            )
    else:
        lines.append("No parameters.")
    lines += ["", "Returns: " + (", ".join(f"`{name}`" for name in ref.returns) or "an object") + "."]
    codes = ["invalid_argument", "internal"] + (list(OPEN_WORLD_CODES) if "openWorld" in ref.annotations else [])
    lines.append("Errors: " + ", ".join(f"`{c}`" for c in codes)
                 + (f"; reasons of the family: {', '.join(f'`{r}`' for r in reasons)}" if reasons else "") + ".")
    return lines + [""]


def _family_reasons(family: str) -> list[str]:
    """The reason codes a family declares in ``scholar/<family>/reasons.py`` (none when it has no such module)."""
    try:
        module = importlib.import_module(f"scholar.{family}.reasons")
    except ModuleNotFoundError:
        return []
    return sorted({value for name, value in vars(module).items() if name.isupper() and isinstance(value, str)})


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__)
    parser.add_argument("--check", action="store_true", help="exit 1 when docs/tools.md is not what would be written")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        stale = not DOC.is_file() or DOC.read_text() != text
        if stale:
            print(f"{DOC} is stale: run `{COMMAND}`", file=sys.stderr)
        return 1 if stale else 0
    DOC.write_text(text)
    print(f"wrote {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
