/* Event word: the button and the UART receive handlers set their bits atomically (the receive
 * handler masks itself until main has drained the UART); main handles the events it saw and
 * clears exactly those bits. */
#include "mbed_c.h"

#define EV_BUTTON 0x1U
#define EV_RX 0x2U

static gpio_irq_t s_button;
static serial_t s_uart;
static volatile uint32_t g_events;

static void button_irq(uintptr_t context, gpio_irq_event event)
{
    (void)context;
    if (event == IRQ_FALL) {
        (void)core_util_atomic_fetch_or_u32(&g_events, EV_BUTTON);
    }
}

static void uart_irq(uintptr_t context, SerialIrq event)
{
    (void)context;
    if (event == RxIrq) {
        serial_irq_set(&s_uart, RxIrq, 0U);
        (void)core_util_atomic_fetch_or_u32(&g_events, EV_RX);
    }
}

int main(void)
{
    serial_init(&s_uart, PA_2, PA_3);
    serial_baud(&s_uart, 115200);
    serial_irq_handler(&s_uart, uart_irq, 0U);
    serial_irq_set(&s_uart, RxIrq, 1U);
    (void)gpio_irq_init(&s_button, PC_13, button_irq, 0U);
    gpio_irq_set(&s_button, IRQ_FALL, 1U);
    gpio_irq_enable(&s_button);
    for (;;) {
        uint32_t ev = g_events;
        if ((ev & EV_BUTTON) != 0U) {
            handle_button();
        }
        if ((ev & EV_RX) != 0U) {
            while (serial_readable(&s_uart) != 0) {
                handle_command(serial_getc(&s_uart));
            }
            serial_irq_set(&s_uart, RxIrq, 1U);
        }
        (void)core_util_atomic_fetch_and_u32(&g_events, ~ev);
    }
}
