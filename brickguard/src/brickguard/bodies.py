"""Walks one function body: shared-object accesses, calls, and critical sections per path.

The walk carries a *set of states*, one per distinct path so far; a state is the stack of open
critical sections (the enter routine and where it was called; ``sections.Sections`` keeps them
and judges their balance). Branches walk both arms from the
same set and join them; loops are walked until the set stops changing (at most three times);
``return``, ``break``, ``continue`` and ``goto`` move their states to where the path goes. An access
is *protected* when every state that reaches it has a section open. Short-circuit operators are
not split into paths: a critical section is a statement-level thing in real code.

Over 400 lines on purpose: it is one recursive visitor over C statements and expressions, whose
methods share the walk's state (the path states, the pending read-modify-write, the targets of
``break`` and ``goto``); split up, one algorithm would be read across files.
"""

from __future__ import annotations

import ctypes
import re
from collections import defaultdict
from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import lru_cache
from typing import TYPE_CHECKING

from clang.cindex import Cursor, CursorKind, StorageClass, TokenKind, TypeKind, conf

from brickguard.exclusive import EXCLUSIVE_STORES
from brickguard.facts import (
    PARAM,
    AccessFact,
    AccessKind,
    CallFact,
    EntryFact,
    IndirectCall,
    LockFact,
    ObjectFact,
    PassedFunction,
    PriorityFact,
    SectionIssue,
    StoredFunction,
    Where,
    c_int,
    irq_key,
    join_paths,
    stride_index,
)
from brickguard.masks import call_value
from brickguard.profiles import name_matches
from brickguard.sections import (
    CROSS_CORE,
    EMPTY,
    LEVEL,
    SCHEDULER,
    Sections,
    States,
    basepri_level,
    cap,
    clear_level,
    fully_protected,
    level_only,
    mask,
    masked_irqs,
    raise_level,
    unmask,
)

if TYPE_CHECKING:
    from brickguard.frontend import UnitContext

K = CursorKind
TRANSPARENT = (K.PAREN_EXPR, K.UNEXPOSED_EXPR)
ARRAYS = (TypeKind.CONSTANTARRAY, TypeKind.INCOMPLETEARRAY, TypeKind.VARIABLEARRAY)


class Mode(StrEnum):
    """How the walk reaches an expression: what an object named there has done to it."""

    read = "read"
    write = "write"  # the left side of `=`
    rmw = "rmw"  # the operand of ++/--, the left side of a compound assignment
    addr = "addr"  # under `&`: the address escapes, nothing is accessed here
    block_read = "block_read"  # a library copy reads the whole block behind the pointer
    block_write = "block_write"  # ... or writes it


# The walk reads these at every expression: module names, not Mode.x (an enum class attribute
# costs a metaclass lookup each time on Python 3.11).
READ, WRITE, RMW, ADDR = Mode.read, Mode.write, Mode.rmw, Mode.addr
BLOCK_READ, BLOCK_WRITE = Mode.block_read, Mode.block_write
BLOCK = (BLOCK_READ, BLOCK_WRITE)

A_READ, A_WRITE, A_RMW = AccessKind.read, AccessKind.write, AccessKind.rmw
_ACCESS = {READ: A_READ, WRITE: A_WRITE, RMW: A_RMW, BLOCK_READ: A_READ, BLOCK_WRITE: A_WRITE}
# Library copies: the block behind the pointer is read or written as a whole (a torn copy).
BLOCK_ARGS = {
    "memcpy": (BLOCK_WRITE, BLOCK_READ),
    "memmove": (BLOCK_WRITE, BLOCK_READ),
    "memset": (BLOCK_WRITE,),
    "memcmp": (BLOCK_READ, BLOCK_READ),
    "strcpy": (BLOCK_WRITE, BLOCK_READ),
    "strncpy": (BLOCK_WRITE, BLOCK_READ),
}
# A peripheral's own interrupt sources switched on or off (emlib USART_IntEnable, LL
# LL_USART_EnableIT_RXNE, GD32 usart_interrupt_enable, TI UARTIntDisable): ``CallFact.instance``.
SOURCE_SWITCH = re.compile(
    r"(?:int|it|irq|interrupt)s?_?(?:en|dis)able|(?:en|dis)able_?(?:int|it\b|it_|irq|interrupt)",
    re.IGNORECASE)
# A switch that takes on or off as its last argument (Mbed's serial_irq_set(obj, irq, enable),
# pico-sdk's irq_set_enabled(num, enabled)); not a priority, pending-bit or handler setter.
SOURCE_SET = re.compile(r"(?:int|it|irq|interrupt)s?_?set|set_?(?:int|it\b|irq|interrupt)",
                        re.IGNORECASE)
SOURCE_SET_NOT = re.compile(r"prio|pend|handler|callback|vector", re.IGNORECASE)
NO_BARRIER = frozenset({"__NOP", "__nop"})  # calls that do not make the compiler reload memory
ASSIGN_OPS = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="}


@dataclass
class _Target:
    loop: bool
    entry: States = EMPTY
    breaks: set = field(default_factory=set)
    continues: set = field(default_factory=set)
    has_default: bool = False
    arm: tuple[int, int] = (0, 0)  # a switch: its offset, and its index in BodyWalker.branch


