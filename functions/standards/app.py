"""Lambda entry point of the standards function: its handler lives in the package (scholar.entry)."""

from scholar.entry.functions import standards as lambda_handler

__all__ = ["lambda_handler"]
