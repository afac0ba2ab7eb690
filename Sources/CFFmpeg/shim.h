#ifndef DROPCUT_CFFMPEG_SHIM_H
#define DROPCUT_CFFMPEG_SHIM_H
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavcodec/bsf.h>
#include <libavutil/avutil.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/display.h>
#include <libavutil/dovi_meta.h>
#include <libavutil/mastering_display_metadata.h>
#include <libavutil/channel_layout.h>
#include <libavutil/opt.h>
#include <libavutil/video_enc_params.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>
#include <errno.h>

// FFmpeg spells these as function-like or composite macros, which Swift does not import.
static inline int cff_averror(int posix_errno) { return AVERROR(posix_errno); }
static inline int cff_averror_eof(void) { return AVERROR_EOF; }
static inline int cff_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int cff_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int64_t cff_nopts_value(void) { return AV_NOPTS_VALUE; }
static inline AVRational cff_time_base_q(void) { return AV_TIME_BASE_Q; }
static inline int cff_averror_encoder_not_found(void) { return AVERROR_ENCODER_NOT_FOUND; }
static inline int cff_averror_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }
static inline int cff_averror_muxer_not_found(void) { return AVERROR_MUXER_NOT_FOUND; }
static inline int cff_averror_demuxer_not_found(void) { return AVERROR_DEMUXER_NOT_FOUND; }
#endif
