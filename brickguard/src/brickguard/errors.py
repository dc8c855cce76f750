"""Errors the user can fix. The CLI prints them as one line and exits 2; no traceback."""

from __future__ import annotations


class BrickguardError(Exception):
    """A user-facing error: a missing path, an unreadable compile database, a bad option."""


class ConfigError(BrickguardError):
    """A ``brickguard.toml`` that is missing, not TOML, or has an unknown key or a bad value."""
