"""Which task-side access sites race with an interrupt handler: the judgement behind BG101-BG103.

An access names a *path* in its object (``dev[2].status``, ``h.Init.Mode``; an index not known at
compile time may be any element): a task access and an interrupt access conflict only when their
paths overlap (``facts.paths_overlap``). Per object shared with an interrupt handler, each
unprotected task-side access gets at most one race, the most specific (BG102 > BG103 > BG101), so
a bug is reported once per line:

- BG102: a read-modify-write (``x++``, ``x |= m``) of a part the handler writes; or a store to
  a bit-field whose neighbour in the same memory location (C11: adjacent bit-fields are one)
  the handler writes: the store loads, merges and stores the shared word;
- BG103: an access wider than the native word to a part the handler writes (or, for a task
  write, touches at all): it takes several instructions and can tear;
- BG101: a struct or array copied as a whole (not one scalar) against a handler write; or an
  *atomicity violation* between two task accesses.

One aligned load or store of a scalar of at most a word is atomic on the target: on its own it
is no race (the handler sees the old or the new value, both whole; the task reads one whole
value). It takes two task accesses to break it, the unserializable access pairs of the
atomicity-violation literature (local-remote-local), where the task's two accesses to one part
are consecutive in its function, on one path (not in two arms of an if, and not the first in an
arm that returns and the second after it), not both in a critical section, and a handler
access between them makes the outcome one no serial order gives:

- R-W-R: the task reads twice (check, then use) and the handler writes between: the two reads
  disagree;
- R-W-W: the task reads then writes (``if (flag) { ...; flag = 0; }``): the handler's write
  between them is lost;
- W-R-W: the task writes twice and the handler reads between: it sees an intermediate value;
- W-W-R: the task writes then reads its own value back and the handler writes between. A read
  that is a loop's condition is a poll (``flag = 0; while (!flag) {}``), which waits for the
  handler's write on purpose: it is not reported.

A read-modify-write after a read-modify-write is judged by its store: W-R-W when the two are
different steps of one update (``x = x & ~M; x = x | mode``: the handler sees ``x & ~M``, a value
the program never means) and the handler only reads the part. Not reported: the same step twice
(``n--; n--``: each leaves a count the program means), a plain store then an update (``x = v;
x >>= s``: left alone for precision; on real code, the HAL's SystemCoreClockUpdate, the handler's
use of the first value was harmless), and a handler that writes the part too (a lost update,
which BG102 reports on its own).

Two R-W-W shapes are left alone: a flag checked outside and cleared inside a critical section
(the section is where the event is taken, with its data); and the HAL transfer handshake
``HAL_UART_Transmit_IT(...); while (ready != SET) {} ready = RESET;``, where the poll saw the
completion callback of the one transfer started since the flag was last written (``_one_shot``).
Nor are those where what the task's test knows (``AccessFact.sense``: ``if (!full)``,
``if (s == OVERRUN)``, the ``case`` of a ``switch (s)``) rules the handler's store out or makes
it change nothing: an ownership flag each side stores only in the arm of its own test that the
other side's values never satisfy (``_owned_flag``), a handler store of the one value the task's
arm knows; and a benign test-then-clear (``_idempotent_flag``).

R-W-R is left alone when the second read is the condition of a do-while around the first (a
retry: ``do { hi = H; lo = L; } while (hi != H);``), a re-check inside a critical section of a
test made outside it, or a use in the arm of a test whose knowledge the handler's writes keep
(``if (dropped != 0) log(dropped);`` against ``dropped++``: ``_test_survives``).

A handler access counts only where its interrupt can fire: not before the interrupt timeline
lets any fire (``Access.before_start``), not while its IRQ alone is masked
(``HAL_NVIC_DisableIRQ(X_IRQn)`` ... ``HAL_NVIC_EnableIRQ(X_IRQn)``: the other handlers still can),
and between handlers only from a more urgent priority (``Program.priority``). A critical section
that raises BASEPRI (FreeRTOS's ``taskENTER_CRITICAL`` on Cortex-M3/M4/M7, ``__set_BASEPRI(v)``)
masks only the interrupts of its priority and below (``AccessFact.level``): inside it, a handler
of a known, more urgent priority still races.

Whether the object is ``volatile`` is BG104's question, asked once at the declaration.
``Program.races`` computes this once per program; the rules read it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from brickguard import order as _order
from brickguard.facts import AccessKind, CallFact, ObjectFact, irq_key, paths_overlap
from brickguard.sections import CROSS_CORE, SCHEDULER

if TYPE_CHECKING:
    from brickguard.program import Access, Program

PRIORITY = {"BG102": 0, "BG103": 1, "BG101": 2}
ZERO = " (in a section that only raises BASEPRI: a zero-latency interrupt runs above it)"
# (the task's first action, its second) -> (the handler's action between, what goes wrong)
PATTERNS = {
    ("R", "R"): ("W", "the two reads can see different values"),
    ("R", "W"): ("W", "the handler's update between them is lost"),
    ("W", "W"): ("R", "the handler sees the intermediate value"),
    ("W", "R"): ("W", "the read does not get back the value written"),
}


@dataclass(frozen=True)
class Race:
    rule: str  # "BG101" | "BG102" | "BG103": the most specific rule for this site
    obj: ObjectFact
    task: Access  # the unprotected task-side access (where the finding is reported)
    isr: Access  # the interrupt-side access it races with
    first: Access | None = None  # for an access pair: the task's first access (task is second)
    # for an access pair: "R-W-R", "R-W-W", "W-R-W" or "W-W-R"; "order": a function pointer
    # installed only after its handler can fire (``_order_violation``)
    pattern: str = ""
    # Who is preempted: "task context (main)", or "interrupt handler X (priority 5)" when a
    # more urgent handler preempts a less urgent one.
    victim: str = ""
    # pattern "late" (``order``): the call before the write that lets the handler run;
    # pattern "wrap": the call that reads the hardware counter whose wraps the object counts
    start: CallFact | None = None
    # For an R-W-W on a flag the handler sets to a constant: why the pair is kept although
    # such a store is often serializable (``_kept_because``).
    why: str = ""

    @property
    def harm(self) -> str:
        """What the interleaving breaks, for an access pair."""
        pair = (self.pattern[:1], self.pattern[-1:])
        return PATTERNS[pair][1] if pair in PATTERNS else ""


@dataclass(frozen=True)
class Shared:
    """An object an interrupt handler touches and task code touches too."""

    obj: ObjectFact
    accesses: list[Access]


def accesses_by_object(program: Program) -> dict[str, list[Access]]:
    out: dict[str, list[Access]] = defaultdict(list)
    for a in program.accesses:
        out[a.fact.obj].append(a)
    return out


def shared_objects(program: Program) -> list[Shared]:
    """Objects shared between interrupt and task context, or between two handlers of different
    known priorities (const and _Atomic ones skipped)."""
    out = []
    for usr, accs in program.accesses_by_object.items():
        obj = program.objects.get(usr)
        if obj is None or obj.is_const or obj.is_atomic:
            continue
        if not any(a.in_interrupt for a in accs):
            continue
        if any(a.in_task for a in accs) or len(_levels(program, accs)) > 1:
            out.append(Shared(obj, accs))
    return out


def _levels(program: Program, accs: list[Access]) -> set[int]:
    return {p for a in accs for c in a.contexts
            if (p := program.priority(c)) is not None}


def _groups(program: Program, accs: list[Access]):
    """(victims, their preemptors, protected(a), who): task code against every handler, then
    the handlers of each known priority against the more urgent ones."""
    isr = sorted((a for a in accs if a.in_interrupt), key=source_order)
    task = [a for a in accs if a.in_task]
    other = [i for i in isr if all(c.concurrent for c in i.contexts if c.is_interrupt)]
    if other:
        isr = [i for i in isr if i not in other]
        yield _off_core(task, other), other, lambda a: a.task_protected or a.before_start, None
    timer = [i for i in isr if all(c.timer_task for c in i.contexts if c.is_interrupt)]
    if timer:  # the RTOS's timer task: a scheduler lock holds it off as well
        isr = [i for i in isr if i not in timer]
        yield (task, timer,
               lambda a: a.task_protected or a.before_start or SCHEDULER in a.fact.masked, None)
    yield task, isr, lambda a: a.task_protected or a.before_start, None
    for level in sorted(_levels(program, accs), reverse=True):
        victims = [a for a in accs
                   if any(program.priority(c) == level for c in a.contexts)]
        urgent = [i for i in isr
                  if any((p := program.priority(c)) is not None and p < level
                         for c in i.contexts)]
        if victims and urgent:
            yield (victims, urgent,
                   lambda a, lv=level: _handler_guard(program, a, lv) is not None, level)


def _off_core(task: list[Access], other: list[Access]) -> list[Access]:
    """The task accesses as a context on another core sees them: no interrupt mask of this
    core (a critical section, BASEPRI, a masked line) holds that core off; only a cross-core
    lock (``sections.CROSS_CORE``) held on both sides does, so an access counts as protected
    when it holds one and every access of the other core to the object does too."""
    both = all(CROSS_CORE in i.fact.masked for i in other)
    out = []
    for a in task:
        locked = both and CROSS_CORE in a.fact.masked
        out.append(replace(a, task_protected=locked, fact=replace(
            a.fact, protected=locked, level=0, by_level=False, masked=())))
    return out


def find_races(program: Program) -> list[Race]:
    """Every racing task-side access site, one race per site, in source order."""
    word = program.config.word_bits // 8
    best: dict[tuple, Race] = {}

    def keep(race: Race) -> None:
        f = race.task.fact
        site = (race.obj.usr, f.where.file, f.where.line)
        if site not in best or PRIORITY[race.rule] < PRIORITY[best[site].rule] or (
                race.pattern == "late" and race.rule == best[site].rule):
            best[site] = race  # a late write says more than the pair it also makes

    calls = program.calls_by_caller
    gates = program.gates
    names = {usr: f.name for usr, f in program.functions.items()}
    for shared in program.shared_objects:
        obj = shared.obj
        for task, isr, guarded, level in _groups(program, shared.accesses):
            for a in task:
                lvl = _basepri(a, level, program)
                zero = a.fact.by_level and any(_zero_latency(i) for i in isr)
                if guarded(a) and not lvl and not zero:
                    continue
                who = _victim(program, a, level) + (ZERO if zero and guarded(a) else "")
                f = a.fact
                masked = guarded(a) and not lvl  # masked but for zero-latency handlers
                near = [i for i in isr
                        if paths_overlap(f.path, i.fact.path) and can_fire(gates, i, a)
                        and (not lvl or _above(program, i, lvl) or (zero and _zero_latency(i)))
                        and (not masked or _zero_latency(i))]
                writes = [i for i in near if i.fact.kind.writes]
                # A store to a bit-field rewrites its neighbours in the same memory location:
                # the handler's store to another of them is lost.
                lost = [i for i in writes if f.bits and i.fact.bits != f.bits]
                if (f.kind is AccessKind.rmw and writes) or (f.kind is AccessKind.write and lost):
                    keep(Race("BG102", obj, a, (writes if f.kind is AccessKind.rmw else lost)[0],
                              victim=who))
                elif f.agreed and f.kind is AccessKind.read:
                    continue  # read until two reads agree: a torn one differs from the next
                elif f.size > word and (writes if f.kind is AccessKind.read else near):
                    other = (writes if f.kind is AccessKind.read else near)[0]
                    keep(Race("BG103", obj, a, other, victim=who))
                elif not f.scalar and (writes or (f.kind.writes and near)):
                    keep(Race("BG101", obj, a, (writes or near)[0], victim=who))
            for race in _pairs(program, gates, calls, names, obj, task, isr, guarded, level):
                keep(race)
        race = _order_violation(program, gates, obj, shared.accesses)
        if race is not None:
            keep(race)
        for race in _order.late_writes(program, obj, shared.accesses, Race,
                                       lambda a: _victim(program, a, None)):
            keep(race)
        race = _torn_copy(program, gates, obj, shared.accesses)
        if race is not None:
            keep(race)
    for race in _torn_pairs(program, gates):
        keep(race)
    for race in _field_pairs(program, gates):
        keep(race)
    for race in _wrap_pairs(program, gates):
        keep(race)
    return sorted(best.values(), key=lambda r: source_order(r.task))


def _carried(program: Program, hi: Access) -> str | None:
    """The object a handler write of ``hi`` carries from: the write sits in the then-arm of the
    handler's wrap test of another scalar it also writes (``if (++lo == 0) hi++;``), so the
    two are one value kept in two words; None when not so."""
    f = hi.fact
    for t in program.accesses_by_function.get(f.function, ()):
        g = t.fact
        if g.obj != f.obj and g.tests and g.sense == ("==", 0) and (g.tests, 0) in f.branch and any(
                w.fact.obj == g.obj and w.fact.kind.writes
                for w in program.accesses_by_function.get(f.function, ())):
            return g.obj
    return None


def _torn_pairs(program: Program, gates: dict) -> list[Race]:
    """Two words of one value (a 64-bit count kept as a low and a high word, the high one
    carried when the low one wraps) read one after the other by the task, outside a critical
    section: a handler run between the two reads gives a pair from two different moments
    (the old high word with the new low one). Not when a do-while's condition reads the first
    word again (the retry: ``do { hi = H; lo = L; } while (hi != H);``), nor when an ownership
    flag keeps the task's read and the handler's write apart (a handoff, ``_apart``)."""
    out: list[Race] = []
    shared = {s.obj.usr: s for s in program.shared_objects}
    pairs = {}
    for s in shared.values():
        for a in s.accesses:
            if a.in_interrupt and a.fact.kind.writes and s.obj.is_scalar:
                low = _carried(program, a)
                if low is not None and low in shared and shared[low].obj.is_scalar:
                    pairs[frozenset((s.obj.usr, low))] = a
    for key, carry in pairs.items():
        for accs in program.accesses_by_function.values():
            reads = sorted((a for a in accs if a.fact.obj in key and a.in_task
                            and a.fact.kind is AccessKind.read and not a.task_protected
                            and not a.before_start), key=lambda a: a.fact.seq)
            for first, second in zip(reads, reads[1:], strict=False):
                if first.fact.obj == second.fact.obj or not _one_path(
                        first.fact.branch, second.fact.branch):
                    continue
                if any(a.fact.retry and a.fact.retry < first.fact.seq and a.fact.obj in key
                       for a in accs):
                    continue  # re-read by the retry loop's condition
                if any(a.fact.obj in key and a.fact.kind.writes
                       and first.fact.seq < a.fact.seq < second.fact.seq for a in accs):
                    continue
                if _apart(program, second, carry):
                    continue  # a flag hands the words over (``if (!ready) { t = now; ... }``)
                if can_fire(gates, carry, first) or can_fire(gates, carry, second):
                    out.append(Race("BG101", shared[second.fact.obj].obj, second, carry, first,
                                    "pair", _victim(program, second, None)))
                    break
    return out


def _field(a: Access) -> bool:
    """An access to one named scalar field of a struct (``g_pwm.period``), no index in its
    path."""
    p = a.fact.path
    return bool(p) and a.fact.scalar and all(x.startswith(".") for x in p)


def _field_pairs(program: Program, gates: dict) -> list[Race]:
    """Two fields of one struct that a handler writes in one run (``g_pwm.period = ...;
    g_pwm.high = ...;``, on one path of its body) and that the task reads one right after the
    other, on one path and in the same arms (``per = g_pwm.period; high = g_pwm.high;``),
    outside a critical section: a handler run between the two reads gives a pair from two
    different runs (the new period with the old high time), which no run wrote. Not when the
    reads sit between two reads of a version count the same handler updates (a sequence
    lock: ``s1 = seq; ...; s2 = seq;`` with the handler's ``seq++`` on either side), nor when
    an ownership flag keeps the task's read and the handler's write apart (``_apart``)."""
    out: list[Race] = []
    for shared in program.shared_objects:
        if shared.obj.is_scalar:
            continue
        accs = shared.accesses
        writes = [a for a in accs if a.in_interrupt and a.fact.kind.writes and _field(a)]
        together: dict[frozenset, Access] = {}
        for a in writes:
            for b in writes:
                if (a.fact.function == b.fact.function and a.fact.seq < b.fact.seq
                        and not paths_overlap(a.fact.path, b.fact.path)
                        and _one_path(a.fact.branch, b.fact.branch)):
                    together.setdefault(frozenset((a.fact.path, b.fact.path)), b)
        if not together:
            continue
        by_function: dict[tuple[str, str], list[Access]] = defaultdict(list)
        for a in accs:
            if a.in_task:
                by_function[(a.fact.function, a.fact.where.file)].append(a)
        for task in by_function.values():
            task.sort(key=lambda a: a.fact.seq)
            for first, second in zip(task, task[1:], strict=False):
                f1, f2 = first.fact, second.fact
                if not (f1.kind is AccessKind.read and f2.kind is AccessKind.read
                        and _field(first) and _field(second)) or f1.branch != f2.branch:
                    continue
                hit = together.get(frozenset((f1.path, f2.path)))
                if hit is None or first.task_protected or second.task_protected or (
                        second.before_start) or f1.agreed or f2.agreed:
                    continue
                w = next((i for i in writes if i.fact.function == hit.fact.function
                          and paths_overlap(i.fact.path, f2.path)), hit)
                if _versioned(program, first, second, w) or _apart(program, second, w):
                    continue
                if can_fire(gates, w, first) or can_fire(gates, w, second):
                    out.append(Race("BG101", shared.obj, second, w, first, "fields",
                                    _victim(program, second, None)))
    return out


def _versioned(program: Program, first: Access, second: Access, w: Access) -> bool:
    """Whether the task reads, before ``first`` and after ``second`` in its function, one
    other object that the handler making ``w`` updates too (a sequence count read on both
    sides of the data: a sequence lock, retried when the two counts differ)."""
    handler = {a.fact.obj for a in program.accesses_by_function.get(w.fact.function, ())
               if a.fact.kind.writes and a.fact.obj != w.fact.obj}
    mine = program.accesses_by_function.get(first.fact.function, ())
    before = {a.fact.obj for a in mine if a.fact.kind.reads and a.fact.seq < first.fact.seq}
    after = {a.fact.obj for a in mine if a.fact.kind.reads and a.fact.seq > second.fact.seq}
    return bool(handler & before & after)


_GENERIC = frozenset({"hal", "isr", "irq", "irqhandler", "handler", "int", "interrupt",
                      "get", "read", "set", "the", "of"})


def _counter_call(name: str) -> bool:
    """Whether a call's words say it reads a running counter (``am_hal_stimer_counter_get``,
    ``timer_read_count``, ``xTaskGetTickCount``): a word that is or begins with count, cnt or
    tick, or is time or now (``stimer`` is none)."""
    return any(w.startswith(("count", "cnt", "tick")) or w in ("time", "now")
               for w in _split(name))


def _split(name: str) -> list[str]:
    """A name's words, lower case, an instance number kept on its word (``TIM2`` -> tim2)."""
    return [w.lower() for w in re.findall(
        r"[A-Z]+[0-9]*(?![a-z])|[A-Z]?[a-z]+[0-9]*|[0-9]+", name.replace("_", " "))]


