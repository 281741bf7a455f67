"""What a connection lists: named profiles, toolsets (families), and the selection a URL or the settings make.

The one non-obvious constraint: the selection memo is keyed by known names only (a profile of ``PROFILES``, a
subset of the families), so a URL naming made-up ones can neither grow it nor reach it unrefused.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from scholar.core.catalogue.registry import all_tools, families
from scholar.core.errors import InvalidArgumentError

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
