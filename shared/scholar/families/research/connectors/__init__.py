"""The connector tools of the research family (issue 30): library_sync and library_connections."""
