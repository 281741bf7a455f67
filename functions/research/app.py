"""Lambda entry point of the research function: its handler lives in the package (scholar.entry)."""

from scholar.entry.functions import research as lambda_handler

__all__ = ["lambda_handler"]
