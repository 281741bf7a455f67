"""The ``download_paper`` tool: a verified PDF kept in the caller's library."""
