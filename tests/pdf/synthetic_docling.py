"""SYNTHETIC docling-serve payloads (hand-written; no recorded docling-serve response exists in fixtures/).

Shapes follow docling-serve's own models, docling-project/docling-serve
``docling_serve/datamodel/responses.py``: ``TaskStatusResponse`` {task_id, task_type, task_status,
task_position, task_meta} and ``ConvertDocumentResponse`` {document: {filename, md_content, ...},
status, errors, processing_time, timings}; task states are pending | started | success | failure.
"""

from __future__ import annotations

from typing import Any

TASK_ID = "synthetic-3f9c2a1e-7b7d-4c1e-9d59-0a8f6c1b2e10"


def synthetic_task(status: str, *, position: int | None = None) -> dict[str, Any]:
    done = status in ("success", "failure")
    return {
        "task_id": TASK_ID,
        "task_type": "convert",
        "task_status": status,
        "task_position": position,
        "task_meta": {
            "num_docs": 1,
            "num_processed": 1 if done else 0,
            "num_succeeded": 1 if status == "success" else 0,
            "num_failed": 1 if status == "failure" else 0,
        },
    }


SYNTHETIC_RESULT_SUCCESS: dict[str, Any] = {
    "document": {
        "filename": "paper.pdf",
        "md_content": "## PaSa: An LLM Agent for Comprehensive Academic Paper Search\n\nWe introduce PaSa.\n",
        "json_content": None,
        "html_content": None,
        "text_content": None,
        "doctags_content": None,
    },
    "status": "success",
    "errors": [],
    "processing_time": 12.5,
    "timings": {},
}

SYNTHETIC_RESULT_FAILURE: dict[str, Any] = {
    "document": {"filename": "paper.pdf", "md_content": None},
    "status": "failure",
    "errors": [
        {
            "component_type": "document_backend",
            "module_name": "DoclingParseV4DocumentBackend",
            "error_message": "Input document paper.pdf is not valid.",
        }
    ],
    "processing_time": 0.4,
    "timings": {},
}
