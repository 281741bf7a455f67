"""Every tool, declared once (DESIGN §3).

Each family declares its tools in ``scholar/families/<family>/spec.py`` as ``TOOLS: tuple[ToolSpec, ...]``
(input/output models and annotations only: cheap to import) and implements them in
``scholar/families/<family>/handlers.py`` as ``HANDLERS: dict[str, Handler]``. The gateway reads the specs
(tools/list, validation, routing); the family function reads specs and handlers (dispatch).
A test asserts the two match one to one.

The package by job, bottom up: ``schema`` (a model as the JSON schema a client reads), ``spec`` (``ToolSpec`` and
the types a tool is declared with), ``registry`` (every family's specs, found by name), ``profiles`` (what a
connection lists: profiles, toolsets, their selection). The names below are its API.
"""

from scholar.core.catalogue.profiles import (
    ALL_PROFILE,
    DEFAULT_PROFILE,
    POLL_TOOL,
    PROFILES,
    UNKNOWN_PROFILE,
    UNKNOWN_TOOLSET,
    Profile,
    Selection,
    listing_of,
    profile_tools,
)
from scholar.core.catalogue.registry import all_tools, families, family_tools, get_tool, result_size_hint
from scholar.core.catalogue.spec import (
    MAX_RESULT_CHARS,
    READ_ONLY_LOCAL,
    READ_ONLY_OPEN,
    WRITE_OPEN,
    Annotations,
    CallContext,
    Handler,
    QueuedResult,
    TaskSupport,
    ToolInput,
    ToolSpec,
    args_only,
    spec_maker,
    text_argument,
)

__all__ = [
    "ALL_PROFILE",
    "DEFAULT_PROFILE",
    "MAX_RESULT_CHARS",
    "POLL_TOOL",
    "PROFILES",
    "READ_ONLY_LOCAL",
    "READ_ONLY_OPEN",
    "UNKNOWN_PROFILE",
    "UNKNOWN_TOOLSET",
    "WRITE_OPEN",
    "Annotations",
    "CallContext",
    "Handler",
    "Profile",
    "QueuedResult",
    "Selection",
    "TaskSupport",
    "ToolInput",
    "ToolSpec",
    "all_tools",
    "args_only",
    "families",
    "family_tools",
    "get_tool",
    "listing_of",
    "profile_tools",
    "result_size_hint",
    "spec_maker",
    "text_argument",
]
