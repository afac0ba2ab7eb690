// A row of 2×2 blocks through the tone-map table, eight at a time, with AVX2: the arithmetic of
// ToneMapLUT.swift's block loop (flat blocks read once at their mean, the others pixel by
// pixel), in the same order and with the same rounding (no fused multiply-add: the
// functions are compiled for AVX2 only), so both give the same bytes. The gain over the
// Swift twin is what baseline x86-64 code cannot do: eight lanes, the table's
// corners loaded and transposed in registers, and packing the codes without extracting
// lanes one by one.
#include "RenderKernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

bool dropcut_tone_map_row_available(void) {
    // The compiler's CPU model checks the OS's saved-state support as well (XGETBV), so a
    // kernel that does not save the YMM registers reports no AVX2.
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
}

#define ROUNDING (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define KERNEL __attribute__((target("avx2"))) static inline

KERNEL __m256 max8(__m256 a, __m256 b) { return _mm256_blendv_ps(a, b, _mm256_cmp_ps(b, a, _CMP_GT_OQ)); }
KERNEL __m256 min8(__m256 a, __m256 b) { return _mm256_blendv_ps(a, b, _mm256_cmp_ps(b, a, _CMP_LT_OQ)); }
KERNEL __m256 clamp8(__m256 x, float low, float high) {
    return min8(max8(x, _mm256_set1_ps(low)), _mm256_set1_ps(high));
}
/// Rounded to nearest (ties to even, as the Swift twin's rounding bias does) after clamping.
KERNEL __m256i codes8(__m256 x, float low, float high) { return _mm256_cvtps_epi32(clamp8(x, low, high)); }

/// Sixteen 8-bit codes, interleaved `even[0], odd[0], even[1], ...` (each code ≤ 255 in a
/// 32-bit lane), stored at `out`.
KERNEL void storeInterleaved(uint8_t *out, __m256i even, __m256i odd) {
    __m256i words = _mm256_or_si256(even, _mm256_slli_epi32(odd, 16));      // 16 × u16, in order per 128-bit half
    __m256i bytes = _mm256_packus_epi16(words, words);                     // 8 bytes per half, twice
    __m256i joined = _mm256_permute4x64_epi64(bytes, _MM_SHUFFLE(3, 1, 2, 0)); // both halves' first 8 bytes, low
    _mm_storeu_si128((__m128i *)out, _mm256_castsi256_si128(joined));
}

/// Eight 8-bit codes (each in a 32-bit lane) stored at `out`.
KERNEL void storeEight(uint8_t *out, __m256i codes) {
    __m256i words = _mm256_packus_epi32(codes, codes);                     // 4 × u16 per half, twice
    __m256i joined = _mm256_permute4x64_epi64(words, _MM_SHUFFLE(3, 1, 2, 0));
    __m128i bytes = _mm_packus_epi16(_mm256_castsi256_si128(joined), _mm256_castsi256_si128(joined));
    _mm_storel_epi64((__m128i *)out, bytes);
}

/// The table read by tetrahedral interpolation at eight points (grid units, clamped to the
/// cube first, as `ToneMapLUT.Grid.lookup`): Y', Cb, Cr and the luma's slope along the
/// grey diagonal.
typedef struct { __m256 y, cb, cr, slope; } Lookup;

