"""EPO OPS fair use: the throttling headers of every answer pace the next requests through the shared limiter.

OPS sends ``X-Throttling-Control: busy (images=green:200, inpadoc=yellow:60, other=green:1000,
retrieval=green:200, search=red:5)``: the system state, then per service a traffic light and the requests
per minute it allows now. Requests of one service are spaced 60/rpm seconds apart across all instances
(``scholar.store.limiter``, one pace item per service), stretched on yellow and red and on a busy or
overloaded system; on black the service is stopped until the light is seen again or ``BLACK_PAUSE_S``
passes. Observations are shared through the cache so every instance slows down, but an answer that came
back with a bad light is still returned: only the next requests wait.
``X-IndividualQuotaPerHour-Used`` / ``X-RegisteredQuotaPerWeek-Used`` are logged as figures.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scholar.core.config import get_settings
from scholar.core.errors import RateLimitedError
from scholar.store.cache import Cache
from scholar.store.limiter import pace

logger = logging.getLogger(__name__)

SOURCE = "epo_ops"
THROTTLING_HEADER = "X-Throttling-Control"
HOURLY_USED_HEADER = "X-IndividualQuotaPerHour-Used"
WEEKLY_USED_HEADER = "X-RegisteredQuotaPerWeek-Used"
# How much slower than the announced rate we go per light and per system state.
LIGHT_FACTOR = {"green": 1.0, "yellow": 2.0, "red": 4.0}
STATE_FACTOR = {"idle": 1.0, "busy": 1.5, "overloaded": 3.0}
BLACK_PAUSE_S = 60.0
_CACHE_KEY = "epo_ops:throttling"
_SHARE_TTL_S = 120
_SERVICE = re.compile(r"(\w+)=(green|yellow|red|black):(\d+)")
_local: dict[str, object] = {}


@dataclass(frozen=True)
class Light:
    colour: str
    per_minute: int


@dataclass(frozen=True)
class Throttling:
    """One ``X-Throttling-Control`` header: system state and each service's light."""

    state: str
    services: dict[str, Light]
    seen_at: float

    def to_json(self) -> dict[str, object]:
        return {"state": self.state, "seen_at": self.seen_at,
                "services": {k: [v.colour, v.per_minute] for k, v in self.services.items()}}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Throttling:
        """The observation as ``to_json`` wrote it into the shared cache (JSON: any field may be missing)."""
        services = data.get("services")
        services = services if isinstance(services, dict) else {}
        return cls(str(data.get("state", "idle")),
                   {k: Light(str(v[0]), int(v[1])) for k, v in services.items()}, float(data.get("seen_at", 0)))


def parse_throttling(header: str | None, now: float | None = None) -> Throttling | None:
    """Parse the header; None when absent or unreadable."""
    if not header:
        return None
    state = header.split("(", 1)[0].strip().lower() or "idle"
    services = {name: Light(colour, int(rpm)) for name, colour, rpm in _SERVICE.findall(header)}
    if not services:
        return None
    return Throttling(state, services, time.time() if now is None else now)


def interval_s(throttling: Throttling | None, service: str) -> float:
    """Seconds between two requests of ``service`` under this state (0 when nothing is known)."""
    if throttling is None or service not in throttling.services:
        return 0.0
    light = throttling.services[service]
    if light.colour == "black" or light.per_minute <= 0:
        return BLACK_PAUSE_S
    base = 60.0 / light.per_minute
    return base * LIGHT_FACTOR.get(light.colour, 1.0) * STATE_FACTOR.get(throttling.state, 1.0)


def known() -> Throttling | None:
    """The latest state this instance saw, else the one another instance shared."""
    held = _local.get("throttling")
    if isinstance(held, Throttling):
        return held
    shared = Cache().get("result", _CACHE_KEY)
    return Throttling.from_json(shared) if isinstance(shared, dict) else None


def black_retry_after(throttling: Throttling | None, service: str, now: float | None = None) -> float | None:
    """Seconds left of a black light's pause for ``service`` (None when the service may be asked)."""
    if throttling is None or service not in throttling.services:
        return None
    if throttling.services[service].colour != "black":
        return None
    left = throttling.seen_at + BLACK_PAUSE_S - (time.time() if now is None else now)
    return left if left > 0 else None


async def before_request(service: str) -> None:
    """Wait for this service's slot; refuse at once while its light is black.

    Raises:
        RateLimitedError: the service showed a black light less than ``BLACK_PAUSE_S`` ago.
    """
    latest = known()
    wait = black_retry_after(latest, service)
    if wait is not None:
        raise RateLimitedError(
            f"EPO OPS has stopped the {service} service for us (black traffic light)",
            source=SOURCE,
            retry_after_s=wait,
            hint="EPO OPS fair use: wait retry_after_s before asking again; cached answers still work.",
        )
    spacing = interval_s(latest, service) * get_settings().pace_scale
    await pace(f"{SOURCE}:{service}", spacing)


def observe(headers: Mapping[str, str]) -> Throttling | None:
    """Record an answer's throttling state (shared with other instances when it changed) and its quota figures."""
    throttling = parse_throttling(headers.get(THROTTLING_HEADER))
    hourly, weekly = headers.get(HOURLY_USED_HEADER), headers.get(WEEKLY_USED_HEADER)
    if hourly or weekly:
        logger.info("epo ops quota used: hour=%s week=%s", hourly, weekly)
    if throttling is None:
        return None
    previous = _local.get("throttling")
    _local["throttling"] = throttling
    changed = not isinstance(previous, Throttling) or (previous.state, previous.services) != (
        throttling.state, throttling.services)
    if changed:
        Cache().put("result", _CACHE_KEY, throttling.to_json(), ttl_s=_SHARE_TTL_S)
    return throttling


def forget() -> None:
    """Drop what this process knows (tests)."""
    _local.clear()
