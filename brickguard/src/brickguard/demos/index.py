"""Build the demo index: find the example projects, parse each with the front end (its own
include paths and defines), model each program, mine the rules; cached on disk by content.

Parsing is the cost (a few tenths of a second per unit): units are parsed in worker processes.
The cache key covers the index format, libclang, the mining threshold, and the bytes of every
project file, source and header folder the projects use, so a changed example is re-mined and
an unchanged one loads from JSON.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from brickguard.config import Config
from brickguard.demos.mine import mine
from brickguard.demos.model import DEFAULT_MIN_SUPPORT, FORMAT, DemoIndex, Site
from brickguard.demos.projects import HeaderFinder, Project, find_projects, system_include_dirs
from brickguard.demos.protocol import ProgramModel
from brickguard.facts import UnitFacts, UseFact
from brickguard.frontend import FrontEnd
from brickguard.sdk.cache import _clang_version


def discover(folders: Sequence[Path], notes: list[str],
             search: Sequence[Path] = ()) -> list[Project]:
    """The projects under ``folders``, their include paths completed; a folder with none, or a
    project without sources, is one line in ``notes``."""
    projects: list[Project] = []
    for folder in folders:
        folder = Path(folder)
        if not folder.is_dir():
            notes.append(f"{folder}: no such demo folder; skipped")
            continue
        found = find_projects(folder)
        if not found:
            notes.append(f"{folder}: no example project found (no .uvprojx, .ewp or .cproject "
                         "file); skipped")
        projects += found
    # A header the IDE's include paths do not reach is looked for beside the examples (the
    # demo folders and the two folders above each: the SDK unpacked next to its examples),
    # and in the search folders given.
    roots: list[Path] = [Path(r) for r in search]
    for folder in folders:
        folder = Path(folder)
        if folder.is_dir():
            roots += [folder, folder.parent, folder.parent.parent]
    finder = HeaderFinder(list(dict.fromkeys(r.resolve() for r in roots)),
                          [p.root for p in projects])
    usable = []
    for p in projects:
        notes.extend(p.notes)
        if not p.ide_files:
            continue
        if not p.sources:
            notes.append(f"{p.root}: its project files name no C source that exists; skipped")
            continue
        finder.complete(p)
        usable.append(p)
    return usable


_NOT_FOUND = re.compile(r"'([^']+)' file not found")


def cache_key(projects: Sequence[Project], min_support: int) -> str:
    h = hashlib.sha256(f"{FORMAT}\0{_clang_version()}\0{min_support}\0".encode())
    dirs: dict[Path, None] = {}
    for p in projects:
        h.update(f"{p.name}\0{p.defines}\0".encode())
        for f in [*p.ide_files, *p.sources]:
            h.update(str(f).encode() + b"\0" + _digest(f))
        for d in p.include:
            dirs.setdefault(d, None)
    for d in dirs:
        for f in sorted(d.glob("*.h")):
            h.update(str(f).encode() + b"\0" + _digest(f))
    return h.hexdigest()


def _digest(f: Path) -> bytes:
    try:
        return hashlib.sha256(f.read_bytes()).digest()
    except OSError:
        return b"unreadable"


def _config(p: Project, system: list[Path]) -> Config:
    flags = [x for d in system for x in ("-isystem", str(d))]
    return Config(root=p.root, include=list(p.include), defines=list(p.defines),
                  extra_flags=flags, collect_uses=True, uses_only=True, jobs=1)


def _parse(job: tuple[Config, str]) -> UnitFacts:
    return FrontEnd(job[0]).parse(job[1])


def _under(file: str, dirs: Sequence[Path]) -> bool:
    return bool(file) and any(file.startswith(str(d) + os.sep) for d in dirs)


def model_of(p: Project, units: list[UnitFacts]) -> ProgramModel:
    """The example's program model: an API is what the SDK's headers (the include folders
    outside the project) declare or define."""
    sdk = [d.resolve() for d in p.include if not str(d.resolve()).startswith(str(p.root.resolve()))]

    def api(x: UseFact) -> str | None:
        if x.kind == "call":
            return x.name if _under(x.declared_in, sdk) else None
        # The innermost SDK name: the SDK's own legacy aliases resolved too
        # (__USART2_CLK_ENABLE is __HAL_RCC_USART2_CLK_ENABLE).
        return next((n for n, f in reversed(x.chain) if _under(f, sdk)), None)

    return ProgramModel(units, api, Config(root=p.root).interrupt_patterns)


def build(folders: Sequence[Path], min_support: int = DEFAULT_MIN_SUPPORT, jobs: int = 0,
          projects: list[Project] | None = None, notes: list[str] | None = None,
          search: Sequence[Path] = ()) -> DemoIndex:
    start = time.perf_counter()
    notes = [] if notes is None else notes
    if projects is None:
        projects = discover(folders, notes, search)
    models = models_of(projects, jobs, notes)
    index = index_of(models, min_support, notes)
    index.folders = [str(Path(f).resolve()) for f in folders]
    index.projects = [{"name": p.name, "root": str(p.root), "sources": [str(s) for s in p.sources],
                       "include": [str(d) for d in p.include]} for p in projects
                      if p.name in models]
    index.seconds = round(time.perf_counter() - start, 3)
    return index


def parse_projects(projects: Sequence[Project], jobs: int = 0) -> dict[str, list[UnitFacts]]:
    """Every project's units, parsed in worker processes."""
    system = system_include_dirs()
    jobs_list = [(p.name, (_config(p, system), str(s))) for p in projects for s in p.sources]
    workers = min(jobs or os.cpu_count() or 1, len(jobs_list)) or 1
    if workers <= 1:
        units = [_parse(j) for _, j in jobs_list]
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            units = list(pool.map(_parse, [j for _, j in jobs_list], chunksize=2))
    out: dict[str, list[UnitFacts]] = {p.name: [] for p in projects}
    for (name, _), u in zip(jobs_list, units, strict=True):
        out[name].append(u)
    return out


