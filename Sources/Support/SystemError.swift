import Foundation

/// A failed system call on a file: the errno, its text, the call and the path.
public struct SystemError: Error, Sendable, Hashable, CustomStringConvertible {
    public let errno: Int32
    public let function: String
    public let path: String

    public init(errno: Int32, function: String, path: String) {
        self.errno = errno
        self.function = function
        self.path = path
    }

    /// The error of the call that just failed.
    package static func last(_ function: String, _ path: String) -> SystemError {
        SystemError(errno: Glibc.errno, function: function, path: path)
    }

    public var description: String { "\(path): \(function): \(String(cString: strerror(errno)))" }
}

/// Runs a system call that returns -1 and sets errno on failure, retrying on EINTR.
@discardableResult
package func sys<T: FixedWidthInteger>(_ function: String, _ path: String, _ call: () -> T) throws(SystemError) -> T {
    while true {
        let result = call()
        if result != -1 { return result }
        if errno == EINTR { continue }
        throw SystemError.last(function, path)
    }
}
