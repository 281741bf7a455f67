"""Scholar MCP: scholarly literature, books, patents and standards for AI agents.

The packages below are the floors of the code, from the bottom up; a module imports only its own floor and the
floors below it (tests/unit/test_import_rules.py reads each module's floor from its path):

    core/       errors, settings, identifiers, records, the tool catalogue, the off-loop helper
    store/      the tables and the artifact bucket behind one interface (DynamoDB/S3)
    sources/    the HTTP layer (http.py, on the source registry) and one module per upstream
    web/        fetching a URL a user gave: the SSRF guard, guarded download and fetch
    runtime/    a family function's dispatch, invoking a family, queueing work, executions
    services/   shared logic the families build on: paper lookup, full text, PDF text, citations,
                a caller's library, source health
    families/   one package per tool family (papers, arxiv, books, patents, standards, pdf, tasks, research)
    gateway/    the MCP protocol layer (mcp/), the OAuth authorization server (auth/), their token contract (bearer/)
    entry/      every function's entry: the Lambda handlers functions/*/app.py re-export, the in-process calls
    local/      this machine's entry points (the `scholar` command line, stdio, `scholar serve`, the Python API,
                client registration) and the embedded stand-in for AWS

This package itself imports nothing of its own: ``from scholar import Scholar`` (and ``AsyncScholar``) loads the
Python API (scholar.local.api) only when asked for. As a library it prints nothing: its loggers end in a
``NullHandler`` unless the program (the command line, a Lambda's Powertools logger) configures logging.
"""

from __future__ import annotations

import logging

logging.getLogger(__name__).addHandler(logging.NullHandler())

__all__ = ["AsyncScholar", "Scholar"]


def __getattr__(name: str) -> object:
    if name in __all__:
        from scholar.local import api  # noqa: PLC0415  # lazy: `import scholar` stays free (every Lambda imports it)

        return getattr(api, name)
    raise AttributeError(f"module 'scholar' has no attribute {name!r}")
