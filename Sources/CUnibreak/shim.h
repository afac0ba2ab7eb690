#ifndef DROPCUT_CUNIBREAK_SHIM_H
#define DROPCUT_CUNIBREAK_SHIM_H
// Line break opportunities by the Unicode rules (UAX #14).
#include <stddef.h>
#include <linebreak.h>
#endif
