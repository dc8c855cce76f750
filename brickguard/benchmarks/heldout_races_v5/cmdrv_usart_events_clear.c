/* Barcode reader link on an STM32F429 using the vendor's CMSIS-Driver USART: the driver's event
 * callback (called from USART3_IRQHandler) collects the events it reports; main handles a
 * finished 16-byte scan, counts line errors and starts the next reception. */
#include "cmsis_driver.h"

#define SCAN_LEN 16U

static volatile uint32_t g_usart_events;
static uint8_t s_scan[SCAN_LEN];
static uint32_t s_scans;
static uint32_t s_line_errors;

static void usart_cb(uint32_t event)
{
    g_usart_events |= event;
}

int main(void)
{
    board_init();
    (void)Driver_USART3.Initialize(usart_cb);
    (void)Driver_USART3.PowerControl(ARM_POWER_FULL);
    (void)Driver_USART3.Control(ARM_USART_MODE_ASYNCHRONOUS | ARM_USART_DATA_BITS_8, 9600U);
    (void)Driver_USART3.Control(ARM_USART_CONTROL_RX, 1U);
    (void)Driver_USART3.Receive(s_scan, SCAN_LEN);
    for (;;) {
        uint32_t ev = g_usart_events;
        if (ev == 0U) {
            continue;
        }
        g_usart_events = 0U;
        if ((ev & (ARM_USART_EVENT_RX_FRAMING_ERROR | ARM_USART_EVENT_RX_OVERFLOW)) != 0U) {
            s_line_errors++;
        }
        if ((ev & ARM_USART_EVENT_RECEIVE_COMPLETE) != 0U) {
            s_scans++;
            printf("scan %lu: %.16s (%lu line errors)\n", (unsigned long)s_scans, (const char *)s_scan,
                   (unsigned long)s_line_errors);
            (void)Driver_USART3.Receive(s_scan, SCAN_LEN);
        }
    }
}
