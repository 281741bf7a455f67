"""Whether an access token's refresh family is still active: read at most once per family every N seconds.

Access tokens are verified offline, so a revoked family (a reused code or refresh token, a revocation request)
would otherwise keep its access tokens alive until they expire. The gateway asks the AuthTable instead, but
at most once per family every ``SCHOLAR_OAUTH_REVOCATION_CHECK_S`` seconds (30 by default) per execution
environment: a revocation takes effect within that time, and a warm request with a fresh answer costs a
dictionary lookup (docs/security.md, "Revocation and offline verification").
"""

from __future__ import annotations

import time
from collections import OrderedDict

from scholar.core.aio import off_loop
from scholar.core.config import get_settings
from scholar.store.auth import AuthStore

MAX_REMEMBERED = 10_000
_status: OrderedDict[str, tuple[float, bool]] = OrderedDict()


async def family_active(fid: str, store: AuthStore | None = None) -> bool:
    """True while the family exists and is not revoked (answered from memory when read recently).

    Raises:
        UnavailableError: the table could not be read.
    """
    now = time.monotonic()
    hit = _status.get(fid)
    if hit is not None and now - hit[0] < get_settings().oauth.revocation_check_s:
        return hit[1]
    status = await off_loop((store or AuthStore()).family_status, fid)
    active = status == "active"
    _status[fid] = (now, active)
    _status.move_to_end(fid)
    while len(_status) > MAX_REMEMBERED:
        _status.popitem(last=False)
    return active


def forget() -> None:
    """Drop what was read (tests)."""
    _status.clear()
