/* Interrupt-mode UART receive with ST-HAL-style callbacks; the completion flag is volatile and
 * cleared before the receive is started. */
#include "hal_mini.h"

static UART_HandleTypeDef huart2;
static uint8_t frame[8];
static volatile uint8_t frame_ready;

void USART2_IRQHandler(void)
{
    HAL_UART_IRQHandler(&huart2);
}

void HAL_UART_RxCpltCallback(UART_HandleTypeDef *huart)
{
    if (huart == &huart2) {
        frame_ready = 1U;
    }
}

int main(void)
{
    board_clock_init();
    huart2.Instance = USART2;
    HAL_NVIC_SetPriority(USART2_IRQn, 5U, 0U);
    HAL_NVIC_EnableIRQ(USART2_IRQn);
    for (;;) {
        frame_ready = 0U;
        HAL_UART_Receive_IT(&huart2, frame, sizeof frame);
        while (frame_ready == 0U) {
        }
        process_byte(frame[0]);
    }
}
