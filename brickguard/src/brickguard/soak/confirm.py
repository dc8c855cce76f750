"""``brickguard check --confirm``: soak on the static race findings (BG101-BG103).

Each race finding names the task-side access (its line, and the first access of a pair) and the
interrupt contexts that race with it. Without a ``[soak]`` table, the function that holds the
task-side line (from the image's line table; of a helper inlined into both sides, the one of
the finding's own context) is the scenario, unless it takes parameters: then
the function it is inlined into, or its nearest callers, that take none (``_scenario``); the
contexts are injected through the vectors that reach them (``injected``: a HAL handler or a
callback some function of the image calls runs inside its vector). With a table, the table's
own scenario and interrupts are run. A finding is then

- confirmed: a failing run lands between its accesses (from the first access's line to its own)
  and breaks the object it names (or faults, hangs or breaks a check): it rises to error, with
  the witness as its code flow and the replay command;
- refuted: the exploration was complete and no run landing there broke anything, from the
  reset state and (without a ``[soak]`` table) again from the state one run of the handler
  leaves, in the second of two calls of the scenario, and from the seeded state (``[soak]
  seed = "wrap"``: the counters a handler steps, one step before they wrap; what was still not
  explored is tried with the stubs of undefined calls returning 1, then all-ones, and the
  verdict names the state that confirmed it); a run that waits for the interrupt
  (spins to its budget) before the finding's own line has the handler taken there first
  (``[soak] waits``), and the verdict says where; a run landing inside the wait a bounded
  run ends in is judged on the round of the loop it lands in (``Explorer.rounds``);
- not explored: and why (no cross compiler, the code does not build, the scenario is static or
  inlined away, it faults without interrupts, the bounds stopped the exploration).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from brickguard.errors import BrickguardError
from brickguard.findings import Finding, Level, Location
from brickguard.soak.settings import InterruptSpec, SoakTable

RACE_RULES = ("BG101", "BG102", "BG103")
AUTO_BUDGET = 20000  # instructions per run when the finding's function is the scenario
AUTO_SECONDS = 20
AUTO_WAITS = 8  # handlers taken where the run waits, to reach the finding's lines
CONTEXT = re.compile(r" in ([\w, .]+?) \(interrupt\)")
OBJECT = re.compile(r"`([A-Za-z_]\w*)")
PAIR = re.compile(r" is read in [^`]* after `([A-Za-z_]\w*)`")  # BG101's pair: the first word
# The call the static timeline says lets the handler run (BG101's late writes: the enable, or
# the start of what a callback reports): ``NVIC_EnableIRQ(): interrupt handler H can run from
# here``.
OPENS = re.compile(r"(\w+)\(\): interrupt handler \w+ can run from here")
OWN = re.compile(r" in (?:task context \((\w+)\)|interrupt handler (\w+))")


@dataclass
class Verdict:
    status: str  # "confirmed", "refuted", "not explored"
    reason: str = ""
    replay: str = ""
    flow: tuple[Location, ...] = ()
    stray: bool = False  # (benchmarks) a soak failure that no finding explains


@dataclass(frozen=True)
class Start:
    """One starting state ``--confirm`` explores from (when no ``[soak]`` table is given)."""

    prime: int = 0  # handler runs first
    repeat: int = 1  # calls of the scenario
    seed: str = ""  # [soak] seed
    stub: int = 0  # what the stubs of undefined calls return


STUB_VALUES = (1, 0xFFFFFFFF)


@dataclass(frozen=True)
class Plan:
    scenario: str
    handlers: tuple[str, ...]


def _contexts(f: Finding) -> tuple[str, ...]:
    """The interrupt contexts the finding names (``in HAL_I2C_EV_IRQHandler, I2C1_EV_IRQHandler
    (interrupt)``): the entries the static call graph says reach the racing access."""
    for loc in (*f.related, *f.flow):
        m = CONTEXT.search(loc.message)
        if m:
            return tuple(n for n in re.split(r",\s*", m.group(1)) if n and n != "...")
    return ()


def injected(image, f: Finding) -> dict[str, str]:
    """Handler to inject -> how it reaches the finding's interrupt context. A context that some
    function of the image calls (a HAL driver's ``HAL_UART_IRQHandler(&huart)``, a callback the
    driver calls) is not what the core enters: the roots of its callers are (the vector's
    ``USART1_IRQHandler``), and they are injected. A context nothing calls is injected itself."""
    out: dict[str, str] = {}
    names = _contexts(f)
    for name in names:
        if name not in image.symbols:
            out.setdefault(name, "")
            continue
        roots = [r for r in image.roots(name) if r != "main"] or [name]
        for root in roots:
            chain = " -> ".join(_chain(image, root, name))
            out.setdefault(root, "" if root == name else
                           f"{root} injected: the interrupt that reaches {name} ({chain})")
    # One that takes parameters (``HAL_I2C_EV_IRQHandler(hi2c)`` inlined into its vector) is
    # not entered by the core, which passes none: the others are injected when there are any.
    plain = {h: why for h, why in out.items() if h not in image.takes_args}
    dropped = sorted(set(out) - set(plain))
    if not plain or not dropped:
        return out
    skip = ", ".join(f"{h}()" for h in dropped)
    return {h: why or f"{h} injected, not {skip}: it takes parameters, which the core does "
            "not pass; it runs inside the handler that calls it" for h, why in plain.items()}


def _chain(image, top: str, name: str) -> list[str]:
    """The calls from ``top`` down to ``name`` (a shortest path in the image's call graph)."""
    callers = image.callers()
    paths = {name: [name]}
    level = [name]
    while level and top not in paths:
        nxt = []
        for fn in level:
            for c in sorted(callers.get(fn, set())):
                if c not in paths:
                    paths[c] = [c, *paths[fn]]
                    nxt.append(c)
        level = nxt
    return paths.get(top, [top, name])


def _scenario(image, fns: list[str]) -> tuple[str, str]:
    """The scenario for a finding whose line is compiled into ``fns``, and why when it is not
    the first of them: a function that takes parameters, called with none, runs on garbage, so
    the line is run where it is inlined into one that takes none, else through the nearest
    callers that take none (``main`` calling ``HAL_UART_Transmit_IT(&huart, ...)``, the vector
    calling ``HAL_I2C_EV_IRQHandler(&hi2c)``): on the arguments the program passes."""
    fn = fns[0]
    if fn not in image.takes_args:
        return fn, ""
    plain = [g for g in fns if g not in image.takes_args]
    if plain:
        return plain[0], (f"{fn}() takes parameters: run in {plain[0]}(), where the compiler "
                          "inlined it")
    for g in fns:
        top = image.roots(g, stop=lambda h: h not in image.takes_args)[0]
        if top not in image.takes_args:
            return top, (f"{fn}() takes parameters: run through {top}() "
                         f"({' -> '.join(_chain(image, top, g))})")
    return fn, ""


def _own_first(f: Finding, fns: list[str], handlers: dict[str, str]) -> list[str]:
    """The functions the finding's line is compiled into, the handlers it races with last,
    unless one is its own context (``in interrupt handler USART1_IRQHandler``): a helper
    inlined into both sides is run on the finding's side, with the other side injected, not a
    handler injected into itself (equal ones never nest)."""
    m = OWN.search(f.message)
    own = (m.group(1) or m.group(2)) if m else ""
    return sorted(fns, key=lambda g: g in handlers and g != own)


def _first_line(f: Finding) -> int:
    firsts = [r.line for r in f.related if "first access" in r.message
              and Path(r.file).name == Path(f.location.file).name]
    return min([*firsts, f.location.line])


def _same(a: str, b: str) -> bool:
    return Path(a).resolve() == Path(b).resolve()


def confirm(findings: Sequence[Finding], paths: list[Path], config, *, quiet: bool = False,
            config_path: Path | None = None,
            interrupts: dict | None = None) -> list[tuple[Finding, Verdict]]:
    """A verdict for each race finding (others are passed through with no verdict).
    ``interrupts``: the static model's interrupt contexts by name (``Report.interrupts``), for
    the line and priority a handler is injected with (``_spec``)."""
    from brickguard.soak.build import build

    races = [f for f in findings if f.rule in RACE_RULES]
    verdicts: dict[int, Verdict] = {}
    if not races:
        return []
    base = config.soak or SoakTable()
    try:
        image0 = build(paths, config, replace(base, scenario="main", setup=[], checks=[],
                                              interrupts=[]))
    except BrickguardError as exc:
        return [(f, Verdict("not explored", str(exc))) for f in races]
    grouped: dict[Plan, list[Finding]] = {}
    how: dict[int, dict[str, str]] = {}  # finding -> handler injected -> how it reaches it
    why: dict[int, str] = {}  # finding -> why its scenario is not its own function
    for f in races:
        how[id(f)] = handlers = injected(image0, f)
        if not handlers:
            verdicts[id(f)] = Verdict("not explored", "the finding names no interrupt handler")
            continue
        if config.soak is not None:
            key = Plan(config.soak.scenario, tuple(i.handler for i in config.soak.interrupts))
        else:
            fns = next((fns for n in range(f.location.line, _first_line(f) - 2, -1)
                        if (fns := image0.functions_of_line(f.location.file, n))), None)
            if fns is None:
                verdicts[id(f)] = Verdict("not explored", "no code for this line in the build "
                                          "(optimised away, or not compiled)")
                continue
            scenario, because = _scenario(image0, _own_first(f, fns, handlers))
            why[id(f)] = because
            key = Plan(scenario, tuple(sorted(handlers)))
        grouped.setdefault(key, []).append(f)
    merged: dict[str, set[str]] = {}
    for plan in grouped:
        merged.setdefault(plan.scenario, set()).update(plan.handlers)
    # Pending at the enable: a handler behind a call that lets it run (the finding's timeline
    # gate) is injected only from that call on (``after``); an interrupt that became pending
    # while its source was off is taken there, at the earliest, not before the call.
    opens: dict[tuple[str, str], set[str]] = {}
    for plan, fs in grouped.items():
        for f in fs:
            calls = {m.group(1) for r in f.related if (m := OPENS.match(r.message))}
            calls = {n for n in calls if (s := image0.symbols.get(n)) is not None and s.func}
            for h in how[id(f)] if calls else ():
                opens.setdefault((plan.scenario, h), set()).update(calls)
    for scenario, handlers in merged.items():
        group = [f for plan, fs in grouped.items() if plan.scenario == scenario for f in fs]
        if config.soak is not None:
            table = config.soak
        else:  # bounded: a main that never returns runs AUTO_BUDGET instructions
            # A scenario that is itself a handler runs at the level the static model gives it.
            own = static_priority(image0, (interrupts or {}).get(scenario))
            table = replace(base, scenario=scenario, budget=AUTO_BUDGET,
                            max_seconds=AUTO_SECONDS, waits=AUTO_WAITS,
                            priority=base.priority if base.priority is not None else own,
                            interrupts=[_gated(_spec(image0, h, (interrupts or {}).get(h)),
                                               opens.get((scenario, h), set()))
                                        for h in sorted(handlers)] + [
                                replace(_spec(image0, h, c), explore=False)
                                for h, c in wait_handlers(image0, interrupts or {},
                                                          {scenario, *handlers})])
        # Automatic: from the reset state, then (for what that leaves unconfirmed) from the
        # state one run of the handler leaves (a lost update of 0 halved is 0 either way), then
        # with the scenario called twice, the second call from the state the first leaves (a
        # mode the first call sets is there when the second clears it), then three times (a
        # handler's duty -= duty / 8 changes nothing in the states calls 1 and 2 start from).
        # Then from the seeded state (a counter one step before it wraps: a carry into the
        # high word), then, for what is still not explored, with the stubs of undefined calls
        # returning 1, then all-ones (a path taken only when an undefined read_sensor()
        # returns non-zero).
        starts = [Start(0, 1), Start(1, 1), Start(0, 2), Start(0, 3), Start(seed="wrap")] + (
            [Start(stub=v) for v in STUB_VALUES] if image0.plain_stubs else [])
        if config.soak is not None:
            starts = [Start()]
        bounded = scenario == "main"
        for n, st in enumerate(starts):
            if n:
                if all(verdicts.get(id(f), Verdict("")).status == "confirmed" for f in group):
                    break
                if st.repeat > 1 and bounded:
                    continue  # run for its budget: the harness calls it once
                if st.stub and all(verdicts.get(id(f), Verdict("")).status in (
                        "confirmed", "refuted") for f in group):
                    continue  # explored completely: the stubs' results did not hide it
            if config.soak is None:
                table = replace(table, repeat=st.repeat, seed=st.seed, stub_return=st.stub,
                                interrupts=[replace(i, prime=st.prime if i.explore else 0)
                                            for i in table.interrupts])
            bounded = _soak_group(paths, config, config_path, table, scenario, how, group,
                                  verdicts, why) or bounded
        for f in group:
            verdicts.setdefault(id(f), Verdict("not explored", "its handler was not injected"))
    return [(f, verdicts[id(f)]) for f in races]


def _soak_group(paths, config, config_path, table: SoakTable, scenario: str,
                how: dict[int, dict[str, str]], group: list[Finding],
                verdicts: dict[int, Verdict], why: dict[int, str]) -> bool:
    """One exploration for the findings of one scenario; a verdict for each (a confirmation
    is never overwritten; a later refutation, from another starting state, says both).
    True when the scenario was run for its budget (a loop that does not return)."""
    from brickguard.soak.build import build
    from brickguard.soak.witness import build_witnesses, replay_command

    try:
        image = build(paths, config, table)
        try:
            explorer = _explorer(image, table, group, config)
            if table.seed and not explorer.seeded:
                return table.bounded  # nothing to seed: the state explored already
            result = explorer.explore()
        except BrickguardError as exc:
            if config.soak is not None or "does not return within" not in str(exc):
                raise
            # A task loop that never returns: run it for its budget, as main is run.
            table = replace(table, bounded=True)
            explorer = _explorer(image, table, group, config)
            result = explorer.explore()
    except BrickguardError as exc:
        for f in group:
            if id(f) not in verdicts or verdicts[id(f)].status == "not explored":
                verdicts[id(f)] = Verdict("not explored", f"{scenario}: {exc}")
        return table.bounded
    prime = max((i.prime for i in table.interrupts), default=0)
    handlers = [i.handler for i in table.interrupts if i.explore]
    # The handlers gated at the call that lets them run (``_gated``): the replay says so.
    opened = {i.handler for i in table.interrupts if i.explore and i.after
              and i.after != hal_starts(image, i.handler)}
    waiters = [i.handler for i in table.interrupts if not i.explore]
    extra = [] if config.soak is not None else [
        "--scenario", scenario, *(a for h in handlers for a in ("--handler", h)),
        *(a for i in table.interrupts if i.explore and i.handler in opened
          for c in i.after for a in ("--after", f"{i.handler}={c}")),
        *(a for h in waiters if result.waited for a in ("--wait-handler", h)),
        *(["--prime", str(prime)] if prime else []),
        *(["--repeat", str(table.repeat)] if table.repeat > 1 else []),
        # As many waits as this run took (it stops at the findings' lines; unfocused, the
        # replay would take all `waits`).
        *(["--waits", str(len(result.waited))] if result.waited else []),
        *(["--seed", table.seed] if table.seed else []),
        *(["--stub-return", str(table.stub_return)] if table.stub_return else []),
        *(["--rounds"] if any(p.heads for p in explorer.plans.values()) else [])]
    replay_base = " ".join([replay_command(paths, config_path), *extra])
    notes = [f"after {', '.join(result.waited)}, taken where the run without interrupts "
             "waits"] if result.waited else []
    start = ""  # the starting state, when confirm chose it (no [soak] table)
    if config.soak is None and prime:
        start = f"after {prime} run(s) of the handler first"
    elif config.soak is None and table.repeat > 1:
        start = (f"in call {table.repeat} of the scenario, from the state call "
                 f"{table.repeat - 1} leaves")
    elif config.soak is None and result.seeded:
        start = f"from the seeded state: {'; '.join(result.seeded)}"
    elif config.soak is None and table.stub_return:
        start = (f"with the stubs of undefined calls returning {table.stub_return} "
                 f"({', '.join(image.plain_stubs)})")
    for r in result.handlers:
        witnesses = build_witnesses(result, r, replay_base, explorer.rerun)
        for f in group:
            if config.soak is None and r.spec.handler not in how[id(f)]:
                continue
            v = _judge(f, r, witnesses, image, replay_base, result.baseline.pcs,
                       table.oracle)
            if v is None:
                continue
            via = [n for n in (why.get(id(f), ""), how[id(f)].get(r.spec.handler, "")) if n]
            if v.status == "confirmed" and start:
                via.append(start)
            if via or notes:
                v = replace(v, reason=f"{v.reason} ({'; '.join([*notes, *via])})")
            known = verdicts.get(id(f))
            if known is not None and known.status == "confirmed":
                continue
            if start and v.status == "refuted" and known is not None and (
                    known.status == "refuted"):
                v = replace(v, reason=f"{known.reason}; again {start}: "
                            f"{v.reason.split(', none', 1)[0]}")
            elif start and v.status != "confirmed" and known is not None:
                continue  # keep what the reset state said
            verdicts[id(f)] = v
    return table.bounded or explorer.main


# The priority byte of a Zephyr ISR not connected as zero-latency, at its most urgent: Zephyr's
# z_arm_irq_priority_set adds _IRQ_PRIO_OFFSET to every priority but a zero-latency one's, so
# none is above _EXC_IRQ_DEFAULT_PRIO, which irq_lock writes to BASEPRI (the stand-in's 0x40,
# Z_EXC_PRIO(2) with 3 priority bits): irq_lock masks it, as the static analysis takes it to.
ZEPHYR_ISR_PRIORITY = 0x40


def _spec(image, handler: str, context=None) -> InterruptSpec:
    """The handler, with its IRQ number when the sources' enum names its line, enabled from the
    start (masking it one by one, ``HAL_NVIC_DisableIRQ``, ``SYS_INT_SourceDisable``, then
    masks it in the emulated NVIC). The line: ``USART1_IRQn`` for ``USART1_IRQHandler``, as
    CMSIS device headers name them, or, for a callback a driver calls from its handler, the
    line the static model gives its context (``Context.irq``: ``USART1`` for the callback
    given to ``USART1_ReadCallbackRegister``). In a Zephyr program (it calls ``irq_lock``) a
    handler the static model takes as zero-latency (``Context.unmasked``) is at priority 0,
    any other at ZEPHYR_ISR_PRIORITY (with no static context: as at reset, 0)."""
    stem = handler.removesuffix("_IRQHandler")
    irq = image.enumerators.get(f"{stem}_IRQn") if stem != handler else None
    line = getattr(context, "irq", "") or ""
    if irq is None and line:
        irq = image.enumerators.get(f"{line}_IRQn")
    priority = static_priority(image, context)
    if "irq_lock" in image.stubbed and context is not None:
        priority = 0 if getattr(context, "unmasked", False) else ZEPHYR_ISR_PRIORITY
    after = hal_starts(image, handler)
    if irq is None or not 0 <= irq < 240:
        return InterruptSpec(handler, priority=priority, after=after)
    return InterruptSpec(handler, irq=irq, enabled=True, priority=priority, after=after)


def _gated(spec: InterruptSpec, calls: set[str]) -> InterruptSpec:
    """The handler injected only once one of ``calls`` (what lets it run) has been made."""
    return replace(spec, after=sorted({*spec.after, *calls})) if calls else spec


def wait_handlers(image, interrupts: dict, taken: set[str]) -> list[tuple[str, object]]:
    """The static model's other interrupt contexts (not the scenario, not injected), as wait
    handlers: never injected for the exploration, only taken where the run waits when one is
    what ends the wait (``while (tx_done == 0u) {}`` before the finding's lines, a flag only
    another handler sets). Those the core enters: in the image, taking no parameters."""
    return [(name, ctx) for name, ctx in sorted(interrupts.items())
            if name not in taken and (sym := image.symbols.get(name)) is not None and sym.func
            and name not in image.takes_args and name not in image.stubbed
            and not getattr(ctx, "concurrent", False)]


def static_priority(image, context) -> int | None:
    """The priority byte of the level the static model gives an interrupt context
    (``Context.level``: from a setter call no stand-in models, ``nvic_irq_enable(irq, pre,
    sub)``, a configuration struct's priority field, a registration's number), in the top
    ``__NVIC_PRIO_BITS`` as NVIC_SetPriority puts it; None when it has none. The emulated NVIC
    is seeded with it before setup: a priority register the code writes itself still wins."""
    level = getattr(context, "level", None)
    if level is None or not 0 <= level < 1 << image.prio_bits:
        return None
    return (level << (8 - image.prio_bits)) & 0xFF


def hal_starts(image, handler: str) -> list[str]:
    """For a handler that hands over to a HAL driver (it calls ``HAL_I2C_EV_IRQHandler``): the
    image's calls that start that family in interrupt or DMA mode (``HAL_I2C_Master_Transmit_IT``),
    as the static timeline has it (``timeline.py``): the peripheral raises nothing before one.
    None in the image: the source is started some other way, and the handler is not gated."""
    from brickguard.timeline import family, start_families

    sym = image.symbols.get(handler)
    if sym is None:
        return []
    called = {m.group(1) for addr, text in image.disasm.items()
              if sym.addr <= addr < sym.addr + max(sym.size, 2)
              and (m := re.match(r"b(?:l|\.w)?\s+[0-9a-f]+ <(HAL_\w*IRQHandler)>", text))}
    families = {family(name) for name in called} - {""}
    return sorted(name for name, s in image.symbols.items()
                  if s.func and families & start_families(name))


def lines_around(r, run, image) -> set[tuple[str, int]]:
    """Where a failing run landed, in source lines: the landing instruction's line and the
    lines of the scenario's conflicting accesses just before and just after it (the compiler
    schedules one statement's load and store among the next statement's instructions)."""
    out = {where} if (where := image.line_at(run.pc)) else set()
    before = [a for a in r.conflicts if a.index < run.boundary]
    after = [a for a in r.conflicts if a.index >= run.boundary]
    for acc in ([before[-1]] if before else []) + ([after[0]] if after else []):
        if (line := image.line_at(acc.pc)) is not None:
            out.add(line)
    return out


def _explorer(image, table: SoakTable, group: list[Finding], config):
    """An explorer that injects only before the instructions of the findings' lines."""
    from brickguard.soak.explore import Explorer

    explorer = Explorer(image, table, config)
    explorer.rounds = True  # runs land on the findings' lines only: judge waits by rounds
    explorer.focus = {addr for addr in image.disasm
                      if (where := image.line_at(addr)) is not None
                      and any(_same(where[0], g.location.file)
                              and _first_line(g) <= where[1] <= g.location.line for g in group)}
    # Waits are taken until the run reaches each finding's own line, not only its first
    # access (a poll that tests a count on the first line and clears it on the last).
    explorer.targets = [t for g in group if (t := {
        addr for addr in explorer.focus if (where := image.line_at(addr)) is not None
        and where[1] == g.location.line and _same(where[0], g.location.file)})]
    return explorer


def _judge(f: Finding, r, witnesses, image, replay_base: str,
           pcs: list[int], oracle: str) -> Verdict | None:
    obj = OBJECT.search(f.message)
    name = obj.group(1) if obj else ""
    pair = PAIR.search(f.message)  # `lo` is read ... after `hi`: the two words, read as one
    lo, hi = _first_line(f), f.location.line
    touched = {image.object_at(b).split("[", 1)[0]
               for b in (*r.footprint_reads, *r.footprint_writes)}
    # What the handler reads and what it writes, by object: a value it saw mid-way shows in
    # what it wrote (W-R-W: the handler sees the intermediate, and stores what follows; a late
    # write: it sees the value from before; a torn write: half of one). Not for a pair whose
    # middle access is the handler's write (R-W-W, R-W-R, W-W-R): what breaks there is the
    # object itself, and a handler that also reads it and breaks another location is no
    # witness (``state_machine.c:53``: its switch on state2 and its store of state are
    # unrelated).
    seen: tuple[set[str], set[str]] = (set(), set())
    if not any(f"({p})" in f.message for p in ("R-W-W", "R-W-R", "W-W-R")):
        seen = ({image.object_at(b).split("[", 1)[0] for b in r.footprint_reads},
                {_base(image.location_of(b)[2]) for b in r.footprint_writes})
    if name in image.symbols and name not in touched:
        return Verdict("not explored", f"{r.spec.handler}, run from the scenario's starting "
                       f"state, does not touch `{name}` (it touches: "
                       f"{', '.join(sorted(touched)) or 'nothing'})")
    for w in witnesses:
        for run in w.runs:
            where = image.line_at(run.pc)
            if where is None or not any(_same(file, f.location.file) and lo <= n <= hi
                                        for file, n in lines_around(r, run, image)):
                continue
            if not _shows(image, run, name, w.objects, pair.group(1) if pair else "",
                          oracle, seen):
                continue
            head = w.lines[0] if run is w.failure else (
                f"{r.spec.handler} taken at {Path(where[0]).name}:{where[1]} "
                f"(instruction {run.boundary} of the run): {run.kind}")
            return Verdict("confirmed", head,
                           f"{replay_base} --replay {r.spec.handler}@{run.at}",
                           tuple(w.flow))
    def here(pc: int) -> bool:
        where = image.line_at(pc)
        return where is not None and lo <= where[1] <= hi and _same(where[0], f.location.file)

    if not any(here(pc) for pc in set(pcs)):
        stuck = image.line_at(pcs[-1]) if pcs else None
        at = f"; it ends at {Path(stuck[0]).name}:{stuck[1]}" if stuck else ""
        return Verdict("not explored", f"the run without interrupts never reaches lines "
                       f"{lo}-{hi}{at} (it may wait for the interrupt there)")
    if not r.complete or not r.planned:
        return Verdict("not explored", r.note or "nothing to explore")
    code = "; ".join(image.disasm[a] for a in sorted(image.disasm) if here(a))
    return Verdict("refuted", f"all {r.explored} interleavings of {r.spec.handler} explored "
                   f"({r.masked} boundaries masked), none landing between lines {lo}-{hi} broke "
                   f"anything (the code there: {code or 'none'})")


def _base(location: str) -> str:
    """``st.rx_ready/tx_busy (as with ...)``, ``frame[3]`` -> the object: ``st``, ``frame``."""
    return re.split(r"[.\[ ]", location, maxsplit=1)[0]


def _shows(image, run, name: str, objects: list[str], other: str = "",
           oracle: str = "location",
           seen: tuple[set[str], set[str]] = (set(), set())) -> bool:
    """Whether a run that breaks serializability is a witness for the finding.

    Under ``[soak] oracle = "location"``: a location failure on the object the finding names
    (or on either word of its pair; any location failure when the name is no object of the
    image: a pointer's target), or on an object the handler writes when it reads the finding's
    (``seen``: what it saw mid-way shows in what it wrote), or a joint failure on both words of
    its pair (``lo`` read after ``hi``: the two words read as one). Under "scenario": the
    final state is neither serial order's (what the handler saw mid-way shows in what it
    wrote), or the values the scenario read of the object the finding names are neither
    order's. A loop soaked as
    ``main`` reads other shared words too, and a handler between two rounds makes those reads
    alone differ from the whole-run orders; that is no witness of this race."""
    from brickguard.soak.witness import final_objects

    sym = image.symbols.get(name)
    if run.kind == "not serializable" and oracle == "location" and run.oracle:
        own = {n for n in (name, other) if n}
        bases = {_base(loc) for loc in run.locations}
        if run.oracle == "joint":
            return bool(other) and own <= bases
        reads, writes = seen
        return (sym is None or bool(own & bases) or not run.locations
                or bool(own & reads and bases & writes))
    if run.kind != "not serializable" or sym is None or run.before is None or (
            run.after is None) or any(_base(o) == name for o in objects):
        return True
    mine, b, a = (final_objects(image, o.final) for o in (run.outcome, run.before, run.after))
    if any(v != b.get(k) and v != a.get(k) for k, v in mine.items()):
        return True
    spans = [(o.addr, o.addr + max(o.size, 1)) for n in (name, other)
             if (o := image.symbols.get(n)) is not None]

    def values(out) -> set[tuple[int, int]]:
        reads = out.window if run.rounds and out.window is not None else out.reads
        return {(a, v) for a, _, v in reads if any(lo <= a < hi for lo, hi in spans)}

    seen = values(run.outcome)
    return seen != values(run.before) and seen != values(run.after)


def apply(findings: Sequence[Finding], verdicts: list[tuple[Finding, Verdict]]) -> list[Finding]:
    """The findings with their verdicts: a note at the finding; confirmed ones at error level,
    with the witness as their code flow."""
    by_id = {id(f): v for f, v in verdicts}
    out = []
    for f in findings:
        v = by_id.get(id(f))
        if v is None:
            out.append(f)
            continue
        text = f"soak: {v.status}: {v.reason}" + (f"; replay: {v.replay}" if v.replay else "")
        note = Location(f.location.file, f.location.line, f.location.column, text)
        if v.status == "confirmed":
            out.append(replace(f, level=Level.error, related=(*f.related, note),
                               flow=v.flow or f.flow))
        else:
            out.append(replace(f, related=(*f.related, note)))
    return out