KERNEL Lookup lookup8(const dropcut_tone_map_grid *grid, __m256 r, __m256 g, __m256 b) {
    const float top = (float)(grid->n - 1);
    const __m256 zero = _mm256_setzero_ps(), topV = _mm256_set1_ps(top), half = _mm256_set1_ps(0.5f);
    __m256 xr = min8(max8(r, zero), topV), xg = min8(max8(g, zero), topV), xb = min8(max8(b, zero), topV);
    // The cell's lower node: x − ½ rounded to nearest, within 0 ... n − 2.
    __m256 ir = _mm256_round_ps(clamp8(_mm256_sub_ps(xr, half), 0, top - 1), ROUNDING);
    __m256 ig = _mm256_round_ps(clamp8(_mm256_sub_ps(xg, half), 0, top - 1), ROUNDING);
    __m256 ib = _mm256_round_ps(clamp8(_mm256_sub_ps(xb, half), 0, top - 1), ROUNDING);
    __m256 fr = _mm256_sub_ps(xr, ir), fg = _mm256_sub_ps(xg, ig), fb = _mm256_sub_ps(xb, ib);
    const int32_t strideR = grid->n * grid->n, strideG = grid->n, corner = strideR + strideG + 1;
    __m256i index = _mm256_cvtps_epi32(_mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(ir, _mm256_set1_ps((float)strideR)),
                                                                   _mm256_mul_ps(ig, _mm256_set1_ps((float)strideG))), ib));
    // The path through the cell: the largest fraction's axis first, the smallest's last.
    __m256i rg = _mm256_castps_si256(_mm256_cmp_ps(fr, fg, _CMP_GE_OQ));
    __m256i rb = _mm256_castps_si256(_mm256_cmp_ps(fr, fb, _CMP_GE_OQ));
    __m256i gb = _mm256_castps_si256(_mm256_cmp_ps(fg, fb, _CMP_GE_OQ));
    __m256i redFirst = _mm256_and_si256(rg, rb), redLast = _mm256_andnot_si256(_mm256_or_si256(rg, rb), _mm256_set1_epi32(-1));
    __m256i vR = _mm256_set1_epi32(strideR), vG = _mm256_set1_epi32(strideG), one = _mm256_set1_epi32(1);
    __m256i first = _mm256_blendv_epi8(_mm256_blendv_epi8(one, vG, gb), vR, redFirst);
    __m256i last = _mm256_blendv_epi8(_mm256_blendv_epi8(vG, one, gb), vR, redLast);
    __m256 hi = max8(fr, max8(fg, fb)), lo = min8(fr, min8(fg, fb));
    __m256 mid = _mm256_sub_ps(_mm256_sub_ps(_mm256_add_ps(_mm256_add_ps(fr, fg), fb), hi), lo);

    // The four corners, as offsets in floats (four per node).
    __m256i i0 = _mm256_slli_epi32(index, 2);
    __m256i i1 = _mm256_add_epi32(i0, _mm256_slli_epi32(first, 2));
    __m256i i2 = _mm256_add_epi32(i0, _mm256_slli_epi32(_mm256_sub_epi32(_mm256_set1_epi32(corner), last), 2));
    __m256i i3 = _mm256_add_epi32(i0, _mm256_set1_epi32(4 * corner));
    // Each lane's corner node is one 16-byte load; four loads' worth of lanes are then
    // transposed into Y', Cb and Cr vectors (cheaper than three gathers per corner).
    __m256 corners[4][3];
    const __m256i offsets[4] = {i0, i1, i2, i3};
    for (int k = 0; k < 4; k++) {
        int32_t at[8];
        _mm256_storeu_si256((__m256i *)at, offsets[k]);
        const float *nodes = grid->nodes;
        __m256 r0 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(nodes + at[0])), _mm_loadu_ps(nodes + at[4]), 1);
        __m256 r1 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(nodes + at[1])), _mm_loadu_ps(nodes + at[5]), 1);
        __m256 r2 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(nodes + at[2])), _mm_loadu_ps(nodes + at[6]), 1);
        __m256 r3 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(nodes + at[3])), _mm_loadu_ps(nodes + at[7]), 1);
        __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
        __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
        corners[k][0] = _mm256_shuffle_ps(t0, t2, 0x44);
        corners[k][1] = _mm256_shuffle_ps(t0, t2, 0xEE);
        corners[k][2] = _mm256_shuffle_ps(t1, t3, 0x44);
    }
    __m256 value[3];
    Lookup result;
    for (int k = 0; k < 3; k++) {
        __m256 c0 = corners[0][k], c1 = corners[1][k], c2 = corners[2][k], c3 = corners[3][k];
        // c0 + h·(c1 − c0), then + (m·(c2 − c1) + l·(c3 − c2)): the Swift paths' order.
        __m256 sum = _mm256_add_ps(c0, _mm256_mul_ps(hi, _mm256_sub_ps(c1, c0)));
        value[k] = _mm256_add_ps(sum, _mm256_add_ps(_mm256_mul_ps(mid, _mm256_sub_ps(c2, c1)),
                                                    _mm256_mul_ps(lo, _mm256_sub_ps(c3, c2))));
        if (k == 0) result.slope = _mm256_sub_ps(c3, c0);
    }
    result.y = value[0];
    result.cb = value[1];
    result.cr = value[2];
    return result;
}

/// Textured blocks (or blocks reaching past the cube) waiting to be read pixel by pixel:
/// two fill the eight lanes of a lookup, their four pixels each in lanes 4·slot ..< 4·slot + 4.
typedef struct {
    int count;
    float r[8], g[8], b[8];
    uint8_t *o0[2], *o1[2], *ou[2], *ov[2];
} Pending;

