import DropcutMediaIO

/// Whether a clip ends where its own container says it does (`ContainerTail`, in MediaIO),
/// for the daemon, which sits above the media layer and reads no clip itself but these
/// few bytes: a copy paused in the middle of a Matroska or MPEG-TS file, which would
/// otherwise render from whatever had arrived.
package enum ClipEnding {
    /// How many bytes of the clip's head `cut` looks at, at most.
    package static let headBytes = ContainerTail.headBytes

    /// Why a clip whose first bytes are `head` and whose size is `size` ends before its
    /// container does, in words; nil when it does not, or its container does not say.
    package static func cut(head: some Collection<UInt8>, size: Int64) -> String? {
        ContainerTail.cut(head: head, size: size)
    }
}
