"""What a connection lists, read against the catalogue: a profile's tools, a selection's tools, its refusal.

The profiles and the selection are data of the core (``scholar.core.catalogue.profiles``); what they hold depends on
every family's specs, so it is read here. The one non-obvious constraint: the selection memo is keyed by known
names only (a profile of ``PROFILES``, a subset of the families), so a URL naming made-up ones can neither grow it
nor reach it unrefused.
"""

from __future__ import annotations

from functools import cache

from scholar.core.catalogue.profiles import POLL_TOOL, PROFILES, UNKNOWN_PROFILE, UNKNOWN_TOOLSET, Selection
from scholar.core.errors import InvalidArgumentError
from scholar.families import FAMILIES, all_tools

__all__ = ["listing_of", "profile_tools", "refusal", "tool_names"]


def profile_tools(name: str) -> tuple[str, ...]:
    """The catalogue's tools of profile ``name``, sorted (``()`` for an unknown profile)."""
    profile = PROFILES.get(name)
    if profile is None:
        return ()
    tools = all_tools()
    return tuple(tools) if profile.every_tool else tuple(sorted(n for n in set(profile.tools) if n in tools))


def _unknown_toolsets(selection: Selection) -> tuple[str, ...]:
    """The toolsets named that are no family's, sorted."""
    return tuple(sorted(selection.toolsets - set(FAMILIES))) if selection.toolsets else ()


def tool_names(selection: Selection) -> frozenset[str]:
    """The tools ``selection`` lists (an unknown profile or toolset selects nothing)."""
    # The memo is keyed by known names only (a profile of PROFILES, a subset of the families): whatever a caller
    # sends, it holds at most (profiles + 1) x 2^families entries. Unknown names select nothing anyway.
    profile = None if selection.unknown_profile else selection.effective_profile
    toolsets = None if selection.toolsets is None else selection.toolsets & set(FAMILIES)
    return _selected(profile, toolsets)


def refusal(selection: Selection) -> InvalidArgumentError | None:
    """Why ``selection`` names what no catalogue defines (a profile, a toolset), or None when it is known.

    The same refusal answers tools/list (-32602), tools/call (an ``invalid_argument`` result) and the landing
    page (400); its message names the known profiles or toolsets.
    """
    if selection.unknown_profile:
        return InvalidArgumentError(
            f"unknown profile {selection.effective_profile!r}; profiles: {', '.join(PROFILES)}",
            field="profile", reason=UNKNOWN_PROFILE, hint="Fix ?profile= on the MCP URL (or SCHOLAR_PROFILE).",
            details={"profiles": list(PROFILES)})
    if unknown := _unknown_toolsets(selection):
        return InvalidArgumentError(
            f"unknown toolset {', '.join(map(repr, unknown))}; toolsets: {', '.join(FAMILIES)}",
            field="toolsets", reason=UNKNOWN_TOOLSET,
            hint="Fix ?toolsets= on the MCP URL (or SCHOLAR_TOOLSETS).", details={"toolsets": list(FAMILIES)})
    return None


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
