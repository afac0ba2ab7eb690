import Foundation
import DropcutSupport

/// A set the commit cannot publish as it is given (not a file step's failure: those are
/// `SystemError`s): the call that refused, the folder or name, and what caused it.
package struct SetCommitError: Error, Sendable, Hashable, CustomStringConvertible {
    package var function: String
    package var path: String
    package var cause: SystemError?

    package init(function: String, path: String, cause: SystemError?) {
        self.function = function
        self.path = path
        self.cause = cause
    }

    /// A name of the set was taken (`.refuseExisting`): `path` is that name.
    package var nameExists: Bool { cause?.errno == EEXIST }

    package var description: String { "\(path): \(function)" + (cause.map { ": \($0)" } ?? "") }
}
