/* FreeRTOS on STM32G4 (LL drivers): the USART1 handler assembles 4-byte sensor packets and queues
 * each complete packet to a task; the handler's assembly state is its own. */
#include "stm32g4_ll.h"
#include "FreeRTOS.h"

struct packet {
    uint8_t b[4];
};

static QueueHandle_t s_pkt_queue;
static struct packet s_asm;
static uint32_t s_asm_len;
static volatile uint32_t g_pkt_dropped;

void USART1_IRQHandler(void)
{
    BaseType_t woken = pdFALSE;
    if (LL_USART_IsActiveFlag_RXNE(USART1) != 0U) {
        s_asm.b[s_asm_len++] = LL_USART_ReceiveData8(USART1);
        if (s_asm_len == sizeof s_asm.b) {
            s_asm_len = 0U;
            if (xQueueSendFromISR(s_pkt_queue, &s_asm, &woken) != pdPASS) {
                g_pkt_dropped++;
            }
        }
    }
    portYIELD_FROM_ISR(woken);
}

extern void sensor_apply(const struct packet *p);
extern void health_report(uint32_t dropped);

static void sensor_task(void *arg)
{
    struct packet p;
    (void)arg;
    for (;;) {
        if (xQueueReceive(s_pkt_queue, &p, pdMS_TO_TICKS(500)) == pdPASS) {
            sensor_apply(&p);
        } else {
            health_report(g_pkt_dropped);
        }
    }
}

int main(void)
{
    SystemClock_Config();
    s_pkt_queue = xQueueCreate(8U, sizeof(struct packet));
    NVIC_SetPriority(USART1_IRQn, 6U);
    LL_USART_EnableIT_RXNE(USART1);
    NVIC_EnableIRQ(USART1_IRQn);
    (void)xTaskCreate(sensor_task, "sensor", 256U, NULL, tskIDLE_PRIORITY + 2U, NULL);
    vTaskStartScheduler();
    for (;;) {
    }
}
