"""``brickguard init [DIR]``: write a working ``brickguard.toml`` for an existing project.

What the project's own build files say comes first, in this order: a ``compile_commands.json``
(the real flags of every file), an STM32CubeIDE ``.cproject`` (its C compiler's include paths,
defines, MCU and FPU), an STM32CubeMX ``.ioc`` (the MCU and the middleware it enables), a
Makefile's ``-I``/``-D`` flags. Then the include folders are checked against what the code
includes: an include folder the build files name but that is not on this disk (an example
project copied out of its SDK tree) is searched for by the headers the code needs, in the
folders above the project, and a header found nowhere is named in the summary (``brickguard
check`` then reports it once and parses on without it).

It chooses and says so: the target (triple and ``-mcpu``/FPU flags), the platform profiles
(``cmsis`` for CMSIS/HAL code, ``freertos`` when the kernel's headers are used), the SDK tables
(the vendor HAL as the target SDK, for BG2xx), and the excludes (vendor and RTOS sources, HAL
``*_template.c`` files). Nothing is downloaded and nothing outside DIR is written.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from brickguard.errors import BrickguardError

SEARCH_LEVELS = 8  # how many folders above the project are searched for missing headers
SEARCH_FILES = 200_000  # at most this many files are looked at in that search
_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)
_SKIP_DIRS = {".git", ".svn", "build", "Debug", "Release", ".venv", "node_modules"}
# -mcpu -> the clang triple brickguard parses under.
CORES = {
    "cortex-m0": "thumbv6m-none-eabi", "cortex-m0plus": "thumbv6m-none-eabi",
    "cortex-m1": "thumbv6m-none-eabi", "cortex-m3": "thumbv7m-none-eabi",
    "cortex-m4": "thumbv7em-none-eabi", "cortex-m7": "thumbv7em-none-eabi",
    "cortex-m23": "thumbv8m.base-none-eabi", "cortex-m33": "thumbv8m.main-none-eabi",
    "cortex-m35p": "thumbv8m.main-none-eabi", "cortex-m55": "thumbv8.1m.main-none-eabi",
    "cortex-m85": "thumbv8.1m.main-none-eabi",
}
# STM32 family (from the MCU name) -> its core.
FAMILIES = {
    "STM32F0": "cortex-m0", "STM32G0": "cortex-m0plus", "STM32L0": "cortex-m0plus",
    "STM32C0": "cortex-m0plus", "STM32F1": "cortex-m3", "STM32F2": "cortex-m3",
    "STM32L1": "cortex-m3", "STM32F3": "cortex-m4", "STM32F4": "cortex-m4",
    "STM32G4": "cortex-m4", "STM32L4": "cortex-m4", "STM32WB": "cortex-m4",
    "STM32F7": "cortex-m7", "STM32H7": "cortex-m7", "STM32L5": "cortex-m33",
    "STM32U5": "cortex-m33", "STM32H5": "cortex-m33",
}
VENDOR_DIRS = ("Drivers", "Middlewares", "ThirdParty", "Third_Party", "third_party")


@dataclass
class Project:
    """What init found and chose; ``toml()`` writes it out."""

    root: Path
    out_dir: Path | None = None  # where brickguard.toml goes (default: root)
    sources_from: list[str] = field(default_factory=list)  # what was read, for the summary
    compile_commands: Path | None = None
    include: list[Path] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    mcu: str = ""
    triple: str = "thumbv7em-none-eabi"
    profiles: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    sdk_include: list[Path] = field(default_factory=list)
    found: list[Path] = field(default_factory=list)  # folders found for headers the code needs
    missing_headers: list[str] = field(default_factory=list)
    dropped: list[Path] = field(default_factory=list)  # include folders not on this disk

    def rel(self, path: Path) -> str:
        """A path as the file writes it: relative to the file's own folder."""
        return os.path.relpath(path, self.out_dir or self.root)

    def toml(self) -> str:
        q = json.dumps
        lines = ["# Written by `brickguard init` from " + ", ".join(self.sources_from) + ".",
                 "# Every value is the project's own or a stated choice: edit freely.", "",
                 "[target]", f"triple = {q(self.triple)}"]
        if self.profiles:
            lines.append(f"profile = {q(self.profiles)}")
        if self.mcu:
            lines.append(f"# mcu = {q(self.mcu)}   (the MCU the project names; [target] mcu "
                         "comes with the pin checks)")
        lines += ["", "[build]"]
        if self.out_dir is not None and self.out_dir != self.root:
            lines.append(f"root = {q(self.rel(self.root))}")
        if self.compile_commands is not None:
            lines.append(f"compile_commands = {q(self.rel(self.compile_commands))}")
        lines.append(f"include = {q([self.rel(p) for p in self.include])}")
        for old in self.dropped:
            lines.append(f"#   not on this disk, left out: {old}")
        for new in self.found:
            lines.append(f"#   searched for the headers the code includes: {self.rel(new)}")
        lines.append(f"defines = {q(self.defines)}")
        if self.flags:
            lines.append(f"flags = {q(self.flags)}")
        lines.append(f"exclude = {q(self.exclude)}")
        if self.missing_headers:
            lines.append("# Found nowhere (checked files report them once and parse on): "
                         + ", ".join(self.missing_headers))
        if self.sdk_include:
            lines += ["", "[sdk]   # the vendor HAL: BG2xx check calls against what it declares",
                      'name = "vendor HAL"', "target = true",
                      f"include = {q([self.rel(p) for p in self.sdk_include])}",
                      f"defines = {q(self.defines)}"]
        return "\n".join(lines) + "\n"

    def summary(self) -> list[str]:
        out = [f"read: {', '.join(self.sources_from)}",
               f"target: {self.triple}" + (f" ({self.mcu})" if self.mcu else "")
               + (f", flags {' '.join(self.flags)}" if self.flags else ""),
               f"profiles: {', '.join(self.profiles) or 'all built in (none recognised)'}",
               f"include: {len(self.include)} folders; defines: {' '.join(self.defines) or '-'}",
               f"excludes: {', '.join(self.exclude)}"]
        if self.sdk_include:
            folders = ", ".join(self.rel(p) for p in self.sdk_include)
            out.append(f"SDK table: vendor HAL ({folders})")
        if self.dropped:
            out.append(f"include folders the build files name but not on this disk: "
                       f"{len(self.dropped)} (left out)")
        if self.found:
            out.append("found the headers the code includes in: "
                       + ", ".join(self.rel(d) for d in self.found))
        if self.missing_headers:
            out.append(f"found nowhere: {', '.join(self.missing_headers)} (reported once by check)")
        return out


