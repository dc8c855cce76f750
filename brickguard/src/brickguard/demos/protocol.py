"""One program's API protocol, as the demo miner and the BG4xx checks both read it.

``ProgramModel`` turns a program's ``UseFact``/``DefFact``/``InstanceFact`` (``brickguard.uses``)
into *events*: API uses with their first argument bound through the calls that lead to them.
The *trace* is the program's order of events from ``main``: a call to one of the program's own
functions is followed into it (its parameters bound to the caller's arguments), and a call the
SDK answers by calling the program back is followed into that callback at the call
(``HAL_I2C_Init(&h)`` runs ``HAL_I2C_MspInit(&h)``: ``SDK_CALLBACKS``). Interrupt handlers and
the functions nothing calls are walked on their own: their events are *present*, not ordered.

A *step key* names what an example does relative to one API use ``o`` (its handle and the
peripheral instance the handle drives), so that examples on other instances agree:
``__HAL_RCC_I2C1_CLK_ENABLE`` before ``HAL_I2C_Init(&h)`` with ``h.Instance = I2C1`` is
``__HAL_RCC_{i}_CLK_ENABLE``; ``HAL_NVIC_EnableIRQ(I2C1_EV_IRQn)`` is
``HAL_NVIC_EnableIRQ({i}_EV_IRQn)``. ``=`` marks a step on the same handle, ``~`` one on a handle
linked to it (``__HAL_LINKDMA(h, hdmatx, hdma_tx)``: ``{l}`` is the DMA stream's instance). A
step naming an instance other than the use's is board wiring, not protocol: it gets no key.
"""

from __future__ import annotations

import fnmatch
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from brickguard.facts import DefFact, UnitFacts, UseFact, Where

# What the SDK calls back from inside one of its calls (ST HAL's documented convention).
# HAL_Init -> HAL_MspInit, HAL_I2C_Init -> HAL_I2C_MspInit, HAL_TIM_Base_DeInit -> ..._MspDeInit
# HAL_Init also starts the time base through HAL_InitTick, which a program may define.
SDK_CALLBACKS = ((re.compile(r"^(\w+)_DeInit$"), (r"\1_MspDeInit",)),
                 (re.compile(r"^HAL_Init$"), ("HAL_MspInit", "HAL_InitTick")),
                 (re.compile(r"^(\w+)_Init$"), (r"\1_MspInit",)))
_MAX_DEPTH = 8
REGISTER_BLOCK = "_TypeDef"  # a pointer to a CMSIS register block is a peripheral instance
IRQ_SUFFIX = "_IRQn"
MODES = ("_IT", "_DMA")  # the SDK's interrupt and DMA mode calls end so
MSP = "Msp"  # the SDK's callbacks for a peripheral's low-level set-up: HAL_I2C_MspInit
IN_MSP = "@MspInit"  # an API's uses inside an SDK MSP callback: HAL_DMA_Init@MspInit


@dataclass(frozen=True, slots=True)
class Event:
    name: str  # the API
    written: str  # as the source spells it (I2Cx_CLK_ENABLE)
    args: tuple[str, ...]  # bound: a parameter is the caller's argument
    handle: str  # the first argument when it is a variable (bound), else ""
    instance: str  # the peripheral instance the handle drives (or the first argument's own)
    handle_type: str
    where: Where
    function: str  # the body it is written in
    msp: str  # the SDK callback it runs in (HAL_I2C_MspInit), or ""
    pos: int  # position in the trace; -1 when outside it


def template(text: str, instance: str, mark: str, split: bool = True) -> str:
    """``text`` with ``instance`` (a whole name part) as ``{mark}``; a stream's controller
    (``DMA1`` of ``DMA1_Stream6``) as ``{mark0}`` when ``split``."""
    if not instance:
        return text
    out = _part(instance).sub("{" + mark + "}", text)
    if split and "_" in instance:
        out = _part(instance.split("_")[0]).sub("{" + mark + "0}", out)
    return out


def fill(text: str, instance: str, mark: str) -> str:
    """The inverse of ``template``: the key as this program would write it."""
    out = text.replace("{" + mark + "}", instance)
    if "_" in instance:
        out = out.replace("{" + mark + "0}", instance.split("_")[0])
    return out


_PART_CACHE: dict[str, re.Pattern[str]] = {}


