"""Lambda entry point of the patents function: its handler lives in the package (scholar.entry)."""

from scholar.entry.functions import patents as lambda_handler

__all__ = ["lambda_handler"]
