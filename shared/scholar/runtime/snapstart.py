"""Lambda SnapStart runtime hooks: prime before the snapshot, make the environment unique again after restore.

With SnapStart (template parameter ``GatewaySnapStart``) Lambda runs the init phase once per published
version, snapshots the memory, and resumes every new environment from that copy. So ``prime`` does the
one-off work a first call would do (imports, schemas, the SDK session manager) *before* the snapshot, and
makes no network call: no socket is ever in the snapshot. ``after_restore`` then drops what must not be
shared between environments: boto3 clients (credentials and connection pools belong to one environment)
and the state of ``random`` (botocore's retry jitter); ``secrets``/``uuid4`` read the kernel and need nothing.
AWS: restore hooks must finish within 10 s; before-snapshot hooks count against the init limit.

The hooks come from ``snapshot_restore_py``, present only in the Lambda managed runtime; elsewhere (tests,
the local stack) ``register`` does nothing, and without SnapStart Lambda never calls them.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable

from scholar.store import aws

logger = logging.getLogger(__name__)


def after_restore() -> None:
    """Forget the per-environment clients and re-seed ``random`` (a restored snapshot shares both)."""
    aws.reset_clients()
    random.seed()


def register(prime: Callable[[], None]) -> bool:
    """Register ``prime`` to run before the snapshot and ``after_restore`` after each restore.

    Returns:
        Whether the hooks were registered (False outside the Lambda managed runtime).
    """
    try:
        from snapshot_restore_py import register_after_restore, register_before_snapshot  # noqa: PLC0415  # Lambda runtime only
    except ImportError:  # not in a Lambda managed runtime: there is never a snapshot
        return False
    register_before_snapshot(prime)
    register_after_restore(after_restore)
    return True