def _part(name: str) -> re.Pattern[str]:
    if name not in _PART_CACHE:
        _PART_CACHE[name] = re.compile(rf"(?<![A-Za-z0-9]){re.escape(name)}(?![A-Za-z0-9])")
    return _PART_CACHE[name]


class ProgramModel:
    """Events of one program. ``api(use)`` names the SDK API a use is, or None (a C library
    call, a project helper that is not an alias of the SDK's)."""

    def __init__(self, units: Iterable[UnitFacts], api: Callable[[UseFact], str | None],
                 handler_patterns: list[str]) -> None:
        units = list(units)
        self.defs: dict[str, DefFact] = {}
        self.sdk_callbacks: dict[str, str] = {}  # declared callback -> its handle type
        uses: dict[str, dict[tuple, UseFact]] = defaultdict(dict)
        self.instances: dict[str, str] = {}
        self.variables: set[str] = set()
        self.names: set[str] = set()
        self._provides: dict[str, bool] = {}
        for u in units:
            self.names |= u.names
            for d in u.defs:
                if d.defined:
                    self.defs.setdefault(d.name, d)
                    self.variables.update(d.params)
                else:
                    self.sdk_callbacks.setdefault(d.name, d.first_type)
            for x in u.uses:
                uses[x.function].setdefault((x.where, x.name), x)
                self.variables.update(a for a, v in zip(x.args, x.var_args, strict=False) if v)
            for i in u.instances:
                self.instances.setdefault(i.handle, i.instance)
                self.variables.add(i.handle)
        self.uses = {f: sorted(d.values(), key=lambda x: (x.where.file, x.order))
                     for f, d in uses.items()}
        # h.hdmarx -> hdma_rx: a use (h, field, d) of a handle, a field name and a handle that
        # drives an instance of its own ties the field to d (ST's __HAL_LINKDMA(h, hdmarx, d)).
        self.members: dict[str, str] = {}
        for xs in self.uses.values():
            for x in xs:
                if x.kind == "macro" and len(x.args) == 3 and x.args[2] in self.instances:
                    self.members[f"{x.args[0]}.{x.args[1]}"] = x.args[2]
                    self.variables.add(x.args[0])
        self.api = api
        self.known_instances = set(self.instances.values())
        for xs in self.uses.values():
            for x in xs:
                if x.args and x.handle_type.endswith(REGISTER_BLOCK) and x.args[0]:
                    self.known_instances.add(x.args[0])
        self.handlers = sorted(n for n in self.defs
                               if any(fnmatch.fnmatchcase(n, p) for p in handler_patterns))
        self.has_main = "main" in self.defs
        self.trace: list[Event] = []
        self.present: list[Event] = []
        self.handler_events: dict[str, list[Event]] = {}
        self._build()

    # -- events ---------------------------------------------------------------------------------
    def _build(self) -> None:
        called = {x.name for xs in self.uses.values() for x in xs if x.name in self.defs}
        reached: set[str] = set()
        if self.has_main:
            self._walk("main", {}, "", 0, [], self.trace, reached)
        else:
            for name in sorted(self.defs):
                if name not in called and name not in self.handlers and name not in (
                        self.sdk_callbacks) and not self._is_callback(name):
                    self._walk(name, {}, "", 0, [], self.trace, reached)
        for i, e in enumerate(self.trace):
            self.trace[i] = _at(e, i)
        for h in self.handlers:
            out: list[Event] = []
            self._walk(h, {}, "", 0, [], out, set())
            self.handler_events[h] = out
        rest: list[Event] = []
        for name in sorted(self.defs):
            if name not in reached and name not in self.handlers:
                self._walk(name, {}, "", 0, [], rest, reached)
        self.present = [*self.trace, *rest, *(e for es in self.handler_events.values() for e in es)]

    def _is_callback(self, name: str) -> bool:
        return any(fnmatch.fnmatchcase(name, f"*{s}") for s in ("Callback", "MspInit", "MspDeInit"))

    def _walk(self, fn: str, bind: dict[str, str], msp: str, depth: int, stack: list[str],
              out: list[Event], reached: set[str]) -> None:
        reached.add(fn)
        stack.append(fn)
        for x in self.uses.get(fn, ()):
            args = tuple(_bound(a, bind) for a in x.args)
            if x.kind == "call" and x.name in self.defs and x.name not in stack:
                if depth < _MAX_DEPTH:
                    d = self.defs[x.name]
                    inner = {p: a for p, a in zip(d.params, args, strict=False) if a}
                    self._walk(x.name, inner, msp, depth + 1, stack, out, reached)
                continue
            name = self.api(x)
            if name is None:
                continue
            e = self._event(x, name, args, msp)
            callbacks = [cb for cb in _callbacks_of(name)
                         if cb in self.defs and cb not in stack and depth < _MAX_DEPTH]
            # The SDK runs a callback inside the call: an MSP init's steps come before the call
            # is done (the clock before HAL_I2C_Init), the rest after it has begun (the time
            # base HAL_Init starts comes after HAL_Init).
            if not any(MSP in cb for cb in callbacks):
                out.append(e)
            for cb in callbacks:
                d = self.defs[cb]
                inner = {d.params[0]: e.handle} if d.params and e.handle else {}
                self._walk(cb, inner, cb if MSP in cb else msp, depth + 1, stack, out, reached)
            if any(MSP in cb for cb in callbacks):
                out.append(e)
        stack.pop()

    def _event(self, x: UseFact, name: str, args: tuple[str, ...], msp: str) -> Event:
        args = tuple(self.members.get(a, a) for a in args)
        if x.kind == "macro" and len(args) == 3 and args[2] in self.instances and args[0]:
            self.members[f"{args[0]}.{args[1]}"] = args[2]  # bound: I2cHandle.hdmarx
        first = args[0] if args else ""
        handle = first if first in self.variables else ""
        if handle:
            instance = self.instances.get(handle, "")
        elif first.endswith(IRQ_SUFFIX):
            instance = first[: -len(IRQ_SUFFIX)]  # an IRQ is its own instance: I2C1_EV
        else:
            instance = first if x.handle_type.endswith(REGISTER_BLOCK) else ""
        return Event(name, x.name, args, handle, instance, x.handle_type, x.where, x.function,
                     msp, -1)

    def links(self, handle: str) -> set[str]:
        """Handles tied to ``handle`` by a use naming both (``__HAL_LINKDMA(h, hdmatx, hdma)``):
        those of them that drive an instance of their own."""
        out: set[str] = set()
        if not handle:
            return out
        for e in self.present:
            if handle in e.args:
                out.update(a for a in e.args if a != handle and a in self.instances)
        return out

    # -- step keys ------------------------------------------------------------------------------
    def key(self, e: Event, o: Event, links: set[str]) -> str | None:
        """The step key of event ``e`` relative to the API use ``o`` (None: not comparable)."""
        if e.handle and e.handle == o.handle:
            prefix, linked = "=", []
        elif o.handle and o.handle in e.args[1:]:
            return "@" + e.name  # the use's handle handed to a call on another (a DMA link)
        elif e.handle and e.handle in links:
            prefix, linked = "~", [self.instances.get(e.handle, "")]
        elif e.handle:
            return None  # a step on another handle
        else:
            prefix, linked = "", [self.instances.get(h, "") for h in sorted(links)]
        arg = e.args[0] if e.args and not e.handle and e.args[0] else ""
        text = e.name + (f"({arg})" if arg and _ident(arg) else "")
        # An IRQ's own name (I2C1_EV) is not a stream of a controller: no {i0} for it.
        text = template(text, o.instance, "i", split=not _irq_instance(o))
        for link in linked:
            text = template(text, link, "l")
        text = template(text, peripheral(o.name), "p")
        if self._names_instance(text):
            return None
        return prefix + text

    def _names_instance(self, text: str) -> bool:
        return any(_part(i).search(text) for i in self.known_instances if i in text)

    def keys(self, events: Iterable[Event], o: Event, links: set[str]) -> dict[str, Event]:
        out: dict[str, Event] = {}
        for e in events:
            if e is o:
                continue
            k = self.key(e, o, links)
            if k is not None and k not in out:
                out[k] = e
        return out

    def handler_keys(self, o: Event, links: set[str]) -> dict[str, Event]:
        """``handler:{i}_EV_IRQHandler->HAL_I2C_EV_IRQHandler``: an interrupt handler that hands
        the use's handle (``~`` a linked one) to the SDK's dispatcher."""
        out: dict[str, Event] = {}
        for h, events in self.handler_events.items():
            for d in events:
                if d.handle and d.handle == o.handle:
                    k = "handler:" + template(h, o.instance, "i") + "->"
                    k += template(d.name, peripheral(o.name), "p")
                elif d.handle and d.handle in links:
                    k = "handler~:" + template(h, self.instances.get(d.handle, ""), "l")
                    k += "->" + d.name
                else:
                    continue
                if not self._names_instance(k):
                    out.setdefault(k, d)
        return out

    def provides(self, shown: str) -> bool:
        """Whether the SDK this program sees has what a filled-in step names (a rule learnt on
        I2C1_EV_IRQn asks nothing of a UART, whose USART2_EV_IRQn does not exist)."""
        if shown not in self._provides:
            self._provides[shown] = self._provided(shown)
        return self._provides[shown]

    def _provided(self, shown: str) -> bool:
        if shown.startswith("handler"):
            handler, _, dispatcher = shown.split(":", 1)[1].partition("->")
            irq = handler[: -len("IRQHandler")] + "IRQn" if handler.endswith("IRQHandler") else ""
            return dispatcher in self.names and (not irq or irq in self.names)
        return all(w in self.names for w in re.findall(r"[A-Za-z_]\w*", shown.lstrip("=~@")))

    def shown(self, step: str, o: Event, links: set[str]) -> str:
        """The step key as this program would write it for the use ``o``."""
        text = fill(step, o.instance, "i")
        for h in sorted(links):
            if self.instances.get(h):
                text = fill(text, self.instances[h], "l")
                break
        return fill(text, peripheral(o.name), "p")

    def uses_of(self, api: str) -> list[Event]:
        """The trace's uses of ``api``, or of an API family (``HAL_I2C_*_IT``)."""
        return [e for e in self.trace if applies(api, e)]


