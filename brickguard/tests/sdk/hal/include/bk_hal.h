/* The HAL umbrella header: include this one. */
#ifndef BK_HAL_H
#define BK_HAL_H

#include "bk_hal_def.h"
#include "bk_hal_rcc.h"
#include "bk_hal_gpio.h"
#include "bk_hal_dma.h"
#include "bk_hal_uart.h"
#include "bk_hal_i2c.h"
#include "bk_hal_spi.h"
#include "bk_hal_tim.h"

#endif /* BK_HAL_H */
