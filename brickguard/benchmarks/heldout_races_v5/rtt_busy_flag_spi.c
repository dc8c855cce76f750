/* Shared SPI bus on an STM32F407 with RT-Thread: the logger thread (priority 20) writes records
 * to the SPI flash and the display thread (priority 8) pushes frames to the SPI display; they
 * take turns through a busy flag. */
#include "rtthread.h"

static volatile bool g_spi_busy;
static uint8_t s_frame[256];
static uint8_t s_record[64];
static rt_uint32_t s_addr;

static void bus_acquire(void)
{
    while (g_spi_busy) {
        rt_thread_mdelay(1);
    }
    g_spi_busy = true;
}

static void bus_release(void)
{
    g_spi_busy = false;
}

static void logger_entry(void *parameter)
{
    (void)parameter;
    for (;;) {
        rt_thread_mdelay(50);
        s_record[0] = (uint8_t)rt_tick_get();
        bus_acquire();
        spi_flash_write(s_addr, s_record, sizeof(s_record));
        bus_release();
        s_addr += sizeof(s_record);
    }
}

static void display_entry(void *parameter)
{
    (void)parameter;
    for (;;) {
        rt_thread_mdelay(33);
        s_frame[0]++;
        bus_acquire();
        spi_bus_transfer(s_frame, RT_NULL, sizeof(s_frame));
        bus_release();
    }
}

int main(void)
{
    rt_thread_startup(rt_thread_create("log", logger_entry, RT_NULL, 1024, 20, 10));
    rt_thread_startup(rt_thread_create("disp", display_entry, RT_NULL, 1024, 8, 10));
    return 0;
}
