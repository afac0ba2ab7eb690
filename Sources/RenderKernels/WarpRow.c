// A row of the general layer warp, eight samples at a time, with AVX2: the arithmetic of
// PlaneOperations+Warp.swift's per-sample loop (source position, Catmull-Rom weights, the
// sixteen taps summed row by row, edge coverage, the blend over what is there), in the
// same order and with the same rounding (no fused multiply-add), so both give the same
// bytes. What baseline x86-64 code cannot do is read the eight samples' 4×4
// neighbourhoods with one gather per tap row (the four taps of a row are adjacent) and
// work on eight lanes; the blocks that reach past the source are left to the Swift loop,
// which clamps each tap.
#include "RenderKernels.h"
#include <stddef.h>

#pragma STDC FP_CONTRACT OFF

#if defined(__x86_64__)
#include <immintrin.h>

bool dropcut_warp_row_available(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
}

#define KERNEL __attribute__((target("avx2"), always_inline)) static inline

/// Catmull-Rom (a = −0.5) weights of the taps at −1, 0, 1, 2 for fractions `t`, as
/// `PlaneOperations.weights` computes them.
KERNEL void weights8(__m256 t, __m256 w[4]) {
    __m256 t2 = _mm256_mul_ps(t, t), t3 = _mm256_mul_ps(t2, t);
    __m256 half = _mm256_set1_ps(0.5f);
    w[0] = _mm256_sub_ps(_mm256_add_ps(_mm256_mul_ps(_mm256_set1_ps(-0.5f), t3), t2), _mm256_mul_ps(half, t));
    w[1] = _mm256_add_ps(_mm256_sub_ps(_mm256_mul_ps(_mm256_set1_ps(1.5f), t3), _mm256_mul_ps(_mm256_set1_ps(2.5f), t2)),
                         _mm256_set1_ps(1.0f));
    w[2] = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(_mm256_set1_ps(-1.5f), t3), _mm256_mul_ps(_mm256_set1_ps(2.0f), t2)),
                         _mm256_mul_ps(half, t));
    w[3] = _mm256_sub_ps(_mm256_mul_ps(half, t3), _mm256_mul_ps(half, t2));
}

/// `((a·w0 + b·w1) + c·w2) + d·w3`: one tap row, or the four rows, in the Swift order.
KERNEL __m256 dot4(__m256 a, __m256 b, __m256 c, __m256 d, const __m256 w[4]) {
    return _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(a, w[0]), _mm256_mul_ps(b, w[1])),
                                       _mm256_mul_ps(c, w[2])), _mm256_mul_ps(d, w[3]));
}

KERNEL __m256 clampUnit8(__m256 x) { return _mm256_min_ps(_mm256_max_ps(x, _mm256_setzero_ps()), _mm256_set1_ps(1.0f)); }

/// What a block needs before its taps are read: where they are and how they weigh.
typedef struct {
    __m256i ix, iy;     // each lane's tap (0, 0)
    __m256i offset;     // sample offset of each lane's top-left tap
    __m256 wx[4], wy[4];
    __m256 coverage;    // unset when opaque
    bool opaque;        // every lane covered whole, the layer opaque
} Block;