def _words(name: str) -> set[str]:
    """``am_hal_stimer_counter_get`` -> {"stimer", "counter"}; ``TIM2_IRQHandler`` -> {"tim2"}:
    a name's words of three letters or more but the generic ones (``am``, a vendor's prefix,
    is too short to name a peripheral); an instance number stays on its word, so TIM2's
    handler does not name TIM3's counter."""
    return {w for w in _split(name) if not w.isdigit() and len(w) >= 3 and w not in _GENERIC}


def _same_peripheral(a: set[str], b: set[str]) -> bool:
    """Whether two names' words share a peripheral: the same word, or one with an instance
    number and the other without any (``lptmr0`` and ``lptmr``; not ``tim2`` and ``tim3``)."""
    def bare(w: str) -> str:
        return w.rstrip("0123456789")

    return bool(a & b) or any(bare(x) == y for x in a for y in b if y == bare(y)) or any(
        bare(y) == x for x in a for y in b if x == bare(x))


def _wrap_pairs(program: Program, gates: dict) -> list[Race]:
    """A wrap count read with the hardware counter whose wraps it counts, outside a critical
    section and with no re-read: the handler only counts the object up (``wraps++``), in an
    arm of its test of a status (the overflow); the task reads the object and, on the same
    path, calls a function the program does not define whose name says it reads a count
    (``am_hal_stimer_counter_get()``) and names the handler's peripheral (``stimer`` of
    ``am_stimer_isr``), with no other call between the two. If the counter wraps between the
    two reads, the task pairs the old wrap count with the new, small count (or the new count
    with the old one): a time 2^32 ticks off. Not when a do-while's condition reads the object
    again (the retry)."""
    out: list[Race] = []
    for s in program.shared_objects:
        writes = [a for a in s.accesses if a.fact.kind.writes]
        if not s.obj.is_scalar or not writes or any(
                not a.in_interrupt or a.fact.kind is not AccessKind.rmw or a.fact.op != "+"
                or not a.fact.branch for a in writes):
            continue
        peripheral = {w for a in writes for c in a.contexts if c.is_interrupt
                      for w in _words(c.name)}
        for a in s.accesses:
            f = a.fact
            if not a.in_task or f.kind is not AccessKind.read or a.task_protected or (
                    a.before_start) or f.in_loop_cond:
                continue
            if any(r.fact.retry and r.fact.obj == f.obj
                   for r in program.accesses_by_function.get(f.function, ())):
                continue  # read again by a retry loop's condition
            calls = program.calls_by_caller.get(f.function, ())
            call = next((k for k in calls
                         if k.callee not in program.functions and _counter_call(
                             k.callee_name) and _same_peripheral(_words(k.callee_name),
                                                                 peripheral)
                         and _one_path(f.branch, k.branch)
                         and not any(min(k.seq, f.seq) < x.seq < max(k.seq, f.seq)
                                     for x in calls)), None)
            hit = next((i for i in writes if can_fire(gates, i, a)), None)
            if call is not None and hit is not None:
                out.append(Race("BG101", s.obj, a, hit, pattern="wrap",
                                victim=_victim(program, a, None), start=call))
                break
    return out