def init_project(root: Path) -> Project:
    """Read ``root``'s build files and choose the rest: the Project to write."""
    root = root.resolve()
    if not root.is_dir():
        raise BrickguardError(f"{root}: not a folder")
    p = Project(root=root)
    if not _from_compile_commands(p) and not _from_cproject(p) and not _from_makefile(p):
        p.sources_from.append("the source tree (no build files found)")
    _from_ioc(p)
    p.include = [*dict.fromkeys(p.include)]
    p.defines = [*dict.fromkeys(p.defines)]
    if p.compile_commands is None:
        _complete_includes(p)
    _choose(p)
    return p


# -- the build files ------------------------------------------------------------------------------
def _find(root: Path, pattern: str, depth: int = 3) -> list[Path]:
    out = []
    for here, dirs, files in os.walk(root):
        level = Path(here).relative_to(root).parts
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
        if len(level) >= depth:
            dirs[:] = []
        out += [Path(here) / f for f in sorted(files) if Path(f).match(pattern)]
    return out


def _from_compile_commands(p: Project) -> bool:
    databases = [p.root / "compile_commands.json", *sorted(p.root.glob("*/compile_commands.json"))]
    for candidate in databases:
        if candidate.is_file():
            p.compile_commands = candidate
            p.sources_from.append(p.rel(candidate))
            try:
                entries = json.loads(candidate.read_text(encoding="utf-8"))
                first = entries[0]
                argv = first.get("arguments") or shlex.split(first.get("command", ""))
            except (OSError, ValueError, LookupError, AttributeError, TypeError):
                argv = []
            _flags(p, argv, Path(first.get("directory", p.root)) if argv else p.root)
            return True
    return False