class BodyWalker:
    def __init__(self, unit: UnitContext, func: Cursor, usr: str, name: str) -> None:
        self.u = unit
        self.usr = usr
        self.name = name
        self.file = func.location.file.name
        self.src = unit.source(self.file)
        self.extent = (func.extent.start.offset, func.extent.end.offset)
        self.macros = unit.critical_macros if self.file == unit.main_file else {}
        self.it_macros = unit.it_macros if self.file == unit.main_file else {}
        # Keyed by (offset, kind): a macro body walked twice at one place gives one access.
        self.accesses: dict[tuple[int, AccessKind], AccessFact] = {}
        self.calls: dict[int, CallFact] = {}
        self.entries: list[EntryFact] = []
        self.locks: list[LockFact] = []
        self.priorities: list[PriorityFact] = []
        self.indirect: list[IndirectCall] = []  # calls through pointers (the stack depth)
        self.stored: list[StoredFunction] = []  # functions stored into struct fields
        self.passed: list[PassedFunction] = []  # functions passed as arguments
        self.sections = Sections(unit.enters, unit.exits, unit.pairs, unit.handover)
        self.targets: list[_Target] = []
        self.gotos: dict[str, set] = {}
        self.crit_off = 0  # > 0 inside a critical-section macro already applied
        self.in_cond = 0
        self.pending_rmw: set[tuple[str, str]] = set()
        self.rmw_op = ""  # the operator of the read-modify-write being walked: "+", "&", ...
        self.store_value: int | None = None  # the constant the assignment being walked stores
        self.recent: list[tuple[int, AccessKind]] = []
        self.recent_through: list[tuple[int, AccessKind]] = []  # the same, through pointers
        self._rhs_reads: dict[tuple[str, str], tuple[int, AccessKind]] = {}
        self.seq = 0  # program order of the facts: each new access or call takes the next number
        self.branch: list[tuple[int, int]] = []  # the if arms the walk is in: (offset, arm)
        self.returning: set[tuple[int, int]] = set()  # if arms every path of which returns
        self.jumps = 0  # break, continue and goto statements walked so far
        self.goto_count = 0
        # the local the if condition being walked compares with, and its elapsed arm (versus_of)
        self.versus: tuple[int, int] = (0, -1)
        self.into = 0  # the local the plain read being walked is stored into
        self.read_mask = 0  # the constant the variable being walked is masked with (x & K)
        # After an if one arm of which no path leaves, or a while loop left only by its
        # condition: the (offset, arm) the rest of the enclosing block is in.
        self.left: tuple[int, int] | None = None
        self.loop_broke = False  # the loop just walked has a break
        self.loop_cond = 0  # > 0 while walking a loop's condition
        self.testing = 0  # the offset of the if statement whose condition the walk is in
        # what that condition says of the one object it tests, or per object (sense_of)
        self.sense: tuple | dict = ()
        self.loops: list[int] = []  # per enclosing loop, the number taken at its entry
        self.called_loops: set[int] = set()  # loops that make a call (a compiler barrier)
        self.poll_loop: dict[tuple, int] = {}  # a poll's access key -> its innermost loop
        self.retry_reads: dict[tuple, int] = {}  # do-while condition reads -> the loop's number
        # pairs of locals a loop's condition compares (``while (a != b)``): a retry until agreed
        self.agree_pairs: set[frozenset[int]] = set()
        self.shared_test_loops: set[int] = set()  # loops whose test reads a global, or none
        self.once_loops: set[int] = set()  # do { } while (0): runs once, polls nothing
        # ``switch (x)``'s read of x -> (the switch's offset, its cases' offsets and values)
        self.switch_reads: dict[tuple, tuple[int, tuple[tuple[int, int], ...]]] = {}
        # A local an if tests on its own (``if (cmd != 0)``): its hash -> (seq when tested,
        # the if's offset, its sense, the local's declaration), first test after each point
        self.local_tests: dict[int, list[tuple[int, int, tuple, Cursor]]] = {}
        # Local pointers assigned the address of (a part of) a global: decl hash -> (object,
        # path); spoiled: also assigned anything else or their address taken.
        # Parameters are not followed (that needs the call sites).
        self.points: dict[int, tuple[ObjectFact, tuple[str, ...]] | None] = {}
        # Variable hash -> (field, function) stored into a field of it here (``cfg.cb = f``).
        self.field_fns: dict[int, list[tuple[str, Cursor]]] = {}
        # Variable hash -> field -> the expression last stored into it here (``n.prio = 1``),
        # for the priorities a configuration struct hands to a call (``struct_priority``).
        self.field_vals: dict[int, dict[str, Cursor]] = {}
        # Variable hash -> field -> (parameter index, field type): a function pointer
        # parameter stored into a field of it here (a wrapper's ``cfg.pfnCallback = cb``).
        self.field_params: dict[int, dict[str, tuple[int, str]]] = {}
        self.spoiled: set[int] = set()
        self.moved: set[int] = set()  # moved along an array: p++, p += n, p = p + 1
        self.through: dict[tuple[int, AccessKind], tuple] = {}  # accesses through them
        # Parameters: an access through one is kept as "param:N"; the program model makes it
        # the global every call site passes (Program._param_targets).
        self.params = {a.hash: n for n, a in enumerate(func.get_arguments())}
        self.param_names = [a.spelling or "param" for a in func.get_arguments()]
        self.param_moved: set[int] = set()

    # -- results -------------------------------------------------------------------------------
    def run(self, body: Cursor) -> None:
        out = self.stmt(body, frozenset({()}), -1)
        self.resolve_pointers()
        self.resolve_targets()
        end = body.extent.end
        self.sections.leave(out, Where(self.file, end.line, max(1, end.column - 1)))

    def gap(self, lo: int, hi: int, states: States) -> None:
        """Source between two statements of a block that the tree does not have: clang drops
        a call whose function and arguments are undeclared (``BSP_PB_Init(BUTTON_KEY, ...)``
        when the BSP header is missing; BG000 reports it). Unknown code runs there: each such
        call becomes a call fact in its place (the interrupt timeline reads it)."""
        if self.file != self.u.main_file or hi - lo < 3:
            return
        raw = self.src[lo:hi]
        if b"(" not in raw:
            return
        text = _COMMENTS.sub(" ", raw.decode("utf-8", "replace"))
        if "(" not in text or _DIRECTIVE.search(text):
            return  # nothing, or a preprocessor line (a branch not compiled may follow)
        for m in _CALL_TEXT.finditer(text):
            name = m.group(1)
            if name in _KEYWORDS or name in self.u.declared_names:
                continue
            off = lo + m.start(1)
            self.barrier(name)
            seq = self._next()
            line = self.src.count(b"\n", 0, off) + 1
            col = off - self.src.rfind(b"\n", 0, off)
            self.calls[-1 - off] = CallFact(
                self.usr, f"undeclared:{name}", name, Where(self.file, line, col),
                fully_protected(states), (), seq, self.loops[0] if self.loops else seq)

    def access_facts(self) -> list[AccessFact]:
        for key, (at, cases) in self.switch_reads.items():
            a = self.accesses.get(key)
            if a is not None and a.kind is A_READ:
                self.accesses[key] = replace(a, tests=at, sense=("case", cases))
        for pair in self.agree_pairs:
            into: dict[str, set[int]] = defaultdict(set)
            for a in self.accesses.values():
                if a.kind is A_READ and a.into in pair:
                    into[a.obj].add(a.into)
            for key, a in list(self.accesses.items()):
                if a.kind is A_READ and a.into in pair and into[a.obj] == set(pair):
                    self.accesses[key] = replace(a, agreed=True)
        self.copied_tests()
        for key, loop in self.retry_reads.items():
            a = self.accesses.get(key)
            if a is not None and a.kind is A_READ:
                self.accesses[key] = replace(a, retry=loop)
        for key, a in list(self.accesses.items()):
            if a.loop in self.shared_test_loops:
                self.accesses[key] = replace(a, loop=0)
        for key, loop in self.poll_loop.items():
            a = self.accesses.get(key)
            if a is not None and loop not in self.called_loops:
                self.accesses[key] = replace(a, hoistable=True)
        if not self.returning:
            return list(self.accesses.values())
        return [replace(a, exits=ex) if (ex := tuple(b for b in a.branch if b in self.returning))
                else a for a in self.accesses.values()]

    def barrier(self, name: str, ref: Cursor | None = None) -> None:
        """A call: the compiler must assume it changes any global, so every loop it is in
        loads them again on each turn (``__NOP`` is an asm statement with no memory clobber).
        Not a call whose body the compiler sees and that touches no memory (pico-sdk's
        ``static inline void tight_loop_contents(void) {}``): inlined, it is nothing."""
        if name not in NO_BARRIER and not (ref is not None and self.u.inert(ref)):
            self.called_loops.update(self.loops)

    def call_facts(self) -> list[CallFact]:
        return list(self.calls.values())

    def section_issues(self) -> list[SectionIssue]:
        return self.sections.issues(self.usr, self.name,
                                    self.name in self.u.config.platform.start_off)

    # -- helpers -------------------------------------------------------------------------------
    def where(self, c: Cursor) -> Where:
        loc = c.location
        return Where(loc.file.name if loc.file else self.file, loc.line, loc.column)

    def text(self, c: Cursor, fallback: str) -> str:
        ext = c.extent
        if ext.start.file is None or ext.start.file.name != self.file:
            return fallback
        raw = self.src[ext.start.offset : ext.end.offset].decode("utf-8", "replace")
        raw = " ".join(raw.split())
        return raw if 0 < len(raw) <= 60 else fallback

    def op_between(self, a: Cursor, b: Cursor) -> str:
        lo, hi = a.extent.end.offset, b.extent.start.offset
        if not 0 <= lo < hi <= len(self.src) or hi - lo > 40:
            return "?"  # inside a macro expansion: the operator is not in this file's text
        return _strip_comments(self.src[lo:hi].decode("utf-8", "replace"))

    def unary_op(self, c: Cursor, child: Cursor) -> str:
        s, e = c.extent, child.extent
        same = s.start.file is not None and s.start.file.name == self.file
        before = self.src[s.start.offset : e.start.offset].decode("utf-8", "replace").strip()
        after = self.src[e.end.offset : s.end.offset].decode("utf-8", "replace").strip()
        op = (before or after) if same else ""
        if op in ("++", "--", "&", "*", "!", "~", "-", "+"):
            return op
        # Inside a macro expansion (__HAL_LOCK(&h)) the text is not the operator's: the types
        # still say which one takes an address.
        t = c.type.get_canonical()
        if t.kind == TypeKind.POINTER and t.get_pointee() == child.type.get_canonical():
            return "&"
        return op or "?"

    def macro_hit(self, c: Cursor, parent_start: int) -> str | None:
        if not self.macros or self.crit_off:
            return None
        start = c.extent.start.offset
        if start == parent_start:
            return None
        return self.macros.get(start)

    # -- statements ----------------------------------------------------------------------------
    def stmt(self, c: Cursor, states: States, parent_start: int) -> States:
        k = c.kind
        start = c.extent.start.offset
        if self.macro_hit(c, parent_start):
            return self.expr(c, states, READ, None, parent_start)
        if k == K.COMPOUND_STMT:
            at = start + 1
            depth = len(self.branch)
            for ch in c.get_children():
                if ch.kind in (K.CASE_STMT, K.DEFAULT_STMT, K.LABEL_STMT):
                    del self.branch[depth:]  # reached from elsewhere, not only past the test
                self.gap(at, ch.extent.start.offset, states)
                self.left = None
                states = self.stmt(ch, states, start)
                # Only this block's own if/while tells what follows it: a test nested deeper
                # (``for (...) { if (done) break; }``) says nothing about the code after it.
                if ch.kind not in (K.IF_STMT, K.WHILE_STMT):
                    self.left = None
                if self.left is not None and states:
                    # ``if (x) return;`` / ``while (!x) {}``: the rest of the block runs only
                    # in the other arm of that test (what it knows holds here, sense_of).
                    self.branch.append(self.left)
                at = ch.extent.end.offset
            del self.branch[depth:]
            self.gap(at, c.extent.end.offset - 1, states)
            return states
        ch = list(c.get_children())
        if k == K.IF_STMT:
            outer, self.testing = self.testing, start
            outer_sense, self.sense = self.sense, self.sense_of(ch[0])
            outer_versus, self.versus = self.versus, self.versus_of(ch[0])
            self.note_local_test(ch[0], start, self.sense)
            try:
                s = self.cond(ch[0], states, start)
            finally:
                self.testing, self.sense, self.versus = outer, outer_sense, outer_versus
            self.branch.append((start, 0))
            jumps, gotos = self.jumps, self.goto_count
            then = self.stmt(ch[1], s, start)
            if s and not then and self.jumps == jumps:
                self.returning.add((start, 0))  # every path through the arm returns
            left_then = bool(s) and not then and self.goto_count == gotos
            self.branch[-1] = (start, 1)
            jumps, gotos = self.jumps, self.goto_count
            other = self.stmt(ch[2], s, start) if len(ch) > 2 else s
            if s and not other and self.jumps == jumps:
                self.returning.add((start, 1))
            left_other = bool(s) and not other and self.goto_count == gotos
            self.branch.pop()
            # No path of one arm goes on past the if (return, break, continue): what follows
            # is in the other arm.
            self.left = (start, 1) if left_then and not left_other else (
                (start, 0) if left_other and not left_then else None)
            return then | other
        if k == K.WHILE_STMT:
            # ("==", K, "loop"): a while's test (what its exit knows, as an if's else arm); it
            # holds for the reads of the condition only, not for those of the body.
            sense = self.sense_of(ch[0])
            gotos = self.goto_count
            out = self.loop(states, [ch[0]], ch[1], [], start, _always(ch[0]),
                            test=(start, {k: (*v, "loop") for k, v in sense.items()}
                                  if isinstance(sense, dict) else
                                  (*sense, "loop") if sense else ()))
            # left only when its condition is false; after a break, what the body's tests
            # knew does not hold either
            self.left = (start, 1) if not self.loop_broke and self.goto_count == gotos else None
            return out
        if k == K.FOR_STMT:
            *parts, body = ch
            return self.loop(states, parts, body, [], start, not parts)
        if k == K.DO_STMT:
            return self.loop(states, [], ch[0], [ch[1]], start, _always(ch[1]),
                             once=_evaluate(ch[1]) == 0)
        if k == K.SWITCH_STMT:
            mark = len(self.recent)
            s = self.expr(ch[0], states, READ, None, start)
            cases = _case_values(ch[1])
            if cases and mark + 1 == len(self.recent):  # ``switch (state)``: one object read
                self.switch_reads[self.recent[mark]] = (start, cases)
            t = _Target(loop=False, entry=s, arm=(start, len(self.branch)))
            self.targets.append(t)
            self.branch.append((start, -1))
            out = self.stmt(ch[1], EMPTY, start)
            self.branch.pop()
            self.targets.pop()
            return out | t.breaks | (EMPTY if t.has_default else s)
        if k in (K.CASE_STMT, K.DEFAULT_STMT):
            sw = next((t for t in reversed(self.targets) if not t.loop), None)
            if sw is not None:
                states = states | sw.entry
                sw.has_default |= k == K.DEFAULT_STMT
                # Each case is its own arm (a fall-through into the next is not followed).
                at, depth = sw.arm
                if depth < len(self.branch):
                    self.branch[depth] = (at, start)
            return self.stmt(ch[-1], states, start) if ch else states
        if k == K.RETURN_STMT:
            for e in ch:
                states = self.expr(e, states, READ, None, start)
            self.sections.leave(states, self.where(c))
            return EMPTY
        if k == K.BREAK_STMT:
            self.jumps += 1
            if self.targets:
                self.targets[-1].breaks |= states
            return EMPTY
        if k == K.CONTINUE_STMT:
            self.jumps += 1
            loop = next((t for t in reversed(self.targets) if t.loop), None)
            if loop is not None:
                loop.continues |= states
            return EMPTY
        if k == K.GOTO_STMT:
            self.jumps += 1
            self.goto_count += 1
            label = ch[0].spelling if ch else ""
            self.gotos.setdefault(label, set()).update(states)
            return EMPTY
        if k == K.LABEL_STMT:
            states = states | frozenset(self.gotos.get(c.spelling, ()))
            for sub in ch:
                if not sub.kind.is_expression() or sub.kind != K.LABEL_REF:
                    states = self.stmt(sub, states, start)
            return states
        if k == K.DECL_STMT:
            for var in ch:
                if var.kind == K.VAR_DECL and var.storage_class.name == "STATIC":
                    # Zephyr's IRQ_CONNECT declares its ISR as a block-scope static in .intList
                    self.u.vector_table(var)
                    continue  # a static's initialiser runs at load time, not here
                for init in var.get_children():
                    if init.kind.is_expression():
                        outer_into = self.into
                        if var.kind == K.VAR_DECL and _strip(init).kind in (
                                K.DECL_REF_EXPR, K.MEMBER_REF_EXPR):
                            self.into = var.hash  # ``uint64_t a = x;``: as ``a = x``
                        states = self.expr(init, states, READ, None, start)
                        self.into = outer_into
                        self.note_pointer(var, init)
            return states
        if k in (K.NULL_STMT, K.ASM_STMT):
            return states
        return self.expr(c, states, READ, None, parent_start)

    def cond(self, c: Cursor, states: States, parent_start: int) -> States:
        self.in_cond += 1
        try:
            return self.expr(c, states, READ, None, parent_start)
        finally:
            self.in_cond -= 1

    def loop_test(self, c: Cursor, states: States, parent_start: int) -> States:
        self.loop_cond += 1
        mark = len(self.recent)
        try:
            return self.cond(c, states, parent_start)
        finally:
            self.loop_cond -= 1
            if len(self.recent) > mark and self.loops:
                self.shared_test_loops.add(self.loops[-1])  # its test reads a global

    def loop(self, states, pre, body, post, start, infinite: bool, once: bool = False,
             test: tuple | None = None) -> States:
        """``test``: (the loop's offset, its sense) for the reads of a while's condition."""
        t = _Target(loop=True)
        self.targets.append(t)
        self.loops.append(self._next())  # a number no fact has: the facts inside come after it
        if once:  # do { ... } while (0): a macro's statement block, run once, no loop
            self.once_loops.add(self.loops[-1])
            self.shared_test_loops.add(self.loops[-1])
        if infinite:
            self.shared_test_loops.add(self.loops[-1])  # no count bounds it: not a walk
        for p in (*pre, *post):
            if p.kind.is_expression():
                self.agree_pairs.update(self.compared_locals(p))
        cur, exits = states, set()
        for _ in range(3):
            s = cur
            for p in pre:
                if p.kind == K.DECL_STMT or not p.kind.is_expression():
                    s = self.stmt(p, s, start)
                elif test is not None:
                    outer = self.testing, self.sense
                    self.testing, self.sense = test
                    try:
                        s = self.loop_test(p, s, start)
                    finally:
                        self.testing, self.sense = outer
                else:
                    s = self.loop_test(p, s, start)
            if not infinite and not post:
                exits |= s
            b = self.stmt(body, s, start) | frozenset(t.continues)
            mark = len(self.recent)
            for p in post:
                b = self.loop_test(p, b, start)
            self.retry_reads.update((k, self.loops[-1]) for k in self.recent[mark:])
            if post and not infinite:
                exits |= b
            if once:
                break  # ``do { ... } while (0)`` runs its body once: no second turn to merge
            new = cap(cur | b)
            if new == cur:
                break
            cur = new
        self.targets.pop()
        self.loops.pop()
        self.loop_broke = bool(t.breaks)
        return frozenset(exits) | frozenset(t.breaks)

    # -- expressions ---------------------------------------------------------------------------
    def expr(self, c: Cursor, states: States, mode: Mode, top, parent_start: int) -> States:
        k = c.kind
        start = c.extent.start.offset
        if start in self.it_macros and start != parent_start:
            self.enable_macro(c, start, states)
        macro = self.macro_hit(c, parent_start)
        if macro:
            self.crit_off += 1
            try:
                states = self.expr(c, states, mode, top, start)
            finally:
                self.crit_off -= 1
            return self.sections.apply(macro, states, self.where(c), bool(self.in_cond))
        if k == K.CALL_EXPR:
            return self.call(c, states, start)
        if k == K.DECL_REF_EXPR:
            self.ref(c, states, mode, top)
            return states
        ch = list(c.get_children())
        if k in TRANSPARENT:
            if (
                k == K.UNEXPOSED_EXPR
                and c.type.kind == TypeKind.DEPENDENT
                and ch
                and ch[0].kind == K.DECL_REF_EXPR
                and ch[0].referenced is not None
                and ch[0].referenced.kind == K.FUNCTION_DECL
            ):
                # A call with the wrong argument count: clang keeps it only as a recovery
                # expression (and reports the error as BG000); it is still a call.
                return self.call(c, states, start, ch[0].referenced, ch[1:])
            for sub in ch:
                states = self.expr(sub, states, mode, top, start)
            return states
        if k == K.ARRAY_SUBSCRIPT_EXPR and len(ch) == 2:
            states = self.expr(ch[0], states, mode, top or c, start)
            return self.expr(ch[1], states, READ, None, start)
        if k == K.MEMBER_REF_EXPR:
            for sub in ch:
                states = self.expr(sub, states, mode, top or c, start)
            return states
        if k == K.BINARY_OPERATOR and len(ch) == 2:
            if self.op_between(ch[0], ch[1]) == "=":
                lhs = _strip(ch[0])
                outer_into = self.into
                if lhs.kind == K.DECL_REF_EXPR:
                    self.note_pointer(lhs.referenced, ch[1])
                    self.into = self.local_hash(lhs) if _strip(ch[1]).kind in (
                        K.DECL_REF_EXPR, K.MEMBER_REF_EXPR) else 0
                    rhs = _strip(ch[1])
                    if rhs.kind == K.CALL_EXPR:
                        made = self.u.macro_at(rhs) or rhs.spelling
                        kind = self.u.lock_kinds.get(made)
                        if kind in ("binary", "mutex"):
                            self.note_lock(lhs, kind, made, self.where(rhs))
                elif lhs.kind == K.MEMBER_REF_EXPR:
                    self.note_stored(lhs.spelling, ch[1])
                    self.note_field_function(lhs, ch[1])
                mark, mark2 = len(self.recent), len(self.recent_through)
                states = self.expr(ch[1], states, READ, None, start)
                self.into = outer_into
                reads = {
                    (a.obj, a.text): key
                    for key in self.recent[mark:]
                    if (a := self.accesses.get(key)) is not None and a.kind is A_READ
                }
                # *p = *p / 2 through a pointer: the same, by pointer and steps.
                reads.update({
                    (t[0], t[1]): key for key in self.recent_through[mark2:]
                    if (t := self.through.get(key)) is not None and t[4] is A_READ
                })
                self.pending_rmw = set(reads)
                self._rhs_reads = reads
                r = _strip(ch[1])
                rch = list(r.get_children()) if r.kind == K.BINARY_OPERATOR else []
                self.rmw_op = self.op_between(rch[0], rch[1]) if len(rch) == 2 else "="
                self.store_value = self.stored_constant(c, ch[1])
                states = self.expr(ch[0], states, WRITE, None, start)
                self.pending_rmw = set()
                self.store_value = None
                return states
            mask = self.read_under_mask(ch)
            for sub in ch:
                outer_mask = self.read_mask
                self.read_mask = mask[1] if mask and sub is mask[0] else 0
                states = self.expr(sub, states, READ, None, start)
                self.read_mask = outer_mask
            return states
        if k == K.COMPOUND_ASSIGNMENT_OPERATOR and len(ch) == 2:
            states = self.expr(ch[1], states, READ, None, start)
            self.rmw_op = self.op_between(ch[0], ch[1]).rstrip("=")
            return self.expr(ch[0], states, RMW, None, start)
        if k == K.UNARY_OPERATOR and len(ch) == 1:
            op = self.unary_op(c, ch[0])
            if op in ("++", "--"):
                sub_mode = RMW
                self.rmw_op = "+" if op == "++" else "-"
            elif op == "&" and top is not None:
                # (&x)->f, the shape __HAL_LOCK(&h) expands to: an access to x.f, not &x escaping
                return self.expr(ch[0], states, mode, top, start)
            elif op == "&":
                sub_mode = mode if mode in BLOCK else ADDR
            elif op == "*" and mode is not ADDR:
                return self.expr(ch[0], states, mode, top or c, start)  # *p: through p
            else:
                sub_mode = READ
            return self.expr(ch[0], states, sub_mode, None, start)
        if k == K.CONDITIONAL_OPERATOR and len(ch) == 3:
            s = self.cond(ch[0], states, start)
            a = self.expr(ch[1], s, READ, None, start)
            return a | self.expr(ch[2], s, READ, None, start)
        if k == K.CXX_UNARY_EXPR:
            return states  # sizeof / _Alignof: not evaluated
        keep = k == K.CSTYLE_CAST_EXPR and (mode is ADDR or mode is BLOCK_READ)
        sub_mode = mode if keep else READ
        for sub in ch:
            if sub.kind.is_expression() or sub.kind.is_statement():
                states = self.expr(sub, states, sub_mode, None, start)
        return states

    def call(self, c: Cursor, states: States, start: int, ref=None, args=None) -> States:
        ref = ref if ref is not None else c.referenced
        name = ref.spelling if ref is not None else c.spelling
        if args is None:
            args = list(c.get_arguments())
            ch = list(c.get_children())
            if ch and (not args or ch[0] != args[0]):
                states = self.expr(ch[0], states, READ, None, start)  # the callee expression
        modes = BLOCK_ARGS.get(name, ())
        for i, a in enumerate(args):
            states = self.expr(a, states, modes[i] if i < len(modes) else READ, None, start)
        where = self.where(c)
        protected = fully_protected(states)
        self.barrier(name, ref if ref is not None and ref.kind == K.FUNCTION_DECL else None)
        irq = ""
        if (name in self.u.mask_on or name in self.u.mask_off) and args:
            arg = _strip(args[0])
            aref = arg.referenced if arg.kind == K.DECL_REF_EXPR else None
            if aref is not None and aref.kind == K.ENUM_CONSTANT_DECL:
                irq = irq_key(aref.spelling)
            else:
                irq = self.u.irq_macro(self.arg_text(c, args, 0))
        if ref is not None and ref.kind == K.FUNCTION_DECL:
            key = c.extent.start.offset
            old = self.calls.get(key)
            prot = protected and (old is None or old.protected)
            # Watched calls (DMA starts, cache maintenance, timeouts) keep their arguments.
            argf = ()
            if name in self.u.arg_calls:
                texts = _arg_texts(self.src, c, len(args)) if self.file == self.u.main_file else []
                argf = tuple(
                    self.u.arg_fact(a, texts[i] if i < len(texts) else None)
                    for i, a in enumerate(args)
                )
            seq = old.seq if old is not None else self._next()
            # In a loop the call may also come before anything earlier in the loop body.
            earliest = old.earliest if old is not None else (self.loops[0] if self.loops else seq)
            targets = old.targets if old is not None else self.arg_targets(args)
            if old is None:
                # The arguments a registration the profiles list takes its function from: a
                # function passed there is its entry; one passed elsewhere (emlib's
                # GPIOINT_CallbackRegister(intNo, cb) matches Harmony's *_CallbackRegister(cb,
                # ctx) by name only) is left to ``callbacks`` to judge by its words.
                taken = {reg.arg if reg.arg >= 0 else len(args) + reg.arg
                         for _, reg in self.u.registrations_for(name)}
                arg_lines = tuple(self.line_of(a, self.arg_text(c, args, i))
                                  for i, a in enumerate(args))
                named = {x for x in arg_lines if x and not x.startswith(PARAM)}
                call_line = named.pop() if len(named) == 1 else ""
                for n, a in enumerate(args):
                    r = _arg_decl(a)
                    if r is not None and r.kind == K.FUNCTION_DECL:
                        self.passed.append(PassedFunction(
                            ref.get_usr(), n, r.get_usr(), _param_hint(ref, name, n),
                            self.u.macro_name(self.arg_text(c, args, 0)) if n else "", where,
                            n in taken, line=call_line, arg_lines=arg_lines))
                    elif r is not None and r.kind == K.VAR_DECL:
                        self.struct_priority(c, args, n, r, where)
                        # A configuration struct handed over with a function in a field
                        # (FSP's R_SCI_UART_Open(&ctrl, &cfg), cfg.p_callback = uart_cb).
                        fns = _init_functions(r) + self.field_fns.get(r.hash, [])
                        held = self.held_lines(r)
                        line = held.pop() if len(held) == 1 else "" if held else call_line
                        for fld, fn, ftype in fns:
                            self.passed.append(PassedFunction(
                                ref.get_usr(), n, fn.get_usr(), f"{name} {fld} {ftype}",
                                "", where, n in taken, holder=r.spelling, line=line,
                                arg_lines=arg_lines))
                        for fld, (at, ftype) in self.field_params.get(r.hash, {}).items():
                            self.passed.append(PassedFunction(
                                ref.get_usr(), n, self.usr, f"{name} {fld} {ftype}", "", where,
                                n in taken, holder=r.spelling, line=line, param=at,
                                arg_lines=arg_lines))
            inst, off = (old.instance, old.off) if old is not None else _source_switch(
                self, c, name, args)
            discarded = name in EXCLUSIVE_STORES and self.result_discarded(c)
            if old is None and name in EXCLUSIVE_STORES and not discarded:
                self.exclusive_update(c, args, targets, states)
            self.calls[key] = CallFact(
                self.usr, ref.get_usr(), name, where, prot, argf, seq, earliest, targets, irq,
                discarded,
                branch=tuple(self.branch), level=self.level_of(states) if prot else 0,
                instance=inst, off=off,
            )
        elif ref is None or ref.kind in (K.VAR_DECL, K.PARM_DECL, K.FIELD_DECL):
            field_name = ref.spelling if ref is not None and ref.kind == K.FIELD_DECL else ""
            text = self.text(next(iter(c.get_children()), c), name or "?")
            self.indirect.append(IndirectCall(self.usr, where, text, field_name))
            if field_name:
                # A driver's access struct called through a field (CMSIS-Driver's
                # ``Driver_USART3.Initialize(usart_cb)``): a function handed to it is read by
                # the field's words, as a call to a function of that name would be.
                call_name = re.sub(r"\s+", "", text) if "(" not in text else field_name
                for n, a in enumerate(args):
                    r = _arg_decl(a)
                    if r is not None and r.kind == K.FUNCTION_DECL:
                        self.passed.append(PassedFunction(
                            ref.get_usr(), n, r.get_usr(), _field_param_hint(ref, call_name, n),
                            "", where, False))
        if name in self.u.grouping_setters and args:
            reg = self.u.grouping_setters[name]
            if 0 <= reg.arg < len(args):
                self.u.grouping = _arg_value(args[reg.arg])
        if name in self.u.priority_setters:
            self.priority(name, c, args, where)
        elif ref is not None and ref.kind == K.FUNCTION_DECL and len(args) >= 2:
            self.inferred_priority(ref, c, args, where)
        elif ref is not None and ref.kind == K.FUNCTION_DECL and len(args) == 1:
            self.instance_priority(ref, name, args, where)
        if irq:
            return mask(states, irq) if name in self.u.mask_on else unmask(states, irq)
        if name in self.u.basepri and args:
            value = _arg_value(args[0])
            if value is None and _strip(args[0]).kind != K.DECL_REF_EXPR:
                value = self.u.eval_const(self.arg_text(c, args, 0))
            if value is not None:
                level = self.u.priority_level(value)
                return raise_level(states, level) if level else clear_level(states)
            if _strip(args[0]).kind == K.DECL_REF_EXPR:
                return clear_level(states)  # __set_BASEPRI(saved): the state before is back
        at = self.u.basepri_params.get(name, -1)
        if 0 <= at < len(args):
            # A function of the program's own that writes its argument to BASEPRI (uC/CPU's
            # CPU_SR_Save(CPU_CFG_KA_IPL_BOUNDARY << (8 - CPU_CFG_NVIC_PRIO_BITS))): a nonzero
            # constant raises it to that level; a saved state put back ends the raise (on
            # paths where none is open it is the exit routine masks.infer made it).
            value = _arg_value(args[at])
            if value:
                return raise_level(states, self.u.priority_level(value))
            if states and all(n.startswith(LEVEL) for s in states for n, _ in s[-1:]):
                return clear_level(states)
        for kind, reg in self.u.registrations_for(name):
            idx = reg.arg if reg.arg >= 0 else len(args) + reg.arg
            if 0 <= idx < len(args):
                prio = None
                at = self.u.task_priority_args.get(name, -1) if kind == "task" else -1
                if 0 <= at < len(args):
                    prio = self.u.eval_const(self.arg_text(c, args, at))
                line = self.irq_line(c, args, reg.irq) if kind == "interrupt" else ""
                zero = (kind == "interrupt" and reg.flags is not None and bool(reg.unmasked)
                        and 0 <= reg.flags < len(args) and re.search(
                            rf"\b{re.escape(reg.unmasked)}\b", self.arg_text(c, args, reg.flags))
                        is not None)
                for fn in _function_refs(args[idx]):
                    how = f"{'registered with' if kind == 'interrupt' else 'created by'} {name}"
                    if zero:
                        how += f" ({reg.unmasked})"
                    self.entries.append(EntryFact(
                        fn.get_usr(), fn.spelling, kind, how, where, prio, line, zero))
        lock = self.u.lock_kinds.get(self.u.macro_at(c) or name)
        if lock in ("take", "give") and args:
            self.note_lock(args[0], lock, name, where)
        if name in self.u.exits and args and _arg_value(args[0]) not in (None, 0):
            return states  # __set_PRIMASK(1) masks interrupts: it restores no saved state
        if not self.crit_off:
            states = self.sections.apply(self.posture(name, ref, c, args), states, where,
                                         bool(self.in_cond))
        # Cross-core locks, by name (``sections.CROSS_CORE``; the profiles' ``[cores]``).
        plat = self.u.config.platform
        if name_matches(plat.core_locks, name) and not name_matches(plat.core_not_locks, name):
            return mask(states, CROSS_CORE)
        if name_matches(plat.core_unlocks, name):
            return unmask(states, CROSS_CORE)
        if name_matches(plat.sched_locks, name):
            return mask(states, SCHEDULER)
        if name_matches(plat.sched_unlocks, name):
            return unmask(states, SCHEDULER)
        return states

    def posture(self, name: str, ref, c: Cursor, args: list[Cursor]) -> str:
        """The routine name a call counts as. A call with no body here (the SDK's source is
        not there, so what it writes cannot be read) is read by its words when it saves and
        restores the interrupt state: its name says interrupt, irq or critical, its result is
        kept, and it says it disables (its name: save, disable, lock, enter; or its argument,
        a constant named as a disable: ThreadX's ``old = tx_interrupt_control(TX_INT_DISABLE)``)
        - a section opens; a call named so that gives a local back (``tx_interrupt_control(
        old)``, ``up_irq_restore(flags)``, ``leave_critical_section(s)``) after one closes it.
        A scheduler lock (``osKernelLock``, ``tx_mutex_get``) says none of this."""
        words = _name_words(name)
        if not words & _STATE_WORDS or name in self.u.enters or name in self.u.exits or (
                ref is None or ref.kind != K.FUNCTION_DECL or ref.get_definition() is not None):
            return name
        arg = _strip(args[0]) if args else None
        if (arg is not None and arg.kind == K.DECL_REF_EXPR and self.local_hash(arg)
                and (name in self.u.postures or _counterparts(name) & self.u.postures
                     or any(_same_family(p, name) for p in self.u.postures))):
            return self.u.posture_routine(name, "restore")
        text = self.arg_text(c, args, 0).strip() if args else ""
        mode = _DISABLE_WORD.search(text) is not None or (
            _MODE_ARG.match(text) is not None and "disable" in _name_words(text)
            and _const_int(arg) is not None)
        if mode and words & _RESTORE_WORDS and any(
                (n, text) in self.u.posture_modes for n in _counterparts(name)):
            return self.u.posture_routine(name, "restore")
        says = bool(words & _SAVE_WORDS) or mode
        if says and not words & _RESTORE_WORDS and (
                _value_kept(c, self.src, self.file, self.u.macro_value)
                or (mode and words & _SAVE_WORDS and ref.result_type.kind == TypeKind.VOID)):
            # ``OSA_EnterCritical(kCriticalDisableInt)``: no state given back, the mode
            # argument says it disables; its exit with the same mode closes it.
            self.u.postures.add(name)
            if mode:
                self.u.posture_modes.add((name, text))
            return self.u.posture_routine(name, "disable")
        return name

    def irq_line(self, c: Cursor, args: list[Cursor], at: int | None) -> str:
        """The interrupt line argument ``at`` names: an IRQn enumerator or a macro (``""``)."""
        if at is None or not 0 <= at < len(args):
            return ""
        a = _strip(args[at])
        ref = a.referenced if a.kind == K.DECL_REF_EXPR else None
        if ref is not None and ref.kind == K.ENUM_CONSTANT_DECL:
            return irq_key(ref.spelling)
        return self.u.irq_macro(self.arg_text(c, args, at))

    def stored_constant(self, assign: Cursor, rhs: Cursor) -> int | None:
        """The constant an assignment stores: a literal, an enumerator, or a literal spelled
        with a macro (``flag = true``, ``= TRUE``: stdbool's and the SDKs' names for 1; the
        literal has no tokens of its own there, the assignment's last one is the macro)."""
        value = _const_int(rhs)
        if value is None and _strip(rhs).kind == K.INTEGER_LITERAL:
            toks = [t.spelling for t in assign.get_tokens()]
            if len(toks) >= 3 and toks[-2] == "=":
                value = self.u.eval_const(toks[-1])
        return value

    def exclusive_update(self, c: Cursor, args: list, targets: tuple, states: States) -> None:
        """An exclusive store whose result is checked (``while (__STREXW(v, p) != 0U)``, the
        retry of an LDREX/STREX loop, Mbed's ``core_util_atomic_fetch_or_u32``): one atomic
        read-modify-write of what its address argument points to (a global, or a parameter the
        program model resolves), made as if masked, for an exception between the load and the
        store makes the store fail and the loop retry (``exclusive``). What it means for the
        others: a handler's such update is still a write, which a task's plain ``x &= ~m``
        loses (BG102); a task's is no race site of its own."""
        t = targets[1] if len(targets) > 1 else None
        if t is None or len(args) < 2:
            return
        pointee = args[1].type.get_canonical().get_pointee()
        size = pointee.get_size()
        obj = None if t[0].startswith(PARAM) else self.u.objects.get(t[0])
        if size < 0:
            size = obj.size if obj is not None else 0
        key = (c.extent.start.offset, A_RMW)
        self.accesses[key] = AccessFact(
            t[0], self.usr, self.where(c), A_RMW, size,
            pointee.is_volatile_qualified() or (obj is not None and obj.is_volatile), True,
            self.text(args[1], obj.name if obj is not None else "?"), not t[1], t[1],
            True, self._next(), tuple(self.branch), False, masked_irqs(states), 0, (), 0,
            "x", looped=bool(self.loops),
        )

    def result_discarded(self, c: Cursor) -> bool:
        """Whether call ``c`` is a statement of its own (``__STREXW(v, &x);``, ``(void)f();``):
        its value is used by nothing."""
        ext = c.extent
        name = (c.referenced.spelling if c.referenced is not None else c.spelling).encode()
        at = ext.start.offset
        if ext.start.file is None or ext.start.file.name != self.file or (
                self.src[at:at + len(name)] != name):
            # Expanded from a macro (CMSIS's ATOMIC_SET_BIT retries in its own loop): the text
            # around the use is the macro's, not the call's.
            return False
        before = _strip_comments(self.src[max(0, ext.start.offset - 200):ext.start.offset]
                                 .decode("utf-8", "replace"))
        after = self.src[ext.end.offset:ext.end.offset + 40].decode("utf-8", "replace")
        return bool(_STATEMENT_START.search(before)) and after.lstrip().startswith(";")

    def enable_macro(self, c: Cursor, start: int, states: States) -> None:
        """``__HAL_UART_ENABLE_IT(&h, ...)``, ``__HAL_UART_DISABLE_IT``: a call fact where the
        macro is used (it starts or stops the peripheral's interrupt sources; the interrupt
        timeline reads it)."""
        key = -1 - start  # apart from a call the macro may expand to at the same place
        if key in self.calls:
            return
        name = self.it_macros[start]
        seq = self._next()
        self.calls[key] = CallFact(
            self.usr, f"macro:{name}", name, self.where(c), fully_protected(states), (), seq,
            self.loops[0] if self.loops else seq, branch=tuple(self.branch),
            sources=self.it_macro_sources(start),
        )

    def it_macro_sources(self, start: int) -> tuple[str, ...]:
        """The interrupt sources an enable/disable macro names; for a variable argument
        (``__HAL_I2C_ENABLE_IT(hi2c, enableIT)``), those its function's text names (what the
        variable is built from); ("?",) when none: not known."""
        got = self.u.it_sources.get(start, ())
        if not got:
            text = self.src[self.extent[0]:self.extent[1]].decode("utf-8", "replace")
            got = tuple(sorted(set(IT_SOURCE.findall(text)))) or ("?",)
        return got

    def arg_text(self, call: Cursor, args: list[Cursor], i: int) -> str:
        """Argument ``i`` of a call as written (its macros unexpanded), else its tokens."""
        texts = _arg_texts(self.src, call, len(args)) if self.file == self.u.main_file else []
        if i < len(texts):
            return texts[i]
        return " ".join(t.spelling for t in args[i].get_tokens())

    def note_lock(self, handle: Cursor, kind: str, call: str, where: Where) -> None:
        """A semaphore created, taken or given, when its handle is a global (BG113)."""
        h = _strip(handle)
        ref = h.referenced if h.kind == K.DECL_REF_EXPR else None
        obj = self.u.object_info(ref) if ref is not None and ref.kind == K.VAR_DECL else None
        if obj is not None:
            self.locks.append(LockFact(obj.usr, kind, self.usr, call, where, self._next()))

    def priority(self, name: str, c: Cursor, args: list[Cursor], where: Where) -> None:
        """HAL_NVIC_SetPriority(USART1_IRQn, 5, 0): the IRQ and its priority, when constant.
        The IRQ is an IRQn enumerator or a macro naming one's line (TI's ``INT_ADC14``); a
        setter that takes the register byte (``register``) gives the level in its top bits."""
        setter = self.u.priority_setters[name]
        if len(args) > max(setter.arg, 0):
            self.note_priority(c, args, 0, setter.arg, where, setter.register)

    def inferred_priority(self, fn: Cursor, c: Cursor, args: list[Cursor], where: Where) -> None:
        """A priority setter no table names, read by its parameters' names: one parameter
        names the interrupt line (``nvic_irq``, ``num``, ``irqn``; the argument an IRQn
        enumerator or a macro), another its priority (``nvic_irq_pre_priority``,
        ``hardware_priority``). Only the pre-emption part preempts, so a parameter that says
        ``sub`` is not it (GD32's ``nvic_irq_enable(irq, pre, sub)``). A value above the
        levels the NVIC implements is the register byte (pico-sdk's ``irq_set_priority(n,
        0x40)``): its level is its top ``__NVIC_PRIO_BITS``; so is one a parameter names as
        hardware or raw."""
        if fn.hash not in self.u.setter_bodies:
            self.u.setter_bodies[fn.hash] = self.setter_body(fn)
        hands = self.u.setter_bodies[fn.hash]
        if hands is not None:
            if max(hands[:2]) < len(args):
                self.note_priority(c, args, hands[0], hands[1], where, hands[2])
            return
        got = self.u.setter_params.get(fn.hash)
        if got is None:
            params = [p.spelling.lower() for p in fn.get_children() if p.kind == K.PARM_DECL]
            prio = [n for n, p in enumerate(params) if "prio" in p and "sub" not in p]
            prio = [n for n in prio if "pre" in params[n]] or prio
            got = self.u.setter_params[fn.hash] = (params, prio)
        params, prio = got
        if len(params) != len(args) or len(prio) != 1:
            return
        for n, p in enumerate(params):
            if n not in prio and _IRQ_PARAM.search(p) and self.note_priority(
                    c, args, n, prio[0], where,
                    None if not re.search(r"hw|hardware|raw|reg", params[prio[0]]) else True):
                break

    def line_of(self, e: Cursor, text: str = "") -> str:
        """The line an expression names: an IRQn enumerator's spelling or a line number
        macro's (``text``, its source, tells a macro), PARAM + N for this function's
        parameter N, else ""."""
        x = _strip(e)
        while x.kind == K.CSTYLE_CAST_EXPR:
            x = _strip(list(x.get_children())[-1])
        ref = x.referenced if x.kind == K.DECL_REF_EXPR else None
        if ref is not None and ref.kind == K.ENUM_CONSTANT_DECL and ref.spelling.endswith(
                "_IRQn"):
            return ref.spelling
        if ref is not None and ref.kind == K.PARM_DECL and ref.hash in self.params:
            return f"{PARAM}{self.params[ref.hash]}"
        name = self.u.macro_name(text) if text else ""
        if name and re.search(r"_IRQn?$", name):  # a line number macro: INT002_IRQn
            return name
        return ""

    def held_lines(self, var: Cursor) -> set[str]:
        """The lines a struct variable holds in fields that say irq (its initializer's IRQn
        enumerators, or the IRQn enumerators and parameters stored into it here)."""
        out: set[str] = set()
        d = var.get_definition() or var
        init = next((ch for ch in d.get_children() if ch.kind == K.INIT_LIST_EXPR), None)
        if init is not None:  # enumerators, and line macros by the initializer's words
            out |= {got for x in init.walk_preorder()
                    if x.kind == K.DECL_REF_EXPR and (got := self.line_of(x))
                    and not got.startswith(PARAM)}
            out |= {t.spelling for t in init.get_tokens() if t.kind == TokenKind.IDENTIFIER
                    and self.line_of(init, t.spelling) == t.spelling}
        for fld, e in self.field_vals.get(var.hash, {}).items():
            got = self.line_of(e)
            if got and (_IRQ_FIELD.search(fld) or not got.startswith(PARAM)):
                out.add(got)
        return out

    def struct_priority(self, c: Cursor, args: list[Cursor], at: int, var: Cursor,
                        where: Where) -> None:
        """A priority handed to a call in a struct the body fills field by field before it
        (SPL's ``n.NVIC_IRQChannelPreemptionPriority = 1; ... NVIC_Init(&n)``, TI-RTOS's
        ``hp.priority = 0; Hwi_create(INT_GPIOA, step_hwi, &hp, NULL)``), read by the fields'
        names as ``masks.config_priorities`` reads an initializer: a field that says priority
        (not ``sub``) holding a constant, the line in a field holding an IRQn enumerator or
        else in the call's own line argument (an enumerator or a line macro), and, when the
        struct or the call hands over one function, that function at the priority too (the
        fact keyed by its name). The values are those stored last before the call."""
        vals = self.field_vals.get(var.hash)
        if not vals:
            return
        prios: dict[str, int] = {}
        lines: dict[str, str] = {}
        fns: set[str] = set()
        for fld, e in vals.items():
            x = _strip(e)
            if x.kind == K.UNARY_OPERATOR:
                x = _strip(_first(x))
            ref = x.referenced if x.kind == K.DECL_REF_EXPR else None
            if ref is not None and ref.kind == K.FUNCTION_DECL:
                fns.add(ref.spelling)
            elif (ref is not None and ref.kind == K.ENUM_CONSTANT_DECL
                  and ref.spelling.endswith("_IRQn") and _IRQ_FIELD.search(fld)):
                lines[fld] = ref.spelling
            elif _PRIO_FIELD.search(fld) and "sub" not in fld.lower():
                v = _arg_value(e)
                if v is not None and v >= 0:
                    prios[fld] = v
        if len(prios) != 1:
            return
        fld, value = next(iter(prios.items()))
        if value >= 1 << self.u.prio_bits:
            value = self.u.priority_level(value)
        line = ""
        if len(set(lines.values())) == 1:
            line = next(iter(lines.values()))
        elif not lines:
            found = set()
            for n, a in enumerate(args):
                x = _strip(a)
                ref = x.referenced if x.kind == K.DECL_REF_EXPR else None
                if n == at or (ref is not None and ref.kind in (K.FUNCTION_DECL, K.VAR_DECL,
                                                                K.PARM_DECL)):
                    continue
                if ref is not None and ref.kind == K.ENUM_CONSTANT_DECL:
                    if ref.spelling.endswith("_IRQn"):
                        found.add(ref.spelling)
                elif (got := self.u.irq_macro(self.arg_text(c, args, n))) and _IRQ_MACRO.search(
                        self.u.macro_name(self.arg_text(c, args, n))):
                    found.add(got)
            line = found.pop() if len(found) == 1 else ""
        for a in args:
            x = _strip(a)
            if x.kind == K.UNARY_OPERATOR:
                x = _strip(_first(x))
            ref = x.referenced if x.kind == K.DECL_REF_EXPR else None
            if ref is not None and ref.kind == K.FUNCTION_DECL:
                fns.add(ref.spelling)
        if line:
            self.priorities.append(PriorityFact(line, value, where))
        if len(fns) == 1:
            self.priorities.append(PriorityFact(fns.pop(), value, where))

    def instance_priority(self, fn: Cursor, name: str, args: list[Cursor], where: Where) -> None:
        """A component's own priority setter, its one parameter the priority and its name the
        component's (PSoC Creator's ``isr_Rx_SetPriority(1u)``, generated per instance): the
        line named by the component, whose other calls (``isr_Rx_StartEx(RxIsr)``) hand it
        its handler (``callbacks``). Not a sub-priority."""
        m = _INSTANCE_SETTER.match(name)
        params = [p.spelling.lower() for p in fn.get_children() if p.kind == K.PARM_DECL]
        if m is None or len(params) != 1 or "prio" not in params[0] or "sub" in params[0]:
            return
        value = _arg_value(args[0])
        if value is None or value < 0:
            return
        if value >= 1 << self.u.prio_bits:
            value = self.u.priority_level(value)
        self.priorities.append(PriorityFact(m.group(1), value, where))

    def setter_body(self, fn: Cursor) -> tuple[int, int, bool] | None:
        """(line parameter, priority parameter, register) when ``fn``'s body hands two of its
        parameters on to a setter the profiles list, as its line and its priority (an SDK's
        ``void irq_prio(int n, uint32_t level) { NVIC_SetPriority(n, level); }``): a call to
        ``fn`` sets that priority. None when its body is not in sight or does not."""
        d = fn.get_definition()
        body = next((ch for ch in d.get_children() if ch.kind == K.COMPOUND_STMT),
                    None) if d is not None else None
        if body is None:
            return None
        params = {p.hash: n for n, p in enumerate(
            p for p in d.get_children() if p.kind == K.PARM_DECL)}
        for e in body.walk_preorder():
            setter = self.u.priority_setters.get(e.spelling) if e.kind == K.CALL_EXPR else None
            inner = list(e.get_arguments()) if setter is not None else []
            if setter is None or len(inner) <= max(setter.arg, 0):
                continue
            at = [_param_index(inner[i], params) for i in (0, setter.arg)]
            if min(at) >= 0:
                return at[0], at[1], setter.register
        return None

    def note_priority(self, c: Cursor, args: list[Cursor], irq_at: int, at: int, where: Where,
                      register: bool | None) -> bool:
        """The priority fact of a setter call whose argument ``irq_at`` names the line and
        ``at`` the priority, when both are known; whether one was made. The priority is a
        constant expression, or a call whose body computes it from constants (an encoder:
        ``NVIC_SetPriority(X, NVIC_EncodePriority(3, 10, 1))``, which pre-empts by its
        pre-emption bits alone under the grouping the unit sets: ``UnitContext.preemption``).
        ``register``: the value is the register byte (True), the level (False), or the byte
        when above the levels the NVIC implements (None)."""
        a = _strip(args[irq_at])
        ref = a.referenced if a.kind == K.DECL_REF_EXPR else None
        if ref is not None and ref.kind == K.ENUM_CONSTANT_DECL:
            line = ref.spelling
        else:
            line = self.u.irq_macro(self.arg_text(c, args, irq_at))
        if not line:
            return False
        value = _arg_value(args[at])
        if value is None:
            value = self.u.eval_const(self.arg_text(c, args, at))
        encoded = value is None and _strip(args[at]).kind == K.CALL_EXPR
        if encoded:
            value = call_value(_strip(args[at]))
        if value is None or value < 0:
            return False
        if register or (register is None and value >= 1 << self.u.prio_bits):
            value = self.u.priority_level(value)
        fact = PriorityFact(line, value, where)
        self.priorities.append(fact)
        if encoded:
            self.u.encoded.append(fact)
        return True

    def arg_targets(self, args: list[Cursor]) -> tuple:
        """Per argument, the global (USR) and path it points to: ``&rx``, ``buf``; a parameter
        handed on (``PARAM`` N: what the caller's own callers pass); a local pointer (known
        once the body is walked: ``resolve_targets``); else None."""
        got: list = []
        for a in args:
            g = self.target_of(a)
            if g is not None:
                got.append((g[0].usr, g[1]))
                continue
            e = _strip(a)
            ref = e.referenced if e.kind == K.DECL_REF_EXPR else None
            if ref is not None and ref.kind == K.PARM_DECL and ref.hash in self.params:
                got.append((f"{PARAM}{self.params[ref.hash]}", ()))
            elif ref is not None and ref.kind == K.VAR_DECL and (
                    ref.type.get_canonical().kind == TypeKind.POINTER
                    and self.u.object_info(ref) is None):
                got.append(("local", ref.hash))
            else:
                got.append(None)
        return tuple(got) if any(got) else ()

    def ref(self, c: Cursor, states: States, mode: Mode, top) -> None:
        target = c.referenced
        if target is None:
            return
        if target.kind == K.PARM_DECL:
            n = self.params.get(target.hash, -1)
            if top is None or mode is ADDR:
                if mode in (WRITE, RMW, ADDR):
                    self.param_moved.add(n)  # p = q, p++, &p: not the caller's pointer
                return
            self.through_pointer(("param", n), c, states, top, _ACCESS.get(mode, A_READ))
            return
        if target.kind != K.VAR_DECL:
            return
        if mode is ADDR and top is not None and target.hash in self.points:
            return  # &p->f: p is only read; the field's address escapes, p points where it did
        if mode is ADDR or (mode is RMW and top is None):
            if target.hash in self.points:
                # &p: no longer one known place; p++, p += n: some element of the same array
                (self.spoiled if mode is ADDR else self.moved).add(target.hash)
            if mode is ADDR:
                return  # &x escapes; what is done through the pointer is not followed
        obj = self.u.object_info(target)
        whole = top is None
        t = c if whole else top
        ctype = c.type.get_canonical()
        path: tuple[str, ...] = ()
        kind = _ACCESS.get(mode, A_READ)
        if obj is None:
            # A local or a parameter: not shared, unless a local pointer that only ever points
            # into one global is dereferenced (rb = &rx; rb->head is rx.head): known only
            # once the whole body is walked (resolve_pointers).
            if top is not None:
                self.through_pointer(target.hash, c, states, top, kind)
            return
        elif not whole:
            segs, bases, _ = self.lvalue_segments(top)
            path = tuple(reversed(segs[-1]))
            if len(segs) > 1:
                # Through a pointer (p->f, p[i], s.ptr->reg): only the pointer itself is read.
                kind, t, whole = A_READ, bases[-1], not path
        elif mode not in BLOCK and ctype.kind in ARRAYS:
            return  # the array decays to a pointer handed on: its elements are not followed
        text = self.text(t, obj.name)
        if kind is A_WRITE and (obj.usr, text) in self.pending_rmw:
            kind = A_RMW  # x = x + 1: the read on the right belongs to this write
            self.accesses.pop(self._rhs_reads[(obj.usr, text)], None)
        size = t.type.get_size()
        if mode in BLOCK and whole:
            size = obj.size
        if size < 0:
            size = obj.size
        volatile = obj.is_volatile or t.type.is_volatile_qualified()
        scalar = t.type.get_canonical().kind not in (*ARRAYS, TypeKind.RECORD)
        if mode in BLOCK and whole:
            scalar = obj.is_scalar
        protected = fully_protected(states)
        key = (c.extent.start.offset, kind)
        old = self.accesses.get(key)
        if old is not None:
            if old.protected and not protected:
                self.accesses[key] = replace(old, protected=False)
            return
        self.accesses[key] = AccessFact(
            obj.usr, self.usr, self.where(c), kind, size, volatile, protected, text, whole,
            path, scalar, self._next(), tuple(self.branch),
            self.polled() and kind is A_READ, masked_irqs(states),
            self.level_of(states) if protected else 0, (), self.tested(kind),
            self.rmw_op if kind is A_RMW else "",
            self.store_value if kind is A_WRITE else None, bits=_bit_member(top),
            sense=self.sense_at(c) if self.tested(kind) else (),
            loop=self.real_loop(),
            by_level=protected and level_only(states, self.u.level_routines),
            looped=bool(self.loops),
            versus=self.versus[0] if self.tested(kind) else 0,
            elapsed=self.versus[1] if self.tested(kind) else -1,
            into=self.into if kind is A_READ else 0,
            bits_read=self.read_mask if kind is A_READ else 0,
        )
        if self.real_loop() and self.polled() and kind is A_READ:
            self.poll_loop[key] = self.real_loop()
        self.recent.append(key)

    def through_pointer(self, var, c: Cursor, states: States, top: Cursor,
                        kind: AccessKind) -> None:
        """An access through pointer variable ``var`` (a local's hash, or ("param", N)), kept
        until what the pointer points to is known."""
        segs, bases, _ = self.lvalue_segments(top)
        if len(segs) < 2 or segs[-1]:
            return
        steps = tuple(reversed(segs[-2]))
        t = top
        if len(segs) > 2:
            kind, t = A_READ, bases[-2]  # a pointer stored in the global is read
        if kind is A_WRITE and (var, steps) in self.pending_rmw:
            kind = A_RMW  # *p = *p + 1: one read-modify-write through the pointer
            self.through.pop(self._rhs_reads[(var, steps)], None)
        key = (c.extent.start.offset, kind)
        self.recent_through.append(key)
        protected = fully_protected(states)
        old = self.through.get(key)
        if old is not None:
            if old[5] and not protected:
                self.through[key] = (*old[:5], False, *old[6:])
            return
        if self.real_loop() and self.polled() and kind is A_READ:
            self.poll_loop[key] = self.real_loop()
        self.through[key] = (
            var, steps, c, t, kind, protected, self._next(),
            tuple(self.branch), self.polled() and kind is A_READ, masked_irqs(states),
            self.level_of(states) if protected else 0, self.tested(kind),
            self.store_value if kind is A_WRITE else None,
            self.sense_at(c) if self.tested(kind) else (),
        )

    def resolve_pointers(self) -> None:
        """The accesses made through local pointers that point into one global, now that every
        assignment to them has been seen."""
        for key, (var, steps, c, t, kind, protected, seq, branch, poll, masked, level,
                  tests, stored, sense) in self.through.items():
            size = t.type.get_size()
            if isinstance(var, tuple):  # a parameter: the program model resolves it
                if var[1] < 0 or var[1] in self.param_moved:
                    continue
                usr, path, volatile = f"{PARAM}{var[1]}", steps, False
                # The constant a store through a parameter stores is left out, as it was (a
                # handle's state a handler stores back unchanged, handle_handback.c, is kept a
                # race); what a test through it knows is kept, as a local pointer's store is.
                stored = None
                pname = self.param_names[var[1]]  # the text when the access is in a macro
                name = f"{pname}->{path[0][1:]}" if path and path[0][0] == "." else pname
            else:
                into = self.pointee(var)
                if into is None:
                    continue
                obj, path = into[0], join_paths(into[1], steps)
                usr, volatile, name = obj.usr, obj.is_volatile, obj.name
                size = size if size >= 0 else obj.size
            self.accesses[key] = AccessFact(
                usr, self.usr, self.where(c), kind, max(size, 0),
                volatile or t.type.is_volatile_qualified(), protected,
                self.text(t, name), not path, path,
                t.type.get_canonical().kind not in (*ARRAYS, TypeKind.RECORD), seq, branch,
                poll, masked, level, (), tests, stored=stored, sense=sense,
            )

    def pointee(self, var: int) -> tuple[ObjectFact, tuple[str, ...]] | None:
        """Where local pointer ``var`` points, once the body is walked: one global and path; a
        pointer moved along an array (p++) points at some element of it (``[*]``)."""
        into = self.points.get(var) if var not in self.spoiled else None
        if into is None or var not in self.moved:
            return into
        obj, path = into
        if path and path[-1].startswith("["):
            return obj, (*path[:-1], "[*]")
        if not path and "[" in obj.type:
            return obj, ("[*]",)
        return None  # moved off a scalar or a struct: not followed

    def resolve_targets(self) -> None:
        """Call arguments that are local pointers into one global: now that is known."""
        for key, call in list(self.calls.items()):
            if any(t is not None and (t[0] == "local" or t[0].startswith(PARAM))
                   for t in call.targets):
                got = []
                for t in call.targets:
                    if isinstance(t, tuple) and t and t[0] == "local":
                        into = self.pointee(t[1])
                        t = (into[0].usr, into[1]) if into is not None else None
                    elif t is not None and t[0].startswith(PARAM) and (
                            int(t[0][len(PARAM):]) in self.param_moved):
                        t = None  # p++ on the parameter: not the caller's pointer any more
                    got.append(t)
                self.calls[key] = replace(call, targets=tuple(got) if any(got) else ())

    def level_of(self, states: States) -> int:
        """The BASEPRI level that is all the protection some path has here (0: none such)."""
        named = self.u.level_routines
        if not any(n in named or n.startswith(LEVEL) for st in states for n, _ in st):
            return 0
        return basepri_level(states, self.u.levels)

    def sense_of(self, cond: Cursor) -> tuple | dict:
        """("==", K) or ("!=", K) when ``cond`` tests one plain object against a constant
        (``x``, ``!x``, ``x == K``, ``K != x``; the then-arm runs when it holds), else (). For a
        chain of ``||`` (or ``&&``) of such tests, per object reference (its offset) its test's
        sense tagged "or" (only the else-arm knows: every test failed) or "and" (only the
        then-arm knows: every test held): ``if (ready || len >= MAX) continue;`` tells the rest
        of the loop body ``ready == 0``."""
        c = _strip(cond)
        neg = False
        while c.kind == K.UNARY_OPERATOR and self.unary_op(c, _first(c)) == "!":
            neg, c = not neg, _strip(_first(c))
        if c.kind == K.BINARY_OPERATOR:
            ch = list(c.get_children())
            op = self.op_between(ch[0], ch[1]) if len(ch) == 2 else ""
            if op in ("||", "&&"):
                return self._chain_sense(c, op, neg)
        sense: tuple = ()
        if c.kind in (K.DECL_REF_EXPR, K.MEMBER_REF_EXPR):
            sense = ("!=", 0)
        elif c.kind == K.BINARY_OPERATOR:
            ch = list(c.get_children())
            op = self.op_between(ch[0], ch[1]) if len(ch) == 2 else ""
            if op in ("==", "!="):
                a, b = _strip(ch[0]), _strip(ch[1])
                if _const_int(b) is None and _const_int(a) is not None:
                    a, b = b, a
                if a.kind == K.UNARY_OPERATOR and a.extent.start.offset < _first(
                        a).extent.start.offset and self.unary_op(a, _first(a)) in ("++", "--"):
                    a = _strip(_first(a))  # ++x == K: x holds K in the arm
                value = _const_int(b)
                if value is not None and a.kind in (K.DECL_REF_EXPR, K.MEMBER_REF_EXPR):
                    sense = (op, value)
        if sense and neg:
            sense = ("==" if sense[0] == "!=" else "!=", sense[1])
        if not sense and not neg and c.kind == K.BINARY_OPERATOR:
            return self._above_sense(c)
        return sense

    def _above_sense(self, c: Cursor) -> dict:
        """``pos < len`` (or ``len > pos``) with ``pos`` an unsigned variable: the then-arm
        knows ``len`` is above 0 (``len != 0``), tagged "and" as one test of a chain
        (sense_of) and "bound" (a comparison, still a use of the value:
        ``order.late_writes``): a handler that reads a buffer only while ``pos < len``
        never reads it while the task knows ``len == 0``."""
        ch = list(c.get_children())
        op = self.op_between(ch[0], ch[1]) if len(ch) == 2 else ""
        if op not in ("<", ">"):
            return {}
        small, big = (_strip(ch[0]), _strip(ch[1])) if op == "<" else (_strip(ch[1]),
                                                                       _strip(ch[0]))
        if big.kind not in (K.DECL_REF_EXPR, K.MEMBER_REF_EXPR):
            return {}
        if _const_int(small) is not None or small.type.get_canonical().kind not in _UNSIGNED:
            return {}  # a bound (``level > 2``) is judged as a test of its own
        return {big.extent.start.offset: ("!=", 0, "and", "bound")}

    def _chain_sense(self, c: Cursor, op: str, neg: bool) -> dict:
        """The senses of a ``||``/``&&`` chain's plain tests, by the offset of the object each
        reads (sense_of); ``!(a || b)`` is ``!a && !b``."""
        parts: list[Cursor] = []
        todo = [c]
        while todo:
            x = _strip(todo.pop())
            ch = list(x.get_children()) if x.kind == K.BINARY_OPERATOR else []
            if len(ch) == 2 and self.op_between(ch[0], ch[1]) == op:
                todo += [ch[1], ch[0]]
            else:
                parts.append(x)
        tag = ("and" if op == "||" else "or") if neg else ("or" if op == "||" else "and")
        out: dict = {}
        for x in parts:
            sense = self.sense_of(x)
            if not isinstance(sense, tuple) or not sense:
                continue
            if neg:
                sense = ("==" if sense[0] == "!=" else "!=", sense[1])
            ref = _strip(x)
            while ref.kind != K.DECL_REF_EXPR and ref.kind != K.MEMBER_REF_EXPR:
                kids = [k for k in ref.get_children() if k.kind.is_expression()]
                if not kids:
                    break
                ref = _strip(kids[0]) if _const_int(kids[0]) is None or len(kids) < 2 \
                    else _strip(kids[1])
            out[ref.extent.start.offset] = (*sense, tag)
        return out

    def sense_at(self, c: Cursor) -> tuple:
        """The sense (sense_of) of the test a read at ``c`` is in."""
        if isinstance(self.sense, dict):
            return self.sense.get(c.extent.start.offset, ())
        return self.sense

    def read_under_mask(self, ch: list[Cursor]) -> tuple[Cursor, int] | None:
        """``x & K`` / ``K & x`` with ``x`` a plain variable and ``K`` a nonzero constant:
        (x's cursor, K); None for any other operation."""
        if len(ch) != 2 or self.op_between(ch[0], ch[1]) != "&":
            return None
        for var, k in ((ch[0], ch[1]), (ch[1], ch[0])):
            value = _arg_value(k)
            if value and _strip(var).kind == K.DECL_REF_EXPR:
                return var, value
        return None

    def note_local_test(self, cond: Cursor, start: int, sense: tuple | dict) -> None:
        """Record an if that tests one local alone against a constant (sense_of), for
        ``copied_tests``."""
        if not isinstance(sense, tuple) or not sense:
            return
        walked = list(cond.walk_preorder())
        if any(d.kind in (K.MEMBER_REF_EXPR, K.ARRAY_SUBSCRIPT_EXPR, K.CALL_EXPR)
               for d in walked):
            return  # a part of the local, or a call: not the value copied
        refs = [d for d in walked if d.kind == K.DECL_REF_EXPR
                and d.referenced is not None and d.referenced.kind == K.VAR_DECL]
        if len(refs) == 1 and (h := self.local_hash(refs[0])):
            self.local_tests.setdefault(h, []).append(
                (self.seq, start, sense, refs[0].referenced))

    def copied_tests(self) -> None:
        """A plain read of a global kept in a local that nothing else stores to (``uint8_t
        cmd = g_cmd;``) and a later if that tests the local alone (``if (cmd != 0) { g_cmd =
        0; }``): the if knows what the global held when it was read, as ``if (g_cmd != 0)``
        would. The read takes that test (``tests``, ``sense``): an ownership flag or mailbox
        read through a copy is judged as one tested in place."""
        if not self.local_tests:
            return
        for key, a in list(self.accesses.items()):
            if a.kind is not A_READ or a.tests or not a.into or a.into not in self.local_tests:
                continue
            later = [t for t in self.local_tests[a.into] if t[0] >= a.seq]
            if later and self.stored_once(later[0][3]):
                _, at, sense, _ = later[0]
                self.accesses[key] = replace(a, tests=at, sense=sense)

    def stored_once(self, var: Cursor) -> bool:
        """Whether a local's one store is its initialiser: no assignment, increment or
        address taken anywhere in its function."""
        fn = var.semantic_parent
        if fn is None or var.kind != K.VAR_DECL:
            return False
        for d in fn.walk_preorder():
            if d.kind not in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR,
                              K.UNARY_OPERATOR):
                continue
            ch = list(d.get_children())
            if not ch:
                continue
            target = _strip(ch[0])
            if target.kind != K.DECL_REF_EXPR or target.referenced is None or (
                    target.referenced.hash != var.hash):
                continue
            if d.kind == K.COMPOUND_ASSIGNMENT_OPERATOR:
                return False
            if d.kind == K.BINARY_OPERATOR and len(ch) == 2 and (
                    self.op_between(ch[0], ch[1]) == "="):
                return False
            if d.kind == K.UNARY_OPERATOR and self.unary_op(d, ch[0]) in ("++", "--", "&"):
                return False
        return True

    def local_hash(self, c: Cursor) -> int:
        """The declaration hash of the local variable ``c`` names (0: a global, or no variable)."""
        ref = c.referenced if c.kind == K.DECL_REF_EXPR else None
        if ref is None or ref.kind not in (K.VAR_DECL, K.PARM_DECL) or (
                ref.kind == K.VAR_DECL and self.u.object_info(ref) is not None):
            return 0
        return ref.hash

    def compared_locals(self, cond: Cursor) -> set[frozenset[int]]:
        """The pairs of locals a condition compares for (in)equality (``a != b``)."""
        out = set()
        for d in cond.walk_preorder():
            ch = list(d.get_children()) if d.kind == K.BINARY_OPERATOR else []
            if len(ch) == 2 and self.op_between(ch[0], ch[1]) in ("==", "!="):
                a, b = self.local_hash(_strip(ch[0])), self.local_hash(_strip(ch[1]))
                if a and b and a != b:
                    out.add(frozenset((a, b)))
        return out

    def versus_of(self, cond: Cursor) -> tuple[int, int]:
        """``x == v`` / ``x != v`` (either order) with ``v`` a local: (v's hash, -1); an elapsed
        test ``x - v >= K`` (``>``, ``<``, ``<=``, either side): (v's hash, the arm where the
        difference reached the bound: 0 for ``>``/``>=``, 1 for ``<``/``<=``); else (0, -1)."""
        c = _strip(cond)
        ch = list(c.get_children()) if c.kind == K.BINARY_OPERATOR else []
        op = self.op_between(ch[0], ch[1]) if len(ch) == 2 else ""
        if op in ("==", "!="):
            a, b = _strip(ch[0]), _strip(ch[1])
            return self.local_hash(b) or self.local_hash(a), -1
        flip = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
        if op not in flip:
            return 0, -1
        for side, rel in ((ch[0], op), (ch[1], flip[op])):
            d = _strip(side)
            dch = list(d.get_children()) if d.kind == K.BINARY_OPERATOR else []
            if len(dch) == 2 and self.op_between(dch[0], dch[1]) == "-" and _strip(
                    dch[0]).kind in (K.DECL_REF_EXPR, K.MEMBER_REF_EXPR):
                local = self.local_hash(_strip(dch[1]))
                if local:
                    return local, 0 if rel in (">", ">=") else 1
        return 0, -1

    def tested(self, kind: AccessKind) -> int:
        """The if statement whose condition a read (or ``++x``) here is in (0: none)."""
        return self.testing if kind is not A_WRITE and self.in_cond else 0

    def polled(self) -> bool:
        """Whether a read here polls: a loop's condition, or a condition tested on every turn
        of a loop (``for (;;) { if (flag) ... }``)."""
        return bool(self.loop_cond) or bool(self.in_cond and self.real_loop())

    def real_loop(self) -> int:
        """The innermost enclosing loop that can run more than once (0: none)."""
        return next((n for n in reversed(self.loops) if n not in self.once_loops), 0)

    def _next(self) -> int:
        self.seq += 1
        return self.seq

    def lvalue_segments(self, top: Cursor) -> tuple[list[list[str]], list[Cursor], Cursor]:
        """The steps from ``top`` down to the variable it starts from (``.f``, ``[2]``, ``[*]``
        for an index not known at compile time, ``?`` for a union member), cut at each pointer
        dereference: ``segments[-1]`` are the steps on the variable itself (top-down),
        ``segments[-2]`` those on what the lowest pointer points to, and so on; ``bases[i]`` is
        the pointer expression dereferenced between ``segments[i]`` and ``segments[i + 1]``."""
        segs: list[list[str]] = [[]]
        bases: list[Cursor] = []
        node = top
        while node.kind != K.DECL_REF_EXPR:
            ch = list(node.get_children())
            if not ch:
                break
            if node.kind == K.MEMBER_REF_EXPR:
                base = ch[0]
                btype = base.type.get_canonical()
                deref = btype.kind == TypeKind.POINTER
                rec = btype.get_pointee().get_canonical() if deref else btype
                decl = rec.get_declaration()
                segs[-1].append("?" if decl is not None and decl.kind == K.UNION_DECL
                                else _member_step(node))
                inner = _strip(base)
                if deref and inner.kind == K.UNARY_OPERATOR and self.unary_op(
                        inner, _first(inner)) == "&":
                    node = _first(inner)  # (&x)->f is x.f
                    continue
                if deref:
                    segs.append([])
                    bases.append(base)
                node = base
            elif node.kind == K.ARRAY_SUBSCRIPT_EXPR and len(ch) == 2:
                base, index = ch
                n = _const_int(index)
                segs[-1].append(f"[{n}]" if n is not None else self.index_step(index))
                if _strip(base).type.get_canonical().kind not in ARRAYS:
                    segs.append([])  # p[i]: through the pointer
                    bases.append(base)
                node = base
            elif node.kind == K.UNARY_OPERATOR and self.unary_op(node, ch[0]) == "*":
                segs.append([])
                bases.append(ch[0])
                node = ch[0]
            elif node.kind in TRANSPARENT or node.kind in (K.UNARY_OPERATOR, K.CSTYLE_CAST_EXPR):
                node = ch[-1]
            else:
                break
        return segs, bases, node

    def index_step(self, index: Cursor) -> str:
        """The path step of an index not known at compile time: ``[2n+1]`` for ``2*id + 1``
        (a constant stride and offset: ``facts.paths_overlap`` tells apart indices of different
        residues), else ``[*]``."""
        got = self.linear(index)
        return stride_index(*got) if got is not None else "[*]"

    def linear(self, c: Cursor) -> tuple[int, int] | None:
        """``k*e + c`` (either order; ``e`` no constant) -> (k, c); a constant n -> (0, n); a
        plain variable -> (1, 0); None when the index is anything else."""
        c = _strip(c)
        n = _const_int(c)
        if n is not None:
            return 0, n
        ch = list(c.get_children()) if c.kind == K.BINARY_OPERATOR else []
        if len(ch) != 2:
            return (1, 0) if c.kind == K.DECL_REF_EXPR else None
        op = self.op_between(ch[0], ch[1])
        a, b = self.linear(ch[0]), self.linear(ch[1])
        if a is None or b is None:
            return None
        if op == "+" and not (a[0] and b[0]):
            return a[0] + b[0], a[1] + b[1]
        if op == "*" and (not a[0] or not b[0]):
            k, v = (a, b[1]) if not b[0] else (b, a[1])
            return k[0] * v, k[1] * v
        return None

    def note_pointer(self, var: Cursor | None, rhs: Cursor) -> None:
        """A local pointer is assigned ``rhs``: it keeps pointing into one global only while
        every assignment (anywhere in the body: flow-insensitive) names the same place."""
        if var is None or var.kind != K.VAR_DECL or var.type.get_canonical().kind != (
                TypeKind.POINTER) or self.u.object_info(var) is not None:
            return
        e = _strip(rhs)
        ch = list(e.get_children()) if e.kind == K.BINARY_OPERATOR else []
        if len(ch) == 2 and _strip(ch[0]).kind == K.DECL_REF_EXPR and (
                _strip(ch[0]).referenced == var) and self.op_between(ch[0], ch[1]) in "+-":
            self.moved.add(var.hash)  # p = p + n: along the same array
            return
        got = self.target_of(rhs)
        old = self.points.get(var.hash, got)
        if got is not None and old is not None and old != got:
            got = _either(old, got)  # &g.rx here, &g.tx there: some part of g
        if got is None:
            self.spoiled.add(var.hash)
        self.points[var.hash] = got

    def note_field_function(self, lhs: Cursor, rhs: Cursor) -> None:
        """``cfg.p_callback = uart_cb``: a function stored in a field of a variable named
        directly (not through a pointer), kept for the calls that take the variable."""
        base = _strip(_first(lhs)) if list(lhs.get_children()) else None
        e = _strip(rhs)
        if e.kind == K.UNARY_OPERATOR:
            e = _strip(_first(e))
        fn = e.referenced if e.kind == K.DECL_REF_EXPR else None
        var = base.referenced if base is not None and base.kind == K.DECL_REF_EXPR else None
        if var is not None and var.kind == K.VAR_DECL:
            self.field_vals.setdefault(var.hash, {})[lhs.spelling] = rhs
            t = lhs.type.get_canonical()
            if (fn is not None and fn.kind == K.PARM_DECL and fn.hash in self.params
                    and t.kind == TypeKind.POINTER and t.get_pointee().kind in (
                        TypeKind.FUNCTIONPROTO, TypeKind.FUNCTIONNOPROTO)):
                self.field_params.setdefault(var.hash, {})[lhs.spelling] = (
                    self.params[fn.hash], lhs.type.spelling)
        if fn is not None and fn.kind == K.FUNCTION_DECL and var is not None \
                and var.kind == K.VAR_DECL:
            self.field_fns.setdefault(var.hash, []).append(
                (lhs.spelling, fn, lhs.type.spelling))

    def note_stored(self, field_name: str, rhs: Cursor) -> None:
        """``h->XferCpltCallback = f``: a call through that field may reach f (stack depth)."""
        e = _strip(rhs)
        if e.kind == K.UNARY_OPERATOR:
            e = _strip(_first(e))
        ref = e.referenced if e.kind == K.DECL_REF_EXPR else None
        if ref is not None and ref.kind == K.FUNCTION_DECL:
            self.stored.append(StoredFunction(field_name, ref.get_usr(), ref.spelling))
        elif ref is not None and ref.kind == K.PARM_DECL and ref.hash in self.params:
            self.stored.append(StoredFunction(field_name, self.usr, self.name,
                                              param=self.params[ref.hash]))
        elif e.kind != K.INTEGER_LITERAL and rhs.type.get_canonical().kind == TypeKind.POINTER \
                and rhs.type.get_canonical().get_pointee().kind in (
                    TypeKind.FUNCTIONPROTO, TypeKind.FUNCTIONNOPROTO) and not _is_null(e):
            self.stored.append(StoredFunction(field_name, self.usr, self.name, other=True))

    def target_of(self, rhs: Cursor) -> tuple[ObjectFact, tuple[str, ...]] | None:
        """``&g``, ``&g.f``, ``&g[2]`` or an array ``g`` (its first element): the global and the
        path; None for anything else."""
        e = rhs
        while e.kind in TRANSPARENT or e.kind == K.CSTYLE_CAST_EXPR:
            inner = list(e.get_children())
            if not inner:  # an expression clang could not build (an undeclared name)
                return None
            e = inner[-1]
        if e.kind == K.CONDITIONAL_OPERATOR:  # c ? &g.rx : &g.tx: either part of g
            ch = list(e.get_children())
            a, b = (self.target_of(ch[1]), self.target_of(ch[2])) if len(ch) == 3 else (None, None)
            return _either(a, b) if a is not None and b is not None else None
        if e.kind == K.DECL_REF_EXPR:
            ref = e.referenced
            obj = self.u.object_info(ref) if ref is not None and ref.kind == K.VAR_DECL else None
            if obj is not None and e.type.get_canonical().kind in ARRAYS:
                return obj, ()
            return None
        if e.kind != K.UNARY_OPERATOR or self.unary_op(e, _first(e)) != "&":
            return None
        segs, _, var = self.lvalue_segments(_first(e))
        ref = var.referenced if var.kind == K.DECL_REF_EXPR else None
        obj = self.u.object_info(ref) if ref is not None and ref.kind == K.VAR_DECL else None
        if obj is None or len(segs) > 1:
            return None
        return obj, tuple(reversed(segs[0]))


