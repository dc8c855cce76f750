/* In the compile database: parsed with its own flags (BOARD_REV comes from them). */
#include "cmsis_stub.h"

int board_rev(void) { return BOARD_REV; }
