/* brickguard soak: checks for code built for `brickguard soak` (on its include path there).
 *
 *   #include "bg_soak.h"
 *   BG_SOAK_ASSERT(rx_index <= RX_BUFFER_SIZE);
 *
 * A failed assertion records its expression, file and line (the first one per run) and the run
 * goes on; soak reports it as the broken check of that run. Outside soak (BG_SOAK undefined) the
 * macro compiles to nothing.
 */
#ifndef BG_SOAK_H
#define BG_SOAK_H
#ifdef BG_SOAK
void __bg_soak_assert_failed(const char *expr, const char *file, int line);
#define BG_SOAK_ASSERT(cond) \
    do { if (!(cond)) { __bg_soak_assert_failed(#cond, __FILE__, __LINE__); } } while (0)
#else
#define BG_SOAK_ASSERT(cond) do { } while (0)
#endif
#endif
