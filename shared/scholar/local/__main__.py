"""``python -m scholar.local``: the ``scholar`` command line (``make serve`` is ``python -m scholar.local serve``)."""

from __future__ import annotations

from scholar.local.cli import run

if __name__ == "__main__":
    run()
