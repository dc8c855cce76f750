/* A DMA start returns at once; the DMA engine then writes the receive buffer (reads the
   transmit buffer) until the transfer completes. Using the buffer before anything that can be
   the completion (a flag the completion interrupt sets, a semaphore, a blocking poll) races
   with the hardware. */
#include "cmsis_stub.h"

typedef struct { int instance; } UART_HandleTypeDef;
UART_HandleTypeDef huart1, huart2;
int HAL_UART_Receive_DMA(UART_HandleTypeDef *h, uint8_t *data, uint16_t size);
int HAL_UART_Transmit_DMA(UART_HandleTypeDef *h, const uint8_t *data, uint16_t size);
int HAL_UART_GetState(UART_HandleTypeDef *h);
int Buffercmp(const uint8_t *a, const uint8_t *b, uint16_t n);
typedef void *SemaphoreHandle_t;
long xSemaphoreTake(SemaphoreHandle_t s, uint32_t wait);
long xSemaphoreGiveFromISR(SemaphoreHandle_t s, long *woken);
typedef struct { uint8_t ptr_inst; } nrfx_uarte_t;
int nrfx_uarte_rx(nrfx_uarte_t const *p_instance, uint8_t *p_data, size_t length);

uint8_t cmd[16], reply[16], frame[8], nrf_rx[4];
struct { uint8_t rx[8]; uint32_t count; } dev;
volatile int rx_done;
SemaphoreHandle_t rx_sem;
static const nrfx_uarte_t uarte0 = {0};

void HAL_UART_RxCpltCallback(UART_HandleTypeDef *h)
{
    (void)h;
    rx_done = 1;
    xSemaphoreGiveFromISR(rx_sem, 0);
}

static void read_too_early(void)
{
    HAL_UART_Receive_DMA(&huart1, cmd, 16);
    if (cmd[0] == 'A') {              /* expect: BG107 */
        process(cmd, 1);
    }
}

static void hand_on_too_early(void)
{
    HAL_UART_Receive_DMA(&huart1, frame, 8);
    process(frame, 8);                /* expect: BG107 */
}

static void read_after_flag(void)
{
    rx_done = 0;
    HAL_UART_Receive_DMA(&huart1, cmd, 16);
    while (!rx_done) {
    }
    process(cmd, 16);                 /* the completion callback set rx_done */
}

static void read_after_semaphore(void)
{
    HAL_UART_Receive_DMA(&huart2, frame, 8);
    xSemaphoreTake(rx_sem, 0xffffffffu);
    process(frame, 8);                /* the callback gave the semaphore */
}

static void send(void)
{
    reply[0] = 'O';                   /* before the start: fine */
    HAL_UART_Transmit_DMA(&huart2, reply, 16);
    reply[1] = 'K';                   /* expect: BG107 */
}

static void send_and_poll(void)
{
    HAL_UART_Transmit_DMA(&huart2, reply, 16);
    Buffercmp(reply, cmd, 16);        /* a transmit buffer handed on may only be read */
    while (HAL_UART_GetState(&huart2) != 0x20) {
    }
    reply[2] = '!';                   /* the state poll saw the transfer done */
}

static void other_field(void)
{
    HAL_UART_Receive_DMA(&huart1, dev.rx, 8);
    dev.count++;                      /* not the buffer handed over */
}

static void nordic(void)
{
    nrfx_uarte_rx(&uarte0, nrf_rx, 4);
    uint8_t first = nrf_rx[0];        /* expect: BG107 */
    (void)first;
}

int main(void)
{
    read_too_early();
    hand_on_too_early();
    read_after_flag();
    read_after_semaphore();
    send();
    send_and_poll();
    other_field();
    nordic();
    return 0;
}
