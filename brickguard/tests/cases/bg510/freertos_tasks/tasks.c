#include <stdint.h>

typedef void (*TaskFunction_t)(void *);
long xTaskCreate(TaskFunction_t fn, const char *name, uint16_t depth, void *arg,
                 unsigned long prio, void **handle);
void vTaskStartScheduler(void);
volatile uint32_t sink;

#define SMALL_STACK 64   /* words: 256 bytes */

static void fill(volatile uint8_t *p, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = 0;
}

static void vLogger(void *arg)
{
    volatile uint8_t line[512];           /* 512 bytes on a 256-byte stack */
    (void)arg;
    for (;;) {
        fill(line, 512);
        sink = line[3];
    }
}

static void vBlink(void *arg)
{
    (void)arg;
    for (;;)
        sink++;
}

void start(void)
{
    xTaskCreate(vLogger, "log", SMALL_STACK, 0, 1, 0);   /* expect: BG510 */
    xTaskCreate(vBlink, "blink", 128, 0, 1, 0);          /* 512 bytes: enough */
    vTaskStartScheduler();
}
