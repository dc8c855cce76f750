"""Critical sections along the paths of one function body, as the body walk (``bodies``) carries
them: a *state* is the stack of sections open on one path, a set of states all the paths so far.

An exit routine closes the most recent open section it pairs with, and every section opened after
it (``m = __get_PRIMASK(); __disable_irq(); ...; __set_PRIMASK(m);`` is one balanced section).
An enter routine in a condition (``if (lock())``) opens nothing: which arm runs inside is unknown.
"""

from __future__ import annotations

from brickguard.facts import SectionIssue, Where

State = tuple[tuple[str, int], ...]  # open sections: (enter routine, index of the enter site)
States = frozenset[State]
EMPTY: States = frozenset()
MAX_STATES = 16  # more distinct paths than this are cut, the shallowest kept


# A lock that holds another core off (pico-sdk's spin_lock_blocking/spin_unlock, Zephyr's
# k_spin_lock, an STM32 hardware semaphore), kept as a mask of this pseudo-interrupt: on every
# path, the access's ``masked`` holds it, the one protection against a context on another core
# (``Context.concurrent``).
CROSS_CORE = "@other-core"

# A scheduler lock (LOS_TaskLock, vTaskSuspendAll), kept as a mask of this pseudo-interrupt:
# it holds off a callback the RTOS's timer task runs (``Context.timer_task``), not a handler.
SCHEDULER = "@scheduler"

MASK = "mask:"  # a state entry (MASK + IRQ, -1): that one interrupt is masked on this path


def mask(states: States, irq: str) -> States:
    """``HAL_NVIC_DisableIRQ(irq)``: one interrupt masked; not a critical section (BG105 does
    not judge it, and it protects only against that interrupt)."""
    return cap(frozenset(s + ((MASK + irq, -1),) for s in states))


def unmask(states: States, irq: str) -> States:
    out = set()
    for s in states:
        for i in range(len(s) - 1, -1, -1):
            if s[i][0] == MASK + irq:
                s = s[:i] + s[i + 1:]
                break
        out.add(s)
    return cap(frozenset(out))


LEVEL = "level:"  # a state entry (LEVEL + N, -1): BASEPRI masks priorities >= N on this path


def raise_level(states: States, level: int) -> States:
    """``__set_BASEPRI(v)``: the interrupts of priority ``level`` and less urgent masked."""
    return cap(frozenset(s + ((f"{LEVEL}{level}", -1),) for s in clear_level(states)))


def clear_level(states: States) -> States:
    """``__set_BASEPRI(0)``: nothing masked by priority any more."""
    return cap(frozenset(tuple(e for e in s if not e[0].startswith(LEVEL)) for s in states))


def unmasked(s: State) -> State:
    return tuple(e for e in s if not e[0].startswith((MASK, LEVEL)))


def basepri_level(states: States, levels: dict[str, int]) -> int:
    """0 when some path has no section open or every path has one that masks every interrupt;
    else N: some path is protected only by BASEPRI masking, the weakest at priority N (the
    handlers more urgent than N still fire there). ``levels``: the enter routines that raise
    BASEPRI (taskENTER_CRITICAL) and the priority they mask from."""
    worst = 0
    for s in states:
        best = None
        for n, _ in s:
            if n.startswith(MASK):
                continue
            lv = int(n[len(LEVEL):]) if n.startswith(LEVEL) else levels.get(n, 0)
            if lv == 0:
                best = 0  # a section that masks every interrupt
                break
            best = lv if best is None else min(best, lv)
        if best is None:
            return 0  # not protected on this path: fully_protected says so
        worst = max(worst, best)
    return worst


def level_only(states: States, level_routines) -> bool:
    """Some path is protected only by sections that raise BASEPRI (``level_routines``, such as
    Zephyr's irq_lock, or a BASEPRI write): a zero-latency interrupt still fires there."""
    for s in states:
        full = [n for n, _ in s if not n.startswith((MASK, LEVEL)) and n not in level_routines]
        if not full:
            return True
    return False


def fully_protected(states: States) -> bool:
    """Every path has a critical section open (a masked single interrupt does not count)."""
    return bool(states) and all(any(not n.startswith(MASK) for n, _ in s) for s in states)


def masked_irqs(states: States) -> tuple[str, ...]:
    """The interrupts masked on every path."""
    sets = [{n[len(MASK):] for n, _ in s if n.startswith(MASK)} for s in states]
    return tuple(sorted(set.intersection(*sets))) if sets else ()


def cap(states: States) -> States:
    if len(states) <= MAX_STATES:
        return states
    return frozenset(sorted(states, key=len)[:MAX_STATES])


class Sections:
    """The sections one function opens and closes, path by path, and where they do not balance."""

    def __init__(self, enters: set[str], exits: set[str], pairs: dict[str, set[str]],
                 handover: set[str] | frozenset[str] = frozenset()) -> None:
        self.enters = enters
        self.handover = handover  # calls that take the open sections over (scheduler start)
        self.exits = exits
        self.pairs = pairs  # exit routine -> the enter routines it closes
        self.sites: list[tuple[str, Where]] = []  # every enter call: (routine, where)
        self.unclosed: dict[int, Where] = {}  # enter site -> a place a path leaves still inside
        self.unmatched: dict[Where, str] = {}  # exit call with nothing open on some path
        self.end_states: set[State] = set()
        self.has_enter = self.has_exit = False

    def apply(self, name: str, states: States, where: Where, in_cond: bool) -> States:
        """The states after a call to ``name`` (an enter or exit routine, or neither)."""
        if name in self.enters and not in_cond:
            self.has_enter = True
            self.sites.append((name, where))
            site = len(self.sites) - 1
            return cap(frozenset(s + ((name, site),) for s in states))
        if name in self.handover:
            return frozenset({()}) if states else states
        if name in self.exits:
            self.has_exit = True
            out = set()
            for s in states:
                for i in range(len(s) - 1, -1, -1):
                    if s[i][0] in self.pairs[name]:
                        out.add(s[:i])  # restoring a saved state closes what opened after it
                        break
                else:
                    self.unmatched.setdefault(where, name)
                    out.add(s)
            return cap(frozenset(out))
        return states

    def leave(self, states: States, where: Where) -> None:
        """Paths leave the function at ``where`` (a return, or the end of the body)."""
        for s in states:
            s = unmasked(s)
            self.end_states.add(s)
            for _name, site in s:
                self.unclosed.setdefault(site, where)

    def issues(self, usr: str, name: str, starts: bool = False) -> list[SectionIssue]:
        """``starts``: the function begins with no interrupt able to fire (bare-metal ``main``
        after reset, ``start_off``): an exit before its first enter is the call that lets
        interrupts fire (``__enable_irq()`` once set-up is done), not a section closed twice."""
        issues = []
        # A routine that only opens (every path leaves it inside) or only closes is a wrapper
        # such as enter_critical(): its callers are judged, not the wrapper itself.
        enter_wrapper = not self.has_exit and all(self.end_states)
        if not enter_wrapper:
            for site, leak in self.unclosed.items():
                call, where = self.sites[site]
                issues.append(SectionIssue("unclosed", usr, name, call, where, leak))
        if self.has_enter:
            first = min((w for _, w in self.sites), key=lambda w: (w.line, w.column))
            for where, call in self.unmatched.items():
                if starts and (where.file, where.line, where.column) < (
                        first.file, first.line, first.column):
                    continue
                issues.append(SectionIssue("unmatched_exit", usr, name, call, where, None))
        return issues
