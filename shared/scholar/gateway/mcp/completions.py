"""completion/complete: values for the prompts' arguments and the resource templates' variables.

Each value comes from its one source of truth in code. ``collection``, ``tag`` and ``item_id`` are the caller's
own (asked of the research function, as a resource read is, with the caller's principal); ``toolset`` is the
catalogue's families. Any other prompt argument completes from the tool fields its steps feed it into: the
field's enum in the tool's input schema (``citation_format`` → bibtex, csl-json, ris), or the values the tool's
spec declares for it (``ToolSpec.completions``: arxiv_search's ``category`` → arXiv's taxonomy, search_standards'
``body`` → the bodies the standards catalogue is synced from). An argument with no list to offer (a question, a
paper identifier) completes to nothing. A prompt or template that is none of this request's, or an argument it
does not take, is -32602 (the spec's error).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mcp import types
from mcp.shared.exceptions import MCPError

from scholar.core.catalogue import Selection
from scholar.core.config import Settings
from scholar.core.resource_actions import COMPLETE_ACTION, Completions, complete_from
from scholar.core.resource_uris import template_named
from scholar.families import all_tools, families
from scholar.gateway.mcp.actions import research_action
from scholar.gateway.mcp.prompts import Prompt, get_prompt_spec, placeholder_of

# The caller's own data: asked of the research function.
LIBRARY_ARGUMENTS = frozenset({"collection", "tag", "item_id"})
TOOLSET = "toolset"


def _invalid(message: str) -> MCPError:
    return MCPError(code=types.INVALID_PARAMS, message=message)


def _enum(schema: dict[str, Any]) -> list[str]:
    """The string values a field's JSON schema enumerates (directly, in ``anyOf`` arms or in its ``items``)."""
    if "enum" in schema:
        return [str(v) for v in schema["enum"]]
    return [v for arm in (*schema.get("anyOf", ()), *([schema["items"]] if "items" in schema else ())) for v in
            _enum(arm)]


def _fed(prompt: Prompt, argument: str) -> Iterator[str]:
    """The values of every tool field the prompt's steps feed ``argument`` into, in step order."""
    tools = all_tools()
    for step in prompt.steps:
        spec = tools[step.tool]
        for field, value in step.arguments.items():
            if placeholder_of(value) != argument:
                continue
            if field in spec.completions:
                yield from spec.completions[field]()
            else:
                yield from _enum(spec.input_schema()["properties"].get(field, {}))


def _result(completions: Completions) -> types.CompleteResult:
    return types.CompleteResult(completion=types.Completion(values=completions.values, total=completions.total,
                                                            has_more=completions.has_more))


async def complete(ctx: Any, principal: str, params: types.CompleteRequestParams, settings: Settings,
                   selection: Selection | None) -> types.CompleteResult:
    """The values that complete ``params.argument`` of ``params.ref``, best first.

    Raises:
        MCPError: -32602 for an unknown prompt or template, or an argument it does not take.
    """
    name, value = params.argument.name, params.argument.value
    prompt: Prompt | None = None
    if isinstance(params.ref, types.PromptReference):
        prompt = get_prompt_spec(params.ref.name, settings, selection)
        taken = tuple(a.name for a in prompt.arguments)
        what = f"prompt {prompt.name}"
    else:
        template = template_named(params.ref.uri)
        if template is None:
            raise _invalid(f"unknown resource template {params.ref.uri!r}; call resources/templates/list")
        taken, what = template.variables, f"resource template {template.uri_template}"
    if name not in taken:
        raise _invalid(f"{what} has no argument {name!r} (it takes {', '.join(taken)})")
    if name in LIBRARY_ARGUMENTS:
        found = await research_action(ctx, principal, COMPLETE_ACTION, argument=name, value=value)
        return _result(Completions.model_validate(found))
    if name == TOOLSET:
        return _result(complete_from(families(), value))
    return _result(complete_from(_fed(prompt, name) if prompt else (), value))
