/* Demo: an audio player on the v2 media API, fed from a ring of PCM frames. */
#include "bk_hal.h"
#include "media.h"

#define FRAME_BYTES 512U
#define RING_FRAMES 4U

static media_ctx_t *player_ctx;
static media_pipeline_t *player;
static uint8_t ring[RING_FRAMES][FRAME_BYTES];
static volatile uint8_t ring_head;
static uint8_t ring_tail;
static volatile int last_event;

static void on_media_event(media_pipeline_t *pipeline, int event, void *user) {
  (void)pipeline;
  (void)user;
  last_event = event;
}

int player_open(uint32_t sample_rate, uint8_t channels) {
  media_ctx_config_t ctx_cfg = {0};
  media_config_t cfg = {0};

  if (channels > MEDIA_MAX_CHANNELS) {
    return MEDIA_ERR_PARAM;
  }
  ctx_cfg.heap_bytes = 16384U;
  ctx_cfg.max_pipelines = 1U;
  player_ctx = media_ctx_create(&ctx_cfg);
  if (player_ctx == NULL) {
    return MEDIA_ERR_NOMEM;
  }

  cfg.format = MEDIA_FMT_PCM16;
  cfg.sample_rate = sample_rate;
  cfg.channels = channels;
  cfg.period_frames = 256U;
  cfg.latency_ms = 20U;
  player = media_pipeline_create(player_ctx, &cfg);
  if (player == NULL) {
    media_ctx_destroy(player_ctx);
    return MEDIA_ERR_NOMEM;
  }
  (void)media_set_event_callback(player, on_media_event, NULL);
  (void)media_set_volume(player, 80U);
  return media_pipeline_start(player_ctx, player);
}

int player_feed(void) {
  int pushed = 0;

  while (ring_tail != ring_head) {
    int rc = media_stream_push(player, ring[ring_tail], FRAME_BYTES);
    if (rc == MEDIA_ERR_BUSY) {
      break;
    }
    if (rc != MEDIA_OK) {
      return rc;
    }
    ring_tail = (uint8_t)((ring_tail + 1U) % RING_FRAMES);
    pushed++;
  }
  return pushed;
}

int player_pause(void) {
  if (media_get_state(player) != MEDIA_STATE_RUNNING) {
    return MEDIA_ERR_STATE;
  }
  return media_pipeline_pause(player_ctx, player);
}

uint32_t player_position_ms(void) { return media_get_position_ms(player); }

void player_close(void) {
  (void)media_pipeline_stop(player_ctx, player);
  media_pipeline_destroy(player_ctx, player);
  media_ctx_destroy(player_ctx);
  player = NULL;
  player_ctx = NULL;
}

void player_ring_put(const uint8_t *frame) {
  for (uint32_t i = 0U; i < FRAME_BYTES; i++) {
    ring[ring_head][i] = frame[i];
  }
  ring_head = (uint8_t)((ring_head + 1U) % RING_FRAMES);
}
