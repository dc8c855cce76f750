/* Command port of an APM32F103 motor board: USART1 receives fixed 8-byte frames
 * (0xA5, command, argument high/low, 3 spare, checksum) by DMA1 channel 5 into s_rx, in normal
 * mode, one frame per transfer. main waits for the transfer-complete flag, checks the sync byte,
 * executes the command and re-arms the channel. At 115200 baud a byte takes 87 us. */
#include "apm32f10x.h"

#define FRAME 8U
#define SYNC 0xA5U

static volatile uint8_t s_rx[FRAME];
static volatile uint32_t s_dma_errors;
static uint32_t s_speed;
static bool s_running;

static void arm_rx(void)
{
    DMA_Config_T cfg;
    cfg.peripheralBaseAddr = (uint32_t)(uintptr_t)&USART1->DATA;
    cfg.memoryBaseAddr = (uint32_t)(uintptr_t)s_rx;
    cfg.dir = DMA_DIR_PERIPHERAL_SRC;
    cfg.bufferSize = FRAME;
    cfg.peripheralInc = DMA_PERIPHERAL_INC_DISABLE;
    cfg.memoryInc = DMA_MEMORY_INC_ENABLE;
    cfg.peripheralDataSize = DMA_PERIPHERAL_DATA_SIZE_BYTE;
    cfg.memoryDataSize = DMA_MEMORY_DATA_SIZE_BYTE;
    cfg.loopMode = DMA_MODE_NORMAL;
    cfg.priority = DMA_PRIORITY_HIGH;
    cfg.M2M = DMA_M2MEN_DISABLE;
    DMA_Disable(DMA1_Channel5);
    DMA_ClearStatusFlag(DMA1_FLAG_TC5);
    DMA_Config(DMA1_Channel5, &cfg);
    DMA_Enable(DMA1_Channel5);
}

static void execute(uint8_t cmd, uint16_t arg)
{
    if (cmd == 0x01U) {
        s_speed = arg;
        s_running = true;
    } else if (cmd == 0x02U) {
        s_running = false;
    } else {
        s_dma_errors++;
    }
    TMR3->CC1 = s_running ? s_speed : 0U;
}

int main(void)
{
    APM_BOARD_Init();
    USART_EnableDMA(USART1, USART_DMA_RX);
    USART_Enable(USART1);
    arm_rx();

    for (;;) {
        uint8_t cmd;
        uint16_t arg;
        while (DMA_ReadStatusFlag(DMA1_FLAG_TC5) == 0U) {
        }
        if (s_rx[0] != SYNC) {
            arm_rx();
            continue;
        }
        cmd = s_rx[1];
        arg = (uint16_t)(((uint16_t)s_rx[2] << 8) | s_rx[3]);
        execute(cmd, arg);
        s_rx[0] = 0U;
        arm_rx();
    }
}