_UNSIGNED = {TypeKind.BOOL, TypeKind.UCHAR, TypeKind.CHAR_U, TypeKind.USHORT, TypeKind.UINT,
             TypeKind.ULONG, TypeKind.ULONGLONG, TypeKind.UINT128}
_COMMENTS = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
# "sr", "cpsr", "psr": the status register a save routine reads before it disables (Mynewt's
# os_arch_save_sr, TencentOS's tos_cpu_cpsr_save). "int": the SDKs' short word for interrupt
# (LiteOS's LOS_IntLock, uC/OS's CPU_IntDis).
_STATE_WORDS = {"interrupt", "interrupts", "irq", "intr", "int", "ints", "critical", "primask",
                "sr", "cpsr", "psr"}
_SAVE_WORDS = {"save", "disable", "lock", "enter", "mask"}
_RESTORE_WORDS = {"restore", "enable", "unlock", "leave", "exit", "unmask"}
_DISABLE_WORD = re.compile(r"^[A-Za-z_]\w*DISABLE\w*$")
_WORDS_AT = re.compile(r"[A-Za-z_]\w*")
_MODE_ARG = re.compile(r"^[A-Za-z_]\w*$")  # a named constant: an enumerator or a macro
_PRIO_FIELD = re.compile(r"prio|(?:^|_)ipl$", re.IGNORECASE)
_IRQ_FIELD = re.compile(r"irq|intrsrc|(?:^|_)src$", re.IGNORECASE)
# A line macro handed to a call beside a struct of priorities: its name says a line (TI's
# INT_GPIOA, libopencm3's NVIC_TIM2_IRQ, STM32_IRQ_TIM3), not any other constant (a flag).
_IRQ_MACRO = re.compile(r"^INT_|IRQ", re.IGNORECASE)
_INSTANCE_SETTER = re.compile(r"^(\w+?)_(?:SetPriority|set_?priority|setPriority)$")
_IRQ_PARAM = re.compile(r"irq|intr|^num$|^int_?num|vector|^line$")
IT_SOURCE = re.compile(r"\b[A-Z][A-Z0-9]*_IT_[A-Z0-9_]+\b")  # I2C_IT_ERR, UART_IT_RXNE
_DIRECTIVE = re.compile(r"^\s*#", re.M)
_CALL_TEXT = re.compile(r"(?<![\w.>])([A-Za-z_]\w*)\s*\(")
_KEYWORDS = {"if", "while", "for", "switch", "return", "sizeof", "do", "else", "case", "goto"}


