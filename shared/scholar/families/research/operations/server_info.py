"""What get_server_info reports: built from the catalogue, the source registry and the settings.

Nothing here reads a secret's value: ``Secrets.has`` says whether one is configured. The protocol
versions are the gateway's (the SDK's supported list); a family function cannot import the SDK, so
they are written down here and a gateway test checks them against the SDK.
"""

from __future__ import annotations

from importlib import metadata

from scholar.core.catalogue import MAX_RESULT_CHARS, PROFILES, Selection
from scholar.core.config import Settings, get_settings
from scholar.families import all_tools, families
from scholar.families.profiles import profile_tools, tool_names
from scholar.families.research.operations.spec import FamilyInfo, ProfileInfo, ServerInfo, SourceInfo
from scholar.services.health.records import hash_principal
from scholar.sources import openalex, s2
from scholar.sources.registry import SOURCES

DISTRIBUTION = "scholar-mcp-lambda"
PROTOCOL_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
# DESIGN §4: one size budget for every result (the families page and cut against it).
SIZE_BUDGET_CHARS = MAX_RESULT_CHARS
# Credentials per source (settings names, see scholar.core.config.SECRET_NAMES); a source without one works anonymously.
CREDENTIALS = {
    "s2": ("s2_api_key",),
    "openalex": ("openalex_api_key",),
    "google_books": ("google_books_api_key",),
    "epo_ops": ("epo_consumer_key", "epo_consumer_secret"),
}
_PAGED_ARGUMENTS = ("limit", "max_chars", "max_results", "editions_limit")


def _version() -> str:
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:  # the layer ships the package without its metadata
        return "unknown"


def _endpoint(settings: Settings, source: str) -> str:
    if source in settings.source_urls:
        return "override"
    return "proxy" if settings.upstream_proxy_base else "public"


def _sources(settings: Settings) -> list[SourceInfo]:
    infos = []
    for name, spec in SOURCES.items():
        configured = spec.default_base is not None or name in settings.source_urls or bool(settings.upstream_proxy_base)
        names = CREDENTIALS.get(name, (spec.key_setting,) if spec.key_setting else ())
        infos.append(
            SourceInfo(
                name=name,
                configured=configured,
                endpoint=_endpoint(settings, name),
                credentials={n: settings.secrets.has(n) for n in names},
            )
        )
    return infos


def _paging_limits() -> dict[str, int]:
    limits = {}
    for name, spec in all_tools().items():
        properties = spec.input_schema().get("properties", {})
        for argument in _PAGED_ARGUMENTS:
            schema = properties.get(argument, {})
            bound = schema.get("maximum") or next(
                (b["maximum"] for b in schema.get("anyOf", []) if "maximum" in b), None
            )
            if bound is not None:
                limits[f"{name}.{argument}"] = int(bound)
    return limits


def _profiles() -> list[ProfileInfo]:
    tools = all_tools()
    return [
        ProfileInfo(name=name, summary=profile.summary, tools=list(profile_tools(name)),
                    listing_chars=sum(tools[n].listing_chars() for n in profile_tools(name)))
        for name, profile in PROFILES.items()
    ]


def server_info(principal: str) -> ServerInfo:
    """Describe this deployment to ``principal`` (who sees only the hash of their own id)."""
    settings = get_settings()
    tools = all_tools()
    # The deployment's own selection: a connection's URL (?profile=, ?toolsets=) never reaches a family function.
    selection = Selection(settings.profile, settings.toolsets)
    listed = {tools[name].family for name in tool_names(selection)}
    return ServerInfo(
        name="scholar-mcp",
        version=_version(),
        build=settings.build,
        families=[
            FamilyInfo(
                name=f, tools=sum(1 for s in tools.values() if s.family == f), listed=f in listed
            )
            for f in families()
        ],
        tool_count=len(tools),
        sources=_sources(settings),
        protocol_versions=list(PROTOCOL_VERSIONS),
        size_budget_chars=SIZE_BUDGET_CHARS,
        paging_limits=_paging_limits(),
        batch_sizes={"s2.paper_batch": s2.BATCH_SIZE, "openalex.or_filter": openalex.OR_FILTER_MAX},
        read_only=settings.read_only,
        profiles=_profiles(),
        profile=selection.effective_profile,
        toolsets=sorted(settings.toolsets) if settings.toolsets is not None else None,
        principal=hash_principal(principal, settings.principal_salt),
    )
