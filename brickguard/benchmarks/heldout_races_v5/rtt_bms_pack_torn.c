/* Four-cell battery manager on an STM32F407 with RT-Thread. ADC1 scans the four cell taps and
 * the shunt by circular DMA; at each transfer-complete the DMA2 stream 0 handler reduces the scan
 * into a pack summary (lowest and highest cell with their indices, pack current). The manager
 * thread copies the summary every 100 ms, runs the charge state machine (CHARGE -> BALANCE ->
 * FULL, any limit -> FAULT) and bleeds the highest cell while balancing; a 1 s hard timer counts
 * charge, and the debug UART can request a fault reset. */
#include "rtthread.h"

#define CELLS 4U
#define SCAN (CELLS + 1U)
#define CELL_MAX_MV 4200U
#define CELL_MIN_MV 3000U
#define BALANCE_DELTA_MV 30U

enum bms_state { BMS_CHARGE, BMS_BALANCE, BMS_FULL, BMS_FAULT };

struct pack_summary {
    rt_uint16_t min_mv;
    rt_uint16_t max_mv;
    rt_uint8_t min_idx;
    rt_uint8_t max_idx;
    rt_int32_t current_ma;
    rt_uint32_t seq;
};

static uint16_t s_scan[SCAN]; /* 480-cycle sampling: one conversion every ~20 us */
static struct pack_summary g_pack;
static volatile rt_uint32_t g_charge_mas;
static volatile bool g_reset_req;
static rt_timer_t s_coulomb_timer;
static enum bms_state s_state = BMS_CHARGE;
static rt_uint8_t s_bleeding = 0xFFU;
static rt_uint32_t s_faults;

void DMA2_Stream0_IRQHandler(void)
{
    rt_interrupt_enter();
    if ((DMA2_LISR & DMA_LISR_TCIF0) != 0U) {
        DMA2_LIFCR = DMA_LISR_TCIF0;
        rt_uint8_t lo = 0U, hi = 0U;
        for (rt_uint8_t i = 1U; i < CELLS; i++) {
            if (s_scan[i] < s_scan[lo]) {
                lo = i;
            }
            if (s_scan[i] > s_scan[hi]) {
                hi = i;
            }
        }
        g_pack.min_mv = s_scan[lo];
        g_pack.min_idx = lo;
        g_pack.max_mv = s_scan[hi];
        g_pack.max_idx = hi;
        g_pack.current_ma = ((rt_int32_t)s_scan[CELLS] - 2048) * 10;
        g_pack.seq++;
    }
    rt_interrupt_leave();
}

void USART2_IRQHandler(void)
{
    rt_interrupt_enter();
    if ((USART2_SR & (1U << 5)) != 0U && (char)USART2_DR == 'r') {
        g_reset_req = true;
    }
    rt_interrupt_leave();
}

static void coulomb_tick(void *parameter)
{
    (void)parameter;
    g_charge_mas += (rt_uint32_t)(g_pack.current_ma > 0 ? g_pack.current_ma : 0);
}

static void bleed(rt_uint8_t cell)
{
    if (cell != s_bleeding) {
        s_bleeding = cell; /* the balancing FET driver is written here in the real board code */
        rt_kprintf("bleed cell %d\n", cell == 0xFFU ? -1 : cell);
    }
}

static void manager_entry(void *parameter)
{
    (void)parameter;
    for (;;) {
        rt_thread_mdelay(100);
        struct pack_summary p = g_pack;
        if (s_state != BMS_FAULT && (p.max_mv > CELL_MAX_MV + 50U || p.min_mv < CELL_MIN_MV)) {
            s_state = BMS_FAULT;
            s_faults++;
            charger_enable(false);
            bleed(0xFFU);
            rt_kprintf("fault: cells %u..%u mV\n", p.min_mv, p.max_mv);
        }
        switch (s_state) {
        case BMS_CHARGE:
            charger_enable(true);
            if (p.max_mv >= CELL_MAX_MV) {
                s_state = BMS_BALANCE;
            }
            break;
        case BMS_BALANCE:
            charger_enable(false);
            if ((rt_uint32_t)(p.max_mv - p.min_mv) > BALANCE_DELTA_MV) {
                bleed(p.max_idx);
            } else {
                bleed(0xFFU);
                s_state = BMS_FULL;
                rt_kprintf("full after %lu mAs\n", (unsigned long)g_charge_mas);
            }
            break;
        case BMS_FULL:
            if (p.max_mv < CELL_MAX_MV - 100U) {
                s_state = BMS_CHARGE;
            }
            break;
        case BMS_FAULT:
            if (g_reset_req) {
                g_reset_req = false;
                s_state = BMS_CHARGE;
            }
            break;
        }
    }
}

int main(void)
{
    adc_dma_start(s_scan, SCAN);
    NVIC_SetPriority(DMA2_Stream0_IRQn, 3U);
    NVIC_SetPriority(USART2_IRQn, 6U);
    NVIC_EnableIRQ(DMA2_Stream0_IRQn);
    NVIC_EnableIRQ(USART2_IRQn);
    s_coulomb_timer = rt_timer_create("coul", coulomb_tick, RT_NULL, RT_TICK_PER_SECOND,
                                      RT_TIMER_FLAG_PERIODIC | RT_TIMER_FLAG_HARD_TIMER);
    rt_timer_start(s_coulomb_timer);
    rt_thread_startup(rt_thread_create("bms", manager_entry, RT_NULL, 2048, 9, 10));
    return 0;
}
