"""Every tool, declared once (DESIGN §3).

Each family declares its tools in ``scholar/families/<family>/spec.py`` as ``TOOLS: tuple[ToolSpec, ...]``
(input/output models and annotations only: cheap to import) and implements them in
``scholar/families/<family>/handlers.py`` as ``HANDLERS: dict[str, Handler]``. The gateway reads the specs
(tools/list, validation, routing); the family function reads specs and handlers (dispatch).
A test asserts the two match one to one.

The package by job, bottom up: ``schema`` (a model as the JSON schema a client reads), ``spec`` (``ToolSpec`` and
the types a tool is declared with), ``profiles`` (what a connection lists: profiles, toolsets, their selection).
The names below are its API: types and data only. The families themselves, and every function that reads their
specs, are at their own floor (``scholar.families``, ``scholar.families.profiles``).
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
)
from scholar.core.catalogue.spec import (
    MAX_RESULT_CHARS,
    READ_ONLY_LOCAL,
    READ_ONLY_OPEN,
    UPSTREAM_READ,
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
    "UPSTREAM_READ",
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
    "args_only",
    "spec_maker",
    "text_argument",
]
