/* Door alarm on a PSoC 4200 (PSoC Creator): the reed switch interrupt records that the door
 * opened; main sleeps in a polling loop until it did, then sounds the buzzer for a while. */
#include "psoc4.h"

static uint8 s_door_opened;
static uint32 s_openings;

CY_ISR(DoorIsr)
{
    Pin_Door_ClearInterrupt();
    if (Pin_Door_Read() != 0U) {
        s_door_opened = 1U;
    }
}

int main(void)
{
    isr_Pulse_StartEx(DoorIsr);
    isr_Pulse_SetPriority(2U);
    CyGlobalIntEnable;
    for (;;) {
        while (s_door_opened == 0U) {
        }
        s_door_opened = 0U;
        s_openings++;
        Pwm_WriteCompare(500U);
        CyDelay(3000U);
        Pwm_WriteCompare(0U);
    }
}
