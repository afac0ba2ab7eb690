#ifndef DROPCUT_CZLIB_SHIM_H
#define DROPCUT_CZLIB_SHIM_H
#include <zlib.h>

// zlib spells these as macros (they pass ZLIB_VERSION and sizeof(z_stream) for a
// version check), which Swift does not import.
static inline int czlib_inflate_init2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}
static inline int czlib_deflate_init2(z_streamp stream, int level, int windowBits) {
    return deflateInit2(stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY);
}
#endif
