"""The catalogue as MCP tools: which are visible to a caller, and their wire form (built once)."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from mcp import types

from scholar.core.catalogue import Selection, ToolSpec
from scholar.core.config import Settings
from scholar.families import all_tools, result_size_hint
from scholar.families.profiles import tool_names
from scholar.runtime.calls import WRITE_TAG, reachable  # noqa: F401  # WRITE_TAG: re-exported for its users

# How long a client may keep catalogue data (tools/list, prompts/list, resource templates): it changes only with a
# deployment.
CATALOGUE_TTL_MS = 60 * 60_000
# Clients that honour it keep a tool's result whole up to this many characters (Claude Code; ceiling 500,000).
MAX_RESULT_META = "anthropic/maxResultSizeChars"


def visible(spec: ToolSpec, settings: Settings, selection: Selection | None) -> bool:
    """Listed: reachable, and in the connection's selection (``None``: no selection filter, every reachable tool)."""
    return reachable(spec, settings) and (selection is None or spec.name in tool_names(selection))


def visible_tools(settings: Settings, selection: Selection | None) -> list[ToolSpec]:
    return [spec for spec in all_tools().values() if visible(spec, settings, selection)]


@cache
def wire_tool(name: str) -> types.Tool:
    spec = all_tools()[name]
    a = spec.annotations
    return types.Tool(
        name=spec.name,
        title=spec.title,
        description=spec.description,
        input_schema=spec.input_schema(),
        output_schema=spec.output_schema(),
        annotations=types.ToolAnnotations(
            title=spec.title,
            read_only_hint=a.read_only,
            destructive_hint=a.destructive,
            idempotent_hint=a.idempotent,
            open_world_hint=a.open_world,
        ),
        # A tool that may queue can always be run as an MCP task (the gateway maps the queued answer).
        execution=types.ToolExecution(
            task_support="optional" if spec.may_queue and spec.task_support == "forbidden" else spec.task_support
        ),
        meta={MAX_RESULT_META: hint} if (hint := result_size_hint(spec)) else None,
    )


def wire_tools(specs: Iterable[ToolSpec]) -> list[types.Tool]:
    return [wire_tool(spec.name) for spec in specs]
