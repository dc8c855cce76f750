/* Door switch: ERU0 channel 0 fires on the door contact; the handler records that the door was
 * opened. Main arms the alarm, spins until the flag shows up, then sounds the alarm. */
#include "xmc4500.h"

static bool s_door_opened;
static uint32_t s_idle_spins;

void ERU0_0_IRQHandler(void)
{
    XMC_ERU_ETL_ClearStatusFlag(XMC_ERU0, 0U);
    s_door_opened = true;
}

int main(void)
{
    SystemCoreClockUpdate();
    NVIC_SetPriority(ERU0_0_IRQn, 30U);
    for (;;) {
        s_door_opened = false;
        NVIC_ClearPendingIRQ(ERU0_0_IRQn);
        NVIC_EnableIRQ(ERU0_0_IRQn);
        uint32_t spins = 0U;
        while (!s_door_opened) {
            spins++;
        }
        NVIC_DisableIRQ(ERU0_0_IRQn);
        s_idle_spins = spins;
        door_alarm();
    }
}