def _either(a: tuple, b: tuple) -> tuple | None:
    """One target for a pointer that points at ``a`` or at ``b``: the same global, the path
    they share and then any part ("?"); None for two different globals."""
    if a[0].usr != b[0].usr:
        return None
    if a[1] == b[1]:
        return a
    n = 0
    while n < min(len(a[1]), len(b[1])) and a[1][n] == b[1][n]:
        n += 1
    return a[0], (*a[1][:n], "?")


def _case_values(body: Cursor) -> tuple[tuple[int, int], ...]:
    """A switch body's cases that only their own value enters: (offset, value) of each
    ``case K:`` that is not stacked on another label and that no fall-through reaches (the
    statement before it jumps: break, return, continue, goto)."""
    out = []
    jumped = True
    for st in body.get_children() if body.kind == K.COMPOUND_STMT else ():
        if st.kind == K.CASE_STMT:
            kids = list(st.get_children())
            value = _const_int(kids[0]) if kids else None
            stacked = len(kids) > 1 and kids[-1].kind in (K.CASE_STMT, K.DEFAULT_STMT)
            if jumped and value is not None and not stacked:
                out.append((st.extent.start.offset, value))
            last = kids[-1] if kids else st
        elif st.kind == K.DEFAULT_STMT:
            kids = list(st.get_children())
            last = kids[-1] if kids else st
        else:
            last = st
        jumped = last.kind in (K.BREAK_STMT, K.RETURN_STMT, K.CONTINUE_STMT, K.GOTO_STMT)
    return tuple(out)


