"""Exploration: the interrupt placed on every instruction boundary that matters, one run each.

1. Setup functions run, then each handler's ``prime`` runs: the state the scenario starts in
   (snapshot S0).
2. Each handler runs once from S0 and once from where the baseline (3) ends, with memory hooks:
   its *footprint* (the RAM it reads and writes, its stack aside; what it touches depends on the
   state: an index it reads, a flag it tests).
3. One run without interrupts (the baseline) records every RAM access of the scenario, the
   instruction it was made by, and at every boundary whether each handler could fire there
   (PRIMASK clear, BASEPRI above the handler's priority, its NVIC enable bit set when it has an
   IRQ number). A scenario that faults or hangs here is an error: the bug is not a race.
4. Per handler: the boundaries before each scenario access that conflicts with the footprint
   (a write to what the handler touches, a read of what it writes), every boundary within
   ``window`` of them, and the two serial references of each scenario call: the handler wholly
   before the call and wholly after it. From snapshots (CPU context + RAM + peripheral state) the
   handler is injected at each, and the run goes on to its end.
5. Oracles per run: the checks (C functions returning non-zero, ``BG_SOAK_ASSERT``), a fault,
   a lock-up (an instruction budget spent), and serializability: the values the scenario read
   from the shared memory and the final shared state must equal those of one of the two serial
   references.
"""

from __future__ import annotations

import fnmatch
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from brickguard.errors import BrickguardError
from brickguard.facts import irq_key
from brickguard.soak.build import RAM_BASE, Image
from brickguard.soak.machine import (
    AIRCR,
    IPR,
    SHPR,
    SYSTEM_EXCEPTIONS,
    THREAD,
    Machine,
    Snapshot,
    Stop,
)
from brickguard.soak.settings import InterruptSpec, SoakTable

if TYPE_CHECKING:
    from brickguard.config import Config

Read = tuple[int, int, int]  # (address, size, value)
FOCUS_PASSES = 8  # with a focus: boundaries at one instruction explored in its first passes
MAX_READ_HOOKS = 32  # read hooks per exploration (more spans: one hook over all of them)
SNAPSHOTS_PER_PASS = 2000  # snapshots held at once (each one copy of the image's RAM)
WAIT_PCS = 32  # instructions a wait loop may span (a poll that writes nothing)


@dataclass(frozen=True, slots=True)
class Access:
    index: int  # instructions executed before the one that made it (its boundary)
    pc: int
    addr: int
    size: int
    write: bool
    value: int


@dataclass
class Outcome:
    reads: tuple[Read, ...]
    read_pcs: tuple[int, ...]
    final: bytes
    broken: list[str] = field(default_factory=list)
    fault: str = ""
    hung: str = ""
    # A scenario that runs to its budget without interrupts (it waits) and returns with this
    # one, or that gets it inside the wait its budget ends in: the interrupt is what it waited
    # for; no serial reference describes that run.
    progressed: bool = False
    # Judged by rounds (``Explorer.rounds``): the reads of the round of the wait loop it
    # landed in (and the pcs that made them, when recorded).
    window: tuple[Read, ...] | None = None
    window_pcs: tuple[int, ...] = ()
    # The instructions that read or wrote the null page (the vector table at address 0, where
    # a NULL pointer's members are): a handler dereferencing a pointer the scenario has not set
    # yet (``g_rx->dr`` with ``g_rx`` still 0). A Cortex-M does not fault there (it reads the
    # vector table), so no fault stops the run: ``_judge`` compares them with the references'.
    nulls: tuple[int, ...] = ()

    @property
    def key(self) -> tuple[tuple[Read, ...], bytes]:
        return (self.reads, self.final)


@dataclass
class Failure:
    handler: str
    boundary: int
    pc: int
    kind: str  # "check", "fault", "lock-up", "not serializable"
    outcome: Outcome
    before: Outcome | None = None  # the serial references of the call it landed in
    after: Outcome | None = None
    part: int = 0  # inside an LDM/STM at the boundary: transfers done before the interrupt
    # Whether the handler could be taken where ``before`` injects it (the call's start): not
    # when its source is off there (its enable, ``after``, comes later in the call). An
    # interrupt that became pending while masked is taken at the enable, not before the call:
    # then "the handler wholly before" is no serial order, and only ``after`` is compared.
    before_feasible: bool = True
    rounds: bool = False  # judged on the round of a wait loop it landed in (windows compared)
    # A "not serializable" run, by memory location (``attribute``): "location" when some
    # location the handler touches, alone, matches neither serial order (a lost update, a torn
    # object, one location read twice with the handler's write between); "joint" when each
    # matches one alone and only the combination matches none. ``locations``: the locations
    # that match neither (location), or each with the one order it matches (joint).
    oracle: str = ""
    locations: list[str] = field(default_factory=list)

    def gates(self, oracle: str) -> bool:
        """Whether it fails the run under ``[soak] oracle``: checks, faults, lock-ups and
        location failures always; a joint failure only under "scenario"."""
        return self.kind != "not serializable" or self.oracle != "joint" or oracle == "scenario"

    @property
    def at(self) -> str:
        """The run's name in ``--replay HANDLER@AT``: the boundary, ``.part`` inside an LDM/STM."""
        return f"{self.boundary}.{self.part}" if self.part else str(self.boundary)


@dataclass
class RoundPlan:
    """One handler's rounds (``Explorer.rounds``): the head of the wait loop a bounded run
    ends in, the boundaries at it, and the boundaries whose runs are cut at the next head."""

    head: int = -1  # the loop head's pc
    heads: list[int] = field(default_factory=list)
    points: set[int] = field(default_factory=set)


@dataclass
class HandlerResult:
    spec: InterruptSpec
    planned: int = 0
    explored: int = 0
    masked: int = 0  # candidate boundaries where the handler could not fire
    it_skipped: int = 0  # candidate boundaries inside an IT block, not explored
    splits: int = 0  # runs inside an LDM/STM (after some of its transfers)
    complete: bool = True
    note: str = ""
    footprint_reads: dict[int, int] = field(default_factory=dict)  # byte -> pc of the handler
    footprint_writes: dict[int, int] = field(default_factory=dict)
    conflicts: list[Access] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    seconds: float = 0.0  # wall time of the injected runs (their snapshots included)
    cpu_seconds: float = 0.0  # the same in this process's CPU time


@dataclass
class Baseline:
    total: int  # instructions the scenario ran
    pcs: list[int]  # pc at each boundary
    enabled: list[int]  # per boundary: bit i set when handler i can fire there
    accesses: list[Access]
    calls: list[int]  # boundary before each scenario call, then the end
    outcome: Outcome | None = None
    # A run for its budget that ends waiting (a loop of a few instructions, from here to the
    # end, that writes no RAM: ``while (!armed) {}``): the boundary where the wait begins.
    wait_from: int = -1


@dataclass
class SoakResult:
    image: Image
    soak: SoakTable
    baseline: Baseline
    handlers: list[HandlerResult]
    runs: int
    seconds: float
    waited: list[str] = field(default_factory=list)  # where a handler was taken to end a wait
    seeded: list[str] = field(default_factory=list)  # [soak] seed: the globals it set


Progress = Callable[[str, int, int, float], None]


