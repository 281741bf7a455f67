"""The ``scholar`` command line (console scripts ``scholar`` → ``run``, ``scholar-mcp-lambda`` → ``run_mcp``)."""

from __future__ import annotations

import sys

from scholar.local.cli.main import main

__all__ = ["main", "run", "run_mcp"]


def run() -> None:
    """The console script: exit with ``main``'s status."""
    sys.exit(main())


def run_mcp() -> None:
    """The package's own script (``uvx scholar-mcp-lambda``): ``scholar mcp`` with the arguments given."""
    sys.exit(main(["mcp", *sys.argv[1:]]))
