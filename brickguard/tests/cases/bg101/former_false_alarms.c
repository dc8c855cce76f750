/* Shapes the real ST examples, the F4 HAL and FreeRTOS have, which were reported and are not
   races (benchmarks/real_code_labels.toml had them labelled false). */
#include "cmsis_stub.h"

typedef struct {
    volatile uint32_t ErrorCode;     /* __IO fields: what the handler touches */
    volatile uint32_t Address;
    uint8_t Lock;                    /* plain: only task code takes the lock */
} flash_t;

typedef struct { int instance; } UART_HandleTypeDef;
int HAL_UART_Transmit_IT(UART_HandleTypeDef *h, const uint8_t *data, uint16_t size);
int HAL_UART_Receive_IT(UART_HandleTypeDef *h, uint8_t *data, uint16_t size);
typedef void *QueueHandle_t;
QueueHandle_t xQueueCreate(uint32_t n, uint32_t size);
long xQueueSendFromISR(QueueHandle_t q, const void *item, long *woken);

#define __HAL_LOCK(h) do { if ((h)->Lock == 1u) { return 1; } else { (h)->Lock = 1u; } } while (0)
#define __HAL_UNLOCK(h) do { (h)->Lock = 0u; } while (0)

flash_t pFlash;
UART_HandleTypeDef huart;
volatile uint32_t UartReady;
QueueHandle_t events;                /* written once by main, only read by the handler */
uint32_t SystemCoreClock;            /* likewise: the handler only reads it */
uint8_t tx[4], rx[4];

void FLASH_IRQHandler(void)
{
    pFlash.ErrorCode |= 1u;
    pFlash.Address = 0u;
}

void HAL_UART_TxCpltCallback(UART_HandleTypeDef *h) { (void)h; UartReady = 1u; }
void HAL_UART_RxCpltCallback(UART_HandleTypeDef *h) { (void)h; UartReady = 1u; }

void TIM2_IRQHandler(void)
{
    uint32_t tick = SystemCoreClock / 1000u;
    (void)xQueueSendFromISR(events, &tick, 0);
}

int flash_program(uint32_t address)
{
    __HAL_LOCK(&pFlash);             /* one byte, Lock, which the handler never touches */
    pFlash.Address = address;        /* one aligned word store */
    __HAL_UNLOCK(&pFlash);
    return (int)pFlash.ErrorCode;    /* one aligned word read of an __IO field */
}

int main(void)
{
    events = xQueueCreate(4u, 4u);
    SystemCoreClock = 168000000u;
    __enable_irq();
    (void)flash_program(0x08000000u);
    /* The HAL handshake: the poll saw the callback of the one transfer started since the
       flag was last written; that callback runs once per start. */
    (void)HAL_UART_Transmit_IT(&huart, tx, 4u);
    while (UartReady != 1u) {
    }
    UartReady = 0u;
    (void)HAL_UART_Receive_IT(&huart, rx, 4u);
    while (UartReady != 1u) {
    }
    UartReady = 0u;
    /* Two transfers outstanding: the second completion can come between the poll and the
       clear, and is lost. */
    (void)HAL_UART_Transmit_IT(&huart, tx, 4u);
    (void)HAL_UART_Receive_IT(&huart, rx, 4u);
    while (UartReady != 1u) {
    }
    UartReady = 0u;                  /* expect: BG101 */ /* soak: no race here: no later code waits for the completion this loses, so no run differs */
    return 0;
}
