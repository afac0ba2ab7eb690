#include "dropcut_build_info.h"

#ifndef DROPCUT_COMMIT
#define DROPCUT_COMMIT "unknown"
#endif

const char *dropcut_build_commit(void) {
    return DROPCUT_COMMIT;
}
