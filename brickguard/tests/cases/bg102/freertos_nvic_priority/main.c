/* FreeRTOS alone (no cmsis profile): taskENTER_CRITICAL raises BASEPRI to
   configMAX_SYSCALL_INTERRUPT_PRIORITY (5); NVIC_SetPriority says the encoder handler runs at 2,
   above it, so the section does not mask it; the timer handler at 6 is masked. */
#include "cmsis_stub.h"

#define configPRIO_BITS 4
#define configMAX_SYSCALL_INTERRUPT_PRIORITY (5 << (8 - configPRIO_BITS))
typedef enum { EXTI0_IRQn = 6, TIM2_IRQn = 28 } IRQn_Type;
void NVIC_SetPriority(IRQn_Type irq, uint32_t priority);
void vTaskStartScheduler(void);
void vTaskDelay(uint32_t ticks);

static volatile uint32_t enc_pos;
static volatile uint32_t tim_ticks;

void EXTI0_IRQHandler(void) { enc_pos++; }
void TIM2_IRQHandler(void) { tim_ticks++; }

static void motion_task(void *arg)
{
    (void)arg;
    for (;;) {
        taskENTER_CRITICAL();
        enc_pos -= 16u;              /* expect: BG102 */
        tim_ticks -= 16u;            /* TIM2 at 6 is masked */
        taskEXIT_CRITICAL();
        vTaskDelay(1u);
    }
}

int main(void)
{
    NVIC_SetPriority(EXTI0_IRQn, 2u);
    NVIC_SetPriority(TIM2_IRQn, 6u);
    xTaskCreate(motion_task, "motion", 256u, 0, 2u, 0);
    vTaskStartScheduler();
    return 0;
}