/// Sets up the block of samples `k ..< k + 8`; false when a sample's neighbourhood
/// may reach past the source (or its position is not finite).
KERNEL bool block8(const dropcut_warp_row *row, int32_t k, Block *block) {
    // Positions and edges are linear in the sample index, so the block's first and last
    // samples bound the rest — up to Float rounding, which the margins cover (they are
    // far wider than the few ulps by which a lane can stray).
    const float first = (float)k, last = (float)(k + 7);
    const float x0 = row->x + first * row->dx, x7 = row->x + last * row->dx;
    const float y0 = row->y + first * row->dy, y7 = row->y + last * row->dy;
    const float highX = (float)row->lastX - 1.01f, highY = (float)row->lastY - 1.01f;
    // (Written so that a NaN fails: every comparison with it is false.)
    if (!(x0 >= 1.01f && x7 >= 1.01f && x0 <= highX && x7 <= highX
          && y0 >= 1.01f && y7 >= 1.01f && y0 <= highY && y7 <= highY)) return false;
    const __m256 lanes = _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7);
    __m256 kf = _mm256_add_ps(_mm256_set1_ps(first), lanes);
    __m256 x = _mm256_add_ps(_mm256_set1_ps(row->x), _mm256_mul_ps(kf, _mm256_set1_ps(row->dx)));
    __m256 y = _mm256_add_ps(_mm256_set1_ps(row->y), _mm256_mul_ps(kf, _mm256_set1_ps(row->dy)));
    __m256 fx = _mm256_floor_ps(x), fy = _mm256_floor_ps(y);
    weights8(_mm256_sub_ps(x, fx), block->wx);
    weights8(_mm256_sub_ps(y, fy), block->wy);
    __m256i ix = _mm256_cvttps_epi32(fx), iy = _mm256_cvttps_epi32(fy);
    block->ix = ix;
    block->iy = iy;
    block->offset = _mm256_add_epi32(_mm256_mullo_epi32(_mm256_sub_epi32(iy, _mm256_set1_epi32(1)), _mm256_set1_epi32(row->stride)),
                                     _mm256_sub_epi32(ix, _mm256_set1_epi32(1)));
    // Wholly inside every edge (each at least 1 at both ends) and opaque: every lane's
    // coverage × opacity is at least 1, and the sample is the warped value itself.
    block->opaque = row->opacity >= 1;
    for (int e = 0; e < 4 && block->opaque; e++) {
        block->opaque = row->edges[e] + first * row->edgeSteps[e] >= 1.01f && row->edges[e] + last * row->edgeSteps[e] >= 1.01f;
    }
    if (block->opaque) return true;
    __m256 c = clampUnit8(_mm256_add_ps(_mm256_set1_ps(row->edges[0]), _mm256_mul_ps(kf, _mm256_set1_ps(row->edgeSteps[0]))));
    for (int e = 1; e < 4; e++) {
        __m256 edge = _mm256_add_ps(_mm256_set1_ps(row->edges[e]), _mm256_mul_ps(kf, _mm256_set1_ps(row->edgeSteps[e])));
        c = _mm256_mul_ps(c, clampUnit8(edge));
    }
    block->coverage = c;
    return true;
}

/// The warped values blended over `old` at coverage × opacity, clamped and rounded to the
/// nearest code (ties to even, as the Swift loop rounds); uncovered samples keep `old`.
KERNEL __m256i blended8(const dropcut_warp_row *row, const Block *block, __m256 value, __m256 old) {
    __m256 alpha = _mm256_mul_ps(block->coverage, _mm256_set1_ps(row->opacity));
    __m256 mixed = _mm256_add_ps(old, _mm256_mul_ps(_mm256_sub_ps(value, old), alpha));
    mixed = _mm256_blendv_ps(mixed, value, _mm256_cmp_ps(alpha, _mm256_set1_ps(1.0f), _CMP_GE_OQ));
    mixed = _mm256_blendv_ps(old, mixed, _mm256_cmp_ps(block->coverage, _mm256_setzero_ps(), _CMP_GT_OQ));
    mixed = _mm256_min_ps(_mm256_max_ps(mixed, _mm256_setzero_ps()), _mm256_set1_ps(row->maximum));
    return _mm256_cvtps_epi32(mixed);
}

/// An opaque block's values, clamped and rounded (what `blended8` gives when every
/// lane's alpha is at least 1).
KERNEL __m256i clamped8(const dropcut_warp_row *row, __m256 value) {
    return _mm256_cvtps_epi32(_mm256_min_ps(_mm256_max_ps(value, _mm256_setzero_ps()), _mm256_set1_ps(row->maximum)));
}

