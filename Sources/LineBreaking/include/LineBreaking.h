#ifndef DROPCUT_LINE_BREAKING_H
#define DROPCUT_LINE_BREAKING_H
#include <stdint.h>

/// Where a line may break in `text` (`count` UTF-16 units), by ICU's line BreakIterator
/// (UAX #14): `kinds[i]` is set for a break after unit `i` — 0 none, 1 allowed, 2 must (a
/// mandatory break, after a newline). Returns 0, or ICU's error code (> 0) when the
/// iterator cannot be made (then `kinds` is left as it was).
int32_t dropcut_line_breaks(const uint16_t *text, int32_t count, uint8_t *kinds);

#endif
