"""BG101: shared with an interrupt handler, accessed from task code outside a critical section."""

from __future__ import annotations

from collections.abc import Iterable

from brickguard.config import Config
from brickguard.facts import AccessKind
from brickguard.findings import Finding, Level
from brickguard.program import Program
from brickguard.rules.base import Rule
from brickguard.rules.messages import at, does, here, isr_step, loc, task_step, verb


def check(program: Program, config: Config) -> Iterable[Finding]:
    for r in program.races:
        if r.rule != "BG101":
            continue
        t, i = r.task.fact, r.isr.fact
        isr, task = isr_step(r), task_step(r)
        handler = r.isr.context_names(True)
        if r.pattern == "pair":
            f = r.first.fact if r.first is not None else t
            message = (
                f"`{t.text}` is read in {r.victim} after `{f.text}` ({at(f.where)}), not both in "
                f"one critical section, and interrupt handler {handler} updates the two as one "
                f"value (it writes `{i.text}` only as the other word carries, {at(i.where)}): "
                f"if it fires between the two reads, the pair holds words of two different "
                f"moments (an old high word with a new low one)"
            )
            first = loc(r.first, "read in task context, first word") if r.first else task
            yield Finding("BG101", RULE.level, message, task, related=(isr, first),
                          flow=(first, isr, task))
            continue
        if r.pattern == "fields":
            f = r.first.fact if r.first is not None else t
            message = (
                f"`{t.text}` is read in {r.victim} right after `{f.text}` ({at(f.where)}), not "
                f"both in one critical section, and interrupt handler {handler} writes the two "
                f"fields in one run (`{i.text}`, {at(i.where)}): if it fires between the two "
                f"reads, the pair holds one field of one run and the other of the next, values "
                f"no run wrote together"
            )
            first = loc(r.first, "read in task context, first field") if r.first else task
            yield Finding("BG101", RULE.level, message, task, related=(isr, first),
                          flow=(first, isr, task))
            continue
        if r.pattern == "wrap" and r.start is not None:
            st = r.start
            message = (
                f"`{t.text}` is read in {r.victim} with the counter {st.callee_name}() "
                f"({at(st.where)}), not both in one critical section and with no re-read, and "
                f"interrupt handler {handler} counts that counter's wraps (`{i.text}`, "
                f"{at(i.where)}): if the counter wraps between the two reads, the wrap count "
                f"and the count are of two different moments (a time a whole counter period off)"
            )
            start = here(st.where, f"{st.callee_name}(): the counter whose wraps "
                                   f"`{r.obj.name}` counts")
            yield Finding("BG101", RULE.level, message, task, related=(isr, start),
                          flow=(task, isr, start))
            continue
        if r.pattern == "late" and r.start is not None:
            st = r.start
            message = (
                f"`{t.text}` is written in {r.victim} only after {st.callee_name}() "
                f"({at(st.where)}) lets interrupt handler {handler} run, and the handler reads "
                f"`{i.text}` ({at(i.where)}) without testing it: if it runs before this "
                f"store (an interrupt already pending, another core starting at once), it uses "
                f"the value from before (write it before {st.callee_name}())"
            ) if i.kind is AccessKind.read else (
                f"`{t.text}` is written in {r.victim} only after {st.callee_name}() "
                f"({at(st.where)}) starts what interrupt handler {handler} reports by storing "
                f"`{i.text}` ({at(i.where)}): if the operation ends before this store, this "
                f"store overwrites the handler's and the hand-over is lost (write it before "
                f"{st.callee_name}())"
            )
            start = here(st.where, f"{st.callee_name}(): interrupt handler {handler} can run "
                                   "from here")
            yield Finding("BG101", RULE.level, message, task, related=(isr, start),
                          flow=(start, isr, task))
            continue
        if r.pattern in ("order", "torn"):
            message = (
                f"`{t.text}` is installed in {r.victim} only after interrupt handler {handler} "
                f"can fire, and the handler calls through it ({at(i.where)}) without testing "
                f"it: `{r.obj.name}` starts as 0, so an interrupt before this store calls "
                f"address 0 (install it before enabling the interrupt)"
            ) if r.pattern == "order" else (
                f"`{t.text}` is read element by element in a loop in {r.victim}, outside a "
                f"critical section, while interrupt handler {handler} rewrites "
                f"`{r.obj.name}` in a loop of its own ({at(i.where)}): an interrupt during the "
                f"copy leaves it the first elements of one version and the rest of the next"
            )
            yield Finding("BG101", RULE.level, message, task, related=(isr,), flow=(isr, task))
            continue
        if r.first is not None:
            f = r.first.fact
            message = (
                f"`{t.text}` is {verb(t.kind)} in {r.victim} "
                f"after `{f.text}` was {verb(f.kind)} ({at(f.where)}), not both in one critical "
                f"section; interrupt handler {r.isr.context_names(True)} {does(i.kind)} it "
                f"({at(i.where)}), and if it fires between the two ({r.pattern}), {r.harm}"
                + (f" (kept: {r.why})" if r.why else "")
            )
            first = loc(r.first, f"{verb(f.kind)} in {r.victim}, first access")
            yield Finding("BG101", RULE.level, message, task, related=(isr, first),
                          flow=(first, isr, task))
            continue
        message = (
            f"`{t.text}` is {verb(t.kind)} in {r.victim} "
            f"as a whole (not one word) outside a critical section, but interrupt handler "
            f"{r.isr.context_names(True)} {does(i.kind)} `{r.obj.name}` ({at(i.where)})"
        )
        yield Finding("BG101", RULE.level, message, task, related=(isr,), flow=(isr, task))


RULE = Rule(
    id="BG101",
    title="object shared with an interrupt handler is accessed outside a critical section",
    level=Level.warning,
    rationale=(
        "An interrupt can fire between any two instructions of the main loop. When the handler "
        "writes a buffer, a struct or an index while task code is reading or updating it, the "
        "task sees half-old, half-new data: bytes of a message from two frames, an index that "
        "no longer matches the buffer. It passes every bench test and fails in the field."
    ),
    instead=(
        "Access the shared data inside a critical section (__disable_irq()/__enable_irq(), or "
        "save and restore PRIMASK, or the RTOS's taskENTER_CRITICAL()), keep the section short: "
        "copy the data out, then work on the copy. Or hand data over through a lock-free single-"
        "producer/single-consumer ring buffer whose indices are each written by one side only. "
        "A single aligned word-sized volatile flag is atomic and needs no section."
    ),
    example_bad=(
        "volatile uint8_t rx_buf[32]; volatile uint8_t rx_len;\n"
        "void I2C1_EV_IRQHandler(void) { rx_buf[rx_len++] = (uint8_t)I2C1->DR; }\n"
        "int main(void) {\n"
        "  for (;;) { if (rx_len) { process((const uint8_t *)rx_buf, rx_len); rx_len = 0; } } }"
    ),
    example_good=(
        "volatile uint8_t rx_buf[32]; volatile uint8_t rx_len;\n"
        "void I2C1_EV_IRQHandler(void) { rx_buf[rx_len++] = (uint8_t)I2C1->DR; }\n"
        "int main(void) { uint8_t copy[32], n;\n"
        "  for (;;) { __disable_irq(); n = rx_len; memcpy(copy, (const void *)rx_buf, n);\n"
        "    rx_len = 0; __enable_irq(); if (n) process(copy, n); } }"
    ),
    check=check,
)
