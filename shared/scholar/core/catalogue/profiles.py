"""What a connection lists: named profiles, toolsets (families), and the selection a URL or the settings make.

Data only: which tools a profile or a selection holds, and whether one names what no catalogue defines, is read
against the families' specs at their floor (``scholar.families.profiles``).
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_PROFILE = "default"
# The reasons of a refused selection (scholar.families.profiles.refusal).
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
            tools=("search", "fetch", "get_paper", "read_paper", "generate_citations", "check_references",
                   "download_paper", "library_add", "library_get", "library_list", "library_search", "library_update",
                   "library_remove", "library_export", "upload_pdf", POLL_TOOL, "get_server_info"),
        ),
        Profile(ALL_PROFILE, "Every tool of every family", every_tool=True),
    )
}


@dataclass(frozen=True)
class Selection:
    """Which tools a connection lists: a profile, toolsets (families), or both (their union).

    Toolsets alone list exactly those families; neither lists the default profile. Wherever a listed tool may
    answer queued, ``get_task_result`` is listed too (a queued answer is useless without it). Its tools and its
    refusal: ``scholar.families.profiles.tool_names`` and ``refusal``.
    """

    profile: str | None = None
    toolsets: frozenset[str] | None = None

    @property
    def effective_profile(self) -> str | None:
        return self.profile if self.profile or self.toolsets is not None else DEFAULT_PROFILE

    @property
    def unknown_profile(self) -> bool:
        return self.effective_profile is not None and self.effective_profile not in PROFILES

    def describe(self) -> str:
        """How a person names this selection: ``profile default``, ``toolsets arxiv, books`` or both."""
        parts = [f"profile {self.effective_profile}"] if self.effective_profile else []
        if self.toolsets is not None:
            parts.append(f"toolsets {', '.join(sorted(self.toolsets)) or '(none)'}")
        return " + ".join(parts)
