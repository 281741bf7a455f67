"""docs/tools.md, generated from the catalogue: ``python -m scholar.families.docs_tools`` (``--check`` fails when
stale).

A developer tool, never imported by a function; it sits with the families, whose specs and reasons it reads. It
describes every tool of the catalogue (not only those a deployment shows) through scholar.core.reference, the same
reading the landing page uses.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path
from typing import get_args

from scholar.core.catalogue import PROFILES
from scholar.core.errors import ErrorCode
from scholar.core.reference import ToolReference, tool_reference
from scholar.families import all_tools, families, result_size_hint
from scholar.families.profiles import listing_of, profile_tools

DOC = Path(__file__).resolve().parents[3] / "docs" / "tools.md"
COMMAND = "python -m scholar.families.docs_tools"
ERROR_CODES: tuple[str, ...] = get_args(ErrorCode)
OPEN_WORLD_CODES = ("not_found", "rate_limited", "upstream_error", "timeout")


def render() -> str:
    """The whole Markdown document."""
    refs = [tool_reference(spec) for spec in all_tools().values()]
    lines = [
        "# Tool reference",
        "",
        f"Generated from the catalogue by `{COMMAND}`; do not edit by hand (a test fails when this file is stale).",
        f"{len(refs)} tools. What a connection lists is a profile (`?profile=` on the MCP URL, else",
        "`SCHOLAR_PROFILE`, else `default`), families (`?toolsets=papers,arxiv` / `SCHOLAR_TOOLSETS`: exactly those,",
        "with `get_task_result` where one of their tools may answer queued), or both",
        "(`?profile=default&toolsets=arxiv`: their union); a URL that names either replaces the server's settings.",
        "Read-only mode hides `write` tools and missing credentials hide the tools that need them (e.g. `patent` tools",
        "without EPO keys). Every tool stays reachable: calling one the connection does not list answers",
        "`invalid_argument` (reason `tool_not_listed`) naming its profiles and toolset. A profile or toolset that does",
        "not exist is refused, naming the known ones: -32602 on tools/list, `invalid_argument` (reason",
        "`unknown_profile` / `unknown_toolset`) on tools/call, 400 on the landing page.",
        "",
        "An optional parameter may be left out or sent as `null`, which reads as left out (two seed parameters give",
        "null a meaning of its own, said in their descriptions: `arxiv_read_paper.max_characters`,",
        "`get_standard.max_chars`).",
        "",
        *_profiles(),
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


def _profiles() -> list[str]:
    """The profiles: what each holds and what its listing costs a model."""
    tools = all_tools()
    lines = ["## Profiles", "", "| profile | tools | characters a model reads | holds |", "|---|---|---|---|"]
    for name, profile in PROFILES.items():
        names = profile_tools(name)
        chars = sum(tools[n].listing_chars() for n in names)
        held = profile.summary if profile.every_tool else f"{profile.summary}: " + ", ".join(
            f"[`{n}`](#{n})" for n in names)
        lines.append(f"| `{name}` | {len(names)} | {chars:,} | {held} |")
    return lines + ["", "Characters a model reads: each tool's description plus its input schema as compact JSON.", ""]


def _tool(ref: ToolReference, reasons: list[str]) -> list[str]:
    lines = [f"### {ref.name}", "", f"**{ref.title}** — {_cell(ref.description)}", ""]
    spec = all_tools()[ref.name]
    facts = [f"profiles: {', '.join(listing_of(ref.name))}", f"annotations: {', '.join(ref.annotations) or 'none'}"]
    if ref.tags:
        facts.append(f"tags: {', '.join(ref.tags)}")
    if ref.may_queue:
        facts.append(
            "may answer `{queued: true, task_id, poll_after_s}` (poll `get_task_result`, or run as an MCP task)"
        )
    if hint := result_size_hint(spec):
        facts.append(f"answers up to {hint:,} characters (`_meta[\"anthropic/maxResultSizeChars\"]`)")
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
        module = importlib.import_module(f"scholar.families.{family}.reasons")
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