class Explorer:
    def __init__(self, image: Image, soak: SoakTable, config: Config | None = None) -> None:
        from unicorn import UC_HOOK_CODE

        if not soak.interrupts:
            raise BrickguardError(
                "[soak] lists no interrupts: add [[soak.interrupts]] handler = ...")
        self.image, self.soak = image, soak
        self.m = Machine(image, soak)
        self.priorities = Priorities(image, soak, config)
        self.armed = 0  # bit i: handler i's `after` call made (or it has none)
        self.armed0 = 0
        self.armed_end = 0  # as the baseline left it
        for i, spec in enumerate(soak.interrupts):
            if not spec.after:
                self.armed0 |= 1 << i
            for name in spec.after:
                sym = image.symbols.get(name)  # a stub is a call too
                if sym is None or not sym.func:
                    raise BrickguardError(f"[[soak.interrupts]] {spec.handler} after: no "
                                          f"function {name!r} in the image")
                self.m.uc.hook_add(UC_HOOK_CODE, self._arm, 1 << i, sym.addr, sym.addr)
        self.armed = self.armed0
        self.main = soak.scenario == "main" or soak.bounded  # runs for its budget
        self.resumed = False  # S0 is inside the run (past a wait), not before the driver
        self.seeded: list[str] = []  # [soak] seed: the globals set, and why
        self.waited: list[str] = []
        self.end_state: Snapshot | None = None  # where a baseline that waits stopped
        self.last_state: Snapshot | None = None  # where the baseline ended, however it did
        self.drive = image.address("__bg_drive")
        self.handlers = [image.address(spec.handler) for spec in soak.interrupts]
        self.checks = [(name, image.address(name)) for name in soak.checks]
        self.disarms = self._self_disarming()
        for name in soak.setup:
            image.address(name)
        image.address(soak.scenario)
        self.s0 = self._start()
        self.recording = False
        self.want_pcs = False
        self.footprints: dict[int, set[int]] = {}
        self.focus: set[int] | None = None  # explore only before these instructions
        # With a focus: instructions of which the run must reach one of each (a finding's own
        # line) before waits stop being taken; none given: reaching the focus is enough.
        self.targets: list[set[int]] = []
        self.it_block = image.in_it_block()
        # LDM/STM the core may interrupt and continue (v7-M, outside IT blocks): pc -> operands
        self.multiple = {} if image.cpu not in CONTINUES else {
            a: op for a, text in image.disasm.items()
            if a not in self.it_block and (op := Multiple.parse(a, text, image.disasm)) is not None}
        self.reads: list[Read] = []
        self.read_pcs: list[int] = []
        # Rounds: a bounded run that lands inside the wait it ends in is judged on the round
        # of the loop it lands in (from the loop's head before it to the next), its reads
        # there against those of the handler taken at the round's start and of no handler in
        # it (set by --confirm, whose runs land only on a finding's lines; unfocused, every
        # poll that reads two words a handler writes would fail). Off: such runs are not
        # judged against serial orders (the budget cuts what follows the interrupt).
        self.rounds = False
        self.plan = RoundPlan()  # the handler being explored (or rerun)'s
        self.plans: dict[int, RoundPlan] = {}  # per handler
        self._cut: int | None = None
        self._skip_head = False
        self.shared_lo = RAM_BASE
        self.shared_hi = max(image.stack_bottom, RAM_BASE + 1)  # globals: RAM below the stack
        self.shared: frozenset[int] = frozenset()
        self._read_hooks: list[int] = []
        # The null page: the harness's vector table at address 0 (no literal pool or constant
        # lies inside it), where a load through a NULL pointer lands on a Cortex-M.
        from unicorn import UC_HOOK_MEM_READ, UC_HOOK_MEM_WRITE

        vectors = image.symbols.get("__bg_vectors")
        self.nulls: list[int] = []
        if vectors is not None and vectors.addr == 0 and vectors.size >= 4:
            self.m.uc.hook_add(UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE, self._on_null, None, 0,
                               vectors.size - 1)

    # -- 1. the starting state ---------------------------------------------------------------
    def _start(self) -> Snapshot:
        m, soak = self.m, self.soak
        scenario = self.image.address(soak.scenario) | 1
        m.uc.mem_write(self.image.address("__bg_scenario"), scenario.to_bytes(4, "little"))
        self.priorities.seed(m)
        if not soak.setup and soak.scenario != "main":
            self.priorities.probe(m, self.image, soak.budget)
            self.armed = self.armed0  # what main called there does not count
        vectors = self.image.address("__bg_vectors")
        for spec, addr in zip(soak.interrupts, self.handlers, strict=True):
            if spec.irq is not None:  # the vector table in flash, as the linker would fill it
                m.uc.mem_write(vectors + 4 * (16 + spec.irq), (addr | 1).to_bytes(4, "little"))
                if spec.enabled:
                    m.write_periph(0xE000E100 + 4 * (spec.irq // 32), 4, 1 << (spec.irq % 32))
        for name in soak.setup:
            stop, why = m.call(self.image.address(name), soak.budget)
            if stop != Stop.RETURN:
                raise BrickguardError(f"[soak] setup {name}() {self._why(stop, why)} "
                                      "without any interrupt")
        for i, (spec, addr) in enumerate(zip(soak.interrupts, self.handlers, strict=True)):
            for _ in range(spec.prime):
                stop, why = m.interrupt(addr, soak.handler_budget)
                if stop != Stop.RETURN:
                    raise BrickguardError(f"[soak] prime: {spec.handler} {self._why(stop, why)}")
                self.armed &= ~(self.disarms & 1 << i)
        m.reg(m.arm.UC_ARM_REG_PC, self.drive)
        m.reg(m.arm.UC_ARM_REG_LR, m.ret | 1)  # the driver returns to where every run stops
        self.armed0 = self.armed  # as setup left it
        if soak.seed == "wrap":
            self._seed_wrap()
        return m.snapshot()

    def _seed_wrap(self) -> None:
        """Seeded state: each global scalar (1, 2, 4 or 8 bytes) that a handler counts, that is
        steps by the same non-zero amount d in two runs in a row from here, is set one step
        before it wraps (2^n - d for a count up, d - 1 for a count down, as unsigned n-bit
        values): a value the program reaches after 2^n / |d| interrupts, where a carry runs
        into the high word (``if (++lo == 0) hi++``, a 64-bit count read as two words). Only
        that counter moves: nothing else is changed, and the runs made to learn it are
        undone."""
        m, image = self.m, self.image
        start = m.snapshot()
        objs = [s for s in image._objects if s.size in (1, 2, 4, 8)
                and s.addr >= RAM_BASE and s.addr + s.size <= image.stack_bottom
                and not s.name.startswith("__bg_")]
        seeds: dict[str, tuple[int, int, str]] = {}

        def values() -> list[int]:
            return [int.from_bytes(m.ram(o.addr, o.size), "little") for o in objs]

        for spec, addr in zip(self.soak.interrupts, self.handlers, strict=True):
            if not spec.explore:
                continue  # a wait handler: what it counts is not what is explored
            m.restore(start)
            seen = [values()]
            for _ in range(2):
                if m.interrupt(addr, self.soak.handler_budget)[0] != Stop.RETURN:
                    break
                seen.append(values())
            if len(seen) < 3:
                continue
            for o, v0, v1, v2 in zip(objs, *seen, strict=True):
                span = 1 << (8 * o.size)
                d = (v1 - v0) % span
                if not d or (v2 - v1) % span != d or o.name in seeds:
                    continue
                step = d if d < span // 2 else d - span
                seeds[o.name] = ((span - step) if step > 0 else (-step - 1), step, spec.handler)
        m.restore(start)
        for o in objs:
            if o.name in seeds:
                m.uc.mem_write(o.addr, seeds[o.name][0].to_bytes(o.size, "little"))
        self.seeded = [f"{name} = 0x{v:x} ({handler} steps it by {step:+d}: one step before "
                       "it wraps)" for name, (v, step, handler) in sorted(seeds.items())]

    def _arm(self, uc, addr, size, bit) -> None:
        self.armed |= bit

    def _self_disarming(self) -> int:
        """Bit i set: handler i disarms its own source (it calls ``adc_disable()``,
        ``LL_DMA_DisableChannel()``) and the image has the call that arms it again
        (``adc_enable()``): one completion per arming. Once it has run (a prime, a wait it
        ended), it is not taken again until the scenario makes that call (a hook arms it, as
        ``after`` does): a second completion before the re-arm is no run the part makes."""
        import re

        from unicorn import UC_HOOK_CODE

        from brickguard.races import _disarms

        bits = 0
        for i, spec in enumerate(self.soak.interrupts):
            sym = self.image.symbols.get(spec.handler)
            if sym is None or not sym.func:
                continue
            called = {m.group(1) for a, text in self.image.disasm.items()
                      if sym.addr <= a < sym.addr + max(sym.size, 2)
                      and (m := re.match(r"bl\s+[0-9a-f]+ <(\w+)>", text))}
            for name in sorted(called):
                on = self.image.symbols.get(_disarms(name)) if _disarms(name) else None
                if on is not None and on.func:
                    bits |= 1 << i
                    self.m.uc.hook_add(UC_HOOK_CODE, self._arm, 1 << i, on.addr, on.addr)
        return bits

    def _why(self, stop: str, why: str) -> str:
        if stop == Stop.FAULT:
            return f"faults ({why}{self._where(self.m.pc)})"
        return "does not return within its instruction budget (a lock-up)"

    def _where(self, pc: int) -> str:
        line = self.image.line_at(pc)
        return f", {line[0]}:{line[1]}" if line else ""

    # -- 2. footprints -----------------------------------------------------------------------
    def footprint(self, index: int, start: Snapshot) -> tuple[dict[int, int], dict[int, int]]:
        from unicorn import UC_HOOK_CODE, UC_HOOK_MEM_READ, UC_HOOK_MEM_WRITE, UC_MEM_WRITE

        m = self.m
        reads: dict[int, int] = {}
        writes: dict[int, int] = {}
        last = [0]

        def code(uc, addr, size, _):
            last[0] = addr

        def hook(uc, access, addr, size, value, _):
            into = writes if access == UC_MEM_WRITE else reads
            for b in range(addr, addr + size):
                into.setdefault(b, last[0])

        m.restore(start)
        hooks = [m.uc.hook_add(UC_HOOK_CODE, code),
                 m.uc.hook_add(UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE, hook, None,
                               self.shared_lo, self.shared_hi - 1)]
        m.uc.ctl_flush_tb()
        try:
            # A handler that faults or hangs here leaves the footprint it made so far; the run
            # that injects it at the first boundary reports the fault or the lock-up.
            m.interrupt(self.handlers[index], self.soak.handler_budget)
        finally:
            m.unhook(hooks)
        return reads, writes

    # -- 3. the baseline ---------------------------------------------------------------------
    def baseline(self) -> Baseline:
        from unicorn import UC_HOOK_CODE, UC_HOOK_MEM_READ, UC_HOOK_MEM_WRITE, UC_MEM_WRITE

        m, soak, a = self.m, self.soak, self.m.arm
        pcs: list[int] = []
        enabled: list[int] = []
        accesses: list[Access] = []
        calls: list[int] = []
        call_addr = self.image.address("__bg_call")
        specs = list(soak.interrupts)
        primask_reg, basepri_reg = a.UC_ARM_REG_PRIMASK, a.UC_ARM_REG_BASEPRI
        prio = self.priorities

        def code(uc, addr, size, _):
            pcs.append(addr)
            primask = uc.reg_read(primask_reg)
            basepri = uc.reg_read(basepri_reg)
            running = prio.running(m)
            bits = 0
            for i, spec in enumerate(specs):
                if spec.irq is not None and not m.irq_enabled(spec.irq):
                    continue
                if not self.armed >> i & 1:
                    continue
                if m.preempts(prio.of(m, i), running, primask, basepri):
                    bits |= 1 << i
            enabled.append(bits)

        def mem(uc, access, addr, size, value, _):
            index = len(pcs) - 1
            write = access == UC_MEM_WRITE
            if addr == call_addr and write:
                calls.append(index + 1)
                return
            if not write:
                value = int.from_bytes(uc.mem_read(addr, size), "little")
            accesses.append(Access(index, pcs[-1], addr, size, write, value))

        m.restore(self.s0)
        self.armed = self.armed0
        hooks = [m.uc.hook_add(UC_HOOK_CODE, code),
                 m.uc.hook_add(UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE, mem, None,
                               self.shared_lo, self.shared_hi - 1)]
        m.uc.ctl_flush_tb()
        try:
            stop, why = m.resume(soak.budget) if self.resumed else m.call(self.drive,
                                                                           soak.budget)
        finally:
            m.unhook(hooks)
        self.armed_end = self.armed  # the arming calls the run made (a wait resumes from here)
        self.end_state = m.snapshot() if stop == Stop.BUDGET else None
        self.last_state = self.end_state or m.snapshot()
        what = "main" if self.main else f"the scenario {soak.scenario}()"
        if stop == Stop.FAULT:
            raise BrickguardError(f"{what} faults without any interrupt: {why}"
                                  f"{self._where(m.pc)}; map the memory it uses "
                                  "([[soak.peripherals]]) or fix the scenario")
        if stop == Stop.BUDGET and not self.main:
            raise BrickguardError(f"{what} does not return within {soak.budget} instructions "
                                  "without any interrupt (a lock-up, or raise [soak] budget)")
        if stop == Stop.RETURN:
            # It returns: every run goes on to its return (budget: the lock-up limit), so
            # a run the interrupt makes longer (a retried strex, another branch) is not cut.
            self.main = False
        broken = self._checks()
        if broken:
            raise BrickguardError(f"the checks fail without any interrupt: {'; '.join(broken)}")
        total = len(pcs)
        if self.resumed and (not calls or calls[0] != 0):
            calls.insert(0, 0)  # the call that was running when the wait ended
        if not calls or calls[-1] != total:
            calls.append(total)  # main still running at the end of its budget
        pcs.append(m.pc)
        enabled.append(enabled[-1] if enabled else 0)
        base = Baseline(total, pcs, enabled, accesses, calls)
        if stop == Stop.BUDGET:
            start = max((a.index for a in accesses if a.write), default=-1) + 1
            loop = frozenset(pcs[start:total])
            if (loop and len(loop) <= WAIT_PCS and total - start >= 2 * len(loop)
                    and self._released(loop, enabled[-1])):
                base.wait_from = start
        return base

    def _released(self, loop: frozenset[int], bits: int) -> bool:
        """Whether the loop the budget ends in waits for an interrupt: a handler that can fire
        there, taken at its end, sends the run out of it (a poll the handler's flag ends). A loop
        that goes round the same instructions after it (``a = stamp; b = stamp; use(a, b);``
        forever) waits for nothing: its runs are judged as any others."""
        if self.end_state is None:
            return False
        for i in (n for n in range(len(self.handlers)) if bits >> n & 1):
            if self._releases(i, loop):
                return True
        return not bits  # no handler can fire there: nothing to tell, as before

    def _releases(self, i: int, loop: frozenset[int]) -> bool:
        """Whether handler ``i``, taken where the baseline's budget ends, sends the run out of
        ``loop`` (a handler that faults or hangs there counts: the run is not judged against
        serial orders, as before)."""
        from unicorn import UC_HOOK_CODE

        if self.end_state is None:
            return False
        m = self.m
        left = [False]

        def code(uc, addr, size, _):
            if addr not in loop:
                left[0] = True
                uc.emu_stop()

        try:
            m.restore(self.end_state)
            pc = m.pc
            if m.interrupt(self.handlers[i], self.soak.handler_budget)[0] != Stop.RETURN:
                return True
            hooks = [m.uc.hook_add(UC_HOOK_CODE, code)]
            m.uc.ctl_flush_tb()
            try:
                m.resume(2 * len(loop) + 8, pc)
            finally:
                m.unhook(hooks)
            return left[0]
        finally:
            m.restore(self.end_state)

    # -- 4. injected runs --------------------------------------------------------------------
    def explore(self, progress: Progress | None = None, only: int | None = None,
                at: int | None = None, part: int = 0) -> SoakResult:
        """Explore every handler (or handler ``only``; at one boundary ``at`` for a replay,
        inside its LDM/STM after ``part`` transfers when given)."""
        started = time.monotonic()
        base = self.baseline()
        while len(self.waited) < self.soak.waits and self._advance(base):
            base = self.baseline()
        self.base = base
        results: list[HandlerResult] = []
        runs = 0
        for i, spec in enumerate(self.soak.interrupts):
            if (only is not None and i != only) or not spec.explore:
                continue  # a wait handler (explore = false) only ends waits
            r = HandlerResult(spec)
            # What a handler touches depends on the state (an index it reads, a flag it
            # tests): its footprint from the start and from where the scenario's run ends.
            reads, writes = self.footprint(i, self.s0)
            more_reads, more_writes = self.footprint(i, self.last_state or self.s0)
            for b, pc in more_reads.items():
                reads.setdefault(b, pc)
            for b, pc in more_writes.items():
                writes.setdefault(b, pc)
            r.footprint_reads, r.footprint_writes = reads, writes
            self.footprints[i] = set(reads) | set(writes)
            results.append(r)
            runs += self._explore_one(i, r, base, started, progress, at, part)
        return SoakResult(self.image, self.soak, base, results, runs,
                          time.monotonic() - started, list(self.waited), list(self.seeded))

    def _advance(self, base: Baseline) -> bool:
        """A run without interrupts that waits (spins to its budget) waits for an interrupt,
        and with ``waits`` the handler is taken there, as it would come: the state after it
        is the new start, the scenario going on from where it waited. Not once the run reaches
        the lines in focus (and one instruction of each of ``targets``) nor when no handler
        can fire there."""
        if self.end_state is None:
            return False
        ran = set(base.pcs)
        if self.focus is not None and self.focus & ran and all(t & ran for t in self.targets):
            return False
        bits = base.enabled[-1]
        able = [n for n in range(len(self.handlers)) if bits >> n & 1]
        if not able:
            return False
        # The handler that sends the run out of its wait, injected ones first, then the wait
        # handlers (explore = false: a flag only another interrupt sets); none: the first.
        loop = frozenset(base.pcs[base.wait_from:base.total]) if base.wait_from >= 0 else None
        able.sort(key=lambda n: not self.soak.interrupts[n].explore)
        i = next((n for n in able if loop is not None and self._releases(n, loop)), None)
        if i is None:
            i = next((n for n in able if self.soak.interrupts[n].explore), None)
            if i is None:
                return False
        m = self.m
        m.restore(self.end_state)
        where = self._where(m.pc).removeprefix(", ") or f"0x{m.pc:x}"
        stop, _ = m.interrupt(self.handlers[i], self.soak.handler_budget)
        if stop != Stop.RETURN:
            return False
        self.waited.append(f"{self.soak.interrupts[i].handler} at {where}")
        # Armed as the run left it (a start made before the wait still counts), less a
        # handler that has just disarmed its own source.
        self.armed0 = self.armed_end & ~(self.disarms & 1 << i)
        self.s0 = m.snapshot()
        self.resumed = True
        return True

    def _watch(self, shared: frozenset[int]) -> None:
        """Every run records the scenario's reads of ``shared`` while ``recording`` is set:
        read hooks on those bytes' spans only (a hook on all RAM called Python on every global
        read)."""
        from unicorn import UC_HOOK_MEM_READ

        self.shared = shared
        self.m.unhook(self._read_hooks)
        spans: list[list[int]] = []
        for b in sorted(shared):
            if spans and b <= spans[-1][1] + 1:
                spans[-1][1] = b
            else:
                spans.append([b, b])
        if len(spans) > MAX_READ_HOOKS:
            spans = [[spans[0][0], spans[-1][1]]]
        self._read_hooks = [self.m.uc.hook_add(UC_HOOK_MEM_READ, self._on_read, None,
                                               lo, hi) for lo, hi in spans]
        self.m.uc.ctl_flush_tb()

    def _on_read(self, uc, access, addr, size, value, _):
        if self.recording and addr in self.shared:
            self.reads.append((addr, size, int.from_bytes(uc.mem_read(addr, size), "little")))
            if self.want_pcs:  # the witness's rerun: which instruction read it
                self.read_pcs.append(self.m.pc)

    def _able(self, base: Baseline, k: int, bit: int) -> bool:
        """Whether the handler could be taken at boundary ``k``, or, with an ``after`` gate
        (its source off until a call), anywhere: only a gated one is ever held off a
        reference run, as a masked one was not before (its reference runs still fail)."""
        gated = any(spec.after for n, spec in enumerate(self.soak.interrupts) if bit >> n & 1)
        return not gated or bool(base.enabled[min(k, len(base.enabled) - 1)] & bit)

    def _on_null(self, uc, access, addr, size, value, _):
        self.nulls.append(self.m.pc)

    def _explore_one(self, i: int, r: HandlerResult, base: Baseline, started: float,
                     progress: Progress | None, at: int | None, part: int = 0) -> int:
        soak = self.soak
        touched = set(r.footprint_reads) | set(r.footprint_writes)
        written = set(r.footprint_writes)
        self._watch(self._compared(touched, base))
        self.footprints[i] = set(self.shared)
        r.conflicts = [acc for acc in base.accesses
                       if any(b in (touched if acc.write else written)
                              for b in range(acc.addr, acc.addr + acc.size))]
        if at is None and not r.conflicts:
            r.note = ("the scenario makes no access that conflicts with the handler's "
                      f"{len(touched)} byte(s) of RAM: nothing to explore")
            return 0
        refs: set[int] = set()
        wanted: set[int] = set()
        calls = base.calls
        for acc in r.conflicts:
            c = _call_of(calls, acc.index)
            lo, hi = calls[c], calls[c + 1]
            refs.update((lo, hi))
            for k in range(max(lo, acc.index - soak.window), min(hi, acc.index + soak.window) + 1):
                wanted.add(k)
        if at is not None:
            c = _call_of(calls, min(at, base.total - 1) if base.total else 0)
            refs = {calls[c], calls[min(c + 1, len(calls) - 1)]}
            wanted = {at}
        if self.focus is not None:  # only where the given instructions run, first passes only
            passes: dict[int, int] = {}
            kept = set()
            for k in sorted(wanted):
                pc = base.pcs[k]
                if pc in self.focus and passes.get(pc, 0) < FOCUS_PASSES:
                    passes[pc] = passes.get(pc, 0) + 1
                    kept.add(k)
            wanted = kept
        # Inside an IT block the emulator keeps the condition state in translated code, not
        # in the CPU state a snapshot saves: those boundaries are not explored (counted).
        it_block = self.it_block
        skipped = {k for k in wanted if base.pcs[k] in it_block}
        wanted -= skipped
        r.it_skipped = len(skipped)
        bit = 1 << i
        fire = {k for k in wanted if base.enabled[k] & bit}
        r.masked = len(wanted - fire)
        if wanted and not fire and not r.note:
            r.note = self.priorities.describe(self.m, i, r.spec.handler, soak.scenario)
        self.plan = self.plans[i] = RoundPlan()
        if self.rounds and self.main and base.wait_from >= 0:
            self._plan_rounds(base, fire, refs)
        points = sorted(fire | refs)
        # Inside an LDM/STM that makes a conflicting access: after each of its transfers but
        # the last (a v7-M core continues it after the handler, ARMv7-M ICI).
        conflicting = {acc.index for acc in r.conflicts}
        splits = {k: op for k in fire if k in conflicting
                  and (op := self.multiple.get(base.pcs[k])) is not None}
        inside = [(k, j) for k in sorted(splits) for j in range(1, splits[k].splits + 1)]
        if at is not None:
            inside = [(at, part)] if part and at in splits and part <= splits[at].splits else []
            if part and not inside:
                raise BrickguardError(f"--replay {r.spec.handler}@{at}.{part}: boundary {at} "
                                      "is no LDM/STM the interrupt can split there")
            if part:
                fire.discard(at)
                points = sorted(refs | {at})
        r.planned = sum(1 for k in points if k in fire or k in refs) + len(inside)
        outcomes: dict[int, Outcome] = {}
        split_outcomes: dict[tuple[int, int], Outcome] = {}
        self.prefix = _ReadPrefix(base.accesses, self.shared)
        last_report = 0.0
        handler = self.handlers[i]
        began, cpu = time.monotonic(), time.process_time()
        for chunk in range(0, len(points), SNAPSHOTS_PER_PASS):
            batch = points[chunk:chunk + SNAPSHOTS_PER_PASS]
            for k, snap in self._snapshots(batch):
                if r.explored >= soak.max_runs or time.monotonic() - started > soak.max_seconds:
                    r.complete = False
                    r.note = (f"stopped after {r.explored} of {r.planned} runs: [soak] "
                              f"max_runs = {soak.max_runs}, max_seconds = {soak.max_seconds}")
                    break
                if k in fire or k in refs:
                    self.m.restore(snap)
                    self.current = snap
                    outcomes[k] = self._injected(handler, k, base)
                    r.explored += 1
                for kk, j in inside:
                    if kk == k:
                        self.m.restore(snap)
                        self.current = snap
                        split_outcomes[(k, j)] = self._injected(handler, k, base,
                                                                (splits[k], j))
                        r.explored += 1
                now = time.monotonic()
                if progress is not None and now - last_report > 0.5:
                    last_report = now
                    progress(r.spec.handler, r.explored, r.planned, now - started)
            if not r.complete:
                break
        r.seconds = time.monotonic() - began
        r.cpu_seconds = time.process_time() - cpu
        if progress is not None:
            progress(r.spec.handler, r.explored, r.planned, time.monotonic() - started)
        for k, out in outcomes.items():
            if k not in fire and k not in refs:
                continue
            failure = self._judge(r.spec.handler, k, out, outcomes, calls, base, bit)
            # A reference run fails on its own (a fault, a check) only where the handler can
            # be taken: one injected where its source is still off is no run the part makes.
            if failure is not None and (k in fire or (failure.kind != "not serializable"
                                                      and self._able(base, k, bit))):
                attribute(self.image, failure, touched, self.shared_lo, outcomes, base, bit)
                r.failures.append(failure)
        for (k, j), out in split_outcomes.items():
            failure = self._judge(r.spec.handler, k, out, outcomes, calls, base, bit)
            if failure is not None:
                failure.part = j
                attribute(self.image, failure, touched, self.shared_lo, outcomes, base, bit)
                r.failures.append(failure)
        r.splits = len(split_outcomes)
        return r.explored

    def _plan_rounds(self, base: Baseline, fire: set[int], refs: set[int]) -> None:
        """The wait loop's head (of the pcs its rounds run most often, the lowest), the
        boundaries at it, and the round start of each boundary in the wait (a reference run)."""
        import bisect
        from collections import Counter

        counts = Counter(base.pcs[base.wait_from:base.total])
        most = max(counts.values(), default=0)
        if most < 2:
            return
        plan = self.plan
        plan.head = min(pc for pc, n in counts.items() if n == most)
        plan.heads = [n for n in range(base.total) if base.pcs[n] == plan.head]
        inside = {k for k in fire if base.wait_from <= k < base.total}
        starts = set()
        for k in inside:
            i = bisect.bisect_right(plan.heads, k) - 1
            if i >= 0:
                starts.add(plan.heads[i])
        refs.update(starts)
        plan.points = inside | starts

    def _round_of(self, k: int) -> tuple[int, int] | None:
        """(the head boundary at or before k, the next one after k, or the end)."""
        import bisect

        heads = self.plan.heads
        i = bisect.bisect_right(heads, k) - 1
        if i < 0:
            return None
        end = heads[i + 1] if i + 1 < len(heads) else self.base.total
        return heads[i], end

    def _at_head(self, uc, addr, size, _) -> None:
        if not self.recording or self._cut is not None:
            return
        if self._skip_head:  # the run goes on from the head itself
            self._skip_head = False
            return
        self._cut = len(self.reads)

    def _compared(self, touched: set[int], base: Baseline) -> frozenset[int]:
        """The shared bytes whose reads the serializability oracle compares: those the handler
        touches, less those the scenario only ever reads to update (``x++``, ``x |= m``: the
        next access is a write from the same source line): an update reads the latest value on
        purpose, and a lost update shows in the final state, which is compared in full. (A
        read, a call, then the write, ``m = mode; use(m); mode = 0;``, is no update.)"""
        image = self.image
        pending: dict[int, Access] = {}
        rmw_only = set(touched)
        stores = {(a.index, a.addr) for a in base.accesses if a.write}
        for acc in base.accesses:
            if not acc.write and (acc.index, acc.addr) in stores:
                continue  # the read half of one instruction's store (strex, swp): the store
            for b in range(acc.addr, acc.addr + acc.size):
                if b not in touched:
                    continue
                prev = pending.pop(b, None)
                if prev is not None:  # the next access after a read
                    update = acc.write and image.line_at(acc.pc) == image.line_at(prev.pc)
                    if not update:
                        rmw_only.discard(b)
                if not acc.write:
                    pending[b] = acc
        rmw_only -= set(pending)  # a read with nothing after it is a plain read
        seen = {b for acc in base.accesses if not acc.write
                for b in range(acc.addr, acc.addr + acc.size)}
        return frozenset(touched - (rmw_only & seen))

    def _snapshots(self, points: list[int]):
        """(boundary, snapshot) for each of ``points`` (ascending), from one run from S0 that
        stops nowhere: a code hook saves the state before the instruction at each boundary."""
        from unicorn import UC_HOOK_CODE

        m = self.m
        wanted = set(points)
        snaps: dict[int, Snapshot] = {}
        count = [0]

        def code(uc, addr, size, _):
            if count[0] in wanted:
                snaps[count[0]] = m.snapshot()
            count[0] += 1
            if count[0] > points[-1]:
                uc.emu_stop()

        m.restore(self.s0)
        hooks = [m.uc.hook_add(UC_HOOK_CODE, code)]
        m.uc.ctl_flush_tb()
        try:
            m.resume(points[-1] + 1 if points[-1] < self.base.total else self.base.total)
        finally:
            m.unhook(hooks)
        if points[-1] >= self.base.total:
            snaps[self.base.total] = m.snapshot()  # after the last instruction of the run
        missing = wanted - set(snaps)
        if missing:
            raise BrickguardError(f"soak: the rerun of the baseline diverged before boundary "
                                  f"{min(missing)}")
        return sorted(snaps.items())

    def rerun(self, handler: str, k: int, part: int = 0) -> Outcome:
        """One injected run again, with the pc of every shared read (for its witness)."""
        handler_index = [s.handler for s in self.soak.interrupts].index(handler)
        self._watch(frozenset(self.footprints[handler_index]))
        self.plan = self.plans.get(handler_index, RoundPlan())
        self.prefix = _ReadPrefix(self.base.accesses, self.shared)
        (_, snap), = self._snapshots([k])
        self.m.restore(snap)
        self.current = snap
        self.want_pcs = True
        split = (self.multiple[self.base.pcs[k]], part) if part else None
        try:
            return self._injected(self.handlers[handler_index], k, self.base, split)
        finally:
            self.want_pcs = False

    def _injected(self, handler: int, k: int, base: Baseline,
                  split: tuple[Multiple, int] | None = None) -> Outcome:
        m, soak = self.m, self.soak
        self.reads, self.read_pcs = [], []
        self.nulls = []
        fault = hung = ""
        progressed = False
        remaining = (base.total - k) if self.main else (soak.budget - k)
        ends = k >= base.total  # the scenario has finished: the handler runs after it
        pc = base.pcs[k]
        finish: Callable[[], None] = self._record
        if split is not None:  # the first transfers now, the rest after the handler
            op, j = split
            finish = self._split(op, j)
            pc, remaining = pc + op.size, remaining - 1
        cut = k in self.plan.points and split is None
        if self.main or ends or remaining <= 0:
            # main stops after exactly as many instructions as the baseline ran: two runs
            stop, why = m.interrupt(handler, soak.handler_budget, self.current.context)
            if stop == Stop.RETURN and remaining > 0 and not ends:
                finish()
                hooks = []
                if cut:
                    from unicorn import UC_HOOK_CODE

                    self._cut, self._skip_head = None, pc == self.plan.head
                    hooks = [m.uc.hook_add(UC_HOOK_CODE, self._at_head, None,
                                           self.plan.head, self.plan.head)]
                try:
                    stop, why = m.resume(remaining, pc)
                finally:
                    if hooks:
                        m.unhook(hooks)
                self.recording = False
                progressed = self.main and stop == Stop.RETURN
        else:
            m.on_return = finish
            stop, why = m.interrupt(handler, soak.handler_budget, self.current.context,
                                    then=(pc, remaining))
            self.recording = False
            m.on_return = None
        # Taken inside the wait that the budget ends (the loop reads, writes nothing): what
        # the scenario waited for; cut by the budget after it, the run matches no serial
        # order and shows no race (checks, faults and lock-ups still count).
        progressed = progressed or (self.main and 0 <= base.wait_from <= k < base.total)
        if stop == Stop.FAULT:
            fault = (f"the {'scenario' if m.returned else 'handler'} faults"
                     f"{' after the interrupt' if m.returned else ''}: {why}{self._where(m.pc)}")
        elif stop == Stop.BUDGET and not m.returned:
            hung = (f"the handler does not return within its instruction budget (lock-up)"
                    f"{self._where(m.pc)}")
        elif stop == Stop.BUDGET and not self.main:
            hung = (f"the scenario does not return within {soak.budget} instructions after the "
                    f"interrupt (lock-up){self._where(m.pc)}")
        pre_reads, pre_pcs = self.prefix.before(k)
        outcome = Outcome(pre_reads + tuple(self.reads), pre_pcs + tuple(self.read_pcs),
                          self._final(), fault=fault, hung=hung, progressed=progressed,
                          nulls=tuple(sorted(set(self.nulls))))
        span = self._round_of(k) if cut else None
        if span is not None:
            first, _ = self.prefix.before(span[0])
            n = self._cut if self._cut is not None else len(self.reads)
            outcome.window = pre_reads[len(first):] + tuple(self.reads[:n])
            outcome.window_pcs = (pre_pcs[len(first):] + tuple(self.read_pcs[:n])
                                  if self.want_pcs else ())
        if not fault and not hung:
            outcome.broken = self._checks()
        return outcome

    def _record(self) -> None:
        self.recording = True

    def _split(self, op: Multiple, j: int) -> Callable[[], None]:
        """An LDM/STM interrupted after ``j`` transfers: they are made now (a load's values
        kept, a store's words written); the returned call, at the exception return, makes the
        rest, writes the registers and the base's write-back, as the core continues it."""
        m = self.m
        uc = m.uc
        base = uc.reg_read(op.base)
        start = base - 4 * len(op.regs) if op.decrement else base
        addrs = [start + 4 * n for n in range(len(op.regs))]
        values = [uc.reg_read(reg) for reg in op.regs]

        def word(addr: int) -> int:
            value = int.from_bytes(uc.mem_read(addr, 4), "little")
            if addr in self.shared:
                self.reads.append((addr, 4, value))
                if self.want_pcs:
                    self.read_pcs.append(op.pc)
            return value

        def transfer(n: int) -> None:
            if op.load:
                values[n] = word(addrs[n])
            else:
                uc.mem_write(addrs[n], (values[n] & 0xFFFFFFFF).to_bytes(4, "little"))

        for n in range(j):
            transfer(n)

        def rest() -> None:
            self.recording = True
            for n in range(j, len(op.regs)):
                transfer(n)
            if op.load:
                for reg, value in zip(op.regs, values, strict=True):
                    uc.reg_write(reg, value)
            if op.writeback:
                uc.reg_write(op.base, (start if op.decrement else base + 4 * len(op.regs))
                             & 0xFFFFFFFF)

        return rest

    def _final(self) -> bytes:
        """Every global at the end (.data and .bss: all RAM below the stack)."""
        return self.m.ram(self.shared_lo, self.shared_hi - self.shared_lo)

    def _checks(self) -> list[str]:
        m = self.m
        broken = []
        for name, addr in self.checks:
            stop, why = m.call(addr, self.soak.handler_budget)
            if stop != Stop.RETURN:
                broken.append(f"{name}() {self._why(stop, why)}")
                continue
            value = m.reg(m.arm.UC_ARM_REG_R0)
            if value:
                broken.append(f"{name}() returned {value}")
        line_addr = self.image.symbols.get("__bg_assert_line")
        if line_addr is not None and self.image.uses_assert:
            line = int.from_bytes(m.ram(line_addr.addr, 4), "little")
            if line:
                expr = self._cstring(self.image.address("__bg_assert_expr"))
                file = self._cstring(self.image.address("__bg_assert_file"))
                broken.append(f"BG_SOAK_ASSERT({expr}) failed at {file}:{line}")
        return broken

    def _cstring(self, pointer_at: int) -> str:
        ptr = int.from_bytes(self.m.ram(pointer_at, 4), "little")
        try:
            raw = bytes(self.m.uc.mem_read(ptr, 200))
        except Exception:  # noqa: BLE001 - unicorn's UcError: not a mapped address
            return "?"
        return raw.split(b"\0", 1)[0].decode("utf-8", "replace")

    # -- 5. oracles --------------------------------------------------------------------------
    def _judge(self, handler: str, k: int, out: Outcome, outcomes: dict[int, Outcome],
               calls: list[int], base: Baseline, bit: int = 0) -> Failure | None:
        """``bit``: the handler's bit in ``base.enabled`` (0: taken as able to fire anywhere).
        The serial references are the handler wholly before the call and wholly after it; the
        one before only where the handler can be taken at the call's start (``feasible``)."""
        pc = base.pcs[min(k, len(base.pcs) - 1)]
        if out.fault:
            return Failure(handler, k, pc, "fault", out)
        if out.hung:
            return Failure(handler, k, pc, "lock-up", out)
        if out.broken:
            return Failure(handler, k, pc, "check", out)
        c = _call_of(calls, min(k, base.total - 1) if base.total else 0)
        before = outcomes.get(calls[c])
        after = outcomes.get(calls[min(c + 1, len(calls) - 1)])
        feasible = not bit or bool(base.enabled[min(calls[c], len(base.enabled) - 1)] & bit)
        # A null pointer dereferenced by an instruction that makes no such access in the serial
        # references (a handler taken before the scenario sets the pointer it uses): a fault
        # on a part whose null page faults (an MPU region), a read of the vector table on one
        # whose does not. Not in a run the references make too (a stub's 0 result used alike).
        if out.nulls and after is not None and not out.progressed:
            seen = set(after.nulls) | (set(before.nulls) if before is not None and feasible
                                       else set())
            new = [p for p in out.nulls if p not in seen]
            if new:
                where = self._where(new[0]).removeprefix(", ") or f"0x{new[0]:x}"
                out.fault = (f"a null pointer is dereferenced at {where} (the null page, the "
                             "vector table at address 0, read or written), which the handler "
                             "taken after the call does not do")
                return Failure(handler, k, pc, "fault", out, before, after,
                               before_feasible=feasible)
        if out.progressed and out.window is not None:
            return self._judge_round(handler, k, pc, out, outcomes)
        if before is None or after is None or out.progressed:
            return None
        if out.key == after.key or (feasible and out.key == before.key):
            return None
        return Failure(handler, k, pc, "not serializable", out, before, after,
                       before_feasible=feasible)

    def _judge_round(self, handler: str, k: int, pc: int, out: Outcome,
                     outcomes: dict[int, Outcome]) -> Failure | None:
        """A run in the wait, by its round: its reads there must be those of the handler taken
        at the round's start, or of no handler in the round (the baseline's)."""
        span = self._round_of(k)
        start = outcomes.get(span[0]) if span is not None else None
        if span is None or start is None or start.window is None or k == span[0]:
            return None
        lo, _ = self.prefix.before(span[0])
        hi, hi_pcs = self.prefix.before(span[1])
        none = Outcome(hi, hi_pcs, out.final, window=hi[len(lo):],
                       window_pcs=hi_pcs[len(lo):])
        if out.window in (start.window, none.window):
            return None
        return Failure(handler, k, pc, "not serializable", out, start, none, rounds=True)


# Cores that continue an interrupted LDM/STM after the handler, from the transfer after the
# last completed one (EPSR.ICI): Cortex-M3 TRM (DDI 0337) 3.9.1, Cortex-M4 TRM (DDI 0439) 3.9.1,
# Cortex-M7 TRM (DDI 0489) 2.7.1. ARMv6-M (M0, M0+) has no ICI: there an LDM/STM is abandoned
# and restarted, which is the interrupt at the boundary before it (already explored).
CONTINUES = ("cortex-m3", "cortex-m4", "cortex-m7")
ARM_REGS = {**{f"r{n}": n for n in range(13)}, "sb": 9, "sl": 10, "fp": 11, "ip": 12}


@dataclass(frozen=True)
class Multiple:
    """An LDM/STM the core may interrupt between its transfers."""

    pc: int
    size: int  # bytes of the instruction
    load: bool
    base: int  # unicorn register ids
    regs: tuple[int, ...]  # ascending: the order of the transfers
    writeback: bool
    decrement: bool  # DB: the words below the base
    splits: int  # the transfers it may be interrupted after: 1 .. splits

    @classmethod
    def parse(cls, pc: int, text: str, disasm: dict[int, str]) -> Multiple | None:
        """``ldmia.w r3!, {r0, r1}`` -> its operands; None for anything else, for one that
        moves sp, pc or lr (a return, the stack), or with write-back of a base in its list
        (UNPREDICTABLE, never continued). An LDM that loads its own base is continued only up
        to that load ("If an LDM has completed a base load, it is continued from before the
        base load", Cortex-M3/M4 TRM 3.9.1)."""
        import re

        from unicorn import arm_const

        m = re.match(r"(ldm|stm)(ia|db|fd|ea)?(?:\.w|\.n)?\s+(\w+)(!?),\s*\{([^}]*)\}", text)
        if m is None or m.group(3) not in ARM_REGS:
            return None
        numbers: list[int] = []
        for item in m.group(5).replace(" ", "").split(","):
            lo, _, hi = item.partition("-")
            if lo not in ARM_REGS or (hi and hi not in ARM_REGS):
                return None
            numbers += range(ARM_REGS[lo], ARM_REGS[hi or lo] + 1)
        base = ARM_REGS[m.group(3)]
        numbers = sorted(set(numbers))
        load = m.group(1) == "ldm"
        if len(numbers) < 2 or (m.group(4) and base in numbers):
            return None
        splits = len(numbers) - 1
        if load and base in numbers:
            splits = min(splits, numbers.index(base))
        if splits < 1:
            return None
        after = min((a for a in disasm if a > pc), default=pc + 4)
        reg = [getattr(arm_const, f"UC_ARM_REG_R{n}") for n in range(13)]
        return cls(pc, after - pc, load, reg[base], tuple(reg[n] for n in numbers),
                   bool(m.group(4)), m.group(2) in ("db", "ea"), splits)


class Priorities:
    """Where each injected handler's priority, and the scenario's, come from: the emulated NVIC
    and SCB priority registers (IPR, SHPR) for an exception whose number is known (``irq``, a
    CMSIS system handler name, or ``X_IRQHandler`` with ``X_IRQn`` in the sources' enums), as
    the code writes them; seeded before setup from ``priority`` in [soak], else from
    ``[interrupts] priorities`` (preemption numbers, in the top __NVIC_PRIO_BITS as NVIC_SetPriority
    puts them), else 0 as at reset. A scenario whose name matches ``[interrupts] patterns`` is
    itself a handler and runs at its priority: only more urgent handlers preempt it."""

    def __init__(self, image: Image, soak: SoakTable, config: Config | None) -> None:
        from brickguard.config import DEFAULT_INTERRUPT_PATTERNS

        patterns = config.interrupt_patterns if config else DEFAULT_INTERRUPT_PATTERNS
        shift = 8 - image.prio_bits  # a level in the top __NVIC_PRIO_BITS of the byte
        given = {name: (p << shift) & 0xFF
                 for name, p in (config.interrupt_priorities if config else {}).items()}
        self.image = image
        self.exc = [16 + spec.irq if spec.irq is not None else self._exception(spec.handler)
                    for spec in soak.interrupts]
        self.start = [spec.priority if spec.priority is not None else given.get(spec.handler)
                      for spec in soak.interrupts]
        name = soak.scenario
        self.is_handler = soak.priority is not None or (
            name != "main" and (name in SYSTEM_EXCEPTIONS
                                or any(fnmatch.fnmatchcase(name, p) for p in patterns)))
        self.scenario_exc = self._exception(name) if self.is_handler else None
        self.scenario_start = soak.priority if soak.priority is not None else given.get(name)

    def _exception(self, name: str) -> int | None:
        if name in SYSTEM_EXCEPTIONS:
            return SYSTEM_EXCEPTIONS[name]
        irq = self.image.enumerators.get(f"{irq_key(name)}_IRQn")
        return 16 + irq if irq is not None and -16 < irq < 240 else None

    def seed(self, m: Machine) -> None:
        for exc, start in [*zip(self.exc, self.start, strict=True),
                           (self.scenario_exc, self.scenario_start)]:
            if exc is not None and start is not None:
                m.set_exception_priority(exc, start)

    def probe(self, m: Machine, image: Image, budget: int) -> None:
        """With no setup given, the priorities ``main`` sets (HAL_NVIC_SetPriority in its
        init code, AIRCR's grouping): main runs once, without interrupts, for at most
        ``budget`` instructions (a fault or its endless loop ends it), and only the priority
        registers it wrote are kept; the rest of its effects are undone."""
        sym = image.symbols.get("main")
        if sym is None or not sym.func or "main" in image.stubbed:
            return
        before = m.snapshot()
        m.call(sym.addr, budget)
        kept = {a: v for a, v in m.periph.items()
                if IPR <= a < IPR + 240 or SHPR <= a < SHPR + 12 or AIRCR <= a < AIRCR + 4}
        m.restore(before)
        m.periph.update(kept)

    def of(self, m: Machine, i: int) -> int:
        exc = self.exc[i]
        return m.exception_priority(exc) if exc is not None else (self.start[i] or 0)

    def running(self, m: Machine) -> int:
        """The scenario's own execution priority (THREAD in thread mode)."""
        if not self.is_handler:
            return THREAD
        if self.scenario_exc is not None:
            return m.exception_priority(self.scenario_exc)
        return self.scenario_start or 0

    def describe(self, m: Machine, i: int, handler: str, scenario: str) -> str:
        """Why handler ``i`` cannot preempt the scenario at all, or ''."""
        if not self.is_handler:
            return ""
        mine, theirs = self.of(m, i), self.running(m)
        if m.group(mine) < m.group(theirs):
            return ""
        return (f"{handler} (priority 0x{mine & 0xFF:02x}) never preempts {scenario}, a handler "
                f"at priority 0x{theirs & 0xFF:02x}: on the NVIC only a more urgent (lower) "
                "group priority nests")


def attribute(image: Image, failure: Failure, touched: set[int], lo: int,
              outcomes: dict[int, Outcome], base: Baseline, bit: int = 0) -> None:
    """Per memory location (``Image.location_of``: a scalar, a 64-bit one whole, an array
    element, a bit-field run) of the bytes the handler touches: do that location's reads in
    the run (the bytes of it each read covers, in order) and its final bytes equal those of
    the handler wholly before, or wholly after, the scenario's accesses to that location?
    Those orders are the runs with the handler at the explored boundary nearest before the
    call's first access to it and nearest after its last (a run landing outside that span is
    serial for it); with none explored there, or no access to it, the whole call's. Sets
    ``failure.oracle`` and ``failure.locations`` for a "not serializable" run. Judged by
    rounds, only the reads of the round are compared, against the round's orders (the final
    state is cut by the budget). The order before is a run where the handler can be taken
    (``bit`` set in ``base.enabled``; 0: anywhere): where its source is still off (its enable,
    ``after``, comes later in the call), an interrupt pending from before is taken at the
    enable, so for a location the call accesses first before that (a busy flag tested, then
    the transfer started, then the flag set), the handler after is the only serial order."""
    if failure.kind != "not serializable" or failure.before is None or failure.after is None:
        return
    whole_before = failure.before if failure.before_feasible else None

    def feasible(b: int) -> bool:
        return not bit or bool(base.enabled[min(b, len(base.enabled) - 1)] & bit)
    spans = sorted({image.location_of(b) for b in touched})
    rounds = failure.rounds
    k = failure.boundary
    calls = base.calls
    c = _call_of(calls, min(k, base.total - 1) if base.total else 0)
    start, end = calls[c], calls[min(c + 1, len(calls) - 1)]
    explored = sorted(b for b in outcomes if start <= b <= end)

    def orders(loc: tuple[int, int, str]) -> tuple[Outcome | None, Outcome] | str:
        """The handler before and after the call's accesses to ``loc``; "before" or "after":
        the run lands outside them (serial for it, in that order)."""
        first, stop, _ = loc
        at = [a.index for a in base.accesses if start <= a.index < end
              and a.addr < stop and first < a.addr + a.size]
        if rounds or not at:
            return whole_before, failure.after
        # Inside an LDM/STM at k (some transfers done): compared, not taken as before it.
        if k < min(at) or (k == min(at) and not failure.part):
            return "before"
        if k > max(at):
            return "after"
        before = max((b for b in explored if b <= min(at) and feasible(b)), default=None)
        after = min((b for b in explored if b > max(at)), default=None)
        return (outcomes[before] if before is not None else whole_before,
                outcomes[after] if after is not None else failure.after)

    def view(out: Outcome, loc: tuple[int, int, str]) -> tuple:
        first, end, _ = loc
        reads = (out.window or ()) if rounds else out.reads
        seen = tuple(tuple((b - first, value >> 8 * (b - addr) & 0xFF)
                           for b in range(max(addr, first), min(addr + size, end)))
                     for addr, size, value in reads if addr < end and first < addr + size)
        return seen if rounds else (seen, out.final[first - lo:end - lo])

    neither: list[str] = []
    one: list[tuple[tuple[int, int, str], str]] = []  # (location, the order it matches)
    for loc in spans:
        refs = orders(loc)
        if isinstance(refs, str):  # serial for it; named when the two orders differ there
            if view(failure.before, loc) != view(failure.after, loc):
                one.append((loc, refs))
            continue
        mine = view(failure.outcome, loc)
        before = refs[0] is not None and mine == view(refs[0], loc)
        after = mine == view(refs[1], loc)
        if not before and not after:
            neither.append(loc[2])
        elif before != after:
            one.append((loc, "before" if before else "after"))
    torn = _torn_object(image, one, base, start, end)
    if neither or not one or torn:
        # No location the handler touches differs: what differs is the scenario's own state
        # (what it computed from them); counted as a location failure, never waved through.
        failure.oracle, failure.locations = "location", neither or ([torn] if torn else [])
    else:
        failure.oracle = "joint"
        failure.locations = [f"{loc[2]} (as with the handler {side})" for loc, side in one]


def _torn_object(image: Image, one: list[tuple[tuple[int, int, str], str]], base: Baseline,
                 start: int, end: int) -> str:
    """A joint failure inside one object read whole: the members that match different orders
    all belong to one variable, and every read the scenario makes of them in the call comes
    from one source line (``copy = pos;``, one ``ldm`` or two ``ldr``): a torn read of that
    object, its name; "" otherwise (members read in statements of their own)."""
    if {side for _, side in one} != {"before", "after"}:
        return ""
    names = {image.object_at(loc[0]).split("[", 1)[0] for loc, _ in one}
    if len(names) != 1:
        return ""
    lines = {image.line_at(a.pc) for a in base.accesses
             if start <= a.index < end and not a.write
             and any(loc[0] < a.addr + a.size and a.addr < loc[1] for loc, _ in one)}
    if len(lines) != 1 or None in lines:
        return ""
    return f"{names.pop()} (torn: " + ", ".join(
        f"{loc[2]} as with the handler {side}" for loc, side in one) + ")"


def _call_of(calls: list[int], index: int) -> int:
    """Which scenario call boundary ``index`` lies in (calls[c] <= index < calls[c + 1])."""
    lo = 0
    for c in range(len(calls) - 1):
        if calls[c] <= index:
            lo = c
    return lo


class _ReadPrefix:
    """The baseline's reads of shared memory before a boundary (identical in every run there)."""

    def __init__(self, accesses: list[Access], shared: frozenset[int]) -> None:
        self.rows = [a for a in accesses if not a.write and a.addr in shared]
        self.reads = tuple((a.addr, a.size, a.value) for a in self.rows)
        self.pcs = tuple(a.pc for a in self.rows)
        self.indices = [a.index for a in self.rows]

    def before(self, k: int) -> tuple[tuple[Read, ...], tuple[int, ...]]:
        import bisect

        n = bisect.bisect_left(self.indices, k)
        return self.reads[:n], self.pcs[:n]
