"""Platform profiles: what an RTOS or a bare-metal SDK says about its own API, as data.

A profile is a TOML file under ``data/profiles/`` (or the user's own, named in ``brickguard.toml``)
that speaks the configuration's words plus an ``[api]`` and a ``[dma]`` table:

```toml
name = "freertos"
description = "FreeRTOS kernel"
defaults = false  # true: a vendor SDK table whose sections/registrations join the defaults
[interrupts]      # patterns, callbacks, registrations, from_asm, start_off, enable: as in
                  # brickguard.toml
[tasks]           # creators; priority_args = {xTaskCreate = 4} (BG113); callbacks = [globs of
                  # calls whose callback runs in a thread, not an interrupt] (callbacks.py);
                  # deferrals = [globs: a thread start or a queue to one, for calls whose
                  # words say nothing (callbacks.unnamed_entries)]; timers = [globs: calls
                  # whose callback the RTOS timer task runs], sched_locks / sched_unlocks =
                  # [globs: a scheduler lock, which holds that task off]
[critical]        # pairs; handover = ["xPortStartScheduler"] (sections left to the scheduler);
                  # levels = {taskENTER_CRITICAL = "configMAX_SYSCALL_INTERRUPT_PRIORITY"}
                  # (BASEPRI sections), basepri = ["__set_BASEPRI"]
[api]
blocks = ["vTaskDelay"]                       # waits for time or another task (BG110)
allocates = ["pvPortMalloc"]                  # takes a heap lock (BG110)
prints = ["printf"]                           # slow, buffered, often locked (BG110)
waits = [{function = "osSemaphoreAcquire", arg = 1, nowait = ["0"]}]  # blocks unless arg is nowait
isr_variants = {xQueueSend = "xQueueSendFromISR"}   # task API -> its interrupt-safe twin (BG111)
nonreentrant = {strtok = "strtok_r"}          # keeps hidden state -> reentrant twin (BG112)
interrupt_safe = ["xQueueSendFromISR"]        # documented as callable from an ISR
[locks]           # BG113: binary = [...], mutex = [...], take = [...], give = [...]
[cores]           # globs, any case: locks = ["*spin_lock*"] / unlocks (a lock both cores take),
                  # not_locks = ["*init*"] (a lock's set-up, not a take), launches =
                  # ["*multicore*"] (a call that starts its function argument on another core)
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

import fnmatch
import re
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from brickguard.errors import ConfigError
from brickguard.tables import from_mapping

PROFILE_DIR = Path(__file__).resolve().parent / "data" / "profiles"
COMMON = "common"


@dataclass(frozen=True)
class Registration:
    """A call that hands a function to the interrupt system or the scheduler, or a call whose
    argument names a buffer (DMA starts, cache maintenance)."""

    function: str  # glob on the called function's name, e.g. "HAL_*_RegisterCallback"
    arg: int  # 0-based index of the argument that names the function; -1 = the last one
    # A priority setter only: its argument is the NVIC register byte, the level in its top
    # __NVIC_PRIO_BITS (TI's Interrupt_setPriority(INT_ADC14, 0x20) is level 1 with 3 bits),
    # not the level itself as CMSIS NVIC_SetPriority takes it.
    register: bool = False
    # An interrupt registration only: the 0-based index of its IRQ-number argument (Zephyr's
    # irq_connect_dynamic(irq, ...): 0), which names the handler's line for one-line masks
    # (irq_disable(TIMER1_IRQ) masks what IRQ_CONNECT(TIMER1_IRQ, ...) connected).
    irq: int | None = None
    # ... and of its flags argument, with the flag that connects an interrupt no level-raising
    # section masks (Zephyr's IRQ_ZERO_LATENCY: "will not be masked by interrupt locking";
    # irq_lock raises BASEPRI, and a zero-latency IRQ runs above it).
    flags: int | None = None
    unmasked: str = ""


@dataclass(frozen=True)
class Wait:
    """A call that blocks unless its timeout argument says not to wait."""

    arg: int  # 0-based index of the timeout argument
    nowait: tuple[str, ...]  # spellings of "do not wait", e.g. ("0", "K_NO_WAIT")


# -- the layout of a profile file (brickguard.toml's tables extend these) -------------------------
@dataclass(frozen=True)
class WaitEntry:
    function: str
    arg: int
    nowait: list[str] = field(default_factory=lambda: ["0"])


@dataclass(frozen=True)
class ApiTable:
    blocks: list[str] = field(default_factory=list)
    allocates: list[str] = field(default_factory=list)
    prints: list[str] = field(default_factory=list)
    waits: list[WaitEntry] = field(default_factory=list)
    isr_variants: dict[str, str] = field(default_factory=dict)
    nonreentrant: dict[str, str] = field(default_factory=dict)
    interrupt_safe: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class DmaCalls:
    tx: list[Registration] = field(default_factory=list)
    rx: list[Registration] = field(default_factory=list)
    clean: list[Registration] = field(default_factory=list)
    invalidate: list[Registration] = field(default_factory=list)
    clean_all: list[str] = field(default_factory=list)
    invalidate_all: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class InterruptEntries:
    patterns: list[str] = field(default_factory=list)
    callbacks: list[str] = field(default_factory=list)
    registrations: list[Registration] = field(default_factory=list)
    # Functions called from interrupt handlers written in assembly (PendSV -> vTaskSwitchContext):
    # interrupt entry points no C handler shows.
    from_asm: list[str] = field(default_factory=list)
    # The interrupt timeline: entry points that begin with no interrupt able to fire (bare-metal
    # main after reset), and the calls (globs) that may let one fire: an NVIC enable, a start in
    # interrupt or DMA mode, the scheduler start. Every critical-section exit counts too.
    start_off: list[str] = field(default_factory=list)
    enable: list[str] = field(default_factory=list)
    # Calls that let one interrupt line fire (``SysTick_Config`` -> "SysTick"), not all.
    line_enables: dict[str, str] = field(default_factory=dict)
    # Calls that set an interrupt's priority: the IRQn is argument 0, the preemption priority
    # argument ``arg`` (read when both are constants).
    priority_setters: list[Registration] = field(default_factory=list)
    # Calls that set the NVIC's priority grouping (how many of a priority's bits pre-empt, the
    # rest only order pending interrupts): the grouping is argument ``arg`` (CMSIS PRIGROUP).
    # A priority computed by an encoder's body (NVIC_EncodePriority) pre-empts by its
    # pre-emption bits alone under it.
    priority_grouping: list[Registration] = field(default_factory=list)
    # Functions (globs) the program need not define that never let an interrupt fire: the rest
    # of the HAL, the C library. Any other function without a body is taken to enable one.
    quiet: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class TaskEntries:
    creators: list[Registration] = field(default_factory=list)
    # creator -> the 0-based index of its priority argument (xTaskCreate: 4; higher runs first)
    priority_args: dict[str, int] = field(default_factory=dict)
    # Calls (globs) that take a function they call back in a thread, not an interrupt: an event
    # loop, a work queue, a UI toolkit (``callbacks`` does not take them for a handler).
    callbacks: list[str] = field(default_factory=list)
    # Calls (globs, any case) that start a thread or queue a function for one (an app scheduler, an
    # event queue), read only where a call's words say nothing (``callbacks.unnamed_entries``):
    # a function handed to any other call the program does not define is taken for an
    # interrupt's callback.
    deferrals: list[str] = field(default_factory=list)
    # Calls (globs, any case) whose callback the RTOS's software-timer task runs (LiteOS's
    # LOS_SwtmrCreate): taken for a callback from an interrupt where its words say so, it
    # preempts task code as an interrupt would, but a scheduler lock (``sched_locks``, any
    # case: LOS_TaskLock, vTaskSuspendAll) holds it off as well as a critical section does.
    timers: list[str] = field(default_factory=list)
    sched_locks: list[str] = field(default_factory=list)
    sched_unlocks: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class LockCalls:
    """Semaphores used as locks (BG113): how a handle is created and taken and given."""

    binary: list[str] = field(default_factory=list)  # create a binary semaphore (no inheritance)
    mutex: list[str] = field(default_factory=list)  # create a mutex (priority inheritance)
    take: list[str] = field(default_factory=list)  # the handle is argument 0
    give: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class CoreCalls:
    """Calls between cores, as globs matched in any case (``name_matches``): a cross-core lock
    taken and given (``bodies``: pico-sdk's ``spin_lock_blocking``, STM32H7's ``HAL_HSEM_Take``)
    less the names of its set-up (``spin_lock_init``, ``spin_lock_claim_unused``), and a call
    that starts its function argument on another core (``callbacks``: pico-sdk's
    ``multicore_launch_core1``)."""

    locks: list[str] = field(default_factory=list)
    not_locks: list[str] = field(default_factory=list)
    unlocks: list[str] = field(default_factory=list)
    launches: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class CriticalPairs:
    pairs: list[tuple[str, str]] = field(default_factory=list)
    # Calls that hand the interrupt state over and do not come back while it matters (the RTOS
    # scheduler start: the first task's context re-enables interrupts): a section open there is
    # intended, not left open.
    handover: list[str] = field(default_factory=list)
    # [mask, unmask] pairs for one interrupt (HAL_NVIC_DisableIRQ(X_IRQn)): between them only
    # interrupt X cannot fire.
    masks: list[tuple[str, str]] = field(default_factory=list)
    # BASEPRI masking: enter routines that mask only the interrupts at or below a priority
    # (FreeRTOS's taskENTER_CRITICAL raises BASEPRI to configMAX_SYSCALL_INTERRUPT_PRIORITY):
    # routine -> the BASEPRI value, a number or a macro of the unit; and the calls that set
    # BASEPRI to their argument (``__set_BASEPRI(v)``; 0 unmasks).
    levels: dict[str, str] = field(default_factory=dict)
    basepri: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ProfileFile:
    name: str = ""
    description: str = ""
    # true: a vendor SDK's table (nxp-mcux, ti-driverlib, nordic-nrfx, harmony) whose critical
    # sections, handler names and registrations join brickguard's defaults, so code written
    # against that SDK is read right with no profile chosen (``default_entries``); its one-line
    # masks, BASEPRI writes and priority setters join any chosen profile (``_merge_masking``).
    defaults: bool = False
    interrupts: InterruptEntries = field(default_factory=InterruptEntries)
    tasks: TaskEntries = field(default_factory=TaskEntries)
    critical: CriticalPairs = field(default_factory=CriticalPairs)
    api: ApiTable = field(default_factory=ApiTable)
    dma: DmaCalls = field(default_factory=DmaCalls)
    locks: LockCalls = field(default_factory=LockCalls)
    cores: CoreCalls = field(default_factory=CoreCalls)


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
    interrupt_registrations: list[Registration] = field(default_factory=list)
    task_creators: list[Registration] = field(default_factory=list)
    critical_pairs: list[tuple[str, str]] = field(default_factory=list)
    critical_handover: list[str] = field(default_factory=list)
    critical_masks: list[tuple[str, str]] = field(default_factory=list)
    critical_levels: dict[str, str] = field(default_factory=dict)
    basepri: list[str] = field(default_factory=list)
    task_priority_args: dict[str, int] = field(default_factory=dict)
    task_callbacks: list[str] = field(default_factory=list)
    task_deferrals: list[str] = field(default_factory=list)
    task_timers: list[str] = field(default_factory=list)
    sched_locks: list[str] = field(default_factory=list)
    sched_unlocks: list[str] = field(default_factory=list)
    # "binary" | "mutex" | "take" | "give" -> the calls (BG113)
    locks: dict[str, set[str]] = field(default_factory=lambda: {
        "binary": set(), "mutex": set(), "take": set(), "give": set()})
    from_asm: list[str] = field(default_factory=list)
    start_off: list[str] = field(default_factory=list)
    interrupt_enables: list[str] = field(default_factory=list)
    line_enables: dict[str, str] = field(default_factory=dict)
    quiet: list[str] = field(default_factory=list)
    priority_setters: list[Registration] = field(default_factory=list)
    priority_grouping: list[Registration] = field(default_factory=list)
    # Calls between cores (``CoreCalls``): globs matched in any case.
    core_locks: list[str] = field(default_factory=list)
    core_not_locks: list[str] = field(default_factory=list)
    core_unlocks: list[str] = field(default_factory=list)
    core_launches: list[str] = field(default_factory=list)

    def watched_calls(self) -> frozenset[str]:
        """Names whose macro uses and argument texts the front end records."""
        return frozenset(
            {*self.blocking, *self.waits, *self.isr_variants, *self.nonreentrant}
            | {*self.dma_tx, *self.dma_rx, *self.cache_clean, *self.cache_invalidate}
            | self.clean_all
            | self.invalidate_all
            | {n for names in self.locks.values() for n in names}
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
def _read(path: Path) -> ProfileFile:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read profile: {exc.strerror or exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: profile is not valid TOML: {exc}") from exc
    return from_mapping(ProfileFile, data, str(path))


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
    if profiles is not None:
        for name in builtin_profiles():
            prof = _read((PROFILE_DIR / f"{name}.toml").resolve())
            if prof.defaults and name not in names:
                _merge_masking(plat, prof)
    return plat


def _merge_masking(plat: Platform, profile: ProfileFile) -> None:
    """A vendor SDK table's (``defaults = true``) masking and priority calls, under whichever
    profile is chosen: TI's ``Interrupt_setPriorityMask`` writes BASEPRI and
    ``Interrupt_disableInterrupt(n)`` masks one line in a program checked as ``cmsis`` too.
    The names are the SDK's own, so they mean nothing else elsewhere."""
    _extend(plat.critical_masks, profile.critical.masks)
    _extend(plat.basepri, profile.critical.basepri)
    _extend(plat.priority_setters, profile.interrupts.priority_setters)
    _extend(plat.priority_grouping, profile.interrupts.priority_grouping)


