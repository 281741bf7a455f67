"""Lambda entry point of the pipeline function: its handler lives in the package (scholar.entry)."""

from scholar.entry.functions import pipeline as lambda_handler

__all__ = ["lambda_handler"]
