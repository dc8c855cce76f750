/* An ownership flag seen through a condition chain and a helper. The receive handler drops a
   byte where ``if (ready || len >= MAX) continue;`` holds, so it stores into the frame and its
   length only where ``ready`` is clear; the timeout handler only sets ``ready``, where it saw it clear. The task waits
   with ``if (!ready) continue;`` and hands the frame to ``serve``, which reads it twice, and
   clears the length before it releases the flag: while ``ready`` is set no handler store to
   the frame can come between the task's accesses, in main or in the helper every call of which
   is made where ``ready`` is set. Kept (races): ``stats``, which the handler bumps in the
   then-arm of ``if (ready || c == 0u)`` (either test may have held there, so ``ready`` may be
   set), and ``cmd``, which the handler stores only where ``ready`` is clear but ``poll`` reads
   twice at a call made before the wait too, where ``ready`` may be clear. */
#include <stdbool.h>
#include "cmsis_stub.h"

#define MAX 16u

volatile bool ready;
volatile uint32_t len;
volatile uint8_t frame[MAX];
volatile uint32_t stats;
volatile uint8_t cmd;

uint8_t uart_byte(void);
void reply(uint8_t a, uint8_t b);

void USART1_IRQHandler(void)
{
    for (int n = 0; n < 4; n++) {
        uint8_t c = uart_byte();
        if (ready || c == 0u) {
            stats = stats + 1u;            /* either may hold here: ready may be set */
        }
        if (ready || len >= MAX) {
            continue;
        }
        frame[len] = c;
        cmd = c;
        len = len + 1u;
    }
}

void TIM2_IRQHandler(void)
{
    if (!ready) {
        ready = true;                      /* the end of a frame: 3.5 characters of silence */
    }
}

static void serve(volatile const uint8_t *f)
{
    uint8_t fn = f[1];
    if (f[1] == 3u) {
        reply(fn, f[2]);
    }
}

static void poll(void)
{
    uint8_t a = cmd;
    if (cmd == a) {                        /* expect: BG101 */
        reply(a, 0u);
    }
}

int main(void)
{
    __enable_irq();
    poll();
    for (;;) {
        if (!ready) {
            continue;
        }
        uint32_t n = len;
        if (n > 2u) {
            serve(frame);
        }
        poll();
        uint32_t s = stats;
        reply((uint8_t)s, (uint8_t)stats); /* expect: BG101 */
        len = 0u;
        ready = false;
    }
}
