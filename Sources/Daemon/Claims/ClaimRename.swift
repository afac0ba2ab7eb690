import Foundation
import DropcutSupport

/// The one rename the claim protocol decides by: the claim of a clip, the takeover of a
/// claim, a holder's fence. Of several processes renaming the same name — on one host or
/// several over a shared filesystem — exactly one succeeds; the others find it gone.
///
/// ENOENT is not taken on trust: over NFS a rename whose reply was lost is sent again, and
/// the repeat finds its source gone — moved by the first, successful, send — and reports
/// ENOENT. So ENOENT is resolved by looking: the destination is a name only this process
/// uses (a fresh job id), so if something is there, this process put it there.
package enum ClaimRename {
    /// What came of a rename.
    package enum Outcome: Sendable, Hashable {
        /// It is at the destination.
        case renamed
        /// The source was gone and is not at the destination: someone else moved it first.
        case lost
    }

    /// Renames `source` to `destination` (a name nobody else uses). Throws for errors
    /// other than a missing source.
    package static func rename(_ source: String, to destination: String) throws(SystemError) -> Outcome {
        try rename(Array(source.utf8CString), to: destination, describedAs: source)
    }

    /// `rename` from a path given as bytes (a name that is not UTF-8), shown as `describedAs`.
    static func rename(_ source: [CChar], to destination: String, describedAs shown: String) throws(SystemError) -> Outcome {
        while true {
            if Glibc.rename(source, destination) == 0 { return .renamed }
            let code = errno
            if code == EINTR { continue }
            guard code == ENOENT else { throw SystemError(errno: code, function: "rename", path: shown) }
            var info = stat()
            return lstat(destination, &info) == 0 ? .renamed : .lost
        }
    }
}
