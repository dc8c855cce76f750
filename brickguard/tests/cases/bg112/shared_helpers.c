/* Helpers called from a timer interrupt and from the main loop: the ones with hidden state are
   reported; reentrant ones, guarded ones, and ones only one context calls are not. */
#include "cmsis_stub.h"

char *strtok(char *s, const char *delim);
char *strtok_r(char *s, const char *delim, char **save);
int rand(void);

volatile uint32_t ticks;
volatile uint32_t count;

static const char *fmt_u32(uint32_t v)
{
    static char buf[11];                          /* only stored to: nothing cached wrongly */
    static const char digits[] = "0123456789";
    buf[0] = digits[v % 10u];                     /* expect: BG112 */
    buf[1] = 0;                                   /* one byte store each: BG112 tells */
    return buf;
}

static uint32_t next_id(void)
{
    static uint32_t id;
    uint32_t r;
    __disable_irq();
    r = ++id;                                     /* guarded: the body is a critical section */
    __enable_irq();
    return r;
}

static uint32_t jitter(void)
{
    return (uint32_t)rand() & 7u;                 /* expect: BG112 */
}

static char *first_word(char *line)
{
    return strtok(line, " ");                     /* expect: BG112 */
}

static char *first_word_r(char *line)
{
    char *save;
    return strtok_r(line, " ", &save);
}

static uint32_t lookup(uint32_t i)
{
    static const uint32_t table[4] = {1u, 2u, 4u, 8u};
    return table[i & 3u];
}

static uint32_t task_only(void)
{
    static uint32_t calls;
    calls++;
    return calls + (uint32_t)rand();
}

void TIM2_IRQHandler(void)
{
    char line[8] = "a b";
    (void)fmt_u32(ticks);
    (void)next_id();
    (void)jitter();
    (void)first_word(line);
    (void)first_word_r(line);
    (void)lookup(ticks);
}

int main(void)
{
    char line[8] = "c d";
    for (;;) {
        (void)fmt_u32(count);
        (void)next_id();
        (void)jitter();
        (void)first_word(line);
        (void)first_word_r(line);
        (void)lookup(count);
        (void)task_only();
    }
}