def models_of(projects: Sequence[Project], jobs: int, notes: list[str]) -> dict[str, ProgramModel]:
    parsed = parse_projects(projects, jobs)
    models: dict[str, ProgramModel] = {}
    lost: dict[str, set[str]] = {}
    for p in projects:
        for u in parsed[p.name]:
            for d in u.diagnostics:
                m = _NOT_FOUND.search(d.message)
                if m:
                    lost.setdefault(m.group(1), set()).add(p.name)
    for name, who in sorted(lost.items()):
        notes.append(f"{name}: not found for {len(who)} example project(s), on their include "
                     "paths or beside them; parsed on without it")
    for p in projects:
        units = parsed[p.name]
        if all(any(d.severity == "fatal" and d.message.startswith("cannot parse")
                   for d in u.diagnostics) for u in units):
            notes.append(f"{p.root}: no source of this project could be parsed; skipped")
            continue
        models[p.name] = model_of(p, units)
    return models


def index_of(models: dict[str, ProgramModel], min_support: int, notes: list[str]) -> DemoIndex:
    """Mine ``models`` (example name -> program) into an index."""
    index = DemoIndex(min_support=min_support, notes=notes)
    index.rules = mine(models, min_support)
    vocab: set[str] = set()
    inst: set[str] = set()
    for name, m in models.items():
        vocab.update(e.name for e in m.present)
        inst.update(m.known_instances)
        for cb, t in m.sdk_callbacks.items():
            index.callbacks.setdefault(cb, t)
        for d in m.defs.values():
            if d.name in m.sdk_callbacks:
                t = m.sdk_callbacks[d.name]
                index.defined_callbacks.setdefault(t, {}).setdefault(d.name, []).append(
                    Site(name, d.where.file, d.where.line, d.name))
    index.vocabulary = sorted(vocab)
    index.instances = sorted(inst)
    if not models:
        notes.append("no example project could be used; the BG4xx checks do not run")
    elif not index.rules:
        notes.append(
            f"the {len(models)} example project(s) support no protocol rule (a rule needs "
            f"{min_support} examples using one API that agree); the BG4xx checks do not run")
    return index


