// ICU's line BreakIterator behind a C interface that names no ICU type. Why C: Swift's
// Foundation carries its own copy of ICU's headers (module _FoundationICU), and a Swift
// module that imports the system's ICU headers as well fails to build on their clashing
// enums; this file alone sees the system's headers.
#include "LineBreaking.h"
#include <unicode/ubrk.h>
#include <unicode/utypes.h>

int32_t dropcut_line_breaks(const uint16_t *text, int32_t count, uint8_t *kinds) {
    UErrorCode status = U_ZERO_ERROR;
    UBreakIterator *iterator = ubrk_open(UBRK_LINE, "", (const UChar *)text, count, &status);
    if (U_FAILURE(status) || iterator == NULL) {
        return status > 0 ? status : 1;
    }
    for (int32_t offset = ubrk_next(iterator); offset != UBRK_DONE; offset = ubrk_next(iterator)) {
        if (offset <= 0 || offset > count) continue;
        int32_t rule = ubrk_getRuleStatus(iterator);
        kinds[offset - 1] = (rule >= UBRK_LINE_HARD && rule < UBRK_LINE_HARD_LIMIT) ? 2 : 1;
    }
    ubrk_close(iterator);
    return 0;
}
