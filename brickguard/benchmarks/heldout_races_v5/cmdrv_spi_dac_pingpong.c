/* Waveform output on an STM32F429 using the vendor's CMSIS-Driver SPI (DMA underneath): main
 * sends 64-sample frames of a sine to an SPI DAC; Transfer() returns at once and the driver's DMA
 * reads one frame while main computes the next one into the other buffer; the event callback reports the end. */
#include "cmsis_driver.h"

#define N 60U

static uint16_t s_frame[2][N];
static uint32_t s_next;
static volatile bool g_spi_done = true;
static volatile uint32_t g_spi_lost;
static uint32_t s_phase;
static const int16_t s_sine[16] = {0, 12539, 23170, 30273, 32767, 30273, 23170, 12539,
                                   0, -12539, -23170, -30273, -32767, -30273, -23170, -12539};

static void spi_cb(uint32_t event)
{
    if ((event & ARM_SPI_EVENT_DATA_LOST) != 0U) {
        g_spi_lost++;
    }
    if ((event & ARM_SPI_EVENT_TRANSFER_COMPLETE) != 0U) {
        dac_chip_select(false);
        g_spi_done = true;
    }
}

static void fill(uint16_t *f)
{
    for (uint32_t i = 0U; i < N; i++) {
        f[i] = (uint16_t)(0x8000 + s_sine[(s_phase + i) & 15U]);
    }
    s_phase = (s_phase + N) & 15U;
}

int main(void)
{
    board_init();
    (void)Driver_SPI1.Initialize(spi_cb);
    (void)Driver_SPI1.PowerControl(ARM_POWER_FULL);
    (void)Driver_SPI1.Control(ARM_SPI_MODE_MASTER | ARM_SPI_CPOL0_CPHA0 | ARM_SPI_DATA_BITS(16), 8000000U);
    for (;;) {
        fill(s_frame[s_next]);
        while (!g_spi_done) {
        }
        g_spi_done = false;
        dac_chip_select(true);
        (void)Driver_SPI1.Send(s_frame[s_next], N);
        s_next ^= 1U;
    }
}
