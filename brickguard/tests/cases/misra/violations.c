/* Known MISRA C:2012 violations, one rule per marked line (the bridge test reads the marks).
   Everything else here is written to comply, so each mark is the only finding on its line. */
#include <stdint.h>
#include <stdlib.h>

#define SQUARE(x) (x * x)                                   /* misra: 20.7 */

static uint32_t counter;                                    /* misra: 8.9 */
int32_t exported_total;                                     /* misra: 8.4 */

static uint32_t octal_mode(void)
{
    uint32_t mode = 017;                                    /* misra: 7.1 */
    return mode;
}

static int32_t mixed(int32_t a)
{
    uint32_t u = 3u;
    int32_t r = a + u;                                      /* misra: 10.4 */
    return r;
}

static void loops(uint32_t n)
{
    uint32_t i;
    for (i = 0u; i < n; i++)                                /* misra: 15.6 */
        counter++;
}

static uint32_t jumps(uint32_t n)
{
    uint32_t r = n;
    if (n > 3u) {
        goto done;                                          /* misra: 15.1 */
    }
    r = r + 1u;
done:
    return r;
}

static uint32_t choose(uint32_t n)
{
    uint32_t r = 0u;
    switch (n) {                                            /* misra: 16.4 */
    case 1u:
        r = 2u;
        break;
    case 2u:
        r = 3u;
        break;
    }
    return r;
}

static uint32_t test_int(uint32_t n)
{
    uint32_t r = 0u;
    if (n) {                                                /* misra: 14.4 */
        r = 1u;
    }
    return r;
}

static void *heap(void)
{
    return malloc(4u);                                      /* misra: 21.3 */
}

static uint32_t comma(uint32_t a)
{
    uint32_t b;
    uint32_t c = a;
    for (b = 0u, c = 1u; b < 3u; b++) {                     /* misra: 12.3 */
        c = c + 1u;
    }
    return c;
}

static uint32_t side_effects(uint32_t a)
{
    uint32_t x = a;
    uint32_t b = x++ + 1u;                                  /* misra: 13.3 */
    return b;
}

static uint32_t unused_param(uint32_t a, uint32_t b)       /* misra: 2.7 */
{
    return a;
}

static int32_t square(int32_t v)
{
    return SQUARE(v);
}

void run_all(void)                                          /* misra: 8.4 */
{
    void *p;
    (void)octal_mode();
    (void)mixed(1);
    loops(2u);
    (void)jumps(3u);
    (void)choose(4u);
    (void)test_int(5u);
    p = heap();
    free(p);                                                /* misra: 21.3 */
    (void)comma(6u);
    (void)side_effects(7u);
    (void)unused_param(1u, 2u);
    (void)square(3);
    exported_total = 0;
}
