/* GNSS receiver: the UART0 handler feeds NMEA bytes to the parser and publishes each complete fix;
 * the navigation task takes the latest fix five times a second. */
#include "RTOS.h"

struct fix {
    OS_I32 lat_e7;
    OS_I32 lon_e7;
};

static OS_TASK s_tcb_nav;
static OS_U32 s_stack_nav[256];
static volatile struct fix g_fix;
static OS_I32 s_lat_e7;
static OS_I32 s_lon_e7;

void UART0_RX_TX_IRQHandler(void)
{
    OS_INT_Enter();
    while ((UART0->S1 & UART_S1_RDRF_MASK) != 0U) {
        if (nmea_parse_field(UART0->D, &s_lat_e7, &s_lon_e7) != 0) {
            g_fix.lat_e7 = s_lat_e7;
            g_fix.lon_e7 = s_lon_e7;
        }
    }
    OS_INT_Leave();
}

static void nav_task(void)
{
    for (;;) {
        OS_TASK_Delay(200U);
        struct fix f = g_fix;
        nav_update(f.lat_e7, f.lon_e7);
    }
}

int main(void)
{
    OS_Init();
    OS_InitHW();
    UART0->BDL = 0x88U;
    UART0->C2 = 0x2CU;
    NVIC_SetPriority(UART0_RX_TX_IRQn, 9U);
    NVIC_EnableIRQ(UART0_RX_TX_IRQn);
    OS_TASK_CREATE(&s_tcb_nav, "Nav", 60U, nav_task, s_stack_nav);
    OS_Start();
    return 0;
}