/// The four tap rows of an 8-bit block, each lane's four taps in its 32-bit lane (what a
/// gather at `offset` gives), read without gathers when the block's taps lie in a 16-byte
/// window of at most six source rows: lanes that walk along the source's rows, whose tap
/// (0, 0) lies on one row, two or three (a turn of up to about 15°). False, having read
/// nothing, otherwise.
KERNEL bool window8(const dropcut_warp_row *row, const Block *block, __m256i taps[4]) {
    // Positions are monotonic in the lane, so the first and last lanes bound the rest.
    const int32_t xa = _mm256_cvtsi256_si32(block->ix), xb = _mm256_extract_epi32(block->ix, 7);
    const int32_t ya = _mm256_cvtsi256_si32(block->iy), yb = _mm256_extract_epi32(block->iy, 7);
    const int32_t x0 = xa < xb ? xa : xb, x1 = xa < xb ? xb : xa;
    const int32_t y0 = ya < yb ? ya : yb, y1 = ya < yb ? yb : ya;
    // 16 bytes from tap −1 of the leftmost lane reach tap 2 of the rightmost; a load
    // past the row's last sample stays in the plane when a row follows.
    if (x1 - x0 > 12 || y1 - y0 > 2 || row->stride < 16) return false;
    if (!(y1 + 2 < row->lastY || x0 + 14 <= row->lastX)) return false;
    const uint8_t *first = (const uint8_t *)row->source + (ptrdiff_t)(y0 - 1) * row->stride + (x0 - 1);
    // Lane l's taps are bytes d, d+1, d+2, d+3 of the window, d = its tap −1's distance from x0.
    __m256i control = _mm256_add_epi32(_mm256_mullo_epi32(_mm256_sub_epi32(block->ix, _mm256_set1_epi32(x0)),
                                                          _mm256_set1_epi32(0x01010101)),
                                       _mm256_set1_epi32(0x03020100));
#define WINDOW_ROW(q) _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(first + (ptrdiff_t)(q) * row->stride))), control)
    __m256i r0 = WINDOW_ROW(0), r1 = WINDOW_ROW(1), r2 = WINDOW_ROW(2), r3 = WINDOW_ROW(3);
    if (y0 == y1) {
        taps[0] = r0; taps[1] = r1; taps[2] = r2; taps[3] = r3;
        return true;
    }
    // Lanes one row down take the next row's taps, two rows down the one after.
    __m256i r4 = WINDOW_ROW(4);
    __m256i down1 = _mm256_cmpgt_epi32(block->iy, _mm256_set1_epi32(y0));
    taps[0] = _mm256_blendv_epi8(r0, r1, down1);
    taps[1] = _mm256_blendv_epi8(r1, r2, down1);
    taps[2] = _mm256_blendv_epi8(r2, r3, down1);
    taps[3] = _mm256_blendv_epi8(r3, r4, down1);
    if (y1 - y0 == 2) {
        __m256i r5 = WINDOW_ROW(5);
        __m256i down2 = _mm256_cmpgt_epi32(block->iy, _mm256_set1_epi32(y0 + 1));
        taps[0] = _mm256_blendv_epi8(taps[0], r2, down2);
        taps[1] = _mm256_blendv_epi8(taps[1], r3, down2);
        taps[2] = _mm256_blendv_epi8(taps[2], r4, down2);
        taps[3] = _mm256_blendv_epi8(taps[3], r5, down2);
    }
#undef WINDOW_ROW
    return true;
}

__attribute__((target("avx2")))
int32_t dropcut_warp_row_u8(const dropcut_warp_row *settings, uint8_t *out, int32_t start, int32_t count) {
    // A local copy: the stores through `out` (bytes, which may alias anything) would
    // otherwise make the compiler read every setting again for each block.
    const dropcut_warp_row copy = *settings, *row = &copy;
    const int *base = (const int *)row->source;
    const __m256i low = _mm256_set1_epi32(0xFF);
    // Byte 1 and byte 2 of each 32-bit lane moved to its low byte, the rest zeroed.
    const __m256i byte1 = _mm256_setr_epi8(1, -1, -1, -1, 5, -1, -1, -1, 9, -1, -1, -1, 13, -1, -1, -1,
                                           1, -1, -1, -1, 5, -1, -1, -1, 9, -1, -1, -1, 13, -1, -1, -1);
    const __m256i byte2 = _mm256_setr_epi8(2, -1, -1, -1, 6, -1, -1, -1, 10, -1, -1, -1, 14, -1, -1, -1,
                                           2, -1, -1, -1, 6, -1, -1, -1, 10, -1, -1, -1, 14, -1, -1, -1);
    const __m256i stride = _mm256_set1_epi32(row->stride);
    int32_t k = start;
    for (; k + 8 <= count; k += 8) {
        Block block;
        if (!block8(row, k, &block)) return k;
        __m256i taps[4];
        if (!window8(row, &block, taps)) {
            // The four taps of each lane's row r: one 32-bit load at its first tap.
            __m256i offset = block.offset;
            for (int r = 0; r < 4; r++) {
                taps[r] = _mm256_i32gather_epi32(base, offset, 1);
                offset = _mm256_add_epi32(offset, stride);
            }
        }
        __m256 h[4];
        for (int r = 0; r < 4; r++) {
            __m256 t0 = _mm256_cvtepi32_ps(_mm256_and_si256(taps[r], low));
            __m256 t1 = _mm256_cvtepi32_ps(_mm256_shuffle_epi8(taps[r], byte1));
            __m256 t2 = _mm256_cvtepi32_ps(_mm256_shuffle_epi8(taps[r], byte2));
            __m256 t3 = _mm256_cvtepi32_ps(_mm256_srli_epi32(taps[r], 24));
            h[r] = dot4(t0, t1, t2, t3, block.wx);
        }
        __m256 value = dot4(h[0], h[1], h[2], h[3], block.wy);
        __m256i codes = block.opaque ? clamped8(row, value)
            : blended8(row, &block, value, _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(out + k)))));
        __m256i words = _mm256_packus_epi32(codes, codes);
        __m128i bytes = _mm_packus_epi16(_mm256_castsi256_si128(words), _mm256_extracti128_si256(words, 1));
        // words: lanes 0-3 then 0-3 again | 4-7 then 4-7; bytes: 0-3, 0-3, 4-7, 4-7.
        bytes = _mm_shuffle_epi32(bytes, _MM_SHUFFLE(3, 1, 2, 0));
        _mm_storel_epi64((__m128i *)(out + k), bytes);
    }
    return k;
}

