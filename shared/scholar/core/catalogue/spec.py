"""A tool's declaration: ``ToolSpec`` and the types it is built from (annotations, the call's context, handlers).

Declarative only: a family's spec.py imports this and pydantic, nothing that does I/O (the gateway imports every
family's specs at cold start).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, TypedDict

from pydantic import BaseModel, ConfigDict, Field

from scholar.core.catalogue.schema import input_schema, output_schema
from scholar.core.errors import ErrorEnvelope

# DESIGN §4: a result stays under 80,000 characters by default (long text is paged, long lists take a cursor).
MAX_RESULT_CHARS = 80_000

TaskSupport = Literal["forbidden", "optional", "required"]


def text_argument(max_length: int, description: str, **constraints: Any) -> Any:
    """The type of a required, non-empty string argument of at most ``max_length`` characters.

    Use it in an input model: ``identifier: text_argument(300, "Any paper identifier")``.
    """
    return Annotated[str, Field(min_length=1, max_length=max_length, description=description, **constraints)]


class ToolInput(BaseModel):
    """What every tool's input model is: an argument the tool does not declare is refused, never ignored."""

    model_config = ConfigDict(extra="forbid")


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


class QueuedResult(BaseModel):
    """What a tool answers when its work continues in the background."""

    queued: Literal[True] = True
    task_id: str
    tool: str
    poll_after_s: int = Field(description="Seconds to wait before polling get_task_result")
    reason: str | None = Field(default=None, description="Why the call was queued (e.g. rate_limited)")


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
    # The most characters of the tool's JSON answer, for a tool whose answer can be long: the same constant its
    # paging or cutting enforces. Sent as _meta["anthropic/maxResultSizeChars"] so clients keep such answers whole.
    max_result_chars: int | None = None
    # The tool answers with the result of queued work (get_task_result): as long as any tool that may queue.
    relays_results: bool = False
    # The values a field's completion offers (completion/complete of a prompt argument that feeds the field), for
    # a field whose schema has no enum of its own: field name → the values, from their source of truth.
    completions: Mapping[str, Callable[[], Iterable[str]]] = field(default_factory=dict, hash=False, compare=False)

    @property
    def may_queue(self) -> bool:
        return self.queue_on_rate_limit or self.task_support != "forbidden"

    def listing_chars(self) -> int:
        """What this tool costs a model before any call: its description plus its input schema as compact JSON."""
        return len(self.description) + len(json.dumps(self.input_schema(), separators=(",", ":")))

    def input_schema(self) -> dict[str, Any]:
        """The JSON schema of the arguments (``inputSchema``): optional parameters are a plain type, not required."""
        return input_schema(self.input_model)

    def output_schema(self) -> dict[str, Any]:
        """The JSON schema of structuredContent: the result, a queued answer (when the tool may queue), or the error.

        Error results carry the envelope as structuredContent too, and some clients validate every
        structuredContent against this schema, so the envelope is one of its forms.
        """
        return output_schema([self.output_model, *([QueuedResult] if self.may_queue else []), ErrorEnvelope])


def spec_maker(family: str, **preset: Any) -> Callable[..., ToolSpec]:
    """A family's way to declare its tools: ``make(name, title, description, input_model, output_model, **facts)``.

    ``family`` and the facts most of its tools share (``preset``: annotations, tags, requires, ...) are filled in;
    a fact given to the call wins over the preset one. A family whose tools differ in their annotations gives
    them sixth, by position.
    """

    def make(name: str, title: str, description: str, input_model: type[BaseModel], output_model: type[BaseModel],
             annotations: Annotations | None = None, **facts: Any) -> ToolSpec:
        if annotations is not None:
            facts["annotations"] = annotations
        return ToolSpec(name, family, title, description, input_model, output_model, **(preset | facts))

    return make


Handler = Callable[[Any, CallContext], Awaitable[BaseModel]]


def args_only(fn: Callable[[Any], Awaitable[BaseModel]]) -> Handler:
    """A handler from a tool function that needs only its arguments (not who calls)."""

    async def handler(args: Any, ctx: CallContext) -> BaseModel:
        return await fn(args)

    handler.__name__ = getattr(fn, "__name__", "handler")
    return handler


class _UpstreamRead(TypedDict):
    queue_on_rate_limit: bool
    max_result_chars: int


# What a tool that reads one open upstream states besides its contract (annotations default to read-only, open):
# it queues when the upstream still throttles after the retry budget, and its answer is cut to the one cap
# (core.budget.fit). ``ToolSpec(name=…, …, **UPSTREAM_READ)``.
UPSTREAM_READ: _UpstreamRead = {"queue_on_rate_limit": True, "max_result_chars": MAX_RESULT_CHARS}
