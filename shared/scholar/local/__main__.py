"""``python -m scholar.local serve``: the MCP server on this machine, with moto standing in for AWS."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from scholar.core.config import get_settings
from scholar.local.server import serve


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and run the chosen subcommand."""
    parser = argparse.ArgumentParser(prog="python -m scholar.local", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    serve_cmd = commands.add_parser("serve", help="serve POST /mcp (defaults: SCHOLAR_HOST, SCHOLAR_PORT)")
    serve_cmd.add_argument("--host", help="interface to bind (default SCHOLAR_HOST or 127.0.0.1)")
    serve_cmd.add_argument("--port", type=int, help="TCP port (default SCHOLAR_PORT or 3000)")
    serve_cmd.add_argument("--template", type=Path, help="SAM template (default ./template.yaml)")
    doctor_cmd = commands.add_parser("doctor", help="probe every configured upstream now and print the findings")
    doctor_cmd.add_argument("--template", type=Path, help="SAM template (default ./template.yaml)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("botocore").setLevel(logging.WARNING)  # one line per client about the endpoint
    logging.getLogger("samtranslator").setLevel(logging.ERROR)  # feature-toggle chatter on every transform
    if args.command == "doctor":
        from scholar.local.doctor_cli import run_doctor  # noqa: PLC0415  # only this subcommand probes

        logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per probe otherwise; the table says it all
        raise SystemExit(run_doctor(template=args.template))
    settings = get_settings()
    serve(args.host or settings.host, args.port or settings.port, template=args.template)


if __name__ == "__main__":
    main()