def _first(c: Cursor) -> Cursor:
    return next(iter(c.get_children()))


def _strip(c: Cursor) -> Cursor:
    """Below parentheses and implicit casts (an array decaying to a pointer)."""
    while c.kind in TRANSPARENT:
        ch = list(c.get_children())
        if len(ch) != 1:
            break
        c = ch[0]
    return c


# What may come just before a call that is a statement of its own: the end of the statement
# before it, a block's brace, a label, ``else``, or a cast to void.
_STATEMENT_START = re.compile(r"(?:^|[;{}:]|\belse|\(\s*void\s*\))\s*$")


def _member_step(node: Cursor) -> str:
    """The path step of member access ``node``: ``.f``; for a bit-field, its memory location:
    C11 (3.14, 6.7.2.1) makes a maximal run of adjacent non-zero-width bit-fields one memory
    location, so ``s.ready`` and ``s.busy`` declared side by side are the step ``.{ready,busy}``
    (a store to either loads, merges and stores the word they share)."""
    f = node.referenced
    if f is None or f.kind != K.FIELD_DECL or not f.is_bitfield():
        return "." + node.spelling
    group: list[str] = []
    found = False
    for ch in f.semantic_parent.get_children():
        if ch.kind != K.FIELD_DECL:
            continue
        if ch.is_bitfield() and ch.get_bitfield_width() > 0:
            group.append(ch.spelling)
            found = found or ch == f
        elif found:
            break
        else:
            group = []
    return "." + (f"{{{','.join(group)}}}" if len(group) > 1 else f.spelling)


