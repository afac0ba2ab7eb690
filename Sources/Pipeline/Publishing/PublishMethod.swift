/// How a finished file gets its visible name without ever replacing a file that has it,
/// in the order `DurableFiles.publishExclusively` tries them: each where the filesystem
/// has it, the next where it reports it has not.
package enum PublishMethod: Int, Sendable, Comparable, CaseIterable {
    /// link(2), then unlink of the temporary name: EEXIST on a taken name (local
    /// filesystems, NFS, sshfs with its hard-link extension). A crash between the two
    /// leaves both names on one inode, which recovery recognises. Never for a folder
    /// (EPERM): it goes on to the next.
    case link
    /// renameat2(RENAME_NOREPLACE): for filesystems without hard links that can still
    /// refuse a taken name atomically (tmpfs, ext4, btrfs, xfs and Linux's SMB client do;
    /// NFS and sshfs report EINVAL).
    case renameNoReplace
    /// An exclusive create of the name as its own empty placeholder (mknod, never
    /// opened), then rename(2) onto it (`PublishPlaceholder`): wherever a file can be
    /// created that way. A folder (an HLS ladder's) is reserved as an empty folder (mkdir).
    case placeholder

    package static func < (a: PublishMethod, b: PublishMethod) -> Bool { a.rawValue < b.rawValue }
}
