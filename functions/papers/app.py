"""Lambda entry point of the papers function: its handler lives in the package (scholar.entry)."""

from scholar.entry.functions import papers as lambda_handler

__all__ = ["lambda_handler"]
