#include "cmsis_stub.h"
extern volatile uint16_t samples[8];
extern volatile uint8_t sample_count;
void start_conversion(void);
