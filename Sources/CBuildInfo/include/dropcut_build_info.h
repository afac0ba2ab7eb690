#ifndef DROPCUT_BUILD_INFO_H
#define DROPCUT_BUILD_INFO_H

/// The commit dropcut was built from, as Package.swift passes it (DROPCUT_COMMIT): the
/// environment's DROPCUT_COMMIT, else git's first 12 hex digits with "-dirty" after them
/// when the tree had changes, else "unknown" (a build outside git).
const char *dropcut_build_commit(void);

#endif
