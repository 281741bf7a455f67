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
import json
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

from scholar.core.errors import InvalidArgumentError

_PACKAGE = Path(__file__).resolve().parents[1] / "families"
# DESIGN §4: a result stays under 80,000 characters by default (long text is paged, long lists take a cursor).
MAX_RESULT_CHARS = 80_000


def families() -> tuple[str, ...]:
    """Families with a Lambda function of their own: every package of ``scholar.families`` that has a ``spec.py``."""
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
        return copy.deepcopy(_input_schema(self.input_model))

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
        return _compact_output(_without_model_descriptions(combined))


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
    """The body of the error envelope (DESIGN §4); see scholar.core.errors."""

    model_config = ConfigDict(extra="allow")
    code: str
    message: str
    retryable: bool


class ErrorEnvelope(BaseModel):
    """What a tool returns with ``isError: true``."""

    error: ErrorBody


class _ArgumentsSchema(GenerateJsonSchema):
    """Input schemas as a client should read them: an optional parameter is its plain type, not required.

    Pydantic spells ``x: int | None = None`` as ``anyOf [integer, null]`` with ``"default": null``; what a
    caller needs is "an integer, or leave it out" (scholar.core.validation reads a JSON null for it as left out).
    """

    def nullable_schema(self, schema: core_schema.NullableSchema) -> JsonSchemaValue:
        return self.generate_inner(schema["schema"])

    def default_schema(self, schema: core_schema.WithDefaultSchema) -> JsonSchemaValue:
        json_schema = super().default_schema(schema)
        if json_schema.get("default", ...) is None:
            del json_schema["default"]
        return json_schema


@cache
def _schema(model: type[BaseModel]) -> dict[str, Any]:
    return _without_titles(TypeAdapter(model).json_schema(by_alias=True))


@cache
def _input_schema(model: type[BaseModel]) -> dict[str, Any]:
    schema = _without_titles(TypeAdapter(model).json_schema(by_alias=True, schema_generator=_ArgumentsSchema))
    schema.pop("title", None)  # the model's class name: nothing a caller uses
    return schema


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


def _compact_output(node: Any, *, is_properties: bool = False) -> Any:
    """The same constraints in fewer bytes (the SDK serialises every byte of tools/list twice per call).

    ``default`` is dropped (a validator ignores it; the result fields' meaning is in their descriptions), and
    ``anyOf [{"type": T, ...}, {"type": "null"}]`` becomes ``{"type": [T, "null"], ...}`` where that is the same
    constraint: a typed form without ``enum``, ``const`` or a reference (their keywords would refuse the null).
    """
    if isinstance(node, list):
        return [_compact_output(item) for item in node]
    if not isinstance(node, dict):
        return node
    if is_properties:
        return {name: _compact_output(sub) for name, sub in node.items()}
    out = {key: _compact_output(value, is_properties=key == "properties") for key, value in node.items()
           if key != "default"}
    forms = out.get("anyOf")
    if isinstance(forms, list) and len(forms) == 2 and {"type": "null"} in forms:
        typed = forms[0] if forms[1] == {"type": "null"} else forms[1]
        if isinstance(typed.get("type"), str) and not {"enum", "const", "$ref", "anyOf"} & set(typed) \
                and not set(typed) & set(out):
            rest = {key: value for key, value in out.items() if key != "anyOf"}
            return {**rest, **typed, "type": [typed["type"], "null"]}
    return out


def _load(families: Iterable[str], module: str) -> list[Any]:
    return [importlib.import_module(f"scholar.families.{family}.{module}") for family in families]


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


def result_size_hint(spec: ToolSpec) -> int | None:
    """The most characters of ``spec``'s answer, when it can be long (``_meta["anthropic/maxResultSizeChars"]``)."""
    if spec.relays_results:
        return max((s.max_result_chars or 0 for s in all_tools().values() if s.may_queue), default=0) or None
    return spec.max_result_chars


def get_tool(name: str) -> ToolSpec | None:
    return all_tools().get(name)


@cache
def family_tools(family: str) -> dict[str, ToolSpec]:
    """One family's tools; imports only that family's spec (a family function never loads the others)."""
    specs = importlib.import_module(f"scholar.families.{family}.spec").TOOLS
    return {spec.name: spec for spec in sorted(specs, key=lambda s: s.name) if spec.family == family}


# ---------------------------------------------------------------- profiles: what a connection lists

DEFAULT_PROFILE = "default"
# The reasons of a refused selection (Selection.refusal).
UNKNOWN_PROFILE = "unknown_profile"
UNKNOWN_TOOLSET = "unknown_toolset"
ALL_PROFILE = "all"
# Polling a queued answer: listed beside any tool that may answer {queued: true, task_id}.
POLL_TOOL = "get_task_result"


