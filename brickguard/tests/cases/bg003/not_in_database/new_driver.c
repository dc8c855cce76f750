/* expect: BG003 */
/* Not in compile_commands.json: parsed with the [build] flags instead, and a note says so. */
#include "cmsis_stub.h"

int new_driver_rev(void) { return 2; }
