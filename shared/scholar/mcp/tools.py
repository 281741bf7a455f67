"""The catalogue as MCP tools: which are visible to a caller, and their wire form (built once)."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from mcp import types

from scholar.catalogue import ToolSpec, all_tools
from scholar.config import Settings

WRITE_TAG = "write"


def visible(spec: ToolSpec, settings: Settings, toolsets: frozenset[str] | None) -> bool:
    """Hidden: write tools in read-only mode, tools whose credentials are missing, families outside the toolsets."""
    if settings.read_only and WRITE_TAG in spec.tags:
        return False
    if any(not settings.secrets.has(name) for name in spec.requires):
        return False
    return toolsets is None or spec.family in toolsets


def visible_tools(settings: Settings, toolsets: frozenset[str] | None) -> list[ToolSpec]:
    return [spec for spec in all_tools().values() if visible(spec, settings, toolsets)]


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
    )


def wire_tools(specs: Iterable[ToolSpec]) -> list[types.Tool]:
    return [wire_tool(spec.name) for spec in specs]


def parse_toolsets(raw: str | None) -> frozenset[str] | None:
    if not raw:
        return None
    return frozenset(part.strip() for part in raw.split(",") if part.strip())
