"""Lambda entry point of the standards_sync function: its handler lives in the package (scholar.entry)."""

from scholar.entry.functions import standards_sync as lambda_handler

__all__ = ["lambda_handler"]
