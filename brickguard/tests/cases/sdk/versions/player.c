/* Code half-ported from media API v1 to v2: v1 names and signatures are BG204, v2 ones are fine. */
#include "media.h"

static media_ctx_t *ctx;
static media_pipeline_t *pipe;
static uint8_t frame[64];

int player_run(void) {
  media_config_t cfg = {0};

  cfg.period_frames = 128U;
  cfg.buffer_frames = 128U; /* expect: BG204 */
  pipe = media_pipeline_create(ctx, &cfg);
  (void)media_pipeline_start(ctx, pipe);
  (void)media_pipeline_start(pipe); /* expect: BG204 */
  (void)media_stream_push(pipe, frame, sizeof(frame));
  (void)media_stream_write(pipe, frame, sizeof(frame)); /* expect: BG204 */
  (void)media_set_volume(pipe, 10U, 3U); /* expect: BG202 */
  return media_init(); /* expect: BG204 */
}
