"""MCP Tasks served from the TaskTable, for both protocol eras.

``shared``: the caller's task views, reads and cancellation both eras use; ``utility``: the 2025-11-25
task utility (a middleware); ``extension``: the 2026-07-28 ``io.modelcontextprotocol/tasks`` extension.
"""