__attribute__((target("avx2")))
int32_t dropcut_warp_row_u16(const dropcut_warp_row *settings, uint16_t *out, int32_t start, int32_t count) {
    // A local copy: the stores through `out` (bytes, which may alias anything) would
    // otherwise make the compiler read every setting again for each block.
    const dropcut_warp_row copy = *settings, *row = &copy;
    const long long *base = (const long long *)row->source;
    const __m256i low = _mm256_set1_epi32(0xFFFF);
    const __m256i stride = _mm256_set1_epi32(row->stride);
    // The gathers below take lanes 0, 1, 4, 5 and 2, 3, 6, 7, so that picking the two
    // 64-bit loads' even and odd halves gives every lane's taps in lane order.
    const __m256i split = _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7);
    int32_t k = start;
    for (; k + 8 <= count; k += 8) {
        Block block;
        if (!block8(row, k, &block)) return k;
        __m256 h[4];
        __m256i offset = _mm256_permutevar8x32_epi32(block.offset, split);
        for (int r = 0; r < 4; r++) {
            // Each lane's four 16-bit taps of row r: one 64-bit load at its first tap.
            __m256i a = _mm256_i32gather_epi64(base, _mm256_castsi256_si128(offset), 2);
            __m256i b = _mm256_i32gather_epi64(base, _mm256_extracti128_si256(offset, 1), 2);
            __m256i first = _mm256_castps_si256(_mm256_shuffle_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), _MM_SHUFFLE(2, 0, 2, 0)));
            __m256i second = _mm256_castps_si256(_mm256_shuffle_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), _MM_SHUFFLE(3, 1, 3, 1)));
            __m256 t0 = _mm256_cvtepi32_ps(_mm256_and_si256(first, low));
            __m256 t1 = _mm256_cvtepi32_ps(_mm256_srli_epi32(first, 16));
            __m256 t2 = _mm256_cvtepi32_ps(_mm256_and_si256(second, low));
            __m256 t3 = _mm256_cvtepi32_ps(_mm256_srli_epi32(second, 16));
            h[r] = dot4(t0, t1, t2, t3, block.wx);
            offset = _mm256_add_epi32(offset, stride);
        }
        __m256 value = dot4(h[0], h[1], h[2], h[3], block.wy);
        __m256i codes = block.opaque ? clamped8(row, value)
            : blended8(row, &block, value, _mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(out + k)))));
        __m256i words = _mm256_packus_epi32(codes, codes);
        words = _mm256_permute4x64_epi64(words, _MM_SHUFFLE(3, 1, 2, 0));
        _mm_storeu_si128((__m128i *)(out + k), _mm256_castsi256_si128(words));
    }
    return k;
}

#else

bool dropcut_warp_row_available(void) { return false; }

int32_t dropcut_warp_row_u8(const dropcut_warp_row *row, uint8_t *out, int32_t start, int32_t count) {
    // Never called: `dropcut_warp_row_available` is false here. Nothing done.
    (void)row; (void)out; (void)count;
    return start;
}

int32_t dropcut_warp_row_u16(const dropcut_warp_row *row, uint16_t *out, int32_t start, int32_t count) {
    (void)row; (void)out; (void)count;
    return start;
}

#endif
