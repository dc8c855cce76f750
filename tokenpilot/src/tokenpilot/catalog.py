"""What the GPU and model catalogs share: lookup by name or alias, forgiving of case and of
``_``, ``-`` and spaces (``H100_SXM``, ``h100 sxm`` and ``h100-sxm`` are one name)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def norm(name: str) -> str:
    return name.strip().lower().replace("_", "-").replace(" ", "-")


def alias_index(specs: Mapping[str, Any]) -> dict[str, str]:
    """Normalised name or alias -> canonical name, for specs that carry ``aliases``."""
    idx: dict[str, str] = {}
    for name, spec in specs.items():
        idx[norm(name)] = name
        for alias in spec.aliases:
            idx[norm(alias)] = name
    return idx
