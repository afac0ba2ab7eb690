#ifndef DROPCUT_CHARFBUZZ_SHIM_H
#define DROPCUT_CHARFBUZZ_SHIM_H
// HarfBuzz with its FreeType glue (hb_ft_font_create_referenced): the fonts are opened
// with FreeType (CFreeType), shaped with HarfBuzz.
#include <hb.h>
#include <hb-ft.h>

// HB_TAG-built constants are macros Swift does not import as hb_script_t.
static inline hb_script_t dropcut_hb_script_common(void) { return HB_SCRIPT_COMMON; }
static inline hb_script_t dropcut_hb_script_inherited(void) { return HB_SCRIPT_INHERITED; }
static inline hb_script_t dropcut_hb_script_unknown(void) { return HB_SCRIPT_UNKNOWN; }
#endif
