"""Plain, picklable facts the front end extracts from one translation unit.

Workers parse in their own processes and send these back; the parent merges them into the
whole-program model (``program.Program``). Nothing here refers to libclang.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


@dataclass(frozen=True, slots=True)
class Where:
    file: str
    line: int
    column: int


@dataclass(frozen=True, slots=True)
class ObjectFact:
    """A global or static object (file scope or function-static), identified by its USR."""

    usr: str
    name: str
    where: Where  # the definition when this unit has it, else a declaration
    is_definition: bool
    size: int  # bytes; -1 when unknown (incomplete type)
    is_volatile: bool  # the object (its elements, for an array) is volatile-qualified
    is_const: bool
    is_scalar: bool  # not an array, struct or union
    is_atomic: bool  # _Atomic: its single accesses need no critical section
    type: str
    align: int = 0  # alignment asked by aligned(N) / _Alignas(N); 0 none, -1 unreadable
    in_function: str = ""  # USR of the function a block-scope static belongs to; "" file scope


def irq_key(name: str) -> str:
    """``USART1_IRQHandler``, ``USART1_IRQn`` -> ``USART1``; ``SysTick_Handler`` -> ``SysTick``."""
    for suffix in ("_IRQHandler", "_IRQn", "_Handler"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


PARAM = "param:"  # AccessFact.obj of an access through a function's parameter N: "param:N"


def join_paths(base: tuple[str, ...], more: tuple[str, ...]) -> tuple[str, ...]:
    """The path ``more`` takes from where a pointer to ``base`` points: ``p = &buf[2]; p[1]``
    is some element of buf (an index on an element pointer moves along the array)."""
    if base and more and base[-1][0] == "[" and more[0][0] == "[":
        return (*base[:-1], "[*]", *more[1:])
    return (*base, *more)


def paths_overlap(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether two access paths of one object may name the same memory: one is a prefix of the
    other, step by step, where "[*]" matches any index and "?" (a union member) anything."""
    for x, y in zip(a, b, strict=False):  # the shorter one is a prefix: they overlap
        if x == y or x == "?" or y == "?":
            continue
        if x[0] == "[" and y[0] == "[" and (x == "[*]" or y == "[*]"):
            continue
        return False
    return True


class AccessKind(StrEnum):
    """What one access does to the object it names."""

    read = "read"
    write = "write"
    rmw = "rmw"  # read-modify-write: x++, x |= m, x = x + 1 (a load and a store)

    @property
    def writes(self) -> bool:
        return self is not AccessKind.read

    @property
    def reads(self) -> bool:
        return self is not AccessKind.write


@dataclass(frozen=True, slots=True)
class AccessFact:
    """One access to a shared object in a function body, as the body walk found it."""

    obj: str  # ObjectFact.usr
    function: str  # FunctionFact.usr of the function whose body makes the access
    where: Where
    kind: AccessKind
    size: int  # bytes of the accessed part (an element, a member, the whole object)
    is_volatile: bool  # the accessed lvalue is volatile
    protected: bool  # inside a critical section on every path that reaches it
    text: str  # the accessed expression as written, e.g. "rx_buf[rx_head]"
    whole: bool  # the access is the object as a whole (not an element or member)
    # Which part of the object: ".field" and "[N]" steps from the object ("[*]" an index not
    # known at compile time, which may be any; a union member is "?", which may be any member).
    # () is the whole object. Two accesses touch the same memory only if their paths overlap.
    path: tuple[str, ...] = ()
    scalar: bool = True  # the accessed part is one scalar (not a struct, union or array)
    seq: int = 0  # order of the access in its function's body walk (program order, roughly)
    branch: tuple[tuple[int, int], ...] = ()  # the if/switch arms it sits in: (offset, arm)
    in_loop_cond: bool = False  # a poll: read by a loop's condition, or a condition in a loop
    masked: tuple[str, ...] = ()  # interrupts masked one by one here (HAL_NVIC_DisableIRQ)
    # > 0: protected only by BASEPRI masking (taskENTER_CRITICAL, __set_BASEPRI) of the
    # priorities >= level; a handler more urgent than that (a lower number) still fires here.
    level: int = 0
    # The arms of `branch` every path of which returns: nothing after the arm follows it.
    exits: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True, slots=True)
