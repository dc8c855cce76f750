"""How the project is built, as the front end needs it: the compile database's flags per file,
and the folder with the compiler's builtin headers (``stddef.h``, ``stdint.h``), which the PyPI
``libclang`` wheel does not ship."""

from __future__ import annotations

import glob
import json
import os
import re
import shlex
from pathlib import Path

from brickguard.errors import BrickguardError

RESOURCE_GLOBS = (
    "/usr/lib/llvm-*/lib/clang/*/include",
    "/usr/lib/clang/*/include",
    "/usr/local/lib/clang/*/include",
    "/usr/lib/gcc/*/*/include",
)
RESOURCE_HINT = "install libclang-common-14-dev (Debian) or pass [build] resource_dir"
BUILTIN_HEADER = re.compile(
    r"'(stddef|stdint|stdarg|stdbool|float|limits|stdalign)\.h' file not found"
)


def find_resource_dir(configured: Path | None = None) -> Path | None:
    """The folder with clang's builtin headers: the configured one, else the newest found."""
    if configured is not None:
        return configured if (configured / "stddef.h").is_file() else None
    for pattern in RESOURCE_GLOBS:
        found = [Path(p) for p in glob.glob(pattern) if (Path(p) / "stddef.h").is_file()]
        if found:
            return sorted(found, key=lambda p: _version_key(str(p)))[-1]
    return None


def _version_key(path: str) -> list[int]:
    return [int(n) for n in re.findall(r"\d+", path)]


def load_compile_commands(path: Path) -> dict[str, tuple[str, list[str]]]:
    """``{absolute file: (directory, clang arguments)}`` from a compile database."""
    try:
        entries = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise BrickguardError(f"{path}: cannot read compile database: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise BrickguardError(f"{path}: compile database is not valid JSON: {exc}") from exc
    if not isinstance(entries, list):
        raise BrickguardError(f"{path}: compile database must be a JSON list")
    out: dict[str, tuple[str, list[str]]] = {}
    for e in entries:
        if not isinstance(e, dict) or "file" not in e or "directory" not in e:
            raise BrickguardError(f"{path}: each entry needs 'directory' and 'file'")
        # A relative directory is relative to the database's own folder.
        directory = os.path.join(os.path.dirname(os.path.abspath(path)), e["directory"])
        argv = e.get("arguments") or shlex.split(e.get("command", ""))
        file = os.path.normpath(os.path.join(directory, e["file"]))
        out[file] = (directory, _clean_argv(argv[1:], e["file"]))
    return out


def database_compiler(path: Path) -> str | None:
    """The compiler the compile database's first entry runs (``arm-none-eabi-gcc``...)."""
    try:
        entries = json.loads(Path(path).read_text(encoding="utf-8"))
        first = entries[0]
        argv = first.get("arguments") or shlex.split(first.get("command", ""))
        return argv[0] if argv else None
    except (OSError, ValueError, LookupError, AttributeError, TypeError):
        return None


def _clean_argv(argv: list[str], file: str) -> list[str]:
    """Drop what is about producing output (-c, -o x, the source itself); keep the rest."""
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
            continue
        if a in ("-c", "-S", "-E"):
            continue
        if a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
            continue
        if a.startswith(("-o", "-MF")) and len(a) > 2 or a in ("-MD", "-MMD"):
            continue
        if a == file or os.path.basename(a) == os.path.basename(file) and a.endswith(".c"):
            continue
        out.append(a)
    return out
