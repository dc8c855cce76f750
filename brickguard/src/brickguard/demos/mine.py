"""Mining: what every example that uses an API does before it, or with it.

Per example project and API, the step keys (``demos.protocol``) that hold at *every* use of the
API in that example; a rule is a step that holds in every example using the API, when at least
``min_support`` examples use it (fewer agreeing examples prove little). Which BG4xx rule reports
the step missing follows from what it is:

- BG402 (companion): the interrupt side of a mode, an IRQ enabled or prioritised
  (``HAL_NVIC_EnableIRQ({i}_EV_IRQn)``), or a handler handing the handle to the SDK's
  dispatcher; and a paired call by name (Start/Stop, Enable/Disable, Lock/Unlock);
- BG404 (MSP step): every example does it inside the SDK's MSP callback (clock, pins, DMA link);
- BG401 (precondition): any other step every example does before the API.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

from brickguard.demos.model import BEFORE, PRESENT, ProtocolRule, Site
from brickguard.demos.protocol import IN_MSP, IRQ_SUFFIX, Event, ProgramModel, families, is_mode

PAIRS = (("Start", "Stop"), ("Enable", "Disable"), ("Lock", "Unlock"))


def site(project: str, e: Event) -> Site:
    return Site(project, e.where.file, e.where.line, e.written)


Obs = tuple[dict[str, Event], dict[str, Event], Event, set[str]]


def observe(m: ProgramModel, api: str) -> list[Obs]:
    """Per use of ``api`` (an API or a family) in ``m``'s trace: the step keys before it, the
    step keys anywhere in the program, the use, and the handles linked to its handle."""
    out: list[Obs] = []
    for o in m.uses_of(api):
        links = m.links(o.handle)
        b = m.keys(m.trace[: o.pos], o, links)
        p = m.keys(m.present, o, links)
        p.update(m.handler_keys(o, links))
        out.append((b, p, o, links))
    return out


def classify(step: str, api: str, order: str, events: list[Event]) -> str | None:
    """The rule that reports ``step`` missing for ``api``; None: not a protocol rule."""
    irq = step.startswith("handler") or IRQ_SUFFIX in step
    if irq:
        # The interrupt side belongs to the calls that start a mode, not to an init that the
        # examples of the mode happen to share with the polling ones.
        return "BG402" if is_mode(api) else None
    if step.startswith("@"):
        # The handle handed to another call (a DMA link): asked of the MSP init's handles
        # only (a memory-to-memory DMA handle is linked to no peripheral).
        return "BG404" if api.endswith(IN_MSP) else None
    if order == PRESENT:
        # Only a pair by name: what the examples merely also have (a de-initialisation that
        # is never called) is not a protocol rule.
        return "BG402" if is_pair(step.lstrip("=~"), api) else None
    if all(e.msp for e in events):
        return "BG404"
    return "BG401"


def is_global(step: str) -> bool:
    """A step on no handle and no instance (``HAL_Init``): kept only when every example makes
    it its first SDK call (the SDK's own initialisation), not for the clock set-up calls that
    happen to come before everything in a board's examples."""
    return not step.startswith(("=", "~", "@", "handler")) and "{" not in step


def is_pair(step: str, api: str) -> bool:
    for a, b in PAIRS:
        for x, y in ((a, b), (b, a)):
            if x in api and api.replace(x, y) == step:
                return True
    return False


def mine(models: Mapping[str, ProgramModel], min_support: int) -> list[ProtocolRule]:
    seen: dict[str, dict[str, list[Obs]]] = defaultdict(dict)
    for project, m in models.items():
        names = {e.name for e in m.trace}
        apis = names | {f for n in names for f in families(n)}
        apis |= {e.name + IN_MSP for e in m.trace if e.msp}
        for api in sorted(apis):
            got = observe(m, api)
            if got:
                seen[api][project] = got
    rules: list[ProtocolRule] = []
    for api in sorted(seen):
        obs = seen[api]
        if len(obs) < min_support:
            continue
        steps = sorted({k for uses in obs.values() for ob in uses for k in (*ob[0], *ob[1])})
        for step in steps:
            rule = _rule(api, step, obs, models, min_support)
            if rule is not None:
                rules.append(rule)
    return rules


def _rule(api: str, step: str, obs: dict[str, list[Obs]], models: Mapping[str, ProgramModel],
          min_support: int) -> ProtocolRule | None:
    """The rule that ``step`` goes with ``api``, if every example it can apply to agrees at
    every use it applies to (its SDK has what the step names for that use)."""
    before: list[tuple[str, Event]] = []
    present: list[tuple[str, Event]] = []
    all_before = all_present = True
    for p in sorted(obs):
        m = models[p]
        uses = [ob for ob in obs[p] if m.provides(m.shown(step, ob[2], ob[3]))]
        if not uses:
            continue
        if all(step in ob[0] for ob in uses):
            before.append((p, uses[0][0][step]))
        else:
            all_before = False
        if all(step in ob[1] for ob in uses):
            present.append((p, uses[0][1][step]))
        else:
            all_present = False
            break
    if len(present) < min_support or not all_present:
        return None
    order, got = (BEFORE, before) if all_before else (PRESENT, present)
    events = [e for _, e in got]
    if order == BEFORE and is_global(step) and not all(e.pos == 0 for e in events):
        return None  # part of one board's set-up, not what the API needs
    rule = classify(step, api, order, events)
    if rule is None:
        return None
    msps = {e.msp for e in events}
    return ProtocolRule(rule, api, step, order, len(got), len(got),
                        tuple(site(p, e) for p, e in got), msps.pop() if len(msps) == 1 else "")