def _walks(a: Access) -> bool:
    """An element access with an index not known at compile time, in a loop: one step of a
    walk over the array (``for (i = 0; i < N; i++) out[i] = frame[i];``)."""
    return a.fact.loop > 0 and bool(a.fact.path) and a.fact.path[-1] == "[*]"


def _torn_copy(program: Program, gates: dict, obj: ObjectFact, accs: list[Access]) -> Race | None:
    """An array the task reads element by element in a loop while a handler rewrites it in a
    loop of its own (a whole frame per run): each element is one atomic load, but an interrupt
    during the task's loop leaves it the first elements of one frame and the rest of the next.
    Not when the task's loop is in a critical section, or an ownership flag keeps the two apart
    (each side's loop is in the arm of its own test of one flag, and no value satisfies both:
    ``if (full) { copy; full = 0; }`` against ``if (!full) { fill; full = 1; }``)."""
    isr = [a for a in accs if a.in_interrupt and a.fact.kind.writes and _walks(a)]
    if not isr:
        return None
    for a in sorted(accs, key=source_order):
        if not (a.in_task and a.fact.kind is AccessKind.read and _walks(a)) or (
                a.task_protected or a.before_start):
            continue
        for i in isr:
            if can_fire(gates, i, a) and not _apart(program, a, i):
                return Race("BG101", obj, a, i, pattern="torn", victim=_victim(program, a, None))
    return None


