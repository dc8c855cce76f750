/* Arduino-style sketch on an ARM core: a blink pattern stepped from the core's SysTick hook (it
 * runs in the SysTick interrupt every millisecond); loop() changes the pattern on a button. */
#include "arduino_arm.h"

#define LED_PIN 13U
#define BUTTON_PIN 7U

static const uint16_t patterns[3][4] = {
    {500U, 500U, 500U, 500U},
    {100U, 100U, 100U, 700U},
    {50U, 950U, 50U, 950U},
};

static volatile uint32_t patternIndex;
static uint32_t hookPhase;
static uint32_t hookElapsed;
static volatile uint32_t hookTicks;

int sysTickHook(void)
{
    const uint16_t *p = patterns[patternIndex];
    hookTicks = hookTicks + 1U;
    if (++hookElapsed >= p[hookPhase]) {
        hookElapsed = 0U;
        hookPhase = (hookPhase + 1U) % 4U;
        digitalWrite(LED_PIN, (hookPhase % 2U) == 0U ? HIGH : LOW);
    }
    return 0;
}

void setup(void)
{
    pinMode(LED_PIN, OUTPUT);
    pinMode(BUTTON_PIN, INPUT_PULLUP);
}

void loop(void)
{
    static int lastButton = HIGH;
    int b = digitalRead(BUTTON_PIN);
    if (b == LOW && lastButton == HIGH) {
        patternIndex = (patternIndex + 1U) % 3U;
    }
    lastButton = b;
    if ((hookTicks % 10000U) == 0U) {
        serial_println("alive");
    }
    delay(20U);
}