/// Reads the pending blocks' pixels and writes their codes: each pixel's own luma, and the
/// mean of the four pixels' chroma (a 4:2:0 downsample), summed in the Swift loop's order.
KERNEL void flush(const dropcut_tone_map_grid *grid, Pending *pending) {
    if (pending->count == 0) return;
    Lookup p = lookup8(grid, _mm256_loadu_ps(pending->r), _mm256_loadu_ps(pending->g), _mm256_loadu_ps(pending->b));
    int32_t luma[8];
    float cb[8], cr[8];
    _mm256_storeu_si256((__m256i *)luma, codes8(p.y, 16, 254));
    _mm256_storeu_ps(cb, p.cb);
    _mm256_storeu_ps(cr, p.cr);
    for (int slot = 0; slot < pending->count; slot++) {
        const int k = 4 * slot;
        pending->o0[slot][0] = (uint8_t)luma[k];
        pending->o0[slot][1] = (uint8_t)luma[k + 1];
        pending->o1[slot][0] = (uint8_t)luma[k + 2];
        pending->o1[slot][1] = (uint8_t)luma[k + 3];
        __m128 chroma = _mm_set_ps(0, (((cr[k] + cr[k + 1]) + cr[k + 2]) + cr[k + 3]) * 0.25f,
                                   (((cb[k] + cb[k + 1]) + cb[k + 2]) + cb[k + 3]) * 0.25f, 0);
        chroma = _mm_min_ps(_mm_max_ps(chroma, _mm_set1_ps(16)), _mm_set1_ps(240));
        __m128i chromaCodes = _mm_cvtps_epi32(chroma);
        pending->ou[slot][0] = (uint8_t)_mm_extract_epi32(chromaCodes, 1);
        pending->ov[slot][0] = (uint8_t)_mm_extract_epi32(chromaCodes, 2);
    }
    pending->count = 0;
}

