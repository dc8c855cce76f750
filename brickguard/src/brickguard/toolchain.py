"""The target's cross compiler: where it is, and what it knows (sysroot, system include folders).

One place for every part of brickguard that needs the real toolchain: the front end's C library
headers, MISRA's compiler macro, stack usage (``-fstack-usage``) and soak's compilation. Nothing
here downloads anything: the compiler is the user's, or Debian's ``gcc-arm-none-eabi``.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

DEFAULT_PREFIX = "arm-none-eabi-"
INSTALL_HINT = "apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi"
# Debian's C libraries for bare-metal Arm, when no compiler says where its own are.
FALLBACK_INCLUDES = (
    Path("/usr/lib/arm-none-eabi/include"),  # libnewlib-arm-none-eabi
    Path("/usr/lib/picolibc/arm-none-eabi/include"),  # picolibc-arm-none-eabi
)


@dataclass(frozen=True)
class Toolchain:
    """A cross compiler found on this machine and the facts it reported about itself."""

    gcc: Path
    sysroot: Path | None
    include_dirs: tuple[Path, ...]


def find_gcc(configured: str | None = None, prefix: str = DEFAULT_PREFIX) -> Path | None:
    """The compiler named in the config (a path or a command), else ``{prefix}gcc`` on PATH."""
    name = configured or f"{prefix}gcc"
    found = shutil.which(name)
    return Path(found) if found else None


@functools.lru_cache(maxsize=8)
def probe(gcc: Path) -> Toolchain:
    """Ask ``gcc`` for its sysroot and its system include search list (``-xc -E -v -``)."""
    sysroot_out = _run([str(gcc), "-print-sysroot"]).strip()
    verbose = _run([str(gcc), "-xc", "-E", "-v", "-"], stdin="")
    return Toolchain(
        gcc=gcc,
        sysroot=Path(sysroot_out) if sysroot_out else None,
        include_dirs=tuple(parse_search_list(verbose)),
    )


def parse_search_list(verbose: str) -> list[Path]:
    """The folders gcc lists after ``#include <...> search starts here:``, up to its end line."""
    dirs: list[Path] = []
    inside = False
    for line in verbose.splitlines():
        if line.startswith("#include <...> search starts here:"):
            inside = True
        elif line.startswith("End of search list."):
            break
        elif inside and line.startswith(" "):
            dirs.append(Path(line.strip()).resolve())
    return dirs


def fallback_include_dirs() -> list[Path]:
    """Debian's newlib or picolibc headers, where installed (when no cross compiler is found)."""
    return [path for path in FALLBACK_INCLUDES if (path / "string.h").is_file()]


def _run(argv: list[str], stdin: str | None = None) -> str:
    try:
        proc = subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    # gcc -v writes its search list to stderr; -print-sysroot writes to stdout.
    return proc.stdout + proc.stderr