def _bit_member(top: Cursor | None) -> str:
    """The bit-field member ``top`` names when it shares its memory location with neighbours
    (``_member_step`` made the path's last step that location), else ""."""
    e = _strip(top) if top is not None else None
    f = e.referenced if e is not None and e.kind == K.MEMBER_REF_EXPR else None
    if f is None or f.kind != K.FIELD_DECL or not f.is_bitfield():
        return ""
    return f.spelling if _member_step(e).startswith(".{") else ""


def _param_hint(fn: Cursor, name: str, n: int) -> str:
    """The callee's name, its parameter ``n``'s name and declared type (typedef kept)."""
    params = [p for p in fn.get_children() if p.kind == K.PARM_DECL]
    pname = params[n].spelling if n < len(params) else ""
    try:
        types = list(fn.type.argument_types())
    except Exception:  # an unprototyped declaration: no parameter types
        types = []
    ptype = types[n].spelling if n < len(types) else ""
    return f"{name} {pname} {ptype}"


def _field_param_hint(fld: Cursor, name: str, n: int) -> str:
    """``_param_hint`` for a function-pointer field called through: the parameter names are the
    field declaration's own (``int32_t (*Initialize)(ARM_USART_SignalEvent_t cb_event)``)."""
    params = [p for p in fld.get_children() if p.kind == K.PARM_DECL]
    pname = params[n].spelling if n < len(params) else ""
    t = fld.type.get_canonical()
    if t.kind == TypeKind.POINTER:
        t = t.get_pointee()
    try:
        types = list(t.argument_types())
    except Exception:  # not a prototype
        types = []
    ptype = params[n].type.spelling if n < len(params) else (
        types[n].spelling if n < len(types) else "")
    return f"{name} {pname} {ptype}"


