/* GPS receiver front end on an STM32F407 with libopencm3. USART2 (9600 Bd NMEA) fills a byte ring
 * in its interrupt, TIM2 captures the 1PPS edge, and main assembles sentences, parses $GPRMC and
 * reports the fix once a second together with the receive health counters. */
#include "locm3.h"
#include <string.h>

#define RING_SIZE 256U
#define LINE_MAX 96U

static volatile uint8_t s_ring[RING_SIZE];
static volatile uint16_t g_rx_head; /* written by usart2_isr only */
static volatile uint16_t g_rx_tail; /* written by main only */
static volatile uint32_t g_overruns;
static volatile uint32_t g_pps_count;
static volatile uint32_t g_pps_capture;

static char s_line[LINE_MAX];
static uint16_t s_line_len;

struct fix {
    bool valid;
    int32_t lat_e5;
    int32_t lon_e5;
    uint32_t utc_hhmmss;
};
static struct fix s_fix;
static uint32_t s_bad_checksum;

void usart2_isr(void)
{
    if ((USART_SR(USART2) & USART_SR_ORE) != 0U) {
        (void)USART_DR(USART2); /* reading DR clears the hardware overrun */
        g_overruns++;
        return;
    }
    uint8_t c = (uint8_t)usart_recv(USART2);
    uint16_t next = (uint16_t)((g_rx_head + 1U) % RING_SIZE);
    if (next == g_rx_tail) {
        g_overruns++;
        return;
    }
    s_ring[g_rx_head] = c;
    g_rx_head = next;
}

void tim2_isr(void)
{
    timer_clear_flag(TIM2, TIM_SR_UIF);
    g_pps_capture = timer_get_counter(TIM3);
    g_pps_count++;
}

static uint8_t hexval(char c)
{
    return (uint8_t)((c >= 'A') ? (c - 'A' + 10) : (c - '0'));
}

static bool checksum_ok(const char *line, uint16_t len)
{
    uint8_t sum = 0U;
    uint16_t i = 1U;
    while (i < len && line[i] != '*') {
        sum ^= (uint8_t)line[i++];
    }
    if (i + 2U >= len) {
        return false;
    }
    return sum == (uint8_t)((hexval(line[i + 1U]) << 4) | hexval(line[i + 2U]));
}

static int32_t parse_coord(const char *p)
{
    int32_t v = 0;
    while ((*p >= '0' && *p <= '9') || *p == '.') {
        if (*p != '.') {
            v = v * 10 + (*p - '0');
        }
        p++;
    }
    return v;
}

static void parse_rmc(const char *line)
{
    const char *field[8] = {0};
    unsigned n = 0U;
    for (const char *p = line; *p != '\0' && n < 8U; p++) {
        if (*p == ',') {
            field[n++] = p + 1;
        }
    }
    if (n < 6U || field[1] == NULL || *field[1] != 'A') {
        s_fix.valid = false;
        return;
    }
    s_fix.utc_hhmmss = (uint32_t)parse_coord(field[0]) / 1000U;
    s_fix.lat_e5 = parse_coord(field[2]);
    s_fix.lon_e5 = parse_coord(field[4]);
    s_fix.valid = true;
}

static void feed(char c)
{
    if (c == '$') {
        s_line_len = 0U;
    }
    if (c == '\n' || s_line_len >= LINE_MAX - 1U) {
        s_line[s_line_len] = '\0';
        if (!checksum_ok(s_line, s_line_len)) {
            s_bad_checksum++;
        } else if (strncmp(s_line, "$GPRMC", 6) == 0) {
            parse_rmc(s_line);
        }
        s_line_len = 0U;
        return;
    }
    s_line[s_line_len++] = c;
}

int main(void)
{
    uint32_t last_pps = 0U;
    clock_setup();
    nvic_set_priority(NVIC_USART2_IRQ, 0x20);
    nvic_set_priority(NVIC_TIM2_IRQ, 0x40);
    usart_enable_rx_interrupt(USART2);
    usart_enable(USART2);
    nvic_enable_irq(NVIC_USART2_IRQ);
    nvic_enable_irq(NVIC_TIM2_IRQ);
    for (;;) {
        while (g_rx_tail != g_rx_head) {
            char c = (char)s_ring[g_rx_tail];
            g_rx_tail = (uint16_t)((g_rx_tail + 1U) % RING_SIZE);
            feed(c);
        }
        if (g_pps_count == last_pps) {
            continue;
        }
        last_pps = g_pps_count;
        console_printf("fix %d %ld %ld utc %06lu pps@%lu\n", s_fix.valid, (long)s_fix.lat_e5,
                       (long)s_fix.lon_e5, (unsigned long)s_fix.utc_hhmmss,
                       (unsigned long)g_pps_capture);
        uint32_t lost = g_overruns;
        if (lost != 0U) {
            console_printf("rx overruns %lu, bad checksums %lu\n", (unsigned long)lost,
                           (unsigned long)s_bad_checksum);
            g_overruns = 0U;
        }
    }
    return 0;
}
