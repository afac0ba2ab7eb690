internal import CDropcutLinux

/// The process's malloc policy: the executable sets it once before any command runs (a
/// library leaves its host's allocator alone, so this is `package`).
///
/// glibc raises its mmap threshold each time a large block is freed (up to 32 MiB), so
/// once frame buffers have come and gone, blocks of a few hundred KiB to a few MiB are
/// carved from the allocating thread's arena instead of being mapped, and a freed one
/// stays in that arena while a smaller block above it lives. A render allocates such
/// blocks from several threads (prepare, compose, render, read-back and x264's own), so
/// which arena keeps which block — and the peak memory — depended on the order the
/// threads happened to allocate in: the same work read 4–5 MiB apart between two builds
/// (docs/benchmarks.md, "One render graph"). With the threshold pinned every large block
/// is mapped on its own and unmapped when freed, whichever thread frees it: peak memory is
/// what the work holds, and a long-running daemon gives a finished job's buffers back.
/// The cost is a few thousand more page faults per 10 s of 1080p (FFmpeg pools its frame
/// buffers; few large blocks are made per clip).
package enum MallocPolicy {
    package static func apply() {
        _ = dropcut_pin_mmap_threshold()
    }
}