__attribute__((target("avx2")))
void dropcut_tone_map_row_u16(const dropcut_tone_map_grid *grid,
                              const uint16_t *y0, const uint16_t *y1,
                              const uint16_t *u, const uint16_t *v,
                              uint8_t *o0, uint8_t *o1, uint8_t *ou, uint8_t *ov, int32_t groups) {
    const float top = (float)(grid->n - 1);
    const __m256 yOffset = _mm256_set1_ps(grid->yOffset), lumaScale = _mm256_set1_ps(grid->lumaScale);
    const __m256 cOffset = _mm256_set1_ps(grid->cOffset);
    const __m256 crToR = _mm256_set1_ps(grid->crToR), crToG = _mm256_set1_ps(grid->crToG);
    const __m256 cbToG = _mm256_set1_ps(grid->cbToG), cbToB = _mm256_set1_ps(grid->cbToB);
    const __m256i lowHalf = _mm256_set1_epi32(0xFFFF);
    Pending pending;
    pending.count = 0;
    for (int32_t group = 0; group < groups; group++) {
        const int32_t bx = 8 * group;
        // The blocks' four lumas in grid units: a, b the top row's even and odd pixels,
        // c, d the bottom row's; the chroma as an offset along each of R, G, B.
        __m256i top0 = _mm256_loadu_si256((const __m256i *)(y0 + 2 * bx));
        __m256i top1 = _mm256_loadu_si256((const __m256i *)(y1 + 2 * bx));
        __m256 a = _mm256_mul_ps(_mm256_sub_ps(_mm256_cvtepi32_ps(_mm256_and_si256(top0, lowHalf)), yOffset), lumaScale);
        __m256 b = _mm256_mul_ps(_mm256_sub_ps(_mm256_cvtepi32_ps(_mm256_srli_epi32(top0, 16)), yOffset), lumaScale);
        __m256 c = _mm256_mul_ps(_mm256_sub_ps(_mm256_cvtepi32_ps(_mm256_and_si256(top1, lowHalf)), yOffset), lumaScale);
        __m256 d = _mm256_mul_ps(_mm256_sub_ps(_mm256_cvtepi32_ps(_mm256_srli_epi32(top1, 16)), yOffset), lumaScale);
        __m256 cb = _mm256_sub_ps(_mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(u + bx)))), cOffset);
        __m256 cr = _mm256_sub_ps(_mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(v + bx)))), cOffset);
        __m256 dr = _mm256_mul_ps(crToR, cr);
        __m256 dg = _mm256_add_ps(_mm256_mul_ps(crToG, cr), _mm256_mul_ps(cbToG, cb));
        __m256 db = _mm256_mul_ps(cbToB, cb);

        // Every block read once at its mean (clamped into the cube, so reading it is safe
        // for any block); kept for the blocks that are nearly flat and inside the cube.
        __m256 mean = _mm256_mul_ps(_mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a, b), c), d), _mm256_set1_ps(0.25f));
        Lookup atMean = lookup8(grid, _mm256_add_ps(mean, dr), _mm256_add_ps(mean, dg), _mm256_add_ps(mean, db));
        storeInterleaved(o0 + 2 * bx, codes8(_mm256_add_ps(atMean.y, _mm256_mul_ps(atMean.slope, _mm256_sub_ps(a, mean))), 16, 254),
                         codes8(_mm256_add_ps(atMean.y, _mm256_mul_ps(atMean.slope, _mm256_sub_ps(b, mean))), 16, 254));
        storeInterleaved(o1 + 2 * bx, codes8(_mm256_add_ps(atMean.y, _mm256_mul_ps(atMean.slope, _mm256_sub_ps(c, mean))), 16, 254),
                         codes8(_mm256_add_ps(atMean.y, _mm256_mul_ps(atMean.slope, _mm256_sub_ps(d, mean))), 16, 254));
        storeEight(ou + bx, codes8(atMean.cb, 16, 240));
        storeEight(ov + bx, codes8(atMean.cr, 16, 240));

        // The others are queued and read pixel by pixel, overwriting what was just written.
        __m256 low = min8(min8(a, b), min8(c, d)), high = max8(max8(a, b), max8(c, d));
        __m256 lowestOffset = min8(dr, min8(dg, db)), highestOffset = max8(dr, max8(dg, db));
        __m256 flat = _mm256_and_ps(_mm256_cmp_ps(_mm256_sub_ps(high, low), _mm256_set1_ps(grid->flatSpread), _CMP_LE_OQ),
                                    _mm256_and_ps(_mm256_cmp_ps(_mm256_add_ps(low, lowestOffset), _mm256_setzero_ps(), _CMP_GE_OQ),
                                                  _mm256_cmp_ps(_mm256_add_ps(high, highestOffset), _mm256_set1_ps(top), _CMP_LE_OQ)));
        int textured = ~_mm256_movemask_ps(flat) & 0xFF;
        if (textured == 0) continue;
        float la[8], lb[8], lc[8], ld[8], or_[8], og[8], ob[8];
        _mm256_storeu_ps(la, a);
        _mm256_storeu_ps(lb, b);
        _mm256_storeu_ps(lc, c);
        _mm256_storeu_ps(ld, d);
        _mm256_storeu_ps(or_, dr);
        _mm256_storeu_ps(og, dg);
        _mm256_storeu_ps(ob, db);
        while (textured != 0) {
            const int lane = __builtin_ctz((unsigned)textured);
            textured &= textured - 1;
            const int slot = pending.count, k = 4 * slot;
            const float lumas[4] = {la[lane], lb[lane], lc[lane], ld[lane]};
            for (int i = 0; i < 4; i++) {
                pending.r[k + i] = lumas[i] + or_[lane];
                pending.g[k + i] = lumas[i] + og[lane];
                pending.b[k + i] = lumas[i] + ob[lane];
            }
            pending.o0[slot] = o0 + 2 * (bx + lane);
            pending.o1[slot] = o1 + 2 * (bx + lane);
            pending.ou[slot] = ou + bx + lane;
            pending.ov[slot] = ov + bx + lane;
            if (++pending.count == 2) flush(grid, &pending);
        }
    }
    if (pending.count == 1) {
        // A lone block: its lanes repeated in the second slot, whose results are not written.
        for (int i = 0; i < 4; i++) {
            pending.r[4 + i] = pending.r[i];
            pending.g[4 + i] = pending.g[i];
            pending.b[4 + i] = pending.b[i];
        }
    }
    flush(grid, &pending);
}

#else

bool dropcut_tone_map_row_available(void) { return false; }

void dropcut_tone_map_row_u16(const dropcut_tone_map_grid *grid,
                              const uint16_t *y0, const uint16_t *y1,
                              const uint16_t *u, const uint16_t *v,
                              uint8_t *o0, uint8_t *o1, uint8_t *ou, uint8_t *ov, int32_t groups) {
    // Never called: `dropcut_tone_map_row_available` is false here.
    (void)grid; (void)y0; (void)y1; (void)u; (void)v; (void)o0; (void)o1; (void)ou; (void)ov; (void)groups;
}

#endif
