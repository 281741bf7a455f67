"""Lambda entry point of the tasks function: its handler lives in the package (scholar.entry)."""

from scholar.entry.functions import tasks as lambda_handler

__all__ = ["lambda_handler"]
