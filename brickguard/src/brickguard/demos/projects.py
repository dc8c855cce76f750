"""Vendor example projects on disk: one project per folder, its sources, include paths, defines.

A folder is a project when it holds an IDE project file: MDK-ARM ``*.uvprojx``, EWARM ``*.ewp``
or STM32CubeIDE ``.cproject`` (in the folder or in an IDE subfolder beside ``Src``/``Inc``). The
project's own C sources are those its project files list that lie inside the project folder (the
SDK's driver sources the IDE links are the SDK, not the example); the include paths and defines
are the union of what the readable project files say, relative to their own folder.

Vendor trees move: an include path that does not exist here (ST's ``Drivers/STM32F4xx_HAL_Driver
/Inc`` when the HAL was unpacked as ``hal/Inc``) is looked for by the headers the sources
include, in the search roots (the demo folders and the two folders above them). The C library's
headers come from the cross compiler (``brickguard.toolchain``), else Debian's newlib/picolibc.
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from brickguard import toolchain

IDE_DIRS = ("MDK-ARM", "EWARM", "STM32CubeIDE", "SW4STM32", "TrueSTUDIO")
_INCLUDE = re.compile(rb'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)


@dataclass
class Project:
    name: str  # relative to the demo folder it was found in, e.g. "I2C/I2C_TwoBoards_ComIT"
    root: Path
    sources: list[Path] = field(default_factory=list)
    include: list[Path] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)
    ide_files: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # one line each: what could not be read
    wanted: list[Path] = field(default_factory=list)  # the include paths as the IDE files say


def _ide_files(folder: Path) -> list[Path]:
    out: list[Path] = []
    for where in (folder, *(folder / d for d in IDE_DIRS)):
        if where.is_dir():
            out += sorted(where.glob("*.uvprojx")) + sorted(where.glob("*.ewp"))
            if (where / ".cproject").is_file():
                out.append(where / ".cproject")
    return out


def find_projects(folder: Path) -> list[Project]:
    """Every project under ``folder`` (a project's own subfolders are not searched further)."""
    found: list[Project] = []
    for dirpath, dirnames, _ in os.walk(folder):
        here = Path(dirpath)
        if here.name in IDE_DIRS:
            dirnames[:] = []
            continue
        files = _ide_files(here)
        if files:
            dirnames[:] = []
            name = str(here.relative_to(folder)) if here != folder else here.name
            found.append(read_project(name, here, files))
        else:
            dirnames.sort()
    return found


def _path(base: Path, text: str) -> Path:
    text = text.strip().replace("\\", "/")
    for var in ("$PROJ_DIR$/", "${ProjDirPath}/", "${workspace_loc:/${ProjName}/"):
        if text.startswith(var):
            text = text[len(var):]
    text = text.rstrip("}")
    return Path(os.path.normpath(base / text))


def _read_xml(path: Path) -> ET.Element:
    return ET.fromstring(path.read_bytes())


def _uvprojx(path: Path, p: Project) -> None:
    root = _read_xml(path)
    base = path.parent
    for inc in root.iter("IncludePath"):
        for part in (inc.text or "").split(";"):
            if part.strip():
                p.include.append(_path(base, part))
    for d in root.iter("Define"):
        p.defines += [x.strip() for x in re.split(r"[,\s]+", d.text or "") if x.strip()]
    for fp in root.iter("FilePath"):
        p.sources.append(_path(base, fp.text or ""))


def _ewp(path: Path, p: Project) -> None:
    root = _read_xml(path)
    base = path.parent
    for opt in root.iter("option"):
        name = opt.findtext("name")
        states = [s.text or "" for s in opt.findall("state")]
        if name == "CCIncludePath2":
            p.include += [_path(base, s) for s in states if s.strip()]
        elif name == "CCDefines":
            p.defines += [s.strip() for s in states if s.strip()]
    for f in root.iter("file"):
        p.sources.append(_path(base, f.findtext("name") or ""))


def _cproject(path: Path, p: Project) -> None:
    root = _read_xml(path)
    base = path.parent
    for opt in root.iter("option"):
        kind = opt.get("valueType")
        sup = opt.get("superClass") or ""
        if ".c.compiler." not in sup and "compiler" not in sup:
            continue
        values = [v.get("value") or "" for v in opt.iter("listOptionValue")]
        if kind == "includePath":
            p.include += [_path(base, v) for v in values if v.strip()]
        elif kind == "definedSymbols":
            p.defines += [v.strip() for v in values if v.strip()]


_READERS = {".uvprojx": _uvprojx, ".ewp": _ewp, ".cproject": _cproject}


def read_project(name: str, root: Path, ide_files: list[Path]) -> Project:
    p = Project(name, root)
    for f in ide_files:
        try:
            _READERS[f.suffix or f.name](f, p)
            p.ide_files.append(f)
        except (OSError, ET.ParseError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            p.notes.append(f"{f}: cannot read this IDE project file ({why}); skipped")
    own = [s for s in p.sources if s.suffix == ".c" and s.is_file() and _inside(s, root)]
    if not own and p.ide_files:
        # A project file that lists no sources (.cproject): the project's own Src folder.
        own = sorted(q for q in root.rglob("*.c") if not _in_ide_dir(q, root))
    p.sources = _unique(own)
    p.include = _unique(p.include)
    p.wanted = list(p.include)
    p.defines = list(dict.fromkeys(p.defines))
    return p


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
        return True
    except ValueError:
        return False


def _in_ide_dir(path: Path, root: Path) -> bool:
    return any(part in IDE_DIRS for part in path.relative_to(root).parts)


def _unique(paths: list[Path]) -> list[Path]:
    return list(dict.fromkeys(paths))


class HeaderFinder:
    """Where headers named by ``#include`` live under the search roots (file name -> folders),
    for include paths the project files name but this machine lays out differently."""

    def __init__(self, roots: list[Path], skip: list[Path]) -> None:
        self.by_name: dict[str, list[Path]] = {}
        self._includes: dict[Path, list[str]] = {}
        self.skip = {s.resolve() for s in skip}
        self.walked: set[Path] = set()
        for r in roots:
            self.add(r)

    def add(self, root: Path) -> None:
        """Search ``root`` too (the folders already searched are not walked again)."""
        for dirpath, dirnames, filenames in os.walk(root):
            here = Path(dirpath).resolve()
            if here in self.skip or here in self.walked:
                dirnames[:] = []
                continue
            self.walked.add(here)
            dirnames[:] = [d for d in sorted(dirnames) if not d.startswith(".")]
            for fn in filenames:
                if fn.endswith(".h"):
                    self.by_name.setdefault(fn, []).append(here)

    def includes(self, f: Path) -> list[str]:
        """The names ``f`` includes (each header is read once for all projects)."""
        if f not in self._includes:
            try:
                text = f.read_bytes()
            except OSError:
                text = b""
            self._includes[f] = [m.decode("utf-8", "replace") for m in _INCLUDE.findall(text)]
        return self._includes[f]

    def complete(self, p: Project) -> list[str]:
        """Replace the project's missing include folders by the folders of the headers its
        sources include (transitively) that are not found on the existing ones; the headers
        found nowhere."""
        present = [d for d in p.wanted if d.is_dir()]
        missing = [d for d in p.wanted if not d.is_dir()]
        seen: set[str] = set()
        todo = list(p.sources)
        added: list[Path] = []
        lost: list[str] = []
        while todo:
            f = todo.pop()
            for name in self.includes(f):
                if name in seen:
                    continue
                seen.add(name)
                hit = next((d / name for d in [f.parent, *present, *added]
                            if (d / name).is_file()), None)
                if hit is None and missing:
                    dirs = self.by_name.get(Path(name).name, [])
                    if dirs:
                        added.append(dirs[0])
                        hit = dirs[0] / Path(name).name
                if hit is not None:
                    todo.append(hit)
                elif missing:
                    lost.append(name)
        p.include = _unique(present + added)
        return lost


def system_include_dirs() -> list[Path]:
    """The C library's headers: the cross compiler's own, else Debian's newlib/picolibc."""
    gcc = toolchain.find_gcc()
    if gcc is not None:
        dirs = [d for d in toolchain.probe(gcc).include_dirs if (d / "string.h").is_file()]
        if dirs:
            return dirs
    return toolchain.fallback_include_dirs()
