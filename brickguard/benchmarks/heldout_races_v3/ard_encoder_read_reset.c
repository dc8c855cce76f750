/* Arduino-style sketch on an ARM core: a quadrature encoder on pins 2/3 moves a jog dial; loop()
 * takes the steps accumulated since the last pass. */
#include "arduino_arm.h"

#define PIN_A 2U
#define PIN_B 3U

static volatile int32_t encoderSteps;
static volatile uint32_t lastEdgeMicros;
static int32_t dialPosition;

static void onEncoderA(void)
{
    if (digitalRead(PIN_A) == digitalRead(PIN_B)) {
        encoderSteps++;
    } else {
        encoderSteps--;
    }
    lastEdgeMicros = micros();
}

void setup(void)
{
    serial_begin(115200U);
    pinMode(PIN_A, INPUT_PULLUP);
    pinMode(PIN_B, INPUT_PULLUP);
    attachInterrupt(digitalPinToInterrupt(PIN_A), onEncoderA, CHANGE);
}

void loop(void)
{
    int32_t steps = encoderSteps;
    encoderSteps = 0;
    if (steps != 0) {
        dialPosition += steps;
        serial_print_i32(dialPosition);
        serial_println("");
    }
    if (micros() - lastEdgeMicros > 2000000U) {
        serial_println("idle");
    }
    delay(10U);
}
