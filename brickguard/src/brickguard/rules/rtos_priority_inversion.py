"""BG113: a binary semaphore used as a lock between tasks of different priorities."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from brickguard.config import Config
from brickguard.facts import LockFact
from brickguard.findings import Finding, Level
from brickguard.program import Context, Program
from brickguard.rules.base import Rule
from brickguard.rules.messages import at, here


def lock_users(program: Program, events: list[LockFact]) -> dict[str, LockFact] | None:
    """Function -> its take, for the functions that take the semaphore and give it back later
    in their own body (a lock); None when it is also a signal: given by a function that did not
    take it first (another task or an interrupt wakes a waiter), or given in an interrupt. The
    function that creates it may give it once (a binary semaphore starts empty)."""
    makers = {e.function for e in events if e.kind == "binary"}
    by_function: dict[str, list[LockFact]] = defaultdict(list)
    for e in events:
        if e.kind in ("take", "give"):
            by_function[e.function].append(e)
    users = {}
    for function, evs in by_function.items():
        evs.sort(key=lambda e: e.seq)
        contexts = program.contexts.get(function, frozenset())
        if any(e.kind == "give" for e in evs) and any(c.is_interrupt for c in contexts):
            return None
        if function in makers:
            continue
        take = next((e for e in evs if e.kind == "take"), None)
        if any(e.kind == "give" and (take is None or e.seq < take.seq) for e in evs):
            return None
        if take is not None and any(e.kind == "give" and e.seq > take.seq for e in evs):
            users[function] = take
    return users


def check(program: Program, config: Config) -> Iterable[Finding]:
    by_handle: dict[str, list[LockFact]] = defaultdict(list)
    for e in program.locks:
        by_handle[e.handle].append(e)
    for handle, events in sorted(by_handle.items()):
        made = sorted((e for e in events if e.kind == "binary"), key=lambda e: e.seq)
        if not made or any(e.kind == "mutex" for e in events):
            continue
        users = lock_users(program, events)
        if not users:
            continue
        # The tasks of known priority that take it as a lock, and where each takes it.
        tasks: dict[Context, LockFact] = {}
        for function, take in sorted(users.items(), key=lambda kv: kv[1].where.line):
            for c in program.contexts.get(function, frozenset()):
                if not c.is_interrupt and c.task_priority is not None:
                    tasks.setdefault(c, take)
        if len({c.task_priority for c in tasks}) < 2:
            continue
        ranked = sorted(tasks, key=lambda c: (-(c.task_priority or 0), c.name))
        high, low = ranked[0], ranked[-1]
        obj = program.objects.get(handle)
        name = obj.name if obj is not None else "the semaphore"
        create = made[0]
        message = (
            f"binary semaphore `{name}` ({create.call}) is taken and given as a lock by tasks "
            f"of different priorities: {high.name} (priority {high.task_priority}, "
            f"{at(tasks[high].where)}) and {low.name} (priority {low.task_priority}, "
            f"{at(tasks[low].where)}); a binary semaphore has no priority inheritance, so while "
            f"{low.name} holds it any task of a priority between preempts {low.name} and "
            f"{high.name} waits without bound (priority inversion)"
        )
        steps = tuple(here(tasks[c].where, f"taken in {c.name} (priority {c.task_priority})")
                      for c in (low, high))
        made_at = here(create.where, f"`{name}` created as a binary semaphore")
        yield Finding("BG113", RULE.level, message, made_at, related=steps,
                      flow=(made_at, *steps))


RULE = Rule(
    id="BG113",
    title="binary semaphore used as a lock between tasks of different priorities",
    level=Level.warning,
    rationale=(
        "A FreeRTOS binary semaphore is a signal, not a lock: it has no owner and no priority "
        "inheritance. When a low-priority task holds it and a high-priority task blocks on it, "
        "any medium-priority task preempts the holder, and the high-priority task waits as "
        "long as the medium one runs: the priority inversion that reset Mars Pathfinder."
    ),
    instead=(
        "Protect shared data between tasks with a mutex (xSemaphoreCreateMutex), which lends "
        "the holder the priority of the highest task waiting for it; keep binary semaphores "
        "for signalling (given by one side, taken by the other)."
    ),
    example_bad=(
        "SemaphoreHandle_t lock;\n"
        "void logger(void *p) { for (;;) { xSemaphoreTake(lock, portMAX_DELAY);\n"
        "  flush_log(); xSemaphoreGive(lock); } }\n"
        "void control(void *p) { for (;;) { xSemaphoreTake(lock, portMAX_DELAY);\n"
        "  append_log(); xSemaphoreGive(lock); } }\n"
        "int main(void) { lock = xSemaphoreCreateBinary(); xSemaphoreGive(lock);\n"
        "  xTaskCreate(logger, \"log\", 256, 0, 1, 0);\n"
        "  xTaskCreate(control, \"ctl\", 256, 0, 3, 0);\n"
        "  vTaskStartScheduler(); }"
    ),
    example_good=(
        "SemaphoreHandle_t lock;\n"
        "void logger(void *p) { for (;;) { xSemaphoreTake(lock, portMAX_DELAY);\n"
        "  flush_log(); xSemaphoreGive(lock); } }\n"
        "void control(void *p) { for (;;) { xSemaphoreTake(lock, portMAX_DELAY);\n"
        "  append_log(); xSemaphoreGive(lock); } }\n"
        "int main(void) { lock = xSemaphoreCreateMutex();\n"
        "  xTaskCreate(logger, \"log\", 256, 0, 1, 0);\n"
        "  xTaskCreate(control, \"ctl\", 256, 0, 3, 0);\n"
        "  vTaskStartScheduler(); }"
    ),
    check=check,
)
