"""The research family's operations tools (seed 003; issue 13): source_health and get_server_info."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field, field_validator

from scholar.core.catalogue import MAX_RESULT_CHARS, READ_ONLY_LOCAL, ToolInput, ToolSpec
from scholar.services.health.report import SourceHealth, known_sources


class SourceHealthInput(ToolInput):
    source: Annotated[
        str | None,
        Field(
            default=None,
            min_length=1,
            max_length=40,
            description="One source (s2, openalex, arxiv_api ...; _local: calls answered without a source)",
        ),
    ] = None

    @field_validator("source")
    @classmethod
    def _known(cls, value: str | None) -> str | None:
        if value is not None and value not in known_sources():
            raise ValueError(f"must be one of the source names: {', '.join(known_sources())}")
        return value


class SourceHealthResult(BaseModel):
    generated_at: float = Field(description="When the figures were read (epoch seconds)")
    recent_window_s: int = Field(description="Length of the recent window the doctor judges")
    history_window_s: int = Field(description="Length of the history each source is compared with")
    sources: list[SourceHealth]
    truncated: bool = Field(default=False, description="sources was cut to fit the size budget: ask for one source")
    sources_without_calls: list[str] = Field(
        default_factory=list, description="Sources with no call in the last 7 days"
    )


class ServerInfoInput(ToolInput):
    pass  # no arguments


class FamilyInfo(BaseModel):
    name: str
    tools: int = Field(description="Tools of this family")
    listed: bool = Field(description="Whether the deployment's own listing holds tools of this family")


class ProfileInfo(BaseModel):
    name: str
    summary: str
    tools: list[str] = Field(description="What a connection with ?profile=<name> lists (read-only mode and keys aside)")
    listing_chars: int = Field(description="Their descriptions and input schemas as compact JSON: what a model reads")


class SourceInfo(BaseModel):
    name: str
    configured: bool = Field(description="Has a base URL (public default or override)")
    endpoint: str = Field(description="public, override (SCHOLAR_<NAME>_URL) or proxy (SCHOLAR_UPSTREAM_PROXY_BASE)")
    credentials: dict[str, bool] = Field(
        default_factory=dict,
        description="Credential settings this source uses → whether each is configured (never the value)",
    )


class ServerInfo(BaseModel):
    name: str
    version: str
    build: str
    families: list[FamilyInfo]
    tool_count: int
    sources: list[SourceInfo]
    protocol_versions: list[str] = Field(description="MCP protocol versions the gateway serves")
    size_budget_chars: int = Field(description="A result stays under this many characters; longer ones are paged")
    paging_limits: dict[str, int] = Field(description="Largest page per paged argument: <tool>.<argument> → maximum")
    batch_sizes: dict[str, int] = Field(description="Identifiers per upstream batch request")
    read_only: bool = Field(description="Write tools (tag write) are hidden")
    profiles: list[ProfileInfo]
    profile: str | None = Field(
        default=None, description="The profile the deployment lists (SCHOLAR_PROFILE, else default unless toolsets)"
    )
    toolsets: list[str] | None = Field(
        default=None, description="Families the deployment lists (SCHOLAR_TOOLSETS); a URL's ?profile= or ?toolsets= "
        "replaces both for its connection"
    )
    principal: str = Field(description="Your caller identity as a salted hash (the same one usage records carry)")


TOOLS = (
    ToolSpec(
        name="get_server_info",
        family="research",
        title="Get server info",
        description="This server: version, build, families and tool counts, profiles and what each lists (every "
        "tool is one ?profile=all or ?toolsets=<family> away), each source and whether its credential is set, "
        "protocol versions, size budget, paging limits, batch sizes, read-only mode, your hashed caller id.",
        input_model=ServerInfoInput,
        output_model=ServerInfo,
        annotations=READ_ONLY_LOCAL,
    ),
    ToolSpec(
        name="source_health",
        family="research",
        title="Source health",
        description="Health of each upstream source from this server's own call records: the last hour, 24 h and 7 d "
        "(calls, success rate, p50/p95 latency, error mix) and the doctor's findings. "
        "Use it when a source errors or returns thin results.",
        input_model=SourceHealthInput,
        output_model=SourceHealthResult,
        annotations=READ_ONLY_LOCAL,
        max_result_chars=MAX_RESULT_CHARS,  # handlers: core.budget.fit_field (28 sources, three windows each)
    ),
)
