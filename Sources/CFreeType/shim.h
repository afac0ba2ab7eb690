#ifndef DROPCUT_CFREETYPE_SHIM_H
#define DROPCUT_CFREETYPE_SHIM_H
#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_TRUETYPE_TABLES_H
#include FT_SIZES_H
#include FT_ADVANCES_H
#include FT_SYNTHESIS_H
#include FT_OUTLINE_H
#endif
