/* FreeRTOS timers and event groups driven from a handler, two calls down; each task API has an
   interrupt-safe twin, and the twins themselves are fine. */
#include <stdint.h>
typedef long BaseType_t;
typedef void *TimerHandle_t;
typedef void *EventGroupHandle_t;
BaseType_t xTimerStart(TimerHandle_t t, uint32_t wait);
BaseType_t xTimerStartFromISR(TimerHandle_t t, BaseType_t *woken);
BaseType_t xTimerReset(TimerHandle_t t, uint32_t wait);
uint32_t xEventGroupSetBits(EventGroupHandle_t g, uint32_t bits);
BaseType_t xEventGroupSetBitsFromISR(EventGroupHandle_t g, uint32_t bits, BaseType_t *woken);
uint32_t xTaskGetTickCount(void);
uint32_t xTaskGetTickCountFromISR(void);

TimerHandle_t debounce_timer;
EventGroupHandle_t events;
volatile uint32_t pressed_at;

static void restart_debounce(void)
{
    (void)xTimerReset(debounce_timer, 0);          /* expect: BG111 */
}

static void on_edge(void)
{
    pressed_at = xTaskGetTickCount();               /* expect: BG111 */
    restart_debounce();
    (void)xEventGroupSetBits(events, 1u);           /* expect: BG111 */
}

void EXTI15_10_IRQHandler(void)
{
    BaseType_t woken = 0;
    on_edge();
    pressed_at = xTaskGetTickCountFromISR();
    (void)xTimerStartFromISR(debounce_timer, &woken);
    (void)xEventGroupSetBitsFromISR(events, 2u, &woken);
}

int main(void)
{
    (void)xTimerStart(debounce_timer, 10);
    (void)xEventGroupSetBits(events, 4u);
    (void)xTaskGetTickCount();
    for (;;) {
    }
}
