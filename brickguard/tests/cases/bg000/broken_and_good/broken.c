#include "cmsis_stub.h"

int broken(void)
{
    int x = ;                        /* expect: BG000 */
    return x;
}
