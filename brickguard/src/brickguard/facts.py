"""Plain, picklable facts the front end extracts from one translation unit.

Workers parse in their own processes and send these back; the parent merges them into the
whole-program model (``program.Program``). Nothing here refers to libclang.
"""

from __future__ import annotations

import math
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
    initialized: bool = False  # its definition has an initializer (else it starts all zero)
    fn_pointer: bool = False  # a pointer to a function (a hook, a callback slot)


def irq_key(name: str) -> str:
    """``USART1_IRQHandler``, ``USART1_IRQn`` -> ``USART1``; ``SysTick_Handler`` -> ``SysTick``."""
    for suffix in ("_IRQHandler", "_IRQn", "_Handler"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


TICK = "SysTick"  # the core's tick line: a kernel's timer callbacks run in its handler
PARAM = "param:"  # AccessFact.obj of an access through a function's parameter N: "param:N"


def join_paths(base: tuple[str, ...], more: tuple[str, ...]) -> tuple[str, ...]:
    """The path ``more`` takes from where a pointer to ``base`` points: ``p = &buf[2]; p[1]``
    is some element of buf (an index on an element pointer moves along the array)."""
    if base and more and base[-1][0] == "[" and more[0][0] == "[":
        return (*base[:-1], "[*]", *more[1:])
    return (*base, *more)


def paths_overlap(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether two access paths of one object may name the same memory: one is a prefix of the
    other, step by step, where "[*]" matches any index, "?" (a union member) anything, and an
    index ``k*i+c`` not known at compile time (``[2n+1]``: stride k, offset c) every index
    congruent to c modulo k: ``count[2*id]`` and ``count[2*id+1]`` never name one element."""
    for x, y in zip(a, b, strict=False):  # the shorter one is a prefix: they overlap
        if x == y or x == "?" or y == "?":
            continue
        if x[0] == "[" and y[0] == "[" and (x == "[*]" or y == "[*]" or _same_class(x, y)):
            continue
        return False
    return True


def stride_index(k: int, c: int) -> str:
    """The path step of an index ``k*i + c`` (i not known at compile time)."""
    return f"[{k}n+{c % k}]" if k > 1 else "[*]"


def _residue(step: str) -> tuple[int, int] | None:
    """``[2n+1]`` -> (2, 1); ``[5]`` -> (0, 5); ``[*]`` -> None."""
    body = step[1:-1]
    if "n+" in body:
        k, c = body.split("n+")
        return int(k), int(c)
    return (0, int(body)) if body.lstrip("-").isdigit() else None


def _same_class(x: str, y: str) -> bool:
    """Whether two indices may be equal: strides meet where their offsets agree modulo the
    greatest common divisor of the strides (a constant has stride 0)."""
    rx, ry = _residue(x), _residue(y)
    if rx is None or ry is None:
        return True
    g = math.gcd(rx[0], ry[0])
    return (rx[1] - ry[1]) % g == 0 if g else rx[1] == ry[1]


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
    # A read (or read-modify-write, ``++x``) in an if statement's condition: that statement's
    # offset (0: none), whose arms
    # are `branch` entries (offset, 0 or 1) of the accesses inside it.
    tests: int = 0
    op: str = ""  # a read-modify-write's operator: "+" (x++, x += n, x = x + n), "&", "|", ...
    stored: int | None = None  # a plain write of a constant (``flag = 1``, ``= SET``): its value
    # A bit-field member that shares its memory location (the path's last step, ".{a,b}") with
    # adjacent bit-fields: its name. A store to it rewrites the whole location (BG102).
    bits: str = ""
    # For a read in an if's condition (``tests``) when the condition tests this one object:
    # the value the then-arm runs with, ("==", 0) for ``if (!x)`` / ``if (x == 0)``, ("!=", 0)
    # for ``if (x)``,
    # ("==", K) for ``if (x == K)``; for ``switch (x)``, ("case", ((case offset, K), ...)) (the
    # branch arm of a case is its offset); () for any other condition.
    sense: tuple = ()
    # A poll (``in_loop_cond``) in a loop that makes no call: nothing there makes the compiler
    # load the object again, so a plain one may be read once before the loop (BG104).
    hoistable: bool = False
    # A read in a do-while's condition (``do { hi = H; lo = L; } while (hi != H);``): the
    # number of its loop (the facts inside it come after); 0 for any other read.
    retry: int = 0
    # The innermost loop the access is in (its number on the ``seq`` scale) when that loop is
    # bounded by locals only (``for (i = 0; i < N; i++)``), 0 otherwise: an element access with
    # an unknown index there walks the array (a copy, a fill), not a ring drained to an index.
    loop: int = 0
    # Protected, but on some path only by sections that raise BASEPRI (irq_lock, __set_BASEPRI):
    # a zero-latency interrupt (``Context.unmasked``) still fires here.
    by_level: bool = False
    # Inside a loop of its function (any loop): made again on every turn (``order``).
    looped: bool = False
    # For a read in an if's condition that compares it with a local (``if (x == last)``): the
    # local's declaration hash (0: none); for a plain read stored into a local (``last = x``):
    # that local's (0: none). A change test and the record of the new value (races' R-W-R).
    versus: int = 0
    into: int = 0
    # For such a read in an elapsed test (``if (now - last >= K)``, ``if (ms - last < K)
    # continue;``): the arm (0 then, 1 else) where the difference has reached the bound; -1
    # for an equality test or none.
    elapsed: int = -1
    # A plain read stored into a local that a loop's condition compares with another local
    # holding another read of the same object (``a = x; b = x; while (a != b) { a = b; b = x;
    # }``, a sequence lock's ``while (s0 != s1)``): the loop ends only on two reads that agree.
    agreed: bool = False
    # A read under a constant mask (``x & K``, ``K & x``): K, the bits it looks at; 0: all.
    bits_read: int = 0


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
    # For an exclusive store (__STREXW): its result (0 stored, 1 failed) is thrown away (BG106).
    discarded: bool = False
    # The if arms it sits in (as AccessFact.branch); for __HAL_X_ENABLE_IT / _DISABLE_IT,
    # the interrupt sources its arguments name ("I2C_IT_EVT", "I2C_IT_ERR").
    branch: tuple[tuple[int, int], ...] = ()
    sources: tuple[str, ...] = ()
    level: int = 0  # protected only by BASEPRI masking from this priority (AccessFact.level)
    # For a call that switches a peripheral's own interrupt sources on or off by name
    # (``bodies.SOURCE_SWITCH``: emlib's USART_IntEnable(USART0, ...)): its first argument as
    # written (the peripheral instance, "USART0"); "" for any other call.
    instance: str = ""
    # For such a call: it switches the sources off (``USART_IntDisable``, or a set call whose
    # last argument is 0: Mbed's ``serial_irq_set(&s, TxIrq, 0)``); False: on.
    off: bool = False


@dataclass(frozen=True, slots=True)
class FunctionFact:
    usr: str
    name: str
    where: Where
    interrupt_attr: bool  # __attribute__((interrupt)) / ((isr)) / ((signal))
    # Its body's own statements hold a loop no condition ends (``for (;;)``, ``while (1)``):
    # a thread's body, which runs until it is deleted; a handler or callback returns.
    forever: bool = False


@dataclass(frozen=True, slots=True)
class EntryFact:
    """A function handed to the interrupt system or the scheduler (not found by its name)."""

    function: str  # USR
    name: str
    kind: str  # "interrupt" | "task"
    how: str  # e.g. "in vector table g_pfnVectors", "registered with request_irq"
    where: Where
    priority: int | None = None  # a task's priority given at creation, when constant
    irq: str = ""  # an interrupt's line when its registration names it (irq_connect_dynamic)
    unmasked: bool = False  # connected as zero-latency: level-raising sections do not mask it


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


@dataclass(frozen=True, slots=True)
class UseFact:
    """One use of an API in a function body, for the vendor-demo protocol rules (BG4xx):
    a call, or a function-like macro (``__HAL_RCC_I2C1_CLK_ENABLE()``, ``__HAL_LINKDMA(...)``).
    Collected only when the demo rules need them (``Config.demos``) or demos are indexed."""

    function: str  # the name of the function whose body it is in
    name: str  # the callee or macro as written
    # For a macro, the names it is an alias of, outermost first, each with the file defining it
    # (``I2Cx_CLK_ENABLE`` -> ``__HAL_RCC_I2C1_CLK_ENABLE``); () for a call.
    chain: tuple[tuple[str, str], ...]
    where: Where
    order: int  # the offset in the file: program order within one body
    kind: str  # "call" | "macro"
    # Per argument: the variable it names ("I2cHandle" for &I2cHandle, a parameter's name) or
    # the constant it is (an enumerator "I2C1_EV_IRQn", an instance "GPIOB" through its aliases).
    args: tuple[str, ...] = ()
    handle_type: str = ""  # the type the first argument points to ("I2C_HandleTypeDef")
    var_args: tuple[bool, ...] = ()  # per argument of a call: it names a variable
    declared_in: str = ""  # a call: the file declaring the callee


@dataclass(frozen=True, slots=True)
class DefFact:
    """A function this unit defines, with what the demo rules need of it."""

    name: str
    where: Where
    params: tuple[str, ...]  # parameter names
    first_type: str  # the type the first parameter points to, "" when none
    declared_in: str  # the header of its first declaration; "" when the definition is the first
    defined: bool = True  # False: a callback a header declares (what the SDK calls back)


@dataclass(frozen=True, slots=True)
class InstanceFact:
    """``hi2c.Instance = I2C1``: the peripheral instance a handle drives."""

    handle: str
    instance: str  # through the project's aliases: I2Cx -> I2C1
    where: Where


@dataclass(frozen=True, slots=True)
class Value:
    """A value the code gives the hardware, as the preprocessor and compiler would see it."""

    value: int | None  # the constant's value (32-bit), None when it is not a constant
    names: tuple[str, ...] = ()  # the macros it went through: ("I2Cx_SCL_AF", "GPIO_AF4_I2C1")
    text: str = ""  # as written


@dataclass(frozen=True, slots=True)
class HwCall:
    """A call the hardware rules watch (HAL_GPIO_Init, HAL_RCC_OscConfig, xTaskCreate...)."""

    function: str  # the caller's USR
    callee: str  # its name
    where: Where
    offset: int  # in the caller's file: orders the facts of one body
    args: tuple[Value, ...]
    # (argument index, field path such as "PLL.PLLN", value) of a struct passed by address
    fields: tuple[tuple[int, str, Value], ...] = ()

    def field(self, path: str, arg: int | None = None) -> Value | None:
        return next((v for n, p, v in self.fields if p == path and arg in (None, n)), None)


@dataclass(frozen=True, slots=True)
class RegisterAccess:
    """``GPIOB->AFR[1] |= ...``: an access to a register block the code names by its macro."""

    function: str
    block: str  # "GPIOB", "RCC", "I2C1"
    register: str  # "AFR[1]", "AHB1ENR"
    kind: str  # "read" | "write" (=) | "set" (|=) | "clear" (&=) | "rmw" (another op=)
    value: Value | None  # what is written (for a write or read-modify-write)
    where: Where
    offset: int


@dataclass(frozen=True, slots=True)
class MacroUse:
    """A watched macro used in the main file (a clock enable, an instance name, an AF)."""

    function: str  # the USR of the function whose body uses it; "" at file scope
    name: str  # as written: "I2Cx_SCL_GPIO_CLK_ENABLE"
    hits: tuple[str, ...]  # the watched names it is or expands to: "__HAL_RCC_GPIOB_CLK_ENABLE"
    args: tuple[Value, ...]
    where: Where
    offset: int


@dataclass(frozen=True, slots=True)
class IndirectCall:
    """A call through a pointer: ``hdma->XferCpltCallback(hdma)``, ``(*fn)()``."""

    function: str
    where: Where
    text: str  # the callee expression as written
    field: str  # the struct field called through ("XferCpltCallback"), or "" for a variable


@dataclass(frozen=True, slots=True)
class StoredFunction:
    """What is stored into a struct field that is called through (``h->XferCpltCallback = f``):
    a function, a parameter of the storing function (``= pCallback``: whatever its callers
    pass), or something else (``other``: not known here)."""

    field: str
    function: str  # USR of the function stored; for a parameter, the storing function's USR
    name: str
    param: int = -1  # >= 0: the storing function's parameter N is stored
    other: bool = False  # neither a function nor a parameter (a variable, a table entry...)


@dataclass(frozen=True, slots=True)
class PassedFunction:
    """A function handed as an argument: ``HAL_DMA_RegisterCallback(&h, ID, on_done)``."""

    callee: str  # USR of the called function
    arg: int
    function: str  # USR of the function passed
    # What the call says of that argument: the callee's name, the parameter's name and declared
    # type ("nrfx_uarte_init p_event_handler nrfx_uarte_event_handler_t"), for ``callbacks``.
    hint: str = ""
    instance: str = ""  # the first argument when it names a macro (LPUART1, USART1_BASE), or ""
    where: Where | None = None
    # Passed where a registration or task creation the configuration lists takes its function
    # (that made it an entry already); False for any other argument, even of such a call.
    registered: bool = False
    # Passed inside a struct: the variable given as the argument, whose field (the hint's
    # second word) holds the function (FSP's ``R_SCI_UART_Open(&ctrl, &cfg)``); "" if direct.
    holder: str = ""
    # The line the call names beside the function: the one IRQn enumerator among its other
    # arguments or in the holder's fields (HC32's ``{INT_SRC_USART1_RI, INT002_IRQn, cb}``);
    # PARAM + N when that is the calling function's parameter N; "" when none or several.
    line: str = ""
    # >= 0: what the holder's field holds is the calling function's parameter N (a wrapper's
    # ``cfg.pfnCallback = cb; INTC_IrqSignIn(&cfg)``): the program model hands each function
    # its callers pass there on to this call (``Program._handed_on``); ``function`` is then
    # the calling function's USR, not a function passed.
    param: int = -1
    # Per argument: the IRQn enumerator it is, PARAM + N for the caller's parameter N, or "".
    arg_lines: tuple[str, ...] = ()
    # Handed on through the program's own function ``callee`` to the call the hint names (a
    # body-less one): its USR.
    through: str = ""


@dataclass(kw_only=True)
class HardwareFacts:
    """The hardware rules' facts (hwfacts.py, and the pointer calls bodies.py sees): BG3xx and
    the stack depth. A unit has its own; the program model merges them (``add_hardware``)."""

    hw_calls: list[HwCall] = field(default_factory=list)
    registers: list[RegisterAccess] = field(default_factory=list)
    macro_uses: list[MacroUse] = field(default_factory=list)
    indirect_calls: list[IndirectCall] = field(default_factory=list)
    stored_functions: list[StoredFunction] = field(default_factory=list)
    passed_functions: list[PassedFunction] = field(default_factory=list)
    constants: dict[str, Value] = field(default_factory=dict)  # HSE_VALUE... as the code sees it

    def add_hardware(self, other: HardwareFacts) -> None:
        """Another unit's facts; a header's pointer call, seen from every unit, is kept once."""
        self.hw_calls.extend(other.hw_calls)
        self.registers.extend(other.registers)
        self.macro_uses.extend(other.macro_uses)
        self.stored_functions.extend(other.stored_functions)
        self.passed_functions.extend(other.passed_functions)
        for name, value in other.constants.items():
            self.constants.setdefault(name, value)
        seen = {(ic.function, ic.where) for ic in self.indirect_calls}
        self.indirect_calls.extend(ic for ic in other.indirect_calls
                                   if (ic.function, ic.where) not in seen)


@dataclass
class UnitFacts(HardwareFacts):
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
    # The least urgent priority level the unit's NVIC has ((1 << __NVIC_PRIO_BITS) - 1): where
    # SysTick runs unless the code sets its priority (``Program.priority``).
    lowest_priority: int = 15
    headers: list[str] = field(default_factory=list)  # headers it included under the root
    # Functions whose bodies hold a parse error: the rules saw them as far as clang recovered.
    incomplete: list[tuple[str, int]] = field(default_factory=list)  # (name, line)
    # Set when the compile database has no entry for the file and [build] flags were used.
    fallback_flags: bool = False
    uses: list[UseFact] = field(default_factory=list)  # BG4xx (when Config.demos is set)
    defs: list[DefFact] = field(default_factory=list)
    instances: list[InstanceFact] = field(default_factory=list)
    # Every macro, function and enumerator the unit's headers declare: what the SDK provides
    # (a step for an instance is only asked for when the SDK has it: no RTC_IRQn, no rule).
    names: frozenset[str] = frozenset()


def c_int(literal: str) -> int:
    """The value of a C integer literal: hex, binary, octal (a leading 0) or decimal, with its
    ``u``/``l`` suffixes; ValueError when it is none of these."""
    text = literal.rstrip("uUlL")
    if len(text) > 1 and text[0] == "0" and text[1].isdigit():
        return int(text, 8)
    return int(text, 0)
