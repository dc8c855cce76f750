"""SDK indexes on disk, keyed by the headers' contents, the flags and the libclang version.

Indexing an SDK takes seconds; loading its JSON takes milliseconds. A key that changes whenever a
header, a flag or libclang changes means a stale index is never read: touching a header without
changing it keeps the key (content hashes, not times), editing it makes a new one.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import clang.cindex as ci

from brickguard.sdk.index import build_index, default_args
from brickguard.sdk.model import SdkIndex
from brickguard.sdk.spec import SdkSpec

FORMAT = 1  # bump when SdkIndex's JSON shape or what gets indexed changes


@dataclass
class LoadInfo:
    path: Path
    hit: bool  # read from the cache (no libclang parse)


def default_cache_dir(root: Path | None = None) -> Path:
    """``$BRICKGUARD_CACHE_DIR`` when set; else ``$XDG_CACHE_HOME/brickguard/sdk`` (or
    ``~/.cache/brickguard/sdk``): never the project's own tree (``root`` is not used; the key
    holds every header's hash, so projects share one cache safely)."""
    if os.environ.get("BRICKGUARD_CACHE_DIR"):
        return Path(os.environ["BRICKGUARD_CACHE_DIR"])
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "brickguard" / "sdk"


def _clang_version() -> str:
    # The wheel's version names the bundled libclang; the library file guards a swapped one.
    try:
        version = metadata.version("libclang")
    except metadata.PackageNotFoundError:
        version = "unknown"
    lib = ci.conf.lib._name if hasattr(ci.conf.lib, "_name") else ""
    return f"{version}:{lib}"


def cache_key(spec: SdkSpec, args: Sequence[str]) -> str:
    h = hashlib.sha256()
    h.update(f"{FORMAT}\0{_clang_version()}\0{spec.name}\0{spec.version}\0".encode())
    h.update("\0".join([*args, *spec.defines, *map(str, spec.include)]).encode())
    for header in spec.headers():
        h.update(str(header).encode() + b"\0")
        h.update(hashlib.sha256(header.read_bytes()).digest())
    return h.hexdigest()


def load_index(
    spec: SdkSpec,
    cache_dir: Path | None = None,
    args: Sequence[str] | None = None,
    info: list[LoadInfo] | None = None,
) -> SdkIndex:
    """The index of ``spec``, from the cache when its key matches, else built and stored.

    ``info`` (when given) receives where the index lives and whether the cache was hit.
    """
    spec.check()
    args = list(args) if args is not None else default_args()
    folder = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    key = cache_key(spec, args)
    safe = "".join(ch if ch.isalnum() or ch in "-._" else "_" for ch in spec.label) or "sdk"
    path = folder / f"{safe}-{key[:24]}.json"
    if path.is_file():
        try:
            index = SdkIndex.from_dict(json.loads(path.read_text(encoding="utf-8")))
            index.target = spec.target
            if info is not None:
                info.append(LoadInfo(path, True))
            return index
        except (OSError, ValueError, KeyError, TypeError):
            pass  # a damaged cache file is rebuilt, never trusted
    index = build_index(spec, args)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        # Write then rename: a concurrent reader sees the old file or the new one, never half.
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(index.to_dict(), fh, separators=(",", ":"))
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only cache folder costs speed, not correctness
    if info is not None:
        info.append(LoadInfo(path, False))
    return index
