#ifndef DROPCUT_CFRIBIDI_SHIM_H
#define DROPCUT_CFRIBIDI_SHIM_H
// The Unicode Bidirectional Algorithm (UAX #9): embedding levels of a paragraph.
#include <fribidi.h>

// FRIBIDI_PAR_ON and FRIBIDI_IS_RTL are macros built from other macros, which Swift does
// not import: the paragraph direction is asked for and read through these.
static inline FriBidiParType dropcut_fribidi_par_on(void) { return FRIBIDI_PAR_ON; }
static inline int dropcut_fribidi_par_is_rtl(FriBidiParType direction) { return FRIBIDI_IS_RTL(direction) ? 1 : 0; }
#endif
