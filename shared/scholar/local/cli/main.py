"""``scholar``: every tool of the catalogue as a subcommand, plus the commands of this machine.

Tools: ``get_paper`` → ``scholar get-paper``; the ``library_*`` tools are grouped (``scholar library export``), with
``scholar library push`` / ``pull`` beside them.
Their parameters come from the input schema (``scholar.local.cli.options``), ``--help`` from the tool's
description. A tool runs through the gateway's own path below MCP (``scholar.local.calls``) as principal
``local``, on the backend ``SCHOLAR_BACKEND`` names (``scholar.local.backend``; default local). The machine's
commands (``mcp``, ``serve``, ``doctor``, ``sync-standards``, ``install``, ``uninstall``, ``keys``) live in
``scholar.local.cli.commands`` and import what they need only when run; a machine command is parsed without the
tools' subcommands (building them imports every family's spec: ``scholar mcp`` starts without paying for it).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from scholar.core.errors import ScholarError
from scholar.local.cli import commands
from scholar.local.cli.options import add_parameters, arguments_of, command_name
from scholar.local.cli.output import EXIT_OK, ProgressBar, answer_stream, error_json, exit_code, print_error, render
from scholar.local.library_proxy_cli import add_proxy_commands

if TYPE_CHECKING:
    from scholar.core.catalogue import ToolSpec

__all__ = ["build_parser", "main"]

PROG = "scholar"
GROUPS = {"library_": "library"}  # tool-name prefix → subcommand group (scholar library export)
# Libraries that log routine chatter at INFO/WARNING (the stand-in's template transform, boto3's endpoints).
QUIET_LOGGERS = ("samtranslator", "botocore")
DESCRIPTION = ("Scholarly literature, books, patents and standards from the command line: every MCP tool is a "
               "subcommand (scholar <tool> --help), answers print as text or --json.")


HELP_CHARS = 100  # a command's one-line help in `scholar --help`: its first sentence, cut at a word beyond this


def _first_line(text: str) -> str:
    """The description's first sentence, whole; over ``HELP_CHARS`` cut at a word with an ellipsis."""
    sentence = text.split("\n")[0].split(". ")[0].strip().rstrip(".")
    if len(sentence) <= HELP_CHARS:
        return sentence
    return sentence[:HELP_CHARS - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415  # only for --version

    try:
        return version("scholar-mcp-lambda")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed)"


def _add_tool(commands_: argparse._SubParsersAction, name: str, spec: ToolSpec) -> None:
    parser = commands_.add_parser(name, help=_first_line(spec.description), description=spec.description)
    add_parameters(parser, spec)
    parser.add_argument("--json", action="store_true", dest="as_json",
                        help="print the result dict (what the MCP tool returns) as JSON")
    parser.add_argument("--no-wait", action="store_true",
                        help="print a queued answer ({queued, task_id}) instead of polling the task to its end")
    parser.set_defaults(tool=spec)


def _top_level() -> tuple[argparse.ArgumentParser, argparse._SubParsersAction]:
    parser = argparse.ArgumentParser(prog=PROG, description=DESCRIPTION)
    parser.add_argument("-v", "--verbose", action="count", default=0, help="log to stderr (-v info, -vv debug)")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    return parser, parser.add_subparsers(dest="command", required=True, metavar="COMMAND")


def build_parser() -> argparse.ArgumentParser:
    """The whole command line: the tools this machine offers, grouped, then the machine's commands."""
    from scholar.local.calls import local_tools  # noqa: PLC0415  # the catalogue: only with the tools

    parser, subcommands = _top_level()
    groups: dict[str, argparse._SubParsersAction] = {}
    for name, spec in sorted(local_tools().items()):
        prefix = next((p for p in GROUPS if name.startswith(p)), None)
        if prefix is None:
            _add_tool(subcommands, command_name(name), spec)
            continue
        if prefix not in groups:
            group = subcommands.add_parser(GROUPS[prefix], help=f"the {GROUPS[prefix]}_* tools")
            groups[prefix] = group.add_subparsers(dest="subcommand", required=True, metavar="COMMAND")
        _add_tool(groups[prefix], command_name(name[len(prefix):]), spec)
    if "library_" in groups:
        commands.add_library_commands(groups["library_"])
        add_proxy_commands(groups["library_"])
    commands.add_commands(subcommands)
    return parser


def _parser_for(argv: list[str]) -> argparse.ArgumentParser:
    """The machine's commands alone when ``argv`` names one (``scholar -v mcp``), else the whole command line (a
    tool, ``--help``, a word that is no command: its error lists every command)."""
    machine, subcommands = _top_level()
    commands.add_commands(subcommands)
    command = next((word for word in argv if not word.startswith("-")), None)
    return machine if command in subcommands.choices else build_parser()


def _run_tool(args: argparse.Namespace) -> int:
    from scholar.local.backend import entry_backend  # noqa: PLC0415  # after parsing: --help starts no backend
    from scholar.local.calls import call  # noqa: PLC0415  # the catalogue and the runtime: only for a tool

    spec: ToolSpec = args.tool
    # Long work (what the catalogue lets run as a task) says it is working when it has said nothing for a while.
    bar = ProgressBar(label=spec.name if spec.task_support != "forbidden" else "")
    with answer_stream() as answer:
        try:
            with entry_backend():
                result = call(spec.name, arguments_of(args, spec), wait=not args.no_wait, on_progress=bar)
        except ScholarError as err:
            bar.clear()
            print_error(err)
            if args.as_json:  # a script reads the envelope where it reads answers
                answer.write(error_json(err) + "\n")
            return exit_code(err)
        bar.clear()
        answer.write(render(result, as_json=args.as_json) + "\n")
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``scholar`` with ``argv`` (default: the process's) and return the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = _parser_for(argv).parse_args(argv)
    level = (logging.WARNING, logging.INFO, logging.DEBUG)[min(args.verbose, 2)]
    logging.basicConfig(level=level, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    for chatty in QUIET_LOGGERS:
        logging.getLogger(chatty).setLevel(max(level, logging.ERROR))
    if getattr(args, "tool", None) is not None:
        return _run_tool(args)
    try:
        return int(args.run(args) or EXIT_OK)
    except ScholarError as err:
        print_error(err)
        return exit_code(err)
