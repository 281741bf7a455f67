"""The ``scholar`` command line (console script ``scholar = scholar.local.cli:run``)."""

from __future__ import annotations

import sys

from scholar.local.cli.main import main

__all__ = ["main", "run"]


def run() -> None:
    """The console script: exit with ``main``'s status."""
    sys.exit(main())