@dataclass(frozen=True)
class Profile:
    """A named set of tools a connection lists (``?profile=`` / ``SCHOLAR_PROFILE``); every tool stays reachable."""

    name: str
    summary: str
    tools: tuple[str, ...] = ()
    every_tool: bool = False


# The default surface carries the research workflow, find → read → cite → keep, and stays small (DESIGN §3: at
# most 20,000 characters of descriptions and input schemas); every other tool is one profile or toolset away.
# "fetch" sits beside "search" for ChatGPT's connectors and deep research (their search → fetch contract).
PROFILES: dict[str, Profile] = {
    profile.name: profile
    for profile in (
        Profile(
            DEFAULT_PROFILE,
            "The research workflow: find, read, cite and keep papers, and poll queued work",
            tools=("search", "fetch", "get_paper", "read_paper", "generate_citations", "download_paper",
                   "library_add", "library_get", "library_list", "library_search", "library_update",
                   "library_remove", "library_export", POLL_TOOL, "get_server_info"),
        ),
        Profile(ALL_PROFILE, "Every tool of every family", every_tool=True),
    )
}


def profile_tools(name: str) -> tuple[str, ...]:
    """The catalogue's tools of profile ``name``, sorted (``()`` for an unknown profile)."""
    profile = PROFILES.get(name)
    if profile is None:
        return ()
    tools = all_tools()
    return tuple(tools) if profile.every_tool else tuple(sorted(n for n in set(profile.tools) if n in tools))


@dataclass(frozen=True)
class Selection:
    """Which tools a connection lists: a profile, toolsets (families), or both (their union).

    Toolsets alone list exactly those families; neither lists the default profile. Wherever a listed tool may
    answer queued, ``get_task_result`` is listed too (a queued answer is useless without it).
    """

    profile: str | None = None
    toolsets: frozenset[str] | None = None

    @property
    def effective_profile(self) -> str | None:
        return self.profile if self.profile or self.toolsets is not None else DEFAULT_PROFILE

    @property
    def unknown_profile(self) -> bool:
        return self.effective_profile is not None and self.effective_profile not in PROFILES

    @property
    def unknown_toolsets(self) -> tuple[str, ...]:
        """The toolsets named that are no family's, sorted."""
        return tuple(sorted(self.toolsets - set(families()))) if self.toolsets else ()

    def tool_names(self) -> frozenset[str]:
        # The memo is keyed by known names only (a profile of PROFILES, a subset of the families): whatever a caller
        # sends, it holds at most (profiles + 1) x 2^families entries. Unknown names select nothing anyway.
        profile = None if self.unknown_profile else self.effective_profile
        toolsets = None if self.toolsets is None else self.toolsets & set(families())
        return _selected(profile, toolsets)

    def refusal(self) -> InvalidArgumentError | None:
        """Why this selection names what no catalogue defines (a profile, a toolset), or None when it is known.

        The same refusal answers tools/list (-32602), tools/call (an ``invalid_argument`` result) and the landing
        page (400); its message names the known profiles or toolsets.
        """
        if self.unknown_profile:
            return InvalidArgumentError(
                f"unknown profile {self.effective_profile!r}; profiles: {', '.join(PROFILES)}",
                field="profile", reason=UNKNOWN_PROFILE, hint="Fix ?profile= on the MCP URL (or SCHOLAR_PROFILE).",
                details={"profiles": list(PROFILES)})
        if self.unknown_toolsets:
            return InvalidArgumentError(
                f"unknown toolset {', '.join(map(repr, self.unknown_toolsets))}; toolsets: {', '.join(families())}",
                field="toolsets", reason=UNKNOWN_TOOLSET,
                hint="Fix ?toolsets= on the MCP URL (or SCHOLAR_TOOLSETS).", details={"toolsets": list(families())})
        return None

    def describe(self) -> str:
        """How a person names this selection: ``profile default``, ``toolsets arxiv, books`` or both."""
        parts = [f"profile {self.effective_profile}"] if self.effective_profile else []
        if self.toolsets is not None:
            parts.append(f"toolsets {', '.join(sorted(self.toolsets)) or '(none)'}")
        return " + ".join(parts)


@cache
def _selected(profile: str | None, toolsets: frozenset[str] | None) -> frozenset[str]:
    tools = all_tools()
    names = set(profile_tools(profile) if profile else ())
    if toolsets is not None:
        names |= {name for name, spec in tools.items() if spec.family in toolsets}
    if POLL_TOOL in tools and any(tools[name].may_queue for name in names):
        names.add(POLL_TOOL)
    return frozenset(names)


def listing_of(name: str) -> tuple[str, ...]:
    """The profiles whose listing holds tool ``name`` (every tool is at least in ``all``)."""
    return tuple(profile for profile in PROFILES if name in profile_tools(profile))