def _arm_known(program: Program, a: Access, flag: str) -> tuple[str, int] | None:
    """What the arm an access is in knows of object ``flag``: its function's test of it, or,
    in a helper that tests it nowhere, what every call of the helper knows (``_known_here``)."""
    return _known_here(program, a.fact.function, a.fact.seq, a.fact.branch, flag)


def _known_here(program: Program, function: str, seq: int, branch: tuple, flag: str,
                depth: int = 0) -> tuple[str, int] | None:
    """What code at ``seq`` in ``function``, in the arms ``branch``, knows of object ``flag``:
    the sense of the function's test of it whose arm holds that point; in a function that
    tests it nowhere and is no entry point of its own (no handler, task or callback: every
    way in is a call), the one value every call site knows, when all know the same."""
    own = False
    for t in program.tests_by_function.get(function, ()):
        f = t.fact
        if f.obj != flag:
            continue
        own = True
        if f.seq < seq:
            arm = next((x for off, x in branch if off == f.tests), None)
            if arm is not None:
                return _arm_values(f.sense, arm)
    if own or depth >= 3 or function in program.entries:
        return None
    sites = program.calls_by_callee.get(function, ())
    known = {_known_here(program, c.caller, c.seq, c.branch, flag, depth + 1) for c in sites}
    if len(known) != 1 or None in known or any(
            _writes_between(program, c, flag) for c in sites):
        return None
    return known.pop()


def _writes_between(program: Program, site: CallFact, flag: str) -> bool:
    """Whether the caller writes ``flag`` between its test of it and the call ``site`` (its
    last test before the call), or the called function writes it: then what the test saw may
    no longer hold in the callee."""
    tests = [t.fact.seq for t in program.tests_by_function.get(site.caller, ())
             if t.fact.obj == flag and t.fact.seq < site.seq]
    since = max(tests, default=site.seq)
    return any(a.fact.kind.writes and (a.fact.function == site.callee or (
        a.fact.function == site.caller and since < a.fact.seq < site.seq))
        for a in program.accesses_by_object.get(flag, ()))


def _apart(program: Program, a: Access, i: Access) -> bool:
    """Whether an ownership flag keeps task access ``a`` and handler access ``i`` apart."""
    flags = {t.fact.obj for t in program.tests_by_function.get(a.fact.function, ())
             if t.fact.obj != a.fact.obj}
    for flag in flags:
        mine, theirs = _arm_known(program, a, flag), _arm_known(program, i, flag)
        if mine is not None and theirs is not None and _disjoint(mine, theirs):
            return True
    return False


def _order_violation(program: Program, gates: dict, obj: ObjectFact,
                     accs: list[Access]) -> Race | None:
    """A function pointer a handler calls through that task code installs only once the
    handler can fire (``NVIC_EnableIRQ(UART0_IRQn); proto_install(slip_rx);``): it starts
    zero (no initializer), so an interrupt in that window calls address 0. Not when some
    store comes before the interrupt can fire, or the handler tests the pointer first."""
    if obj.initialized or not obj.fn_pointer:
        return None
    isr = [a for a in accs if a.in_interrupt and a.fact.kind is AccessKind.read]
    if not isr or any(a.fact.tests for a in isr):
        return None
    stores = [a for a in accs if a.in_task and a.fact.kind.writes]
    if not stores or any(a.before_start or a.task_protected for a in stores):
        return None
    for a in sorted(stores, key=source_order):
        hit = next((i for i in isr if can_fire(gates, i, a)), None)
        if hit is not None:
            return Race("BG101", obj, a, hit, pattern="order",
                        victim=_victim(program, a, None))
    return None


def _basepri(a: Access, level: int | None, program: Program | None = None) -> int:
    """The priority an access's only protection masks from (BASEPRI: taskENTER_CRITICAL,
    __set_BASEPRI), or 0: unprotected, or protected from every interrupt. In a handler of
    priority ``level`` the protection may be its caller's (``_handler_guard``)."""
    if level is not None and program is not None:
        return _handler_guard(program, a, level) or 0
    return a.fact.level if level is None and a.fact.protected and not a.before_start else 0


def _handler_guard(program: Program, a: Access, level: int, depth: int = 0) -> int | None:
    """How an access runs masked in the handlers of priority ``level``: None, not masked; 0,
    every interrupt masked; N, BASEPRI masks priority N and less urgent. Its own section
    counts, or every call of its function made at that priority being inside one (a handler
    raising BASEPRI around ``trace_put(...)``: the helper's accesses are masked there too)."""
    if a.fact.protected:
        return a.fact.level
    return _function_guard(program, a.fact.function, level, depth)


def _function_guard(program: Program, fn: str, level: int, depth: int) -> int | None:
    memo = program.handler_guards
    if (fn, level) in memo:
        return memo[(fn, level)]
    if depth > 4:
        return None
    sites = [c for c in program.calls_by_callee.get(fn, ()) if any(
        program.priority(x) == level for x in program.contexts.get(c.caller, ()))]
    worst: int | None = 0 if sites else None
    for c in sites:
        got = c.level if c.protected else _function_guard(program, c.caller, level, depth + 1)
        if got is None:
            worst = None
            break
        worst = max(worst or 0, got)
    memo[(fn, level)] = worst
    return worst


def _zero_latency(i: Access) -> bool:
    """Whether handler access ``i`` runs in a zero-latency interrupt (``Context.unmasked``)."""
    return any(c.is_interrupt and c.unmasked for c in i.contexts)


