"""Lambda entry point of the pdf function: its handler lives in the package (scholar.entry)."""

from scholar.entry.functions import pdf as lambda_handler

__all__ = ["lambda_handler"]
