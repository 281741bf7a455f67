"""Lambda entry point of the books function: its handler lives in the package (scholar.entry)."""

from scholar.entry.functions import books as lambda_handler

__all__ = ["lambda_handler"]
