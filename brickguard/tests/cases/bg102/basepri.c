/* BASEPRI masking: a FreeRTOS critical section on Cortex-M4 raises BASEPRI to
   configMAX_SYSCALL_INTERRUPT_PRIORITY, and __set_BASEPRI(v) masks the priorities at v and
   below: an interrupt more urgent than that still runs inside. */
#include "cmsis_stub.h"

#define configPRIO_BITS 4
#define configMAX_SYSCALL_INTERRUPT_PRIORITY (5 << (8 - configPRIO_BITS))

typedef enum { TIM2_IRQn = 28, USART1_IRQn = 37 } IRQn_Type;
void HAL_NVIC_SetPriority(IRQn_Type irq, uint32_t preempt, uint32_t sub);
void HAL_NVIC_EnableIRQ(IRQn_Type irq);
void __set_BASEPRI(uint32_t value);
void vTaskStartScheduler(void);

volatile uint32_t fast_count;        /* TIM2 (priority 2, above the syscall level) writes it */
volatile uint32_t slow_count;        /* USART1 (priority 6, masked by the sections) writes it */
volatile uint32_t held;

void TIM2_IRQHandler(void)
{
    fast_count++;
    held++;
}

void USART1_IRQHandler(void)
{
    slow_count++;
}

static void worker(void *arg)
{
    (void)arg;
    for (;;) {
        taskENTER_CRITICAL();
        fast_count--;                /* expect: BG102 */
        slow_count--;                /* USART1 is masked here */
        taskEXIT_CRITICAL();
        __set_BASEPRI(6u << 4);      /* masks priority 6 and below: USART1 */
        slow_count--;
        __set_BASEPRI(3u << 4);      /* masks 3 and below: not TIM2 at 2 */
        held--;                      /* expect: BG102 */
        __set_BASEPRI(0u);
        __disable_irq();
        fast_count--;                /* PRIMASK masks every interrupt */
        __enable_irq();
    }
}

int main(void)
{
    HAL_NVIC_SetPriority(TIM2_IRQn, 2u, 0u);
    HAL_NVIC_SetPriority(USART1_IRQn, 6u, 0u);
    HAL_NVIC_EnableIRQ(TIM2_IRQn);
    HAL_NVIC_EnableIRQ(USART1_IRQn);
    xTaskCreate(worker, "worker", 128u, 0, 1u, 0);
    vTaskStartScheduler();
    return 0;
}
