#ifndef DROPCUT_CLINUX_SHIM_H
#define DROPCUT_CLINUX_SHIM_H
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>

/// Asks the kernel to SIGKILL the calling process when its parent dies (prctl is variadic,
/// which Swift cannot call).
static inline int dropcut_die_with_parent(void) {
    return prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
}

/// pipe2(2), declared by glibc only under _GNU_SOURCE (Swift's Glibc module leaves it
/// out): both ends O_CLOEXEC at once, so a worker spawned by another thread meanwhile
/// cannot inherit them.
extern int pipe2(int pipefd[2], int flags);

/// posix_spawn_file_actions_addclosefrom_np (glibc 2.34), _GNU_SOURCE too: the child
/// closes every descriptor from `from` up before it runs.
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

/// renameat2(2) (glibc 2.28), declared by glibc only under _GNU_SOURCE.
extern int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags);

/// rename(2) that fails with EEXIST instead of replacing an existing `to`
/// (RENAME_NOREPLACE, 1 << 0 in <linux/fs.h>). Filesystems that cannot do it atomically
/// (NFS, sshfs and other FUSE filesystems that do not implement it) fail with EINVAL.
static inline int dropcut_rename_noreplace(const char *from, const char *to) {
    return renameat2(AT_FDCWD, from, AT_FDCWD, to, 1u << 0);
}
/// Pins glibc's mmap threshold at its documented default (128 KiB), which turns its
/// dynamic adjustment off (mallopt(3); M_MMAP_THRESHOLD is a macro Swift cannot see).
static inline int dropcut_pin_mmap_threshold(void) {
    return mallopt(M_MMAP_THRESHOLD, 128 * 1024);
}

#endif
