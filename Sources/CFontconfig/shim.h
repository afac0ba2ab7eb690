#ifndef DROPCUT_CFONTCONFIG_SHIM_H
#define DROPCUT_CFONTCONFIG_SHIM_H
// fontconfig: which installed font covers a character (font fallback for captions).
#include <fontconfig/fontconfig.h>
#endif