def _above(program: Program, i: Access, lvl: int) -> bool:
    """Whether handler access ``i`` runs in an interrupt more urgent than BASEPRI masks."""
    return any(c.is_interrupt and (p := program.priority(c)) is not None and p < lvl
               for c in i.contexts)


def _victim(program: Program, a: Access, level: int | None) -> str:
    if level is None:
        lvl = _basepri(a, level)
        masked = f"; BASEPRI masks only priority {lvl} and less urgent" if lvl else ""
        return f"task context ({a.context_names(False) or 'thread mode'}{masked})"
    names = sorted(c.name for c in a.contexts if program.priority(c) == level)
    return f"interrupt handler {', '.join(names[:3])} (priority {level})"


def _pairs(program: Program, gates: dict, calls: dict[str, list], names: dict[str, str],
           obj: ObjectFact, task: list[Access], isr: list[Access], guarded,
           level: int | None) -> list[Race]:
    """The unserializable access pairs among the task accesses of one object (see above)."""
    out = []
    by_function: dict[tuple[str, str], list[Access]] = defaultdict(list)
    for a in task:
        # One body: two definitions of one name (alternative files built together) are two.
        by_function[(a.fact.function, a.fact.where.file)].append(a)
    for accs in by_function.values():
        accs.sort(key=lambda a: a.fact.seq)
        for n, first in enumerate(accs):
            f1 = first.fact
            later = [b for b in accs[n + 1:]
                     if paths_overlap(f1.path, b.fact.path) and _one_path(f1.branch, b.fact.branch)
                     and all(x in b.fact.branch for x in f1.exits)]
            if not later:
                continue
            # A store, then its own reads, then a store (``x = a; if (x > m) x = m;``): the
            # pair of stores is a W-R-W too, the handler reading the value the first left.
            store = next((b for b in later if b.fact.kind.writes), None) if (
                f1.kind.writes and later[0].fact.kind is AccessKind.read) else None
            for second in [later[0]] + ([store] if store is not None else []):
                both = guarded(first) and guarded(second)
                lvl = min(_basepri(first, level, program), _basepri(second, level, program))
                zero = both and first.fact.by_level and second.fact.by_level and any(
                    _zero_latency(i) for i in isr)
                if both and not lvl and not zero:
                    continue
                if second.before_start:
                    continue  # no interrupt can fire yet, between them or before
                f2 = second.fact
                one = "W" if f1.kind.writes else "R"
                # A read-modify-write after a write is judged by its store (W-R-W: the handler
                # reads what the first store left); its load wants the latest value.
                two = "R" if f2.kind is AccessKind.read or (
                    one == "R" and f2.kind.reads) else "W"
                if one == "W" and two == "R" and f2.in_loop_cond:
                    continue  # a poll waits for the handler's write
                if one == "W" and f2.kind is AccessKind.rmw and (f1.kind is not AccessKind.rmw or (
                        f1.op == f2.op) or any(i.fact.kind.writes and paths_overlap(
                            i.fact.path, f2.path) for i in isr)):
                    continue  # see above: a counter stepped twice; a handler that updates
                    # it too
                if one == "R" and two == "W" and guarded(second) and not guarded(first):
                    continue  # checked outside, then taken and cleared inside one section
                if (one == "R" and f2.kind is AccessKind.rmw and guarded(second)
                        and not guarded(first)):
                    continue  # ``n = x; ...; mask; x -= n; unmask``: it loads what it changes
                between = PATTERNS[(one, two)][0]
                near = [i for i in isr
                        if (i.fact.kind.writes if between == "W" else i.fact.kind.reads)
                        and paths_overlap(i.fact.path, f1.path)
                        and paths_overlap(i.fact.path, f2.path)
                        and _opened(gates, i, second)
                        and (can_fire(gates, i, first) or can_fire(gates, i, second))
                        # ``n = x; ...; mask X's line; x &= ~n; unmask``: the update loads what
                        # handler X stored before it and X cannot come inside it (as above)
                        and not (one == "R" and f2.kind is AccessKind.rmw
                                 and not can_fire(gates, i, second))
                        and (not both or (lvl and _above(program, i, lvl))
                             or (zero and _zero_latency(i)))
                        and not _flag_apart(program, first, second, i)]
                if one == "W" and two == "R" and near and f1.kind is AccessKind.rmw and all(
                        i.fact.kind is AccessKind.rmw and _commute(f1.op, i.fact.op) for i in near):
                    continue  # two updates that commute: the read sees what "handler first" gives
                if one == "W" and two == "W" and near and _reset_store(program, first):
                    continue  # the value between is the one the object held from reset
                if one == "R" and two == "W" and f1.in_loop_cond and _one_shot(
                        lambda f: calls.get(f, ()), names, calls.get(f1.function, []), accs[:n],
                        f1.seq, f2.seq, near):
                    continue
                if one == "R" and two == "W" and near and (
                        _order.no_new_start(program, first, second, near)
                        or _idempotent_flag(program, first, second, near)
                        or _owned_flag(program, first, second, near)
                        or _disarmed(program, first, second, near)):
                    continue
                if one == "R" and two == "R" and near and (
                        (f2.tests and guarded(second) and not guarded(first))
                        or _test_survives(program, first, second, near)):
                    continue  # re-checked inside a critical section; or what the test saw holds
                if one == "R" and two == "R" and near and _change_recorded(program, first, second):
                    continue  # ``if (x == last) continue; last = x;`` on a counter that only grows
                if one == "R" and two == "R" and f1.bits_read & f2.bits_read == 0 and (
                        f1.bits_read and f2.bits_read):
                    continue  # ``x & A`` then ``x & B``, A and B disjoint: each part read once
                if one == "R" and two == "R" and f2.retry and f2.retry < f1.seq:
                    continue  # read again by the retry loop's condition: again if they differ
                if one == "R" and two == "R" and f1.agreed and f2.agreed:
                    continue  # two reads the loop compares: it runs again if they differ
                hit = near[0] if near else None
                if hit is not None:
                    why = _kept_because(program, first, second, near) if (one, two) == ("R", "W") \
                        else ""
                    out.append(Race("BG101", obj, second, hit, first, f"{one}-{between}-{two}",
                                    _victim(program, second, level) + (ZERO if zero else ""), why))
    return out


def _commute(a: str, b: str) -> bool:
    """Whether two read-modify-write operators give one result in either order (``x +=
    c`` and ``x++``; ``x |= a`` and ``x |= b``): a W-W-R of such updates (the task's
    update, the handler's between, the task's read) reads what the serial order "handler
    first" reads."""
    return {a, b} <= {"+", "-"} or (a == b and a in ("|", "&", "^"))


def _reset_store(program: Program, first: Access) -> bool:
    """A W-R-W whose first store puts back the value the object holds from reset (``p = 0``
    on an object with no initializer), made by a function that runs once from reset (bare
    ``main``) before any other store of the object, which no other function writes: the
    handler's read between sees the value it would have seen before that store, one the
    program already lives with."""
    f1 = first.fact
    obj = program.objects.get(f1.obj)
    if obj is None or obj.initialized or f1.kind is not AccessKind.write or f1.stored != 0:
        return False
    if not _order.from_reset(program, f1.function):
        return False
    return all(a.fact.function == f1.function and a.fact.seq >= f1.seq
               for a in program.accesses_by_object.get(f1.obj, ()) if a.fact.kind.writes)


