"""OAuth scopes: ``scholar:read`` for every call, ``scholar:write`` for tools that change anything."""

from __future__ import annotations

from scholar.core.catalogue import ToolSpec

READ = "scholar:read"
WRITE = "scholar:write"
SUPPORTED = (READ, WRITE)
# What a client gets when it asks for no scope, and what a 401 tells clients to ask for.
DEFAULT = f"{READ} {WRITE}"


def needed(spec: ToolSpec) -> str:
    """The scope a tool needs: write for a ``write``-tagged tool or one that changes data (library mutations)."""
    return WRITE if "write" in spec.tags or not spec.annotations.read_only else READ


def parse(scope: str | None) -> frozenset[str]:
    """The scope values of a space-separated scope string."""
    return frozenset(part for part in (scope or "").split(" ") if part)


def granted(scope: str | None) -> frozenset[str]:
    """What a token's scope allows: read is implied by any grant (every call reads)."""
    return parse(scope) | {READ}