def _merge(plat: Platform, profile: ProfileFile) -> None:
    api = profile.api
    for why, names in (("blocks", api.blocks), ("allocates", api.allocates),
                       ("prints", api.prints)):
        for name in names:
            plat.blocking.setdefault(name, why)
    for w in api.waits:
        plat.waits[w.function] = Wait(w.arg, tuple(w.nowait))
    plat.isr_variants.update(api.isr_variants)
    plat.nonreentrant.update(api.nonreentrant)
    plat.interrupt_safe.update(api.interrupt_safe)
    add_dma_calls(plat, profile.dma)
    _extend(plat.interrupt_patterns, profile.interrupts.patterns)
    _extend(plat.interrupt_callbacks, profile.interrupts.callbacks)
    _extend(plat.interrupt_registrations, profile.interrupts.registrations)
    _extend(plat.task_creators, profile.tasks.creators)
    plat.task_priority_args.update(profile.tasks.priority_args)
    _extend(plat.task_callbacks, profile.tasks.callbacks)
    _extend(plat.task_deferrals, profile.tasks.deferrals)
    _extend(plat.task_timers, profile.tasks.timers)
    _extend(plat.sched_locks, profile.tasks.sched_locks)
    _extend(plat.sched_unlocks, profile.tasks.sched_unlocks)
    for kind in plat.locks:
        plat.locks[kind].update(getattr(profile.locks, kind))
    _extend(plat.critical_pairs, profile.critical.pairs)
    _extend(plat.critical_handover, profile.critical.handover)
    _extend(plat.critical_masks, profile.critical.masks)
    plat.critical_levels.update(profile.critical.levels)
    _extend(plat.basepri, profile.critical.basepri)
    _extend(plat.from_asm, profile.interrupts.from_asm)
    _extend(plat.start_off, profile.interrupts.start_off)
    _extend(plat.interrupt_enables, profile.interrupts.enable)
    plat.line_enables.update(profile.interrupts.line_enables)
    _extend(plat.quiet, profile.interrupts.quiet)
    _extend(plat.priority_setters, profile.interrupts.priority_setters)
    _extend(plat.priority_grouping, profile.interrupts.priority_grouping)
    _extend(plat.core_locks, profile.cores.locks)
    _extend(plat.core_not_locks, profile.cores.not_locks)
    _extend(plat.core_unlocks, profile.cores.unlocks)
    _extend(plat.core_launches, profile.cores.launches)


