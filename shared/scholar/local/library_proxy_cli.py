"""The ``scholar library proxy`` commands' parsers (light: what they run is imported when one runs).

``login`` and ``logout`` are scholar.local.library_proxy's; registered beside ``library push`` / ``pull``.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from typing import Any

from scholar.core.config import LIBRARY_PROXY_ENV

__all__ = ["add_proxy_commands"]


def _run(args: argparse.Namespace) -> int:
    from scholar.core.errors import ScholarError  # noqa: PLC0415  # after parsing: --help stays light
    from scholar.local.cli.output import EXIT_OK, exit_code, print_error  # noqa: PLC0415  # the CLI's output rules
    from scholar.local.library_proxy import login, logout  # noqa: PLC0415  # the proxy walk and keyring: only here

    try:
        if args.action == "logout":
            answer = logout()
        else:
            password = None
            if args.user:
                password = (
                    sys.stdin.readline().rstrip("\n")
                    if args.password_stdin
                    else getpass.getpass(f"Password of {args.user} at the library proxy: ")
                )
            answer = login(args.proxy, user=args.user, password=password)
    except ScholarError as err:
        print_error(err)
        return exit_code(err)
    print("\n".join(f"{k}: {v}" for k, v in answer.items()))
    return EXIT_OK


def add_proxy_commands(library: Any) -> None:
    """Add ``proxy login`` and ``proxy logout`` to the ``library`` group's subcommands."""
    group = library.add_parser(
        "proxy",
        help="this machine's library proxy (licensed full text)",
        description="Sign in to your library's proxy (EZproxy-style) so read_paper can fetch "
        "licensed papers that have no open copy; the session is kept in the OS keyring.",
    )
    actions = group.add_subparsers(dest="action", required=True, metavar="ACTION")
    sign = actions.add_parser("login", help="sign in (the proxy's form with --user, else a browser)")
    sign.add_argument("--proxy", help=f"the proxy: a prefix with {{url}} or its name (default: {LIBRARY_PROXY_ENV})")
    sign.add_argument("--user", help="sign in with the proxy's form as this name (the password is asked for)")
    sign.add_argument("--password-stdin", action="store_true", help="read the password from stdin")
    sign.set_defaults(run=_run)
    out = actions.add_parser("logout", help="forget the session, name and password kept in the keyring")
    out.set_defaults(run=_run)
