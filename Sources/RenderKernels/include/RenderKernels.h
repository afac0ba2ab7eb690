// Hand-vectorised inner loops of Render, for the CPUs that have the instructions, picked
// at run time. Each has a portable Swift twin in Render that it must match exactly (the
// tests compare the two): these only make the common case faster.
#ifndef DROPCUT_RENDER_KERNELS_H
#define DROPCUT_RENDER_KERNELS_H

#include <stdbool.h>
#include <stdint.h>

/// What `ToneMapLUT`'s flat-block loop needs, in the table's grid units (see
/// Sources/Render/HDR/ToneMapLUT.swift, whose block loop this repeats eight blocks wide).
typedef struct {
    /// The table: four floats per node (Y', Cb, Cr in 8-bit codes, one unused), node
    /// `(r·n + g)·n + b`.
    const float *nodes;
    /// Nodes per axis.
    int32_t n;
    /// Luma code `c` lies at `(c − yOffset) · lumaScale` on every axis.
    float yOffset, lumaScale;
    /// Chroma codes are centred on `cOffset`; the source matrix moves R, G, B by these.
    float cOffset, crToR, crToG, cbToG, cbToB;
    /// The largest luma spread (grid cells) of a block read once at its mean.
    float flatSpread;
} dropcut_tone_map_grid;

/// True when this CPU (and its OS) runs `dropcut_tone_map_row_u16`: x86-64 with AVX2.
bool dropcut_tone_map_row_available(void);

/// Tone maps `groups` groups of eight 2×2 blocks of 16-bit 4:2:0 samples — one row of
/// blocks: 16·groups luma samples from each of `y0` and `y1`, 8·groups from each of `u`
/// and `v` — into 8-bit samples: 16·groups lumas to each of `o0` and `o1`, 8·groups chroma
/// samples to each of `ou` and `ov`. Only on a CPU for which
/// `dropcut_tone_map_row_available` is true.
void dropcut_tone_map_row_u16(const dropcut_tone_map_grid *grid,
                              const uint16_t *y0, const uint16_t *y1,
                              const uint16_t *u, const uint16_t *v,
                              uint8_t *o0, uint8_t *o1, uint8_t *ou, uint8_t *ov, int32_t groups);

/// One canvas row of a general layer warp, as `PlaneOperations.warp`'s row loop sees it
/// (Sources/Render/Video/PlaneOperations+Warp.swift, whose per-sample arithmetic the kernels
/// repeat eight samples wide): sample `k` of the row reads the source at
/// `(x + k·dx, y + k·dy)` and is covered by `∏ clamp(edges[e] + k·edgeSteps[e], 0, 1)`.
typedef struct {
    /// Sample (0, 0) of the source plane (8- or 16-bit samples), `stride` samples a row,
    /// `lastX`/`lastY` its last column and row.
    const void *source;
    int32_t stride, lastX, lastY;
    /// Source position of the row's sample 0, and its step per sample.
    float x, y, dx, dy;
    /// Edge functions at sample 0, and their steps per sample.
    float edges[4], edgeSteps[4];
    /// The layer's opacity (0...1) and the largest sample value (255, 1023).
    float opacity, maximum;
} dropcut_warp_row;

/// True when this CPU (and its OS) runs the warp kernels: x86-64 with AVX2.
bool dropcut_warp_row_available(void);

/// Warps samples `start`, `start + 8`, ... of `row` into `out` (the row's sample 0) in
/// blocks of eight, while every sample of a block reads its 4×4 neighbourhood wholly
/// inside the source, and returns where it stopped: the first block that reaches past the
/// source (left to the caller's scalar loop), or the last whole block's end. Only on a CPU
/// for which `dropcut_warp_row_available` is true; `(lastY + 1)·stride` must fit 31 bits
/// and `count` 24 bits.
int32_t dropcut_warp_row_u8(const dropcut_warp_row *row, uint8_t *out, int32_t start, int32_t count);
/// The same for 16-bit samples.
int32_t dropcut_warp_row_u16(const dropcut_warp_row *row, uint16_t *out, int32_t start, int32_t count);

#endif
