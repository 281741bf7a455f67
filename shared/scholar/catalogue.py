"""Every tool, declared once (DESIGN §3).

Each family declares its tools in ``scholar/<family>/spec.py`` as ``TOOLS: tuple[ToolSpec, ...]``
(input/output models and annotations only: cheap to import) and implements them in
``scholar/<family>/handlers.py`` as ``HANDLERS: dict[str, Handler]``. The gateway reads the specs
(tools/list, validation, routing); the family function reads specs and handlers (dispatch).
A test asserts the two match one to one.
"""

from __future__ import annotations

import copy
import importlib
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

_PACKAGE = Path(__file__).resolve().parent
# DESIGN §4: a result stays under 80,000 characters by default (long text is paged, long lists take a cursor).
MAX_RESULT_CHARS = 80_000


def families() -> tuple[str, ...]:
    """Families with a Lambda function of their own: every package of ``scholar`` that has a ``spec.py``."""
    return tuple(sorted(p.parent.name for p in _PACKAGE.glob("*/spec.py")))

TaskSupport = Literal["forbidden", "optional", "required"]


@dataclass(frozen=True)
class Annotations:
    """MCP tool annotations, set on purpose for every tool."""

    read_only: bool = True
    destructive: bool = False
    idempotent: bool = True
    open_world: bool = True


READ_ONLY_OPEN = Annotations()
READ_ONLY_LOCAL = Annotations(open_world=False)
WRITE_OPEN = Annotations(read_only=False, destructive=False, idempotent=True, open_world=True)


@dataclass(frozen=True)
class CallContext:
    """Who is calling and on which request; travels with every dispatch."""

    principal: str
    request_id: str
    task_id: str | None = None


@dataclass(frozen=True)
class ToolSpec:
    """One tool: its name, family, contract and operational facts."""

    name: str
    family: str
    title: str
    description: str
    input_model: type[BaseModel]
    output_model: type[BaseModel]
    annotations: Annotations = READ_ONLY_OPEN
    tags: frozenset[str] = field(default_factory=frozenset)
    # "optional": may run as an MCP task; "forbidden": always answered inline.
    task_support: TaskSupport = "forbidden"
    # When the upstream still throttles after the retry budget, answer with a queued task.
    queue_on_rate_limit: bool = False
    # Credentials the tool needs (names of settings); the tool is hidden while one is missing.
    requires: tuple[str, ...] = ()
    # The values a field's completion offers (completion/complete of a prompt argument that feeds the field), for
    # a field whose schema has no enum of its own: field name → the values, from their source of truth.
    completions: Mapping[str, Callable[[], Iterable[str]]] = field(default_factory=dict, hash=False, compare=False)

    @property
    def may_queue(self) -> bool:
        return self.queue_on_rate_limit or self.task_support != "forbidden"

    def input_schema(self) -> dict[str, Any]:
        return copy.deepcopy(_schema(self.input_model))

    def output_schema(self) -> dict[str, Any]:
        """The JSON schema of structuredContent: the result, a queued answer (when the tool may queue), or the error.

        Error results carry the envelope as structuredContent too, and some clients validate every
        structuredContent against this schema, so the envelope is one of its forms.
        """
        forms = [self.output_model, *([QueuedResult] if self.may_queue else []), ErrorEnvelope]
        schemas = [copy.deepcopy(_schema(model)) for model in forms]
        defs: dict[str, Any] = {}
        for schema in schemas:
            defs.update(schema.pop("$defs", {}))
        combined: dict[str, Any] = {"type": "object", "anyOf": schemas}
        if defs:
            combined["$defs"] = defs
        return _without_model_descriptions(combined)


Handler = Callable[[Any, CallContext], Awaitable[BaseModel]]


def args_only(fn: Callable[[Any], Awaitable[BaseModel]]) -> Handler:
    """A handler from a tool function that needs only its arguments (not who calls)."""

    async def handler(args: Any, ctx: CallContext) -> BaseModel:
        return await fn(args)

    handler.__name__ = getattr(fn, "__name__", "handler")
    return handler


class QueuedResult(BaseModel):
    """What a tool answers when its work continues in the background."""

    queued: Literal[True] = True
    task_id: str
    tool: str
    poll_after_s: int = Field(description="Seconds to wait before polling get_task_result")
    reason: str | None = Field(default=None, description="Why the call was queued (e.g. rate_limited)")


class ErrorBody(BaseModel):
    """The body of the error envelope (DESIGN §4); see scholar.errors."""

    model_config = ConfigDict(extra="allow")
    code: str
    message: str
    retryable: bool


class ErrorEnvelope(BaseModel):
    """What a tool returns with ``isError: true``."""

    error: ErrorBody


@cache
def _schema(model: type[BaseModel]) -> dict[str, Any]:
    return _without_titles(TypeAdapter(model).json_schema(by_alias=True))


def _without_titles(node: Any, *, is_property: bool = False) -> Any:
    """Drop pydantic's generated property ``title`` keys: they repeat the property names (model titles stay)."""
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key == "title" and is_property and isinstance(value, str):
                continue
            if key == "properties" and isinstance(value, dict):
                out[key] = {name: _without_titles(sub, is_property=True) for name, sub in value.items()}
            else:
                out[key] = _without_titles(value)
        return out
    if isinstance(node, list):
        return [_without_titles(item) for item in node]
    return node


def _without_model_descriptions(node: Any, *, is_property: bool = False) -> Any:
    """Drop the descriptions pydantic takes from model and enum docstrings (field descriptions stay).

    In an output schema they are notes for this code base, repeated in every tool that returns the model
    (~14 kB of the tools/list answer); what a client needs is in the tool's description and the fields'.
    """
    if isinstance(node, dict):
        own = not is_property and ("properties" in node or "enum" in node)
        out = {}
        for key, value in node.items():
            if key == "description" and own:
                continue
            if key == "properties" and isinstance(value, dict):
                out[key] = {name: _without_model_descriptions(sub, is_property=True) for name, sub in value.items()}
            else:
                out[key] = _without_model_descriptions(value)
        return out
    if isinstance(node, list):
        return [_without_model_descriptions(item) for item in node]
    return node


def _load(families: Iterable[str], module: str) -> list[Any]:
    return [importlib.import_module(f"scholar.{family}.{module}") for family in families]


@cache
def all_tools() -> dict[str, ToolSpec]:
    """Every tool of every family, by name, sorted by name."""
    specs: dict[str, ToolSpec] = {}
    for mod in _load(families(), "spec"):
        for spec in mod.TOOLS:
            if spec.name in specs:
                raise RuntimeError(f"tool {spec.name!r} is declared twice")
            specs[spec.name] = spec
    return dict(sorted(specs.items()))


def get_tool(name: str) -> ToolSpec | None:
    return all_tools().get(name)


@cache
def family_tools(family: str) -> dict[str, ToolSpec]:
    """One family's tools; imports only that family's spec (a family function never loads the others)."""
    specs = importlib.import_module(f"scholar.{family}.spec").TOOLS
    return {spec.name: spec for spec in sorted(specs, key=lambda s: s.name) if spec.family == family}
