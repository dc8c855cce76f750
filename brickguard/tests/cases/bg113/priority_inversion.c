/* A binary semaphore used as a lock between tasks of different priorities (no priority
   inheritance), and the look-alikes: a mutex, a binary semaphore as a signal, equal priorities. */
#include "cmsis_stub.h"

typedef void *SemaphoreHandle_t;
SemaphoreHandle_t xSemaphoreCreateBinary(void);
SemaphoreHandle_t xSemaphoreCreateMutex(void);
long xSemaphoreTake(SemaphoreHandle_t s, uint32_t wait);
long xSemaphoreGive(SemaphoreHandle_t s);
long xSemaphoreGiveFromISR(SemaphoreHandle_t s, long *woken);
void vTaskStartScheduler(void);
#define tskIDLE_PRIORITY ((unsigned)0U)

SemaphoreHandle_t log_lock;          /* a lock, created binary: inversion */
SemaphoreHandle_t bus_lock;          /* a lock, created as a mutex */
SemaphoreHandle_t rx_ready;          /* a signal: the interrupt gives, a task takes */
SemaphoreHandle_t peer_lock;         /* a lock between two tasks of one priority */
volatile uint32_t log_len, bus_word, peer_word;

void USART2_IRQHandler(void)
{
    long woken = 0;
    xSemaphoreGiveFromISR(rx_ready, &woken);
}

static void logger(void *arg)        /* priority 1 */
{
    (void)arg;
    for (;;) {
        xSemaphoreTake(log_lock, 100u);
        log_len = 0u;
        xSemaphoreGive(log_lock);
        xSemaphoreTake(bus_lock, 100u);
        bus_word = 0u;
        xSemaphoreGive(bus_lock);
        xSemaphoreTake(rx_ready, 100u);
    }
}

static void control(void *arg)       /* priority 3 */
{
    (void)arg;
    for (;;) {
        xSemaphoreTake(log_lock, 100u);
        log_len = 1u;
        xSemaphoreGive(log_lock);
        xSemaphoreTake(bus_lock, 100u);
        bus_word = 1u;
        xSemaphoreGive(bus_lock);
        xSemaphoreTake(rx_ready, 100u);
    }
}

static void peer_a(void *arg)        /* priority 2 */
{
    (void)arg;
    for (;;) {
        xSemaphoreTake(peer_lock, 100u);
        peer_word = 1u;
        xSemaphoreGive(peer_lock);
    }
}

static void peer_b(void *arg)        /* priority 2 */
{
    (void)arg;
    for (;;) {
        xSemaphoreTake(peer_lock, 100u);
        peer_word = 2u;
        xSemaphoreGive(peer_lock);
    }
}

int main(void)
{
    log_lock = xSemaphoreCreateBinary();   /* expect: BG113 */
    xSemaphoreGive(log_lock);
    bus_lock = xSemaphoreCreateMutex();
    rx_ready = xSemaphoreCreateBinary();
    peer_lock = xSemaphoreCreateBinary();
    xSemaphoreGive(peer_lock);
    xTaskCreate(logger, "log", 256u, 0, tskIDLE_PRIORITY + 1u, 0);
    xTaskCreate(control, "ctl", 256u, 0, 3u, 0);
    xTaskCreate(peer_a, "pa", 256u, 0, 2u, 0);
    xTaskCreate(peer_b, "pb", 256u, 0, 2u, 0);
    vTaskStartScheduler();
    return 0;
}