def applies(api: str, e: Event) -> bool:
    """Whether a rule for ``api`` (an API, ``X@MspInit``, or a family ``HAL_I2C_*_{IT,DMA}``)
    covers the use ``e``."""
    if api.endswith(IN_MSP):
        return bool(e.msp) and e.name == api[: -len(IN_MSP)]
    if "{" in api:
        head, _, alts = api.partition("{")
        return any(fnmatch.fnmatchcase(e.name, head + a) for a in alts.rstrip("}").split(","))
    if "*" in api:
        return fnmatch.fnmatchcase(e.name, api)
    return e.name == api


def peripheral(api: str) -> str:
    """The peripheral an SDK API is for: ``HAL_I2C_Init`` -> ``I2C`` (its second name part,
    when it has three or more); "" for ``HAL_Init``."""
    parts = api.strip("_").split("_")
    return parts[1] if len(parts) >= 3 else ""


def is_mode(api: str) -> bool:
    """An interrupt or DMA mode call (``HAL_UART_Receive_IT``), or a family of them."""
    return api.endswith(MODES)


def families(api: str) -> list[str]:
    """The API families whose rules hold for ``api``: its peripheral's calls of the same mode
    (``HAL_I2C_Master_Transmit_IT`` -> ``HAL_I2C_*_IT``), and every peripheral's
    (``HAL_*_IT``): an interrupt or DMA mode brings the same companions, whichever call
    starts it; and every peripheral's initialisation (``HAL_*_Init``: its MSP steps)."""
    m = re.match(r"^([A-Za-z]+)_([A-Za-z0-9]+)_\w+_(IT|DMA)$", api)
    if m:
        # A peripheral's DMA mode needs its interrupt mode's companions too (I2C: EV and ER).
        return [f"{m[1]}_{m[2]}_*_{m[3]}", f"{m[1]}_*_{m[3]}", f"{m[1]}_{m[2]}_*_{{IT,DMA}}"]
    m = re.match(r"^([A-Za-z]+)_([A-Za-z0-9]+)_(?:\w+_)?(Init)$", api)
    return [f"{m[1]}_*_{m[3]}"] if m else []


def _irq_instance(o: Event) -> bool:
    return not o.handle and bool(o.args) and o.args[0].endswith(IRQ_SUFFIX)


def _bound(arg: str, bind: dict[str, str]) -> str:
    if arg in bind:
        return bind[arg]
    head, dot, rest = arg.partition(".")
    return f"{bind[head]}.{rest}" if dot and head in bind else arg


def _at(e: Event, pos: int) -> Event:
    return Event(e.name, e.written, e.args, e.handle, e.instance, e.handle_type, e.where,
                 e.function, e.msp, pos)


def _callbacks_of(name: str) -> list[str]:
    for pat, repls in SDK_CALLBACKS:
        if pat.match(name):
            return [pat.sub(r, name) for r in repls]
    return []


def _ident(text: str) -> bool:
    return bool(re.fullmatch(r"[A-Za-z_]\w*", text))
