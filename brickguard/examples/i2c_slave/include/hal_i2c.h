/*
 * hal_i2c.h - a tiny, self-contained stand-in for the STM32 HAL I2C and CMSIS headers.
 * Just enough declarations for the example to parse without a vendor SDK.
 */
#ifndef HAL_I2C_H
#define HAL_I2C_H

#include <stddef.h>
#include <stdint.h>

typedef enum { HAL_OK = 0, HAL_ERROR = 1, HAL_BUSY = 2, HAL_TIMEOUT = 3 } HAL_StatusTypeDef;

typedef struct {
    volatile uint32_t CR1, CR2, OAR1, OAR2, DR, SR1, SR2, CCR, TRISE;
} I2C_TypeDef;

#define I2C1_BASE 0x40005400UL
#define I2C1 ((I2C_TypeDef *)I2C1_BASE)
#define I2C_ADDRESSINGMODE_7BIT 0x00004000U

typedef struct {
    uint32_t ClockSpeed;
    uint32_t OwnAddress1;
    uint32_t AddressingMode;
} I2C_InitTypeDef;

typedef struct __I2C_HandleTypeDef {
    I2C_TypeDef *Instance;
    I2C_InitTypeDef Init;
    volatile uint32_t State;
} I2C_HandleTypeDef;

HAL_StatusTypeDef HAL_Init(void);
HAL_StatusTypeDef HAL_I2C_Init(I2C_HandleTypeDef *hi2c);
HAL_StatusTypeDef HAL_I2C_EnableListen_IT(I2C_HandleTypeDef *hi2c);
HAL_StatusTypeDef HAL_I2C_Slave_Receive_IT(I2C_HandleTypeDef *hi2c, uint8_t *pData, uint16_t Size);
void HAL_I2C_EV_IRQHandler(I2C_HandleTypeDef *hi2c);
void HAL_I2C_ER_IRQHandler(I2C_HandleTypeDef *hi2c);
/* Weak in the real HAL; the application overrides it. Called from HAL_I2C_EV_IRQHandler. */
void HAL_I2C_SlaveRxCpltCallback(I2C_HandleTypeDef *hi2c);

/* CMSIS core intrinsics. */
static inline void __disable_irq(void) { __asm volatile("cpsid i" ::: "memory"); }
static inline void __enable_irq(void) { __asm volatile("cpsie i" ::: "memory"); }
static inline uint32_t __get_PRIMASK(void)
{
    uint32_t result;
    __asm volatile("MRS %0, primask" : "=r"(result));
    return result;
}
static inline void __set_PRIMASK(uint32_t priMask)
{
    __asm volatile("MSR primask, %0" : : "r"(priMask) : "memory");
}

#endif /* HAL_I2C_H */