def default_cache_dir(root: Path | None = None) -> Path:
    from brickguard.sdk.cache import default_cache_dir as sdk_dir

    return sdk_dir(root).parent / "demos"


def load_index(folders: Sequence[Path], min_support: int = DEFAULT_MIN_SUPPORT,
               cache_dir: Path | None = None, jobs: int = 0,
               info: list[tuple[Path, bool]] | None = None,
               search: Sequence[Path] = ()) -> DemoIndex:
    """The index of ``folders``: from the cache when nothing it was built from changed.

    Two keys: the contents of every file the index was built from (read, parsed, hashed), and
    before it a fast path, the size and modification time of each of those files (a file
    touched without change fails the fast path and is then matched by content)."""
    folder = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    manifest = folder / f"demos-files-{_folders_key([*folders, *search], min_support)}.json"
    index = _fast(manifest)
    if index is not None:
        if info is not None:
            info.append((manifest, True))
        return index
    notes: list[str] = []
    projects = discover(folders, notes, search)
    path = folder / f"demos-{cache_key(projects, min_support)[:24]}.json"
    index = _read(path)
    hit = index is not None
    if index is None:
        index = build(folders, min_support, jobs, projects, notes)
        save(index, path)
    _write_manifest(manifest, path, projects)
    if info is not None:
        info.append((path, hit))
    return index


def _folders_key(folders: Sequence[Path], min_support: int) -> str:
    text = "\0".join([str(FORMAT), _clang_version(), str(min_support),
                      *(str(Path(f).resolve()) for f in folders)])
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _inputs(projects: Sequence[Project]) -> list[Path]:
    files: dict[Path, None] = {}
    for p in projects:
        for f in [*p.ide_files, *p.sources]:
            files.setdefault(f, None)
        for d in p.include:
            for h in sorted(d.glob("*.h")):
                files.setdefault(h, None)
        for f in sorted(p.root.rglob("*")):
            if f.is_file():
                files.setdefault(f, None)  # a new or removed project file changes the projects
    return list(files)


def _stat(f: Path) -> list[int]:
    try:
        st = f.stat()
        return [st.st_size, st.st_mtime_ns]
    except OSError:
        return [-1, -1]


def _write_manifest(manifest: Path, index: Path, projects: Sequence[Project]) -> None:
    data = {"index": str(index), "files": {str(f): _stat(f) for f in _inputs(projects)}}
    try:
        manifest.parent.mkdir(parents=True, exist_ok=True)
        manifest.write_text(json.dumps(data), encoding="utf-8")
    except OSError:
        pass


def _fast(manifest: Path) -> DemoIndex | None:
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
        files = data["files"]
        if any(_stat(Path(f)) != st for f, st in files.items()):
            return None
        return _read(Path(data["index"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _read(path: Path) -> DemoIndex | None:
    if not path.is_file():
        return None
    try:
        return DemoIndex.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return None  # a damaged cache file is rebuilt, never trusted


def save(index: DemoIndex, path: Path) -> None:
    """Write then rename (a reader sees the old file or the new one); a read-only cache folder
    costs speed, not correctness."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(index.to_dict(), fh, separators=(",", ":"))
        os.replace(tmp, path)
    except OSError:
        pass


def read_index(path: Path) -> DemoIndex:
    """A prebuilt DEMOS.json; ValueError with a one-line reason when it is not one."""
    try:
        return DemoIndex.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))
    except OSError as exc:
        raise ValueError(f"{path}: cannot read the demo index ({exc.strerror or exc})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: not a demo index (not JSON: {exc})") from None
    except (KeyError, TypeError) as exc:
        raise ValueError(f"{path}: not a demo index (missing {exc})") from None