def _idempotent_flag(program: Program, first: Access, second: Access, near: list[Access]) -> bool:
    """A two-valued flag: the handler only ever stores one constant V (``flag = 1``), the task
    another, C (``flag = 0``). The task's store is in an arm of its test of the flag (``if
    (flag) { ...; flag = 0; }``), which saw V. A handler store between stores the V the flag
    already holds: the outcome of the handler running just before the read (two events
    merged into one, which is what a flag means), for a wait (``while (!ready) {} ready =
    0;``) too, but not one on transfers the task started by name (``_started``): with two
    outstanding, the wait ends on the first completion and the clear loses the second. True
    only when no call comes between the two (it may start what the
    handler's store then reports) and the handler writes no other object the task reads between:
    data handed over with the flag (``ubSelectedWavesForm`` toggled beside ``ubKeyPressed``)
    would be read stale, and that stays a race."""
    f1, f2 = first.fact, second.fact
    if not f1.tests or not any(off == f1.tests for off, _ in f2.branch) or (
            "loop" in f1.sense and _started(program, first)):
        return False  # not for a wait on transfers started (``while (!ready) {}``): see above
    values = {i.fact.stored for i in near}
    if len(values) != 1 or None in values or f2.stored is None or f2.stored in values:
        return False
    saw = _task_saw(first, second)
    if saw is not None and _disjoint(saw, ("==", next(iter(values)))):
        return False  # the test saw another value (``if (s == 1)`` against a store of 5)
    stores = {a.fact.stored for a in program.accesses_by_object.get(f1.obj, ())
              if a.fact.kind.writes and paths_overlap(a.fact.path, f1.path)}
    if stores != values | {f2.stored}:
        return False  # some write stores a third value, or one not known
    if any(f1.seq < c.seq < f2.seq for c in program.calls_by_caller.get(f1.function, ())):
        return False  # a call between may start what the handler's store then reports
    return not _hands_over(program, first, second, near)


def _started(program: Program, wait: Access) -> bool:
    """Whether the task starts a transfer by name (``HAL_UART_Transmit_IT``: ``_start_family``)
    between its last write of the flag before the wait and the wait: then each completion is
    one the task asked for, and one the clear loses is lost work. A wait on an event source
    the task does not start (a periodic timer, a pin) sees any of its stores; one between the
    wait and the clear stores what the wait saw: the serial order "handler first"."""
    f = wait.fact
    last = max((a.fact.seq for a in program.accesses_by_object.get(f.obj, ())
                if a.fact.function == f.function and a.fact.kind.writes and a.fact.seq < f.seq),
               default=0)
    return any(last < c.seq < f.seq and _start_family(c.callee_name)
               for c in program.calls_by_caller.get(f.function, ()))


def _kept_because(program: Program, first: Access, second: Access, near: list[Access]) -> str:
    """Why an R-W-W on a flag whose handler stores one constant is kept: a store of the value
    the task's test saw would be the serial order "handler first", unless the task reads
    data handed over with it between, a call between may start what the store reports, or
    the task waits for it while the handler's source stays armed (a second event then comes
    between the wait and the clear). "" when the store is not of the value seen."""
    f1, f2 = first.fact, second.fact
    values = {i.fact.stored for i in near}
    saw = _task_saw(first, second)
    if len(values) != 1 or None in values or saw is None or _disjoint(
            saw, ("==", next(iter(values)))):
        return ""
    if _hands_over(program, first, second, near):
        return ("the handler's store of the value seen hands data over with the flag, which "
                "the task reads between")
    if any(f1.seq < c.seq < f2.seq for c in program.calls_by_caller.get(f1.function, ())):
        return ("a call between the test and the store may start what the handler's store "
                "then reports")
    if "loop" in f1.sense:
        return ("the handler stores the value the wait saw, but the task started transfers "
                "before the wait and nothing disarms the source first: a second completion "
                "between the wait and the store is lost")
    return ""


def _disarms(name: str) -> str:
    """``LL_DMA_DisableChannel`` -> ``LL_DMA_EnableChannel``, ``dma_channel_disable`` ->
    ``dma_channel_enable``: the call that arms again what a call named so disarms ("" if none)."""
    for off, on in (("Disable", "Enable"), ("disable", "enable"), ("DISABLE", "ENABLE")):
        if off in name:
            return name.replace(off, on)
    return ""


def _disarmed(program: Program, first: Access, second: Access, near: list[Access]) -> bool:
    """A completion flag that a self-disarming handler sets: the task waits for or tests
    the flag (``while (!tx_idle) {}``), then clears it; every handler store between stores the
    one value the task's test saw, on a path after a call that disables the handler's own
    source (``dma_channel_disable(DMA0, DMA_CH3); tx_idle = true;``), whose counterpart
    (``dma_channel_enable``) no call between the task's two accesses makes, directly or in a
    body it calls. Each arming then brings at most one store, and the value the task saw is
    that store (or the flag's first value, when the task arms only after its own clear): no
    store is pending between the test and the clear, so none can come there. Not when the
    task reads, between, data that handler writes (``_hands_over``)."""
    f1, f2 = first.fact, second.fact
    saw = _task_saw(first, second)
    values = {i.fact.stored for i in near}
    if saw is None or len(values) != 1 or None in values or f2.stored is None:
        return False
    c = next(iter(values))
    flag = [a for a in program.accesses_by_object.get(f1.obj, ())
            if a.fact.kind.writes and paths_overlap(a.fact.path, f1.path)]
    if any(a.fact.stored is None for a in flag):
        return False
    obj = program.objects.get(f1.obj)
    start = set() if obj is None or obj.initialized else {0}
    possible = {v for v in {a.fact.stored for a in flag} | start
                if not _disjoint(saw, ("==", v))}
    if possible != {c} or f2.stored == c:
        return False  # the test saw more than one value, or the clear stores it again
    calls = program.calls_by_caller
    arms: set[str] = set()
    keys: set[str] = set()  # what the tests of the handlers that re-arm nothing read
    for w in near:
        offs = [d for d in calls.get(w.fact.function, ())
                if d.seq < w.fact.seq and _disarms(d.callee_name)
                and all(b in w.fact.branch for b in d.branch)]
        if offs:
            arms |= {_disarms(d.callee_name) for d in offs}
            continue
        got = _guard_reads(program, w)
        if not got:
            return False
        keys |= got
    if keys and (obj is None or obj.initialized or not _rearmed_after(program, first, second,
                                                                     keys)):
        return False
    between = [k for k in calls.get(f1.function, ()) if f1.seq < k.seq < f2.seq]
    seen: set[str] = set()
    while between:
        k = between.pop()
        if k.callee_name in arms:
            return False
        if k.callee not in seen:
            seen.add(k.callee)
            between.extend(calls.get(k.callee, ()))
    if obj is not None and obj.initialized:
        # The first value may be the one seen: the task must arm only after its clear.
        sites = [k for name in arms for k in program.calls_by_name.get(name, ())]
        if any(k.caller != f1.function or k.seq < f2.seq for k in sites
               if any(not x.is_interrupt for x in program.contexts.get(k.caller, ()))):
            return False
    return not _hands_over(program, first, second, near)


def _guard_reads(program: Program, w: Access) -> set[str]:
    """The objects read by the handler's tests whose arm its store ``w`` is in, but the flag
    itself (``if (Chip_GPDMA_Interrupt(LPC_GPDMA, s_dma_ch) == SUCCESS) done = true;``: the
    channel ``s_dma_ch``, whose completion the store reports)."""
    arms = {off for off, _ in w.fact.branch}
    return {a.fact.obj for a in program.accesses_by_function.get(w.fact.function, ())
            if a.fact.tests in arms and a.fact.kind.reads and a.fact.obj != w.fact.obj}


