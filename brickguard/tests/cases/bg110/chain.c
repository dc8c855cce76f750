/* Blocking and allocating calls reached from interrupt handlers, at any depth; the same calls
   from task code, and interrupt-safe calls from handlers, are fine. */
#include "cmsis_stub.h"

void HAL_Delay(uint32_t ms);
uint32_t HAL_GetTick(void);
void *malloc(size_t n);
void free(void *p);
int printf(const char *fmt, ...);

static volatile uint32_t last_tick;

static void log_event(const char *what)
{
    printf("%s\n", what);            /* expect: BG110 */
}

static void debounce(void)
{
    HAL_Delay(5);                    /* expect: BG110 */
    log_event("button");
}

static void *grab(void)
{
    return malloc(16);               /* expect: BG110 */
}

void EXTI0_IRQHandler(void)
{
    last_tick = HAL_GetTick();       /* interrupt-safe */
    debounce();
}

void TIM2_IRQHandler(void)
{
    void *p = grab();
    free(p);                         /* expect: BG110 */
}

static void report(void)
{
    printf("tick %u\n", (unsigned)last_tick);   /* task only: fine */
    HAL_Delay(100);
}

int main(void)
{
    for (;;) {
        report();
        free(malloc(4));
    }
}
