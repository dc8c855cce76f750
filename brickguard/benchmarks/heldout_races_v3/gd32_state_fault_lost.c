/* Pump controller (GD32F30x): the over-current comparator on EXTI line 12 forces the FAULT state;
 * main starts the pump from IDLE when the pressure falls. */
#include "gd32f30x.h"

typedef enum { ST_IDLE = 0, ST_RUNNING = 1, ST_FAULT = 2 } pump_state_t;

static volatile pump_state_t g_state = ST_IDLE;
static volatile uint32_t g_fault_count;

void EXTI10_15_IRQHandler(void)
{
    if (exti_interrupt_flag_get(EXTI_12) != RESET) {
        exti_interrupt_flag_clear(EXTI_12);
        gpio_bit_reset(GPIOB, GPIO_PIN_12);
        g_state = ST_FAULT;
        g_fault_count++;
    }
}

extern uint32_t pressure_kpa(void);
extern void pump_on(void);
extern void pump_off(void);

int main(void)
{
    systick_config();
    nvic_irq_enable(EXTI10_15_IRQn, 0U, 0U);
    for (;;) {
        uint32_t p = pressure_kpa();
        if (p < 180U && g_state == ST_IDLE) {
            g_state = ST_RUNNING;
            pump_on();
        } else if (p > 240U && g_state == ST_RUNNING) {
            pump_off();
            g_state = ST_IDLE;
        }
        delay_1ms(10U);
    }
}
