"""This machine's OS keyring: read, write and forget one entry (one machine only; the Lambda layer lacks keyring).

A machine without a usable keyring backend reads as if nothing were stored, and refuses to store with a typed error.
"""

from __future__ import annotations

from scholar.core.errors import UnavailableError

__all__ = ["delete_entry", "get_entry", "set_entry"]


def get_entry(service: str, user: str) -> str | None:
    """The entry ``service``/``user``, or None (none stored, or no keyring on this machine)."""
    try:
        import keyring  # noqa: PLC0415  # one machine only: the Lambda layer does not ship it
        from keyring.errors import KeyringError  # noqa: PLC0415  # with the package above
    except ImportError:
        return None
    try:
        return keyring.get_password(service, user)
    except KeyringError:
        return None  # no usable keyring backend on this machine: as if nothing were stored


def set_entry(service: str, user: str, value: str) -> None:
    """Store ``value`` under ``service``/``user``.

    Raises:
        UnavailableError: no keyring package or backend on this machine.
    """
    try:
        import keyring  # noqa: PLC0415  # one machine only: the Lambda layer does not ship it
        from keyring.errors import KeyringError  # noqa: PLC0415  # with the package above
    except ImportError as exc:
        raise UnavailableError("the keyring package is not installed (pip install 'scholar-mcp[local]')") from exc
    try:
        keyring.set_password(service, user, value)
    except KeyringError as exc:
        raise UnavailableError(f"this machine's keyring refused the entry ({type(exc).__name__})") from exc


def delete_entry(service: str, user: str) -> bool:
    """Forget ``service``/``user``; False when there was nothing to forget (or no keyring)."""
    try:
        import keyring  # noqa: PLC0415  # one machine only: the Lambda layer does not ship it
        from keyring.errors import KeyringError  # noqa: PLC0415  # with the package above
    except ImportError:
        return False
    try:
        keyring.delete_password(service, user)
    except KeyringError:
        return False
    return True
