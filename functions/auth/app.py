"""Lambda entry point of the auth function: its handler lives in the package (scholar.entry)."""

from scholar.entry.auth import lambda_handler

__all__ = ["lambda_handler"]