def _arg_reads(program: Program, k: CallFact) -> set[str]:
    """The objects read in a call's arguments: the reads of its caller after the call before
    it, on or after the call's line (they are walked before the call itself)."""
    before = max((c.seq for c in program.calls_by_caller.get(k.caller, ()) if c.seq < k.seq),
                 default=0)
    return {a.fact.obj for a in program.accesses_by_function.get(k.caller, ())
            if before < a.fact.seq < k.seq and a.fact.kind.reads
            and a.fact.where.line >= k.where.line}


def _rearmed_after(program: Program, first: Access, second: Access, keys: set[str]) -> bool:
    """A completion flag whose handler reports the end of a transfer on a channel (its test
    reads ``keys``: ``s_dma_ch``) that the task itself arms again on every turn of the loop it
    waits in, after its clear (``while (!done) {} done = false; Chip_GPDMA_Transfer(...,
    s_dma_ch, ...);``): a transfer the task must re-arm ends by itself (a DMA block stops at
    its terminal count), so each arming brings one completion, and while the task is between
    its wait and its clear no transfer is armed. Not when a call between the two names the
    channel (arm, then clear: the new block's completion can come before the clear and is
    lost)."""
    f1, f2 = first.fact, second.fact
    mine = program.calls_by_caller.get(f1.function, ())
    if any(f1.seq < k.seq < f2.seq and _arg_reads(program, k) & keys for k in mine):
        return False
    return any(k.seq > f2.seq and k.earliest < k.seq and k.earliest <= f1.seq
               and _arg_reads(program, k) & keys for k in mine)


def _hands_over(program: Program, first: Access, second: Access, near: list[Access]) -> bool:
    """Whether the task reads, between its two accesses, another object the handlers of
    ``near`` write: data handed over with the flag, which would be read stale."""
    f1, f2 = first.fact, second.fact
    by_function = program.accesses_by_function
    sent = {(a.fact.obj, a.fact.path) for w in {i.fact.function for i in near}
            for a in by_function.get(w, ()) if a.fact.kind.writes and a.fact.obj != f1.obj}
    return any(
        f1.seq < a.fact.seq < f2.seq and a.fact.kind.reads
        and any(o == a.fact.obj and paths_overlap(p, a.fact.path) for o, p in sent)
        for a in by_function.get(f1.function, ()))


def _task_saw(first: Access, second: Access) -> tuple[str, int] | None:
    """What the task's first access, a test (``if (f)``, ``while (!ready) {}``), knows of the
    object where its second access is: the arm of that test the second sits in (``if (f) {
    ...; f = 0; }``: ("!=", 0)). None when the first is no test, the second is in none of its
    arms, or the arm knows nothing (``_arm_values``)."""
    f1, f2 = first.fact, second.fact
    if not f1.tests:
        return None
    arm = next((a for off, a in f2.branch if off == f1.tests), None)
    return _arm_values(f1.sense, arm) if arm is not None else None


def _arm_values(sense: tuple, arm: int) -> tuple[str, int] | None:
    """What an if arm (or a switch's case) knows of its tested object: ("==", K) or
    ("!=", K); None: nothing."""
    if not sense:
        return None
    if sense[0] == "case":
        value = dict(sense[1]).get(arm)
        return ("==", value) if value is not None else None
    op, k = sense[0], sense[1]
    if arm == 0:
        return None if "or" in sense[2:] else (op, k)  # ``a || b``: either may have held
    return None if "and" in sense[2:] else ("!=" if op == "==" else "==", k)


def _disjoint(a: tuple[str, int], b: tuple[str, int]) -> bool:
    """Whether no value satisfies both (``== 0`` and ``!= 0``; ``== 1`` and ``== 2``)."""
    if a[0] == "==" and b[0] == "==":
        return a[1] != b[1]
    if a[0] != b[0]:
        return a[1] == b[1]
    return False


def _known_at(program: Program, w: Access) -> tuple[str, int] | None:
    """What the handler knows of the flag where it writes it: the sense of its own test of the
    flag (``if (!full) { ...; full = true; }``) whose arm the write is in."""
    for t in program.tests_by_function.get(w.fact.function, ()):
        f = t.fact
        if (f.obj == w.fact.obj and f.seq < w.fact.seq
                and paths_overlap(f.path, w.fact.path)):
            arm = next((a for off, a in w.fact.branch if off == f.tests), None)
            if arm is not None:
                return _arm_values(f.sense, arm)
    return None


def _test_survives(program: Program, first: Access, second: Access, near: list[Access]) -> bool:
    """R-W-R where the first read is a test (``if (dropped != 0) log(dropped);``, ``if (p !=
    NULL) p->write()``) and the second is in its arm: harmful only when a handler write between
    can leave a value the test excluded (``p = NULL``). Not when every such write stores a value
    the arm's knowledge allows, only counts up or sets bits of a value the arm knows is not
    zero, or cannot come at all (its own test of the object excludes what the arm saw): the use
    then sees a newer value the test would have passed."""
    saw = _task_saw(first, second)
    if saw is None:
        return False
    also = _still_known(program, first, second)
    for w in near:
        f = w.fact
        if f.kind is AccessKind.write and f.stored is not None and not _disjoint(
                saw, ("==", f.stored)):
            continue
        if f.kind is AccessKind.rmw and saw == ("!=", 0) and f.op in ("+", "|"):
            continue
        known = _known_at(program, w)
        if known is not None and any(_disjoint(known, k) for k in (saw, *also)):
            continue
        return False
    return True


def _still_known(program: Program, first: Access, second: Access) -> list[tuple[str, int]]:
    """What the task's earlier tests of the object (before ``first``, in its function) still
    know where ``second`` is: each test whose arm holds both accesses (the exit of ``while (s
    == WAIT) {}`` knows s != WAIT after it), with no task write to the object since."""
    f1, f2 = first.fact, second.fact
    out = []
    for t in program.tests_by_function.get(f1.function, ()):
        g = t.fact
        if g.obj != f1.obj or g.seq >= f1.seq or not paths_overlap(g.path, f1.path):
            continue
        arm = next((a for off, a in f2.branch if off == g.tests), None)
        if arm is None or arm != next((a for off, a in f1.branch if off == g.tests), None):
            continue
        if any(a.in_task and a.fact.kind.writes and a.fact.function == f1.function
               and g.seq < a.fact.seq < f2.seq
               for a in program.accesses_by_object.get(f1.obj, ())):
            continue
        known = _arm_values(g.sense, arm)
        if known is not None:
            out.append(known)
    return out


