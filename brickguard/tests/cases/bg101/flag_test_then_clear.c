/* Test-then-clear of a flag the handler only ever sets to one constant: a set between the test
   and the clear stores the value the test saw, the outcome of the handler running just before
   the test (two events merged, which a flag means). It races when the handler hands data over
   with the flag that the task reads between (the data read is stale when the flag is cleared),
   or when the handler stores different values (which one the task saw is lost).  */
#include "cmsis_stub.h"

volatile uint32_t tick_seen;
volatile uint32_t rx_ready;
volatile uint32_t rx_value;
volatile uint32_t mode_req;
volatile uint32_t id_reg;

void led_toggle(void);
void use(uint32_t v);

void TIM2_IRQHandler(void)
{
    tick_seen = 1u;
}

void USART1_IRQHandler(void)
{
    rx_value = id_reg;
    rx_ready = 1u;
    if (id_reg & 2u) {
        mode_req = 2u;
    } else {
        mode_req = 1u;
    }
}

int main(void)
{
    __enable_irq();
    for (;;) {
        if (tick_seen != 0u) {
            tick_seen = 0u;              /* a tick between merges with the one seen */
            led_toggle();
        }
        if (rx_ready != 0u) {
            use(rx_value);
            rx_ready = 0u;               /* expect: BG101 */
        }
        if (mode_req != 0u) {
            use(mode_req);               /* a newer request is still one the test let in */
            mode_req = 0u;               /* expect: BG101 */
        }
    }
}