def _flags(p: Project, argv: list[str], base: Path) -> None:
    it = iter(argv)
    for a in it:
        if a in ("-I", "-D", "-isystem"):
            a += next(it, "")
        if a.startswith("-I"):
            p.include.append((base / a[2:]).resolve())
        elif a.startswith("-isystem"):
            p.include.append((base / a[8:]).resolve())
        elif a.startswith("-D"):
            p.defines.append(a[2:])
        elif a.startswith(("-mcpu=", "-mfpu=", "-mfloat-abi=")):
            p.flags.append(a)


def _from_cproject(p: Project) -> bool:
    found = _find(p.root, ".cproject", depth=2)
    if not found:
        return False
    path = found[0]
    try:
        tree = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise BrickguardError(f"{path}: not an Eclipse .cproject: {exc}") from exc
    config = tree.find(".//cconfiguration")  # the first one: Debug in STM32CubeIDE projects
    if config is None:
        return False
    p.sources_from.append(p.rel(path) + f" ({config.get('id', '').split('.')[-2] or 'first'}"
                          " configuration)")
    build_dir = path.parent / "Debug"  # CubeIDE's paths are relative to its build folder
    for option in config.iter("option"):
        kind = option.get("superClass", "")
        values = [v.get("value", "") for v in option.iter("listOptionValue")]
        if kind.endswith("c.compiler.option.includepaths"):
            p.include += [(build_dir / v.replace("${ProjDirPath}", str(path.parent))).resolve()
                          for v in values if v]
        elif kind.endswith("c.compiler.option.definedsymbols"):
            p.defines += [v for v in values if v and v != "DEBUG"]
        elif kind.endswith("option.target_mcu") and not p.mcu:
            p.mcu = option.get("value", "")
        elif kind.endswith("option.fpu") and "value." in option.get("value", ""):
            p.flags.append("-mfpu=" + option.get("value", "").rsplit("value.", 1)[1])
        elif kind.endswith("option.floatabi") and "value." in option.get("value", ""):
            p.flags.append("-mfloat-abi=" + option.get("value", "").rsplit("value.", 1)[1])
    p.flags = [*dict.fromkeys(p.flags)]
    return True


def _from_makefile(p: Project) -> bool:
    for path in (p.root / "Makefile", p.root / "makefile", p.root / "GNUmakefile"):
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace").replace("\\\n", " ")
            words = [w for line in text.splitlines() if not line.lstrip().startswith("#")
                     for w in line.split()]
            _flags(p, [w for w in words if "$" not in w], path.parent)
            mcpu = next((w for w in words if w.startswith("-mcpu=")), None)
            if mcpu and mcpu not in p.flags:
                p.flags.append(mcpu)
            p.sources_from.append(p.rel(path) + " (-I/-D flags)")
            return True
    return False


def _from_ioc(p: Project) -> None:
    found = _find(p.root, "*.ioc", depth=2)
    if not found:
        return
    keys = {}
    for line in found[0].read_text(encoding="utf-8", errors="replace").splitlines():
        if "=" in line:
            k, v = line.split("=", 1)
            keys[k.strip()] = v.strip()
    p.sources_from.append(p.rel(found[0]))
    p.mcu = p.mcu or keys.get("Mcu.UserName") or keys.get("Mcu.Name", "")
    ips = {v for k, v in keys.items() if re.fullmatch(r"Mcu\.IP\d+", k)}
    if "FREERTOS" in ips and "freertos" not in p.profiles:
        p.profiles.append("freertos")


