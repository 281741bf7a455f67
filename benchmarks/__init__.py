"""Reproducible benchmarks: ``make bench`` (python -m benchmarks) prints medians and ratios."""