def _param_index(e: Cursor, params: dict[int, int]) -> int:
    """The index in ``params`` (parameter hash -> index) of the parameter ``e`` names through
    casts, or -1."""
    s = _strip(e)
    while s.kind == K.CSTYLE_CAST_EXPR:
        s = _strip(list(s.get_children())[-1])
    ref = s.referenced if s.kind == K.DECL_REF_EXPR else None
    return params.get(ref.hash, -1) if ref is not None and ref.kind == K.PARM_DECL else -1


def _const_int(c: Cursor) -> int | None:
    """The value of an index that is a literal or an enumerator, else None."""
    c = _strip(c)
    if c.kind == K.INTEGER_LITERAL:
        toks = [t.spelling for t in c.get_tokens()]
        try:
            return c_int(toks[0]) if toks else None
        except ValueError:
            return None
    ref = c.referenced if c.kind == K.DECL_REF_EXPR else None
    if ref is not None and ref.kind == K.ENUM_CONSTANT_DECL:
        return ref.enum_value
    return None


@lru_cache(maxsize=4096)
def _name_words(name: str) -> frozenset[str]:
    """``up_irq_save`` -> {up, irq, save}; ``rt_hw_interrupt_disable``; ``CORE_ExitCritical``."""
    return frozenset(w.lower() for w in _WORDS.findall(name))


