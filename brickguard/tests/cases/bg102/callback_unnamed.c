/* A function handed by pointer to a call the program does not define, whose words say nothing
   of a handler (a virtual timer's arm, a watchdog timer's start: the kernel's source is not in
   the program), is kept to be called later: from the driver's interrupt, at a priority not
   known, which preempts the task code. Look-alikes: a thread start, a function whose body
   blocks (a thread's body, not a handler's), one that loops for ever without blocking (a
   thread's body too, handed to a creator whose name is an abbreviation), a function an interrupt handler queues for later
   (a deferral to a thread), and the same update made with interrupts disabled. */
#include "cmsis_stub.h"

typedef struct { uint32_t due; } acme_vt_t;
void acme_vt_arm(acme_vt_t *vt, uint32_t delay, void (*fn)(void *), void *p);
int acme_thread_start(void *stack, uint32_t size, int prio, void (*fn)(void *), void *arg);
void acme_go(void (*fn)(void *), void *arg);
void acme_tsk_new(void (*fn)(void *), int prio);
void acme_later(void (*fn)(void *), void *arg);
int usleep(unsigned us);

static acme_vt_t vt, vt2;
volatile uint32_t presses, guarded, worked, slept, later, spun;
static uint8_t stack[256];

static void on_vt(void *p)           /* runs in the kernel's timer interrupt */
{
    (void)p;
    presses++;
}

static void on_vt2(void *p)
{
    (void)p;
    guarded++;
}

static void worker(void *arg)        /* a thread's body: task context */
{
    (void)arg;
    for (;;) {
        worked++;
        usleep(1000u);
    }
}

static void spinner(void *arg)       /* loops for ever: a thread's body, never returns */
{
    (void)arg;
    for (;;) {
        spun++;
    }
}

static void sleeper(void *arg)       /* blocks: not an interrupt handler */
{
    (void)arg;
    slept++;
    usleep(10u);
}

static void in_thread(void *arg)     /* queued by the handler below: runs in a thread */
{
    (void)arg;
    later++;
}

void EXTI0_IRQHandler(void)
{
    acme_later(in_thread, NULL);
}

int main(void)
{
    __enable_irq();
    acme_vt_arm(&vt, 10u, on_vt, NULL);
    acme_vt_arm(&vt2, 10u, on_vt2, NULL);
    (void)acme_thread_start(stack, sizeof stack, 3, worker, NULL);
    acme_go(sleeper, NULL);
    acme_tsk_new(spinner, 2);
    for (;;) {
        presses--;                   /* expect: BG102 */
        __disable_irq();
        guarded--;
        __enable_irq();
        worked--;
        slept--;
        later--;
        spun--;
    }
}
