/* W-R-W: clearing a mode, then setting it, shows the handler "no mode" in between; from reset
   no mode is set, so only a state the program reaches later (a mode set by an earlier call)
   breaks. set_mode(mode) takes a parameter and is inlined into main's loop; set_heat() takes
   none and is not inlined: it is the scenario itself. */
#include <stdint.h>

static inline void __enable_irq(void) { __asm volatile("cpsie i" ::: "memory"); }

volatile uint32_t heater_ctrl;
volatile uint32_t steps;
volatile uint32_t seen;

void TIM2_IRQHandler(void)
{
    if ((heater_ctrl & 3u) == 0u) {
        seen = steps;
    }
}

void set_mode(uint32_t mode)
{
    heater_ctrl = heater_ctrl & ~3u;
    heater_ctrl = heater_ctrl | mode;    /* W-R-W */
    steps++;
}

__attribute__((noinline)) void set_heat(void)
{
    heater_ctrl = heater_ctrl & ~3u;
    heater_ctrl = heater_ctrl | 2u;      /* W-R-W */
    steps++;
}

int main(void)
{
    __enable_irq();
    for (;;) {
        set_mode(2u);
        set_heat();
    }
}