def name_matches(globs: list[str], name: str) -> bool:
    """Whether ``name`` matches one of ``globs`` in any case (the ``[cores]`` tables)."""
    return _any_case(tuple(globs)).match(name) is not None


@lru_cache(maxsize=64)
def _any_case(globs: tuple[str, ...]) -> re.Pattern[str]:
    if not globs:
        return re.compile(r"(?!)")
    return re.compile("|".join(f"(?:{fnmatch.translate(g)})" for g in globs), re.IGNORECASE)


def add_dma_calls(plat: Platform, dma: DmaCalls) -> None:
    """A profile's (or brickguard.toml's) DMA and cache calls, over what is there."""
    for regs, into in ((dma.tx, plat.dma_tx), (dma.rx, plat.dma_rx),
                       (dma.clean, plat.cache_clean), (dma.invalidate, plat.cache_invalidate)):
        for r in regs:
            into[r.function] = r.arg
    plat.clean_all.update(dma.clean_all)
    plat.invalidate_all.update(dma.invalidate_all)


def _extend(into: list, items: list) -> None:
    for item in items:
        if item not in into:
            into.append(item)


@dataclass(frozen=True)
class DefaultEntries:
    patterns: list[str]
    registrations: list[Registration]
    pairs: list[tuple[str, str]]


@lru_cache(maxsize=1)
def default_entries() -> DefaultEntries:
    """The handler patterns, registrations and critical-section pairs of the built-in profiles
    marked ``defaults = true`` (the vendor SDK tables), which the configuration's defaults add."""
    out = DefaultEntries([], [], [])
    for name in builtin_profiles():
        prof = _read((PROFILE_DIR / f"{name}.toml").resolve())
        if prof.defaults:
            _extend(out.patterns, prof.interrupts.patterns)
            _extend(out.registrations, prof.interrupts.registrations)
            _extend(out.pairs, prof.critical.pairs)
    return out


@lru_cache(maxsize=1)
def _default() -> Platform:
    return load_platform(None)


def default_platform() -> Platform:
    """Every built-in profile merged (a fresh copy: callers may extend it)."""
    import copy

    return copy.deepcopy(_default())
