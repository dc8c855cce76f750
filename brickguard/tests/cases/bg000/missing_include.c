#include "board_config_that_does_not_exist.h"   /* expect: BG000 */

int main(void) { return 0; }
