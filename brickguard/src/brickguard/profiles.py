"""Platform profiles: what an RTOS or a bare-metal SDK says about its own API, as data.

A profile is a TOML file under ``data/profiles/`` (or the user's own, named in ``brickguard.toml``)
that speaks the configuration's words plus an ``[api]`` and a ``[dma]`` table:

```toml
name = "freertos"
description = "FreeRTOS kernel"
[interrupts]      # patterns, callbacks, registrations: as in brickguard.toml
[tasks]           # creators
[critical]        # pairs
[api]
blocks = ["vTaskDelay"]                       # waits for time or another task (BG110)
allocates = ["pvPortMalloc"]                  # takes a heap lock (BG110)
prints = ["printf"]                           # slow, buffered, often locked (BG110)
waits = [{function = "osSemaphoreAcquire", arg = 1, nowait = ["0"]}]  # blocks unless arg is nowait
isr_variants = {xQueueSend = "xQueueSendFromISR"}   # task API -> its interrupt-safe twin (BG111)
nonreentrant = {strtok = "strtok_r"}          # keeps hidden state -> reentrant twin (BG112)
interrupt_safe = ["xQueueSendFromISR"]        # documented as callable from an ISR
[dma]
tx = [{function = "HAL_UART_Transmit_DMA", arg = 1}]   # arg: the buffer's 0-based index
rx = [{function = "HAL_UART_Receive_DMA", arg = 1}]
clean = [{function = "SCB_CleanDCache_by_Addr", arg = 0}]
invalidate = [{function = "SCB_InvalidateDCache_by_Addr", arg = 0}]
clean_all = ["SCB_CleanDCache"]
invalidate_all = ["SCB_InvalidateDCache"]
```

``common`` (the C library) is always loaded. With no profile selected every built-in profile is,
so the defaults fit mixed CMSIS / HAL / RTOS code as the rest of the configuration does.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from brickguard.errors import ConfigError

PROFILE_DIR = Path(__file__).resolve().parent / "data" / "profiles"
COMMON = "common"
_TOP_KEYS = {"name", "description", "interrupts", "tasks", "critical", "api", "dma"}
_API_KEYS = {
    "blocks", "allocates", "prints", "waits", "isr_variants", "nonreentrant", "interrupt_safe",
}
_DMA_KEYS = {"tx", "rx", "clean", "invalidate", "clean_all", "invalidate_all"}


@dataclass(frozen=True)
class Wait:
    """A call that blocks unless its timeout argument says not to wait."""

    arg: int  # 0-based index of the timeout argument
    nowait: tuple[str, ...]  # spellings of "do not wait", e.g. ("0", "K_NO_WAIT")


@dataclass
class Platform:
    """Every selected profile merged: what the interrupt-safety and DMA rules look up."""

    profiles: list[str] = field(default_factory=list)
    blocking: dict[str, str] = field(default_factory=dict)  # function -> why, e.g. "blocks"
    waits: dict[str, Wait] = field(default_factory=dict)
    isr_variants: dict[str, str] = field(default_factory=dict)
    nonreentrant: dict[str, str] = field(default_factory=dict)  # function -> reentrant twin or ""
    interrupt_safe: set[str] = field(default_factory=set)
    dma_tx: dict[str, int] = field(default_factory=dict)  # function -> buffer argument index
    dma_rx: dict[str, int] = field(default_factory=dict)
    cache_clean: dict[str, int] = field(default_factory=dict)
    cache_invalidate: dict[str, int] = field(default_factory=dict)
    clean_all: set[str] = field(default_factory=set)
    invalidate_all: set[str] = field(default_factory=set)
    # What the profiles add to the configuration's own lists.
    interrupt_patterns: list[str] = field(default_factory=list)
    interrupt_callbacks: list[str] = field(default_factory=list)
    interrupt_registrations: list[tuple[str, int]] = field(default_factory=list)
    task_creators: list[tuple[str, int]] = field(default_factory=list)
    critical_pairs: list[tuple[str, str]] = field(default_factory=list)

    def watched_calls(self) -> frozenset[str]:
        """Names whose macro uses and argument texts the front end records."""
        return frozenset(
            {*self.blocking, *self.waits, *self.isr_variants, *self.nonreentrant}
            | {*self.dma_tx, *self.dma_rx, *self.cache_clean, *self.cache_invalidate}
            | self.clean_all
            | self.invalidate_all
        )

    def arg_calls(self) -> frozenset[str]:
        """Names whose argument expressions the front end records (timeouts, DMA buffers)."""
        return frozenset(
            {*self.waits, *self.dma_tx, *self.dma_rx, *self.cache_clean, *self.cache_invalidate}
        )


def builtin_profiles() -> list[str]:
    """Names of the profiles shipped with brickguard (``common`` excluded: always on)."""
    return sorted(p.stem for p in PROFILE_DIR.glob("*.toml") if p.stem != COMMON)


@lru_cache(maxsize=64)
def _read(path: Path) -> dict[str, Any]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read profile: {exc.strerror or exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: profile is not valid TOML: {exc}") from exc
    _validate(path, data)
    return data


def _validate(path: Path, data: dict[str, Any]) -> None:
    def bad(what: str) -> ConfigError:
        return ConfigError(f"{path}: {what}")

    unknown = set(data) - _TOP_KEYS
    if unknown:
        raise bad(f"unknown profile keys {sorted(unknown)} (known: {sorted(_TOP_KEYS)})")
    for table, known in (("api", _API_KEYS), ("dma", _DMA_KEYS)):
        extra = set(data.get(table, {})) - known
        if extra:
            raise bad(f"unknown keys in [{table}]: {sorted(extra)} (known: {sorted(known)})")
    api, dma = data.get("api", {}), data.get("dma", {})
    for key in ("blocks", "allocates", "prints", "interrupt_safe"):
        if not _strs(api.get(key, [])):
            raise bad(f"[api] {key} must be a list of function names")
    for key in ("clean_all", "invalidate_all"):
        if not _strs(dma.get(key, [])):
            raise bad(f"[dma] {key} must be a list of function names")
    for key in ("isr_variants", "nonreentrant"):
        v = api.get(key, {})
        if not (isinstance(v, dict) and _strs(list(v.values()))):
            raise bad(f'[api] {key} must be a table of "name" = "alternative"')
    for w in api.get("waits", []):
        if not (isinstance(w, dict) and isinstance(w.get("function"), str)
                and _int(w.get("arg")) and _strs(w.get("nowait", []))):
            raise bad('[api] waits entries are {function = "f", arg = N, nowait = ["0"]}')
    regs = [("dma", k, dma.get(k, [])) for k in ("tx", "rx", "clean", "invalidate")]
    ints, tasks = data.get("interrupts", {}), data.get("tasks", {})
    regs += [("interrupts", "registrations", ints.get("registrations", [])),
             ("tasks", "creators", tasks.get("creators", []))]
    for table, key, entries in regs:
        for r in entries if isinstance(entries, list) else [None]:
            if not (isinstance(r, dict) and isinstance(r.get("function"), str)
                    and _int(r.get("arg"))):
                raise bad(f'[{table}] {key} entries are {{function = "f", arg = N}}')
    for key in ("patterns", "callbacks"):
        if not _strs(ints.get(key, [])):
            raise bad(f"[interrupts] {key} must be a list of strings")
    pairs = data.get("critical", {}).get("pairs", [])
    if not (isinstance(pairs, list) and all(
            isinstance(x, list) and len(x) == 2 and _strs(x) for x in pairs)):
        raise bad('[critical] pairs must be a list of ["begin", "end"] pairs')


def _strs(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(s, str) for s in v)


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def resolve_profile(name: str, root: Path | None = None) -> Path:
    """A built-in profile by name, or a profile file (relative to ``root``)."""
    builtin = PROFILE_DIR / f"{name}.toml"
    if "/" not in name and not name.endswith(".toml"):
        if builtin.is_file():
            return builtin
        known = ", ".join(builtin_profiles())
        raise ConfigError(f"unknown profile {name!r} (built in: {known}; or a path to a .toml)")
    path = Path(name)
    if not path.is_absolute() and root is not None:
        path = root / path
    if not path.is_file():
        raise ConfigError(f"{path}: profile file not found")
    return path.resolve()


def load_platform(
    profiles: list[str] | None = None, extra_files: list[Path] | None = None,
    root: Path | None = None,
) -> Platform:
    """Merge ``common``, the named profiles (all built-in ones when None) and extra files."""
    names = builtin_profiles() if profiles is None else list(profiles)
    paths = [PROFILE_DIR / f"{COMMON}.toml", *(resolve_profile(n, root) for n in names)]
    paths += [Path(p) for p in extra_files or []]
    plat = Platform(profiles=[*names, *(str(p) for p in extra_files or [])])
    for path in paths:
        _merge(plat, _read(Path(path).resolve()))
    return plat


def _merge(plat: Platform, data: dict[str, Any]) -> None:
    api, dma = data.get("api", {}), data.get("dma", {})
    for why in ("blocks", "allocates", "prints"):
        for name in api.get(why, []):
            plat.blocking.setdefault(name, why)
    for w in api.get("waits", []):
        plat.waits[w["function"]] = Wait(w["arg"], tuple(w.get("nowait", ["0"])))
    plat.isr_variants.update(api.get("isr_variants", {}))
    plat.nonreentrant.update(api.get("nonreentrant", {}))
    plat.interrupt_safe.update(api.get("interrupt_safe", []))
    for key, target in (("tx", plat.dma_tx), ("rx", plat.dma_rx), ("clean", plat.cache_clean),
                        ("invalidate", plat.cache_invalidate)):
        for r in dma.get(key, []):
            target[r["function"]] = r["arg"]
    plat.clean_all.update(dma.get("clean_all", []))
    plat.invalidate_all.update(dma.get("invalidate_all", []))
    ints, tasks = data.get("interrupts", {}), data.get("tasks", {})
    _extend(plat.interrupt_patterns, ints.get("patterns", []))
    _extend(plat.interrupt_callbacks, ints.get("callbacks", []))
    _extend(plat.interrupt_registrations,
            [(r["function"], r["arg"]) for r in ints.get("registrations", [])])
    _extend(plat.task_creators, [(r["function"], r["arg"]) for r in tasks.get("creators", [])])
    _extend(plat.critical_pairs, [(a, b) for a, b in data.get("critical", {}).get("pairs", [])])


def _extend(into: list, items: list) -> None:
    for item in items:
        if item not in into:
            into.append(item)


@lru_cache(maxsize=1)
def _default() -> Platform:
    return load_platform(None)


def default_platform() -> Platform:
    """Every built-in profile merged (a fresh copy: callers may extend it)."""
    import copy

    return copy.deepcopy(_default())
