"""Implementations of source_health and get_server_info (dispatched by scholar.runtime.family)."""

from __future__ import annotations

import time

from scholar.core.budget import fit_field
from scholar.core.catalogue import CallContext, Handler
from scholar.core.errors import UnavailableError
from scholar.families.research.operations.server_info import server_info
from scholar.families.research.operations.spec import ServerInfo, ServerInfoInput, SourceHealthInput, SourceHealthResult
from scholar.services.health.doctor import HISTORY_S, RECENT_S
from scholar.services.health.report import health_of, known_sources
from scholar.store.usage import UsageReadError


async def source_health(args: SourceHealthInput, ctx: CallContext) -> SourceHealthResult:
    sources = [args.source] if args.source else known_sources()
    now = time.time()
    try:
        healths = await health_of(sources, now=now, with_calls_only=args.source is None)
    except UsageReadError as exc:
        raise UnavailableError("the usage records could not be read; try again shortly", retryable=True) from exc
    listed = {h.source for h in healths}
    result = SourceHealthResult(
        generated_at=round(now, 3),
        recent_window_s=RECENT_S,
        history_window_s=HISTORY_S,
        sources=healths,
        sources_without_calls=[s for s in sources if s not in listed],
    )
    return fit_field(result, "sources", flag="truncated")[0]


async def get_server_info(args: ServerInfoInput, ctx: CallContext) -> ServerInfo:
    return server_info(ctx.principal)


HANDLERS: dict[str, Handler] = {"get_server_info": get_server_info, "source_health": source_health}
