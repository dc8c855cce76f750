/* GNSS receiver: the UART0 handler feeds NMEA bytes to the parser and posts each complete fix to a
 * mailbox; the navigation task takes the fixes from the mailbox. */
#include "RTOS.h"

struct fix {
    OS_I32 lat_e7;
    OS_I32 lon_e7;
};

static OS_TASK s_tcb_nav;
static OS_U32 s_stack_nav[256];
static OS_MAILBOX s_fix_mb;
static struct fix s_fix_slots[2];
static OS_I32 s_lat_e7;
static OS_I32 s_lon_e7;

void UART0_RX_TX_IRQHandler(void)
{
    OS_INT_Enter();
    while ((UART0->S1 & UART_S1_RDRF_MASK) != 0U) {
        if (nmea_parse_field(UART0->D, &s_lat_e7, &s_lon_e7) != 0) {
            struct fix f = { s_lat_e7, s_lon_e7 };
            (void)OS_MAILBOX_Put(&s_fix_mb, &f);
        }
    }
    OS_INT_Leave();
}

static void nav_task(void)
{
    for (;;) {
        struct fix f;
        OS_MAILBOX_GetBlocked(&s_fix_mb, &f);
        nav_update(f.lat_e7, f.lon_e7);
    }
}

int main(void)
{
    OS_Init();
    OS_InitHW();
    OS_MAILBOX_Create(&s_fix_mb, sizeof(struct fix), 2U, s_fix_slots);
    UART0->BDL = 0x88U;
    UART0->C2 = 0x2CU;
    NVIC_SetPriority(UART0_RX_TX_IRQn, 9U);
    NVIC_EnableIRQ(UART0_RX_TX_IRQn);
    OS_TASK_CREATE(&s_tcb_nav, "Nav", 60U, nav_task, s_stack_nav);
    OS_Start();
    return 0;
}
