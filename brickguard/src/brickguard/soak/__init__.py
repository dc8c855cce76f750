"""``brickguard soak``: the soak test in seconds, on the real instruction set, with a witness.

The project is compiled for the target with the real cross compiler (build.py), run in unicorn's
Cortex-M core (machine.py), and the interrupt handler is injected on every instruction boundary
where it can matter, one run per boundary, from snapshots (explore.py). A failing run becomes a
witness (witness.py); ``check --confirm`` runs this on the static race findings (confirm.py).

What is modelled: the Cortex-M0/M0+/M3/M4/M7 instruction set (Thumb, soft float), flash and RAM
as the image needs them, PRIMASK (cpsid/cpsie, MRS/MSR), BASEPRI against the handler's priority,
the NVIC's enable/pending set/clear registers and priorities, the exception frame, peripheral
ranges as plain memory with scripted reads, undefined functions as stubs that return 0 (the CMSIS
and HAL NVIC calls, FreeRTOS's vPortEnter/ExitCritical and Zephyr's irq_lock/irq_unlock as
stand-ins that do what they do to interrupts).

What is not: an interrupt inside a Thumb-2 IT block (the emulator keeps the condition state in
translated code, so those boundaries are skipped and counted), an interrupt inside one
instruction (interrupts land between instructions; an M3/M4 may interrupt an LDM/STM and
continue it, which can tear a copy soak sees as whole),
peripheral behaviour (a register that clears on read, a timer that counts, DMA),
caches and bus timing, the FPU (soft float is forced), handler mode (IPSR, the process stack,
nesting, tail-chaining, late arrival), more than one injected interrupt per run, and exclusive
monitors cleared by exception entry. A handler's footprint is learnt from one run from the
scenario's starting state; accesses it makes only in other states are not planned around.
"""
