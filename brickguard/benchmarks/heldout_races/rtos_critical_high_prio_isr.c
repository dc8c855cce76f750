/* A task updates a counter inside taskENTER_CRITICAL, but the encoder handler runs at priority 2,
 * above configMAX_SYSCALL_INTERRUPT_PRIORITY (5), which the critical section does not mask. */
#include "board.h"
#include "rtos.h"

static volatile uint32_t enc_pos;

void EXTI0_IRQHandler(void)
{
    enc_pos++;
}

static void motion_task(void *arg)
{
    (void)arg;
    for (;;) {
        taskENTER_CRITICAL();
        if (enc_pos >= 4096U) {
            enc_pos -= 4096U;
        }
        taskEXIT_CRITICAL();
        vTaskDelay(1U);
    }
}

int main(void)
{
    board_clock_init();
    NVIC_SetPriority(EXTI0_IRQn, 2U);
    NVIC_EnableIRQ(EXTI0_IRQn);
    xTaskCreate(motion_task, "motion", 256U, 0, tskIDLE_PRIORITY + 2U, 0);
    vTaskStartScheduler();
    for (;;) {
    }
}