def _arg_decl(a: Cursor) -> Cursor | None:
    """What an argument names, through ``&``: ``cb`` or ``&cb`` -> cb's declaration."""
    fa = _strip(a)
    if fa.kind == K.UNARY_OPERATOR:
        fa = _strip(_first(fa))
    return fa.referenced if fa.kind == K.DECL_REF_EXPR else None


def _stem(name: str) -> frozenset[str]:
    """A save or restore routine's name less its save/restore words: ``LOS_IntLock`` and
    ``LOS_IntRestore`` -> {los, int}: the two ends of one section where no rename of the
    words (``_counterparts``) pairs them."""
    return _name_words(name) - _SAVE_WORDS - _RESTORE_WORDS


def _same_family(saved: str, name: str) -> bool:
    """Whether a call given a local back restores what the body-less save routine ``saved``
    kept, where no rename of the words (``_counterparts``) pairs them: its name says restore and
    is the save's less the save/restore words (LiteOS's ``LOS_IntLock`` / ``LOS_IntRestore``), or
    the two share an interrupt-state word and another (Contiki's ``int_master_read_and_disable``
    / ``int_master_status_set(st)``)."""
    a, b = _stem(saved), _stem(name)
    if a == b and _name_words(name) & _RESTORE_WORDS:
        return True
    common = a & b
    return bool(common & _STATE_WORDS) and len(common) >= 2


def _counterparts(name: str) -> set[str]:
    """The names of the call a restore undoes: ``up_irq_restore`` -> ``up_irq_save``,
    ``leave_critical_section`` -> ``enter_critical_section``, ``rt_hw_interrupt_enable`` ->
    ``rt_hw_interrupt_disable``."""
    out = set()
    for back, saved in (("restore", "save"), ("enable", "disable"), ("unlock", "lock"),
                        ("leave", "enter"), ("exit", "enter"), ("unmask", "mask")):
        for b, v in ((back, saved), (back.capitalize(), saved.capitalize()),
                     (back.upper(), saved.upper())):
            if b in name:
                out.add(name.replace(b, v))
    return out


def _value_kept(c: Cursor, src: bytes, file: str, macro_value=None) -> bool:
    """Whether a call's result is stored or used: the text before it in this file ends with
    ``=`` (``old = f(...)``, ``uint32_t s = f(...)``) or an opening parenthesis or comma (an
    argument), not a statement start. A call a macro makes (``OS_ENTER_CRITICAL(sr)`` for
    ``((sr) = os_arch_save_sr())``): the same, read in the macro's replacement tokens."""
    ext = c.extent
    if ext.start.file is None or ext.start.file.name != file:
        return False
    at = src[ext.start.offset:ext.start.offset + 120].decode("utf-8", "replace")
    word = _WORDS_AT.match(at)
    name = c.spelling or (c.referenced.spelling if c.referenced is not None else "")
    if word is not None and name and word.group(0) != name and macro_value is not None:
        toks = (macro_value(word.group(0)) or "").split()
        spots = [i for i, t in enumerate(toks[:-1]) if t == name and toks[i + 1] == "("]
        return bool(spots) and all(i > 0 and toks[i - 1] in ("=", "(", ",", "return")
                                   and (i < 2 or toks[i - 2] not in ("=", "!", "<", ">"))
                                   for i in spots)
    before = _strip_comments(src[max(0, ext.start.offset - 80):ext.start.offset]
                             .decode("utf-8", "replace"))
    return before.endswith(("=", "(", ",", "return")) and not before.endswith(
        ("==", "!=", "<=", ">="))


def _source_switch(walker: BodyWalker, c: Cursor, name: str, args: list) -> tuple[str, bool]:
    """A call that switches a peripheral's own interrupt sources on or off: its first argument
    as written (the instance) and whether it switches them off (``CallFact.off``); ("", False)
    for any other call. By name (``SOURCE_SWITCH``: ``USART_IntDisable``), or a set call whose
    last argument is a constant (``SOURCE_SET``: ``serial_irq_set(&s_uart, TxIrq, 0U)``)."""
    if not args:
        return "", False
    if SOURCE_SWITCH.search(name):
        return walker.arg_text(c, args, 0).strip(), "disable" in name.lower()
    if len(args) >= 2 and SOURCE_SET.search(name) and not SOURCE_SET_NOT.search(name):
        value = _arg_value(args[-1])
        if value is not None:
            return walker.arg_text(c, args, 0).strip(), value == 0
    return "", False


def _arg_value(c: Cursor) -> int | None:
    """A call argument's value when it is an integer constant expression (a literal, an
    enumerator, one spelled by a macro: ``__set_PRIMASK(FSP_CRITICAL_SECTION_IRQ_MASK_SET)``),
    None for a variable or anything else."""
    value = _const_int(c)
    if value is not None:
        return value
    s = _strip(c)
    while s.kind == K.CSTYLE_CAST_EXPR:
        s = _strip(list(s.get_children())[-1])
    if s.kind in (K.DECL_REF_EXPR, K.CALL_EXPR, K.MEMBER_REF_EXPR):
        return _const_int(s) if s.kind == K.DECL_REF_EXPR else None
    return _evaluate(c)


def _is_null(c: Cursor) -> bool:
    """``NULL`` / ``0`` / ``(void *)0``: an integer literal under its casts (stored into a
    function pointer, no literal but 0 is meaningful; inside a macro its text is not known)."""
    while c.kind in (*TRANSPARENT, K.CSTYLE_CAST_EXPR):
        ch = list(c.get_children())
        if not ch:
            return False
        c = ch[-1]
    return c.kind == K.INTEGER_LITERAL and _const_int(c) in (0, None)


def _always(cond: Cursor) -> bool:
    """``while (1)`` and friends: the loop is left only by break, return or goto."""
    c = cond
    while c.kind in TRANSPARENT:
        ch = list(c.get_children())
        if len(ch) != 1:
            return False
        c = ch[0]
    if c.kind != K.INTEGER_LITERAL:
        return False
    toks = [t.spelling for t in c.get_tokens()]
    return bool(toks) and toks[0].rstrip("uUlL") not in ("0", "0x0", "false")


def _evaluate(c: Cursor) -> int | None:
    """An integer constant expression's value as clang computes it (a literal spelled in a
    macro's body has no tokens of its own), or None."""
    lib = _eval_lib()
    r = lib.clang_Cursor_Evaluate(c)
    if not r:
        return None
    try:
        return lib.clang_EvalResult_getAsInt(r) if lib.clang_EvalResult_getKind(r) == 1 else None
    finally:
        lib.clang_EvalResult_dispose(r)


@lru_cache(maxsize=1)
def _eval_lib():
    """libclang's evaluation entry points (the Python bindings do not declare them)."""
    lib = conf.lib
    lib.clang_Cursor_Evaluate.argtypes = [Cursor]
    lib.clang_Cursor_Evaluate.restype = ctypes.c_void_p
    lib.clang_EvalResult_getKind.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_getKind.restype = ctypes.c_int
    lib.clang_EvalResult_getAsInt.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_getAsInt.restype = ctypes.c_int
    lib.clang_EvalResult_dispose.argtypes = [ctypes.c_void_p]
    return lib


def _init_functions(var: Cursor) -> list[tuple[str, Cursor, str]]:
    """(field, function, field type) for each function a struct variable's initializer
    stores in a field (``{.p_callback = uart_cb}``, or by position), nested structs included;
    [] for a variable of another type (an array of entries) or with no initializer in sight."""
    if var.type.get_canonical().kind != TypeKind.RECORD:
        return []  # a table of entries (a command list) is not one configuration
    d = var.get_definition() or var
    init = next((ch for ch in d.get_children() if ch.kind == K.INIT_LIST_EXPR), None)
    if init is None:
        return []
    out: list[tuple[str, Cursor, str]] = []

    def walk(lst: Cursor, depth: int) -> None:
        fields = list(lst.type.get_canonical().get_fields())
        for n, item in enumerate(lst.get_children()):
            fld = fields[n] if n < len(fields) else None
            name, ftype, value = (fld.spelling, fld.type.spelling, item) if fld else ("", "", item)
            ch = list(item.get_children())
            if item.kind == K.UNEXPOSED_EXPR and len(ch) == 2 and ch[0].kind == K.MEMBER_REF:
                name, ftype, value = ch[0].spelling, ch[0].type.spelling, ch[1]
            v = _strip(value)
            if v.kind == K.UNARY_OPERATOR:
                v = _strip(_first(v))
            if v.kind == K.INIT_LIST_EXPR and depth < 3:
                walk(v, depth + 1)
                continue
            ref = v.referenced if v.kind == K.DECL_REF_EXPR else None
            if ref is not None and ref.kind == K.FUNCTION_DECL and name:
                out.append((name, ref, ftype))

    walk(init, 0)
    return out


_ASM = (K.ASM_STMT, K.MS_ASM_STMT)
_MEMORY = (K.CALL_EXPR, K.ARRAY_SUBSCRIPT_EXPR)


def touches_memory(body: Cursor) -> bool:
    """Whether a function body may read or write memory the compiler must reload around it:
    a call, an asm statement with a ``memory`` clobber, a global named, an access through a
    pointer (``*p``, ``p->f``, ``a[i]``). An empty body, or one of locals only, does not."""
    return any(_touches(d) for d in body.walk_preorder())


def _touches(d: Cursor) -> bool:
    k = d.kind
    if k in _MEMORY:
        return True
    if k in _ASM:
        return any(t.spelling.strip('"') == "memory" for t in d.get_tokens())
    if k == K.DECL_REF_EXPR:
        r = d.referenced
        return r is not None and r.kind == K.VAR_DECL and (
            r.semantic_parent is None or r.semantic_parent.kind != K.FUNCTION_DECL
            or r.storage_class == StorageClass.STATIC)
    if k == K.UNARY_OPERATOR:
        first = next(iter(d.get_tokens()), None)
        return first is not None and first.spelling == "*"
    if k == K.MEMBER_REF_EXPR:
        return any(t.spelling == "->" for t in d.get_tokens())
    return False


def _function_refs(arg: Cursor) -> list[Cursor]:
    out = []
    for d in arg.walk_preorder():
        ref = d.referenced if d.kind == K.DECL_REF_EXPR else None
        if ref is not None and ref.kind == K.FUNCTION_DECL:
            out.append(ref)
    return out


def _arg_texts(src: bytes, call: Cursor, count: int) -> list[str]:
    """The arguments of a call as written in this file (macro arguments like ``K_NO_WAIT``
    stay unexpanded): split at the top-level commas between the call's parentheses."""
    ext = call.extent
    if ext.start.file is None or not 0 <= ext.start.offset < ext.end.offset <= len(src):
        return []
    text = src[ext.start.offset : ext.end.offset].decode("utf-8", "replace")
    open_at = text.find("(")
    if open_at < 0 or not text.rstrip().endswith(")"):
        return []
    out, depth, cur = [], 0, []
    for ch in _strip_comments(text[open_at + 1 : text.rstrip().rfind(")")]):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur).strip())
    return out if len(out) == count else []


def _strip_comments(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = len(text) if j < 0 else j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = len(text) if j < 0 else j + 1
        else:
            out.append(text[i])
            i += 1
    s = "".join(out).strip()
    while s.startswith(")"):  # (x) = ...: the closing paren belongs to the left side's extent
        s = s[1:].strip()
    return s
