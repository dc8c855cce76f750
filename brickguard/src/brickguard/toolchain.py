"""The target's cross compiler: where it is, and what it knows (sysroot, system include folders).

One place for every part of brickguard that needs the real toolchain: the front end's C library
headers, MISRA's compiler macro, stack usage (``-fstack-usage``) and soak's compilation. Nothing
here downloads anything: the compiler is the user's, or Debian's ``gcc-arm-none-eabi``.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
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

    @property
    def libc_dirs(self) -> tuple[Path, ...]:
        """The C library's folders of the search list: not gcc's own ``lib/gcc/...`` builtin
        headers (stddef.h, stdint.h), which clang brings its own of."""
        return tuple(d for d in self.include_dirs if "/lib/gcc/" not in d.as_posix() + "/")


@dataclass(frozen=True)
class CLibrary:
    """Where the target's C library headers (string.h, stdio.h) come from."""

    include_dirs: tuple[Path, ...]  # empty: none found (libclang's freestanding headers only)
    source: str  # how they were found, for notes: "arm-none-eabi-gcc (/usr/bin/...)", ...


def c_library(configured: str | None = None) -> CLibrary:
    """The cross compiler's C library folders; else Debian's newlib/picolibc; else none."""
    gcc = find_gcc(configured)
    if gcc is not None:
        dirs = tuple(d for d in probe(gcc).libc_dirs if d.is_dir())
        if dirs:
            return CLibrary(dirs, f"{gcc.name} ({gcc})")
    dirs = tuple(fallback_include_dirs())
    if dirs:
        return CLibrary(dirs[:1], f"Debian's C library headers ({dirs[0]})")
    return CLibrary((), "")


# The predefined macros cppcheck needs to take the compiler's branch of CMSIS's
# cmsis_compiler.h (and of the HAL's compiler checks): the compiler's identity and its target.
_MACRO_NAMES = re.compile(
    r"__GNUC(?:_MINOR|_PATCHLEVEL)?__|__ARM_ARCH\w*|__thumb2?__|__ARM_FP|__VFP_FP__|__SOFTFP__"
    r"|__ARMEL__|__ARM_EABI__|__ARM_FEATURE_\w+"
)
_TARGET_FLAG = re.compile(r"-m(?:cpu|arch|fpu|float-abi|thumb|arm)\b")
# When no compiler can be asked: what clang (the front end) says it is, a GCC 4.2 lookalike.
CLANG_LIKE = {"__GNUC__": "4", "__GNUC_MINOR__": "2", "__GNUC_PATCHLEVEL__": "1"}


def compiler_macros(compiler: str | None, flags: Sequence[str] = ()) -> tuple[dict[str, str], str]:
    """(macros, where from) identifying the target's compiler to a tool that is not it.

    ``compiler`` is the compile database's or the config's compiler (a path or a command);
    armclang gives ``__ARMCC_VERSION``, IAR's iccarm ``__ICCARM__``, and a GCC is asked for its
    own (``-dM -E`` with the target flags given). With no compiler to ask, clang's own answer.
    """
    name = os.path.basename(compiler or "")
    if "armclang" in name:
        return {"__ARMCC_VERSION": "6190004"}, name
    if "iccarm" in name:
        return {"__ICCARM__": "1"}, name
    gcc = find_gcc(compiler if compiler and "gcc" in name else None)
    if gcc is not None:
        target = tuple(f for f in flags if _TARGET_FLAG.match(f))
        found = predefined_macros(gcc, target)
        macros = {k: v for k, v in found.items() if _MACRO_NAMES.fullmatch(k)}
        if "__GNUC__" in macros:
            return macros, f"{gcc.name} -dM -E"
    return dict(CLANG_LIKE), "clang's GCC-compatible identity (no target gcc found)"


@functools.lru_cache(maxsize=16)
def predefined_macros(gcc: Path, flags: tuple[str, ...] = ()) -> dict[str, str]:
    """``gcc -dM -E`` with these target flags: every predefined macro and its value."""
    out = _run([str(gcc), *flags, "-dM", "-E", "-xc", "-"], stdin="")
    macros = {}
    for line in out.splitlines():
        parts = line.split(None, 2)
        if len(parts) >= 2 and parts[0] == "#define" and "(" not in parts[1]:
            macros[parts[1]] = parts[2] if len(parts) == 3 else ""
    return macros


def find_gcc(configured: str | None = None, prefix: str = DEFAULT_PREFIX) -> Path | None:
    """The compiler named in the config (a path or a command), else ``{prefix}gcc`` on PATH."""
    name = configured or f"{prefix}gcc"
    found = shutil.which(os.path.expanduser(name))
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