# -- include folders: what the code needs, where it is on this disk -----------------------------
def _complete_includes(p: Project) -> None:
    """Drop include folders that do not exist; find the folders of headers the code includes
    and no include folder holds, in the project and then in the folders above it."""
    present = [d for d in p.include if d.is_dir()]
    p.dropped = [d for d in p.include if not d.is_dir()]
    own = sorted({f.parent for f in _files(p.root, (".h",))})
    include = [*present, *(d for d in own if d not in present)]
    index: dict[str, list[Path]] | None = None
    seen_headers: set[Path] = set()
    todo = [f for f in _files(p.root, (".c", ".h")) if not _vendor(p, f)]
    missing: set[str] = set()
    while todo:
        f = todo.pop()
        for name in _includes(f):
            hit = _resolve(name, [f.parent, *include])
            if hit is None:
                if index is None:
                    index = _header_index(p.root)
                hit = _pick(name, index.get(Path(name).name, []), p.root)
                if hit is None:
                    # A vendor header's include under a branch not taken (another device's
                    # header) is not the project's concern; the project's own are.
                    if f.is_relative_to(p.root):
                        missing.add(name)
                    continue
                folder = Path(str(hit)[: -len(name)].rstrip("/"))
                include.append(folder)
                p.found.append(folder)
            if hit not in seen_headers:
                seen_headers.add(hit)
                todo.append(hit)
    p.include = include
    p.missing_headers = sorted(missing)


def _files(root: Path, suffixes: tuple[str, ...]) -> list[Path]:
    out = []
    for here, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
        out += [Path(here) / f for f in sorted(files) if f.endswith(suffixes)]
    return out


def _includes(path: Path) -> list[str]:
    try:
        return [m.decode("utf-8", "replace") for m in _INCLUDE.findall(path.read_bytes())]
    except OSError:
        return []


def _resolve(name: str, folders: list[Path]) -> Path | None:
    for d in folders:
        if (d / name).is_file():
            return (d / name).resolve()
    return None


def _header_index(root: Path) -> dict[str, list[Path]]:
    """Header name -> paths, in the folders above the project (nearest first), bounded."""
    index: dict[str, list[Path]] = {}
    seen = 0
    top = root
    for _ in range(SEARCH_LEVELS):
        if top.parent == top:
            break
        top = top.parent
    for here, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
        for f in files:
            seen += 1
            if f.endswith(".h"):
                index.setdefault(f, []).append(Path(here) / f)
        if seen > SEARCH_FILES:
            break
    return index


def _pick(name: str, candidates: list[Path], root: Path) -> Path | None:
    """The nearest candidate that is not another project's own header (an ``Inc`` folder
    beside a ``Src`` folder is a project's, not an SDK's)."""
    usable = []
    for c in candidates:
        if not str(c).endswith(name):
            continue
        project_like = (c.parent.parent / "Src" / "main.c").is_file()
        if project_like and not c.is_relative_to(root):
            continue
        usable.append(c)
    if not usable:
        return None
    return min(usable, key=lambda c: (len(Path(os.path.relpath(c, root)).parts), str(c)))


# -- the choices ----------------------------------------------------------------------------------
def _vendor(p: Project, path: Path) -> bool:
    rel = Path(os.path.relpath(path, p.root)).parts
    return any(part in VENDOR_DIRS for part in rel[:-1])


def _choose(p: Project) -> None:
    cpu = next((f.split("=", 1)[1] for f in p.flags if f.startswith("-mcpu=")), None)
    if cpu is None and p.mcu:
        cpu = next((core for fam, core in FAMILIES.items() if p.mcu.upper().startswith(fam)), None)
        if cpu is not None:
            p.flags.insert(0, f"-mcpu={cpu}")
    if cpu is not None:
        p.triple = CORES.get(cpu, p.triple)
    headers = {f.name for d in p.include if d.is_dir() for f in d.glob("*.h")}
    if any("hal" in h.lower() for h in headers) or "USE_HAL_DRIVER" in p.defines \
            or any("core_cm" in h for h in headers):
        p.profiles.insert(0, "cmsis")
    if "FreeRTOS.h" in headers and "freertos" not in p.profiles:
        p.profiles.append("freertos")
    if "cmsis_os2.h" in headers and "cmsis-rtos2" not in p.profiles:
        p.profiles.append("cmsis-rtos2")
    p.profiles = [*dict.fromkeys(p.profiles)]
    exclude = [f"{d}/**" for d in VENDOR_DIRS if (p.root / d).is_dir()]
    p.exclude = [*exclude, "**/*_template.c"]
    hal = [d for d in p.include if d.is_dir() and any(d.glob("*_hal.h"))]
    if hal:
        p.sdk_include = hal
