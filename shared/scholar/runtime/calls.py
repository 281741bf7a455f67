"""One tool call by name, without the MCP layer: the path the gateway's tools/call and the local entry points share.

Validation against the catalogue, the caller bound as the principal, the family run (Lambda or in-process), the
outcome returned. What is visible where (read-only mode, missing credentials) is decided here too, so the command
line and the Python API hide exactly what tools/list hides. Nothing here imports ``mcp``: the command line pays only
for pydantic and the catalogue.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

from scholar.core.catalogue import ToolSpec
from scholar.core.config import Settings

if TYPE_CHECKING:
    from scholar.runtime.invocation import Outcome

__all__ = ["WRITE_TAG", "reachable", "run_tool"]

WRITE_TAG = "write"


def reachable(spec: ToolSpec, settings: Settings) -> bool:
    """Hidden from every listing: write tools in read-only mode and tools whose credentials are missing."""
    if settings.read_only and WRITE_TAG in spec.tags:
        return False
    return all(settings.secrets.has(name) for name in spec.requires)


def run_tool(spec: ToolSpec, arguments: dict[str, Any] | None, principal: str) -> Outcome:
    """Validate ``arguments`` against the tool's input model and run it in its family as ``principal``.

    Blocking (a Lambda invoke or the handler in this thread): async callers run it in a worker thread.

    Raises:
        InvalidArgumentError: the arguments break the tool's schema (the field and the rule named).
        InternalError: the family function itself crashed.
    """
    # Imported by the first call: a listing (``reachable``, ``scholar mcp``'s tools/list) needs none of them.
    from scholar.core.validation import validate_arguments  # noqa: PLC0415  # the first call's, as above
    from scholar.runtime.invocation import Invocation  # noqa: PLC0415  # the first call's, as above
    from scholar.runtime.invoke import invoke_family  # noqa: PLC0415  # the first call's, as above

    args = validate_arguments(spec.input_model, arguments, tool=spec.name)
    invocation = Invocation(
        tool=spec.name,
        arguments=args.model_dump(mode="json", exclude_unset=True),
        principal=principal,
        request_id=str(uuid.uuid4()),
    )
    return invoke_family(spec.family, invocation)
