"""Lambda entry point of the probe function: its handler lives in the package (scholar.entry)."""

from scholar.entry.functions import probe as lambda_handler

__all__ = ["lambda_handler"]
