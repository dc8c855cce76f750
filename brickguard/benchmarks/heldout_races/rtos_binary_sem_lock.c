/* Log buffer shared by a high- and a low-priority task, guarded by a binary semaphore;
 * a medium-priority task computes without blocking for long stretches. */
#include "board.h"
#include "rtos.h"

static SemaphoreHandle_t log_lock;
static char log_buf[128];
static uint32_t log_len;

static void log_put(const char *s)
{
    xSemaphoreTake(log_lock, portMAX_DELAY);
    while (*s != '\0' && log_len < sizeof log_buf) {
        log_buf[log_len++] = *s++;
    }
    xSemaphoreGive(log_lock);
}

static void control_task(void *arg)
{
    (void)arg;
    for (;;) {
        log_put("ctl\n");
        vTaskDelay(1U);
    }
}

static void filter_task(void *arg)
{
    (void)arg;
    for (;;) {
        for (volatile uint32_t i = 0U; i < 1000000U; i++) {
        }
        vTaskDelay(5U);
    }
}

static void logger_task(void *arg)
{
    (void)arg;
    for (;;) {
        log_put("status ok\n");
        xSemaphoreTake(log_lock, portMAX_DELAY);
        for (uint32_t i = 0U; i < log_len; i++) {
            USART1->DR = (uint8_t)log_buf[i];
        }
        log_len = 0U;
        xSemaphoreGive(log_lock);
        vTaskDelay(100U);
    }
}

int main(void)
{
    board_clock_init();
    log_lock = xSemaphoreCreateBinary();
    xSemaphoreGive(log_lock);
    xTaskCreate(control_task, "ctl", 256U, 0, tskIDLE_PRIORITY + 3U, 0);
    xTaskCreate(filter_task, "flt", 256U, 0, tskIDLE_PRIORITY + 2U, 0);
    xTaskCreate(logger_task, "log", 256U, 0, tskIDLE_PRIORITY + 1U, 0);
    vTaskStartScheduler();
    for (;;) {
    }
}
