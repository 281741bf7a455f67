"""The commands of this machine beside the tools: ``mcp``, ``serve``, ``doctor``, ``sync-standards``,
``install`` / ``uninstall`` and ``keys``.

Each imports what it runs only when chosen (``scholar get-paper`` pays for none of it: the MCP SDK alone costs
~0.7 s). Each sets ``run`` on its parser: ``scholar.local.cli.main`` calls it with the parsed arguments and exits
with what it returns.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from scholar.core.errors import InvalidArgumentError

__all__ = ["add_commands"]

CLIENTS = ("claude-desktop", "claude-code", "cursor", "vscode", "codex")


def _mcp(args: argparse.Namespace) -> int:
    from scholar.local.stdio import serve_stdio  # noqa: PLC0415  # imports mcp: only this command

    serve_stdio(profile=args.profile, toolsets=args.toolsets)
    return 0


def _serve(args: argparse.Namespace) -> int:
    from scholar.local.serving import serve_http  # noqa: PLC0415  # uvicorn + mcp: only this command

    serve_http(host=args.host, port=args.port)
    return 0


def _doctor(args: argparse.Namespace) -> int:
    from scholar.local.backend import entry_backend  # noqa: PLC0415
    from scholar.local.doctor_cli import run_doctor  # noqa: PLC0415  # probes every upstream: only this command

    with entry_backend():
        return run_doctor()


def _sync_standards(args: argparse.Namespace) -> int:
    from scholar.families.standards.jobs import handle_sync_event  # noqa: PLC0415  # the sync's loaders
    from scholar.families.standards.records import BODIES  # noqa: PLC0415
    from scholar.local.backend import entry_backend  # noqa: PLC0415

    bodies = [body.upper() for body in args.bodies or ()]
    unknown = sorted(set(bodies) - set(BODIES))
    if unknown:
        raise InvalidArgumentError(f"unknown bodies {', '.join(unknown)}; one of {', '.join(BODIES)}", field="bodies")
    sys.stderr.write(f"syncing the standards catalogue ({', '.join(bodies or BODIES)}) …\n")
    with entry_backend():
        summary = handle_sync_event({"bodies": bodies} if bodies else {})
    sys.stdout.write(json.dumps(summary, ensure_ascii=False, indent=2) + "\n")
    return 0 if summary.get("published") else 1


def _install(args: argparse.Namespace) -> int:
    from scholar.local.install import install  # noqa: PLC0415

    return install(args.client, profile=args.profile, dry_run=args.dry_run)


def _uninstall(args: argparse.Namespace) -> int:
    from scholar.local.install import uninstall  # noqa: PLC0415

    return uninstall(args.client, dry_run=args.dry_run)


def _keys(args: argparse.Namespace) -> int:
    from scholar.local import keys  # noqa: PLC0415

    return keys.run(args.action, args.name)


def add_commands(subcommands: Any) -> None:
    """Add the machine's commands to the top-level subcommands."""
    mcp = subcommands.add_parser("mcp", help="serve MCP over stdio (what MCP clients start)",
                                 description="Serve every tool, resource, prompt and completion over stdio as "
                                             "principal local; logs go to stderr, stdout carries only MCP.")
    mcp.add_argument("--profile", help="the tool profile to list (default SCHOLAR_PROFILE or 'default')")
    mcp.add_argument("--toolsets", help="only these families, comma-separated (papers,arxiv,…)")
    mcp.set_defaults(run=_mcp)
    serve = subcommands.add_parser("serve", help="serve MCP over HTTP on this machine (POST /mcp)",
                                   description="Serve POST /mcp on the local backend. Bound to anything but "
                                               "loopback, callers need a key from `scholar keys add` (or OAuth).")
    serve.add_argument("--host", help="interface to bind (default SCHOLAR_HOST or 127.0.0.1)")
    serve.add_argument("--port", type=int, help="TCP port (default SCHOLAR_PORT or 3000)")
    serve.set_defaults(run=_serve)
    doctor = subcommands.add_parser("doctor", help="probe every configured upstream now and print the findings")
    doctor.set_defaults(run=_doctor)
    sync = subcommands.add_parser("sync-standards", help="sync the standards catalogue now")
    sync.add_argument("--bodies", nargs="+", help="only these bodies (IETF NIST W3C ETSI ISO IEC IEEE; any case)")
    sync.set_defaults(run=_sync_standards)
    for name, run, text in (("install", _install, "register Scholar with an MCP client"),
                            ("uninstall", _uninstall, "remove exactly what `scholar install` wrote")):
        parser = subcommands.add_parser(name, help=text, description=text)
        parser.add_argument("client", choices=CLIENTS)
        parser.add_argument("--dry-run", action="store_true", help="print what would change, change nothing")
        if name == "install":
            parser.add_argument("--profile", help="the tool profile the client lists (default: 'default')")
        parser.set_defaults(run=run)
    keys = subcommands.add_parser("keys", help="the keys callers of `scholar serve` present (x-api-key)")
    keys.add_argument("action", choices=("add", "list", "remove"))
    keys.add_argument("name", nargs="?", help="the key's name (add, remove)")
    keys.set_defaults(run=_keys)
