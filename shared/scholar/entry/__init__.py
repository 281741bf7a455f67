"""Every function's entry, inside the package: the one composition root of a function's process.

The template's functions run code from here, never from the checkout: ``functions/<name>/app.py`` re-exports one
handler (``ROUTES``), the AWS stand-in routes moto's invokes to the same handlers, and the local backend calls the
same functions without the Lambda wrapping (``scholar.entry.functions.run``). Its modules import lazily what only
one function needs, so a family function's cold start pays for its own family alone.
"""

from __future__ import annotations

__all__ = ["ROUTES", "route"]

# The functions whose handler is not scholar.entry.functions.<name>: (module, attribute).
ROUTES: dict[str, tuple[str, str]] = {
    "gateway": ("scholar.entry.gateway", "lambda_handler"),
    "auth": ("scholar.entry.auth", "lambda_handler"),
}


def route(name: str) -> tuple[str, str]:
    """Where the Lambda handler of function ``name`` (its folder under functions/) lives: (module, attribute)."""
    return ROUTES.get(name, ("scholar.entry.functions", name))
