"""Where an SDK's headers are: from ``--sdk`` arguments and ``[sdk]``/``[[sdk]]`` tables.

An SDK is a list of include folders plus a name and a version. On the command line it is a folder
(its ``include/`` subfolder when it has one, else the folder itself) or a small TOML manifest
(``name``, ``version``, ``include = [...]`` relative to the manifest), so that one SDK may span
several folders (a HAL and a middleware) and two versions may share folders.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from brickguard.errors import BrickguardError, ConfigError
from brickguard.tables import checked, from_mapping

HEADER_SUFFIXES = (".h", ".hpp", ".hh")


@dataclass(frozen=True)
class SdkTable:
    """An ``[sdk]`` table of brickguard.toml, or an SDK manifest file: the same keys."""

    include: list[str] = checked(bool, "a non-empty list of folders")
    name: str = ""
    version: str = ""
    target: bool = False
    defines: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class SdkSpec:
    name: str
    version: str
    include: tuple[Path, ...]
    target: bool = False
    defines: tuple[str, ...] = field(default=())

    @property
    def label(self) -> str:
        return f"{self.name} {self.version}".strip()

    def headers(self) -> list[Path]:
        """Every header under the include folders, sorted, so the umbrella TU is stable."""
        found: dict[Path, None] = {}
        for folder in self.include:
            for path in sorted(folder.rglob("*")):
                if path.suffix in HEADER_SUFFIXES and path.is_file():
                    found.setdefault(path.resolve(), None)
        return list(found)

    def check(self) -> None:
        """Raise a BrickguardError naming the path when a folder is missing or holds no header."""
        for folder in self.include:
            if not folder.is_dir():
                raise BrickguardError(f"SDK include folder not found: {folder}")
        if not self.headers():
            folders = ", ".join(str(f) for f in self.include)
            raise BrickguardError(f"SDK {self.label or '?'} has no headers (.h) in: {folders}")


def resolve_sdk(path: Path, name: str | None = None, version: str | None = None) -> SdkSpec:
    """An SDK from a command-line argument: a folder or a TOML manifest."""
    path = Path(path)
    if not path.exists():
        raise BrickguardError(f"SDK path not found: {path}")
    if path.is_file():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise BrickguardError(f"{path}: not a readable SDK manifest (TOML): {exc}") from exc
        table = from_mapping(SdkTable, data, str(path))
        spec = spec_from_table(table, path.resolve().parent)
    else:
        inc = path / "include"
        folder = inc if inc.is_dir() else path
        spec = SdkSpec(name=path.resolve().name, version="", include=(folder.resolve(),))
    spec = SdkSpec(
        name=name or spec.name,
        version=version if version is not None else spec.version,
        include=spec.include,
        target=spec.target,
        defines=spec.defines,
    )
    spec.check()
    return spec


def spec_from_table(table: SdkTable, root: Path) -> SdkSpec:
    """One ``[sdk]`` table (or manifest); include paths are relative to ``root``."""
    folders = tuple(
        (root / p).resolve() if not Path(p).is_absolute() else Path(p) for p in table.include
    )
    return SdkSpec(
        name=table.name or folders[0].name,
        version=table.version,
        include=folders,
        target=table.target,
        defines=tuple(table.defines),
    )


def specs_from_config(value: SdkTable | list[SdkTable], root: Path, where: str) -> list[SdkSpec]:
    """``[sdk]`` (one table) or ``[[sdk]]`` (several); the target is the marked one, else the
    first."""
    tables = value if isinstance(value, list) else [value]
    specs = [spec_from_table(t, root) for t in tables]
    marked = [s for s in specs if s.target]
    if len(marked) > 1:
        raise ConfigError(f"{where}: [sdk] target: only one [[sdk]] may have target = true")
    return pick_target(specs)


def pick_target(specs: list[SdkSpec]) -> list[SdkSpec]:
    """Mark the first spec as the target when none is marked (command-line order decides)."""
    if specs and not any(s.target for s in specs):
        first = specs[0]
        specs = [SdkSpec(first.name, first.version, first.include, True, first.defines), *specs[1:]]
    return specs
