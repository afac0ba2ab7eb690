import Foundation

/// A clip claimed while it was still being written: a copy that paused longer than
/// `settle` looked settled, was claimed (renamed into the claim folder — the writer's open
/// descriptor follows the file there), and its render then met a file that ends before
/// its own index says it should, or a file that kept growing. Such a clip is not failed:
/// it waits, its attempt given back, and is rendered once it has settled again.
///
/// The same look guards the commit: a clip whose bytes changed between its claim and the
/// end of its render (`ClipIdentity`: file, size, time, a hash of its ends) is not
/// published — the render is discarded and the clip waits to settle again. And a clip
/// that ends before its own container says it does (`ClipEnding`: inside an MPEG-TS
/// packet, before its Matroska segment's end) — a copy paused, for longer than `settle`,
/// in the middle of a format that renders from whatever arrived — is looked at again
/// like one its render found incomplete; if it stays so it is rendered as it is.
///
/// What is recorded (`JobRecord.arrival`) is the clip's size and modification time as
/// last seen, and its identity once claimed; the decision is pure (`judge`), its inputs
/// read by `JobRunner`.
package struct ClipArrival: Codable, Sendable, Hashable {
    /// The clip's size in bytes and modification time in nanoseconds, as last seen.
    package var size: Int64
    package var modified: Int64
    /// How many times it was found still being written (or looked at again) since it was
    /// claimed: at `maximumLooks` it fails, so a file that grows for ever cannot wait for ever.
    package var looks: Int = 0
    /// How many times in a row its render reported the file incomplete while it had not
    /// changed, each time given one more `settle` to change: at `maximumQuietLooks` it
    /// fails (a file cut short for good), so a copy may pause that many settles and more.
    package var quietLooks: Int = 0
    /// The claimed clip's identity as last seen (first at claim). Nil: records written
    /// before it existed, or a clip that could not be read.
    package var identity: ClipIdentity?

    package init(size: Int64, modified: Int64) {
        self.size = size
        self.modified = modified
    }

    /// How many looks a clip gets before it fails as still being written.
    package static let maximumLooks = 10
    /// How many `settle`s an incomplete clip that does not change is given.
    package static let maximumQuietLooks = 3

    /// What to do with a clip after its render (or before the next one).
    package enum Verdict: Sendable, Hashable {
        /// It is as it was: render it (or fail it as its render said).
        case unchanged
        /// It changed since it was last seen: wait one `settle` and look again.
        case grew(from: Int64, to: Int64)
        /// Its render found it incomplete although it had not changed: one more `settle`
        /// to see whether its writer was only paused (up to `maximumQuietLooks` in a row).
        case lookAgain
        /// Looked at `maximumLooks` times and still changing: it fails.
        case gaveUp
    }

    /// Judges the clip now `size` bytes modified at `modified` (and `identity`, when it
    /// could be read), after a render that reported it incomplete (`incomplete`) or not;
    /// returns the verdict and what to record.
    package func judge(size: Int64, modified: Int64, identity: ClipIdentity? = nil, incomplete: Bool) -> (Verdict, ClipArrival) {
        var next = self
        next.identity = identity ?? self.identity
        let rewritten = identity != nil && self.identity != nil && identity != self.identity
        if size != self.size || modified != self.modified || rewritten {
            next.size = size
            next.modified = modified
            next.looks += 1
            next.quietLooks = 0
            return (next.looks > Self.maximumLooks ? .gaveUp : .grew(from: self.size, to: size), next)
        }
        if incomplete && quietLooks < Self.maximumQuietLooks {
            next.quietLooks += 1
            next.looks += 1
            return (next.looks > Self.maximumLooks ? .gaveUp : .lookAgain, next)
        }
        return (.unchanged, next)
    }

    /// What a person who dropped the clip is told when it fails as incomplete.
    package static let advice = "if it was still being copied, raise `settle` in the config above the longest pause of the copy, "
        + "or copy it under a temporary name (clip.mov.part) and rename it when the copy is complete"
}
