/* GPS fix assembled by the UART handler, copied whole by the navigation loop. */
#include "board.h"

struct gps_fix {
    int32_t lat_e7;
    int32_t lon_e7;
    uint16_t alt_dm;
    uint8_t sats;
    uint8_t valid;
};

static volatile struct gps_fix gps;
static struct gps_fix nav;
static int32_t field[3];
static uint8_t field_idx;

void USART1_IRQHandler(void)
{
    uint8_t c = (uint8_t)USART1->DR;
    if (c == ',') {
        field_idx = (uint8_t)((field_idx + 1U) % 3U);
        field[field_idx] = 0;
    } else if (c == '\n') {
        gps.lat_e7 = field[0];
        gps.lon_e7 = field[1];
        gps.alt_dm = (uint16_t)field[2];
        gps.valid = 1U;
        field_idx = 0U;
        field[0] = 0;
    } else {
        field[field_idx] = field[field_idx] * 10 + (int32_t)(c - '0');
    }
}

int main(void)
{
    board_clock_init();
    NVIC_EnableIRQ(USART1_IRQn);
    for (;;) {
        nav = gps;
        if (nav.valid != 0U) {
            process_byte((uint8_t)(nav.lat_e7 ^ nav.lon_e7));
        }
    }
}