def _change_recorded(program: Program, first: Access, second: Access) -> bool:
    """R-W-R as a change test and the record of the new value: the first read compares the
    object with a local (``if (ticks == seen) continue;``), the second, in the arm that saw
    them differ, stores the object into that same local (``seen = ticks;``). On a counter that
    task code never writes and every handler only counts up (``ticks++``), a newer value
    between is still one the test would have passed (the local holds an earlier value, so a
    larger one differs from it too): the record just takes the newer count, as if the handler
    had run before the test. (A counter that wraps past the local is 2^32 events away.) The
    same for an elapsed test (``if (ms - last < 10) continue; last = ms;``) with the record in
    the arm where the bound was reached: a newer count has reached it too."""
    f1, f2 = first.fact, second.fact
    if not f1.tests or not f1.versus or f2.into != f1.versus:
        return False
    if not any(off == f1.tests and (f1.elapsed < 0 or arm == f1.elapsed)
               for off, arm in f2.branch):
        return False
    writes = [a for a in program.accesses_by_object.get(f1.obj, ()) if a.fact.kind.writes
              and paths_overlap(a.fact.path, f1.path)]
    return bool(writes) and all(a.fact.kind is AccessKind.rmw and a.fact.op == "+"
                                and not a.in_task for a in writes)


def _owned_flag(program: Program, first: Access, second: Access, near: list[Access]) -> bool:
    """An ownership flag: the task tests it (``if (full)``) and writes it in that test's arm;
    every handler write between is itself in an arm of the handler's test of the flag that no
    value the task's arm saw satisfies (``if (!full) { ...; full = true; }``). Only the task
    moves the flag out of the values its arm saw, so until the task's own write no handler
    write can come: each side stores only while it owns what the flag guards. A handler store
    of the one value the task's arm knows (``if (state == OVERRUN) ... state = IDLE`` against a
    handler that stores OVERRUN) changes nothing: the run is as if it came before the test,
    unless the task reads between them data that handler run writes."""
    f1 = first.fact
    task_saw = _task_saw(first, second)
    if task_saw is None:
        return False
    for w in near:
        if (task_saw[0] == "==" and w.fact.kind is AccessKind.write
                and w.fact.stored == task_saw[1] and "loop" not in f1.sense
                and not _hands_over(program, first, second, [w])):
            continue
        known = _known_at(program, w)
        if known is None or not _disjoint(known, task_saw):
            return False
    return True


def _flag_apart(program: Program, first: Access, second: Access, i: Access) -> bool:
    """Whether an ownership flag keeps handler access ``i`` from coming between the task's
    two accesses: one test of a flag F in the task's function has both accesses in an arm
    (or after ``while (!F) {}``, ``if (F) return;``) that knows F is in a set S, the handler
    makes ``i`` only where its own test of F knows F is outside S, no task write to F comes
    between the test and the second access, and every interrupt-side store to F stores a
    constant in S (``line_ready = true`` once the line is in): while the task is between,
    F stays in S, so the handler cannot be on the path that makes ``i``. The test may be at
    every call of the helper that makes both accesses (``if (!ready) continue; ...
    serve(frame);``: ``_known_here``), the helper writing F nowhere."""
    f1, f2 = first.fact, second.fact
    tested = set()
    for t in program.tests_by_function.get(f1.function, ()):
        g = t.fact
        tested.add(g.obj)
        if g.obj == f1.obj or g.seq > f1.seq:
            continue
        arm1 = next((a for off, a in f1.branch if off == g.tests), None)
        arm2 = next((a for off, a in f2.branch if off == g.tests), None)
        if arm1 is None or arm1 != arm2:
            continue
        flag = program.accesses_by_object.get(g.obj, ())
        if any(a.in_task and a.fact.kind.writes and a.fact.function == f1.function
               and g.seq < a.fact.seq < f2.seq for a in flag):
            continue
        if _kept_out(program, g.obj, _arm_values(g.sense, arm1), i):
            return True
    for t in program.tests_by_function.get(i.fact.function, ()):
        obj = t.fact.obj
        if obj in tested or obj == f1.obj:
            continue
        tested.add(obj)
        if _kept_out(program, obj, _known_here(program, f1.function, f1.seq, f1.branch, obj),
                     i):
            return True
    return False


def _kept_out(program: Program, flag: str, mine: tuple[str, int] | None, i: Access) -> bool:
    """Whether, while the task knows ``flag`` is in ``mine``, handler access ``i`` cannot be
    made: the handler makes it only where its test knows the flag outside ``mine``, and every
    interrupt-side store to the flag keeps it in ``mine``."""
    theirs = _arm_known(program, i, flag)
    if mine is None or theirs is None or not _disjoint(mine, theirs):
        return False
    return all(a.fact.kind is AccessKind.write and a.fact.stored is not None
               and not _disjoint(mine, ("==", a.fact.stored))
               for a in program.accesses_by_object.get(flag, ())
               if a.in_interrupt and a.fact.kind.writes)


def _start_family(name: str) -> str:
    """``HAL_UART_Receive_IT`` -> "UART": a HAL call that starts a transfer in interrupt or DMA
    mode, whose completion interrupt calls that family's callbacks; "" for any other call."""
    parts = name.split("_")
    return parts[1] if len(parts) > 2 and parts[0] == "HAL" and parts[-1] in ("IT", "DMA") else ""


def _one_shot(calls_of, names: dict[str, str], calls: list, before: list[Access], poll: int,
              write: int, writers: list[Access]) -> bool:
    """``start_IT(); while (flag != SET) {} flag = RESET;``: the poll saw the completion callback
    of the one transfer started since the flag was last written, and nothing runs between the
    poll and the clear; that callback runs once per start, so no handler write can come between.
    True only when every handler write to the flag is made by a HAL completion or error callback
    of the started family that does not start another transfer itself (re-arming)."""
    if any(poll < c.seq < write for c in calls):
        return False
    last = max((a.fact.seq for a in before if a.fact.kind.writes), default=0)
    starts = [c for c in calls if last < c.seq < poll and _start_family(c.callee_name)]
    if len(starts) != 1 or not writers:
        return False
    family = _start_family(starts[0].callee_name)
    for w in writers:
        # The function that writes: a completion or error callback of the started family,
        # which the HAL calls once per transfer (from whichever handler: USART, DMA stream).
        name = names.get(w.fact.function, "")
        if not (name.startswith(f"HAL_{family}_") and name.endswith("Callback")):
            return False
        if "Cplt" not in name and "Error" not in name:
            return False
        if any(_start_family(c.callee_name) for c in calls_of(w.fact.function)):
            return False  # it starts the next transfer itself (re-arming): not once
    return True


def can_fire(gates: dict, i: Access, a: Access) -> bool:
    """Whether handler access ``i`` can come at ``a``: some interrupt it runs in has every gate
    of its timeline open there (``timeline``) and is not masked there one by one
    (``HAL_NVIC_DisableIRQ(USART1_IRQn)`` masks USART1_IRQHandler only)."""
    shut = a.closed | a.shut
    return any(c.is_interrupt and (c.irq or irq_key(c.name)) not in a.fact.masked
               and not (gates.get(c, _NONE) & shut) for c in i.contexts)


def _opened(gates: dict, i: Access, a: Access) -> bool:
    """Whether some interrupt handler access ``i`` runs in has its gates open at ``a``."""
    return any(c.is_interrupt and not (gates.get(c, _NONE) & a.closed) for c in i.contexts)


_NONE: frozenset[str] = frozenset({"*"})  # a context with no gates: behind "*" alone


def _one_path(a: tuple[tuple[int, int], ...], b: tuple[tuple[int, int], ...]) -> bool:
    """Whether two accesses can be on one path: no if statement has them in different arms."""
    arms = dict(a)
    return all(arms.get(off, arm) == arm for off, arm in b)


def source_order(a: Access) -> tuple[str, int, int]:
    w = a.fact.where
    return (w.file, w.line, w.column)
