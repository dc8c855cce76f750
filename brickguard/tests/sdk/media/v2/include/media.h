/* Media pipeline API, version 2: explicit contexts (several codecs per board), pushes instead of
 * writes. Breaking changes from v1: a leading media_ctx_t * on the pipeline life-cycle calls,
 * media_stream_write renamed media_stream_push, media_init replaced by media_ctx_create, the config
 * field buffer_frames renamed period_frames. */
#ifndef MEDIA_H
#define MEDIA_H

#include <stddef.h>
#include <stdint.h>

#define MEDIA_API_VERSION 2
#define MEDIA_MAX_CHANNELS 8
#define MEDIA_OK 0
#define MEDIA_ERR_PARAM (-1)
#define MEDIA_ERR_NOMEM (-2)
#define MEDIA_ERR_STATE (-3)
#define MEDIA_ERR_BUSY (-4)

typedef enum {
  MEDIA_FMT_PCM16 = 0,
  MEDIA_FMT_PCM24 = 1,
  MEDIA_FMT_ADPCM = 2,
  MEDIA_FMT_OPUS = 3
} media_format_t;
typedef enum { MEDIA_STATE_IDLE = 0, MEDIA_STATE_RUNNING = 1, MEDIA_STATE_PAUSED = 2 } media_state_t;

typedef struct {
  media_format_t format;
  uint32_t sample_rate;
  uint8_t channels;
  uint16_t period_frames;
  uint16_t latency_ms;
} media_config_t;

typedef struct {
  uint32_t heap_bytes;
  uint8_t max_pipelines;
} media_ctx_config_t;

typedef struct media_ctx media_ctx_t;
typedef struct media_pipeline media_pipeline_t;
typedef void (*media_event_cb)(media_pipeline_t *pipeline, int event, void *user);

media_ctx_t *media_ctx_create(const media_ctx_config_t *config);
void media_ctx_destroy(media_ctx_t *ctx);
media_pipeline_t *media_pipeline_create(media_ctx_t *ctx, const media_config_t *config);
int media_pipeline_start(media_ctx_t *ctx, media_pipeline_t *pipeline);
int media_pipeline_stop(media_ctx_t *ctx, media_pipeline_t *pipeline);
int media_pipeline_pause(media_ctx_t *ctx, media_pipeline_t *pipeline);
void media_pipeline_destroy(media_ctx_t *ctx, media_pipeline_t *pipeline);
int media_stream_push(media_pipeline_t *pipeline, const void *data, size_t len);
int media_set_volume(media_pipeline_t *pipeline, uint8_t volume);
int media_set_event_callback(media_pipeline_t *pipeline, media_event_cb cb, void *user);
uint32_t media_get_position_ms(const media_pipeline_t *pipeline);
media_state_t media_get_state(const media_pipeline_t *pipeline);

#endif /* MEDIA_H */
