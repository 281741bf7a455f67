"""The commands of this machine beside the tools: ``mcp``, ``serve``, ``doctor``, ``sync-standards``,
``install`` / ``uninstall`` and ``keys``; in the ``library`` group, ``push`` and ``pull``.

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

__all__ = ["add_commands", "add_library_commands"]

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
    from scholar.local.backend import entry_backend  # noqa: PLC0415  # the chosen backend only
    from scholar.local.doctor_cli import run_doctor  # noqa: PLC0415  # the health reports: only this command

    with entry_backend():
        return run_doctor(network=args.network)


def _sync_standards(args: argparse.Namespace) -> int:
    from scholar.families.standards.jobs import handle_sync_event  # noqa: PLC0415  # the sync's loaders
    from scholar.families.standards.records import BODIES  # noqa: PLC0415  # the standards family: only this command
    from scholar.local.backend import entry_backend  # noqa: PLC0415  # the chosen backend only

    bodies = [body.upper() for body in args.bodies or ()]
    unknown = sorted(set(bodies) - set(BODIES))
    if unknown:
        raise InvalidArgumentError(f"unknown bodies {', '.join(unknown)}; one of {', '.join(BODIES)}", field="bodies")
    from scholar.local.cli.output import ProgressBar  # noqa: PLC0415  # with this command
    from scholar.runtime.progress import reporting  # noqa: PLC0415  # with this command

    sys.stderr.write(f"syncing the standards catalogue ({', '.join(bodies or BODIES)}) …\n")
    bar = ProgressBar()
    with entry_backend(), reporting(bar):
        summary = handle_sync_event({"bodies": bodies} if bodies else {})
    bar.clear()
    sys.stdout.write(json.dumps(summary, ensure_ascii=False, indent=2) + "\n")
    return 0 if summary.get("published") else 1


def _install(args: argparse.Namespace) -> int:
    from scholar.local.install import install  # noqa: PLC0415  # tomlkit and the clients' files: only this command

    return install(args.client, profile=args.profile, toolsets=args.toolsets, dry_run=args.dry_run, force=args.force)


def _uninstall(args: argparse.Namespace) -> int:
    from scholar.local.install import uninstall  # noqa: PLC0415  # tomlkit and the clients' files: only this command

    return uninstall(args.client, dry_run=args.dry_run)


def _keys(args: argparse.Namespace) -> int:
    from scholar.local import keys  # noqa: PLC0415  # only this command

    return keys.run(args.action, args.name)


def _transfer_text(report: dict[str, Any]) -> str:
    counts = report["counts"]
    head = ("plan (dry run, nothing written): " if report["dry_run"] else "") + ", ".join(
        f"{count} {name.replace('_', ' ')}" for name, count in counts.items() if count)
    lines = [f"library {report['direction']} {report['url']}: {head or 'nothing to move'}"]
    if report["collections_created"]:
        lines.append(f"collections created: {', '.join(report['collections_created'])}")
    for item in report["items"]:
        line = f"{item['outcome']:<10} {item['item_id']}  {item.get('title') or ''}"
        if error := item.get("error"):
            line += f"  [{error['code']}] {error['message']}"
        if pdf := item.get("pdf"):
            line += f"  pdf: {pdf['status']}" + (f" ({', '.join(pdf['task_ids'])})" if pdf.get("task_ids") else "")
            line += f" [{pdf['code']}]" if pdf.get("code") else ""
            line += f" {pdf['message']}" if pdf.get("message") else ""
        lines.append(line)
    lines += [f"warning: {warning}" for warning in report.get("warnings", [])]
    return "\n".join(lines)


def _transfer(args: argparse.Namespace) -> int:
    from scholar.local import transfer  # noqa: PLC0415  # the MCP client (imports mcp): only these commands
    from scholar.local.cli.output import EXIT_CODES, EXIT_OK, ProgressLine, answer_stream  # noqa: PLC0415  # same

    move = transfer.push if args.direction == "push" else transfer.pull
    with answer_stream() as answer:
        report = move(args.url, api_key=args.api_key, collection=args.collection, dry_run=args.dry_run,
                      pdfs=not args.no_pdfs, progress=ProgressLine())
        answer.write((json.dumps(report, ensure_ascii=False, indent=2) if args.as_json else _transfer_text(report))
                     + "\n")
    failed = [entry.get("error") or entry.get("pdf") for entry in report["items"]
              if entry["outcome"] == "failed" or (entry.get("pdf") or {}).get("status") in transfer.PDF_FAILING]
    return EXIT_CODES.get(str(failed[0].get("code")), EXIT_CODES["internal"]) if failed else EXIT_OK


_TRANSFER_HELP = {
    "push": ("move this machine's library to a hosted deployment (over MCP)",
             "Copy every item (every field, collection, tag, note) to the deployment at URL with its own library "
             "tools; items it has unchanged are left alone, a newer copy there is kept, and each kept PDF it lacks is "
             "queued to be kept there (download_paper): a PDF record goes only with its file. Running it twice "
             "writes nothing."),
    "pull": ("move a hosted deployment's library to this machine (over MCP)",
             "The reverse of push: the deployment's items into this machine's library; kept PDFs are kept again "
             "here by this machine's own pipeline."),
}
_URL_HELP = ("the deployment's MCP endpoint, https://…/mcp (plain http only to this machine: 127.0.0.1, localhost)")


def add_library_commands(library: Any) -> None:
    """Add ``push`` and ``pull`` to the ``library`` group's subcommands."""
    for direction, (text, description) in _TRANSFER_HELP.items():
        parser = library.add_parser(direction, help=text, description=description + " Signs in with OAuth (a "
                                    "browser) unless an API key is given; the sign-in is kept under SCHOLAR_HOME.")
        parser.add_argument("url", metavar="URL", help=_URL_HELP)
        parser.add_argument("--api-key", help="the deployment's API key, sent as x-api-key (default: "
                                              "SCHOLAR_REMOTE_API_KEY; neither: sign in with OAuth)")
        parser.add_argument("--collection", help="only this collection")
        parser.add_argument("--dry-run", action="store_true", help="read both sides and print the plan; write nothing")
        parser.add_argument("--no-pdfs", action="store_true", help="do not keep the kept PDFs again on the other side")
        parser.add_argument("--json", action="store_true", dest="as_json", help="print the report as JSON")
        parser.set_defaults(run=_transfer, direction=direction)


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
    doctor = subcommands.add_parser("doctor", help="judge each source against its own history (--network: probe too)")
    doctor.add_argument("--network", action="store_true",
                        help="also probe the sources real use has not exercised in the last hour")
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
            parser.add_argument("--toolsets", help="only these families, comma-separated (papers,arxiv,…)")
            parser.add_argument("--force", action="store_true",
                                help="replace a different 'scholar' server already in the client's config")
        parser.set_defaults(run=run)
    keys = subcommands.add_parser("keys", help="the keys callers of `scholar serve` present (x-api-key)")
    keys.add_argument("action", choices=("add", "list", "remove"))
    keys.add_argument("name", nargs="?", help="the key's name (add, remove)")
    keys.set_defaults(run=_keys)