class ArgFact:
    """One argument of a watched call (DMA starts, cache maintenance, timeouts)."""

    text: str  # as written, e.g. "K_NO_WAIT", "&tx_buf[0]"
    var: str = ""  # the variable it names (the buffer behind `buf`, `&buf[0]`, `s.buf`), or ""
    var_usr: str = ""
    scope: str = ""  # "global" | "static" (block-scope static) | "local" | "param" | ""
    is_array: bool = False  # the variable is an array (its storage is the buffer itself)
    decl: Where | None = None  # the variable's declaration


@dataclass(frozen=True, slots=True)
class CallFact:
    caller: str
    callee: str  # USR of the called function ("macro:NAME" for a watched macro's use)
    callee_name: str
    where: Where
    protected: bool
    # Filled only for the calls the platform profiles watch (Platform.arg_calls).
    args: tuple[ArgFact, ...] = ()
    seq: int = 0  # order in the caller's body walk, on the same scale as AccessFact.seq
    earliest: int = 0  # in a loop: the number taken at the outermost loop's entry; else seq
    # Per argument, the global (USR) and path it is the address of (&rx, &dev[1], buf), or None;
    # () when no argument is one. A parameter every call site points at one global is that global.
    targets: tuple[tuple[str, tuple[str, ...]] | None, ...] = ()
    irq: str = ""  # for a mask/unmask call (HAL_NVIC_EnableIRQ(USART1_IRQn)): "USART1"


@dataclass(frozen=True, slots=True)
class FunctionFact:
    usr: str
    name: str
    where: Where
    interrupt_attr: bool  # __attribute__((interrupt)) / ((isr)) / ((signal))


@dataclass(frozen=True, slots=True)
class EntryFact:
    """A function handed to the interrupt system or the scheduler (not found by its name)."""

    function: str  # USR
    name: str
    kind: str  # "interrupt" | "task"
    how: str  # e.g. "in vector table g_pfnVectors", "registered with request_irq"
    where: Where
    priority: int | None = None  # a task's priority given at creation, when constant


@dataclass(frozen=True, slots=True)
class LockFact:
    """A semaphore handle (a global) created, taken or given (BG113)."""

    handle: str  # ObjectFact.usr of the handle variable
    kind: str  # "binary" | "mutex" (created as), "take" | "give"
    function: str  # the function making the call
    call: str  # the name the code calls, e.g. "xSemaphoreCreateBinary"
    where: Where
    seq: int = 0


@dataclass(frozen=True, slots=True)
class PriorityFact:
    """A call that sets an interrupt's priority with constant arguments (HAL_NVIC_SetPriority)."""

    irq: str  # the IRQn enumerator, e.g. "USART1_IRQn"
    priority: int  # the preemption priority: lower is more urgent (Cortex-M)
    where: Where


@dataclass(frozen=True, slots=True)
class SectionIssue:
    """A critical section that is not balanced on some path (BG105)."""

    kind: str  # "unclosed" | "unmatched_exit"
    function: str
    function_name: str
    call: str  # the enter or exit routine
    where: Where  # the call that opens (unclosed) or closes (unmatched) the section
    leak: Where | None  # for "unclosed": the return (or function end) reached still inside


@dataclass(frozen=True, slots=True)
class DiagnosticFact:
    where: Where
    severity: str  # "error" | "fatal" | "warning" (only the type warnings BG205 reads)
    message: str
    hint: str = ""  # what to do when the user's set-up causes it (a missing include path...)


@dataclass
class UnitFacts:
    file: str
    functions: list[FunctionFact] = field(default_factory=list)
    objects: list[ObjectFact] = field(default_factory=list)
    accesses: list[AccessFact] = field(default_factory=list)
    calls: list[CallFact] = field(default_factory=list)
    entries: list[EntryFact] = field(default_factory=list)
    section_issues: list[SectionIssue] = field(default_factory=list)
    diagnostics: list[DiagnosticFact] = field(default_factory=list)
    priorities: list[PriorityFact] = field(default_factory=list)
    locks: list[LockFact] = field(default_factory=list)
    lines: int = 0
