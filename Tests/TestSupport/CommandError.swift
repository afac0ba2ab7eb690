/// A command that could not be started or that exited unsuccessfully. Its description
/// carries the full command line, the exit status and everything it wrote to stderr.
public struct CommandError: Error, Sendable, CustomStringConvertible {
    /// The executable and its arguments, as run.
    public let command: [String]
    /// The exit status (128 + signal number when it was killed), nil when it never started.
    public let status: Int32?
    /// The command's standard error, or why it could not be started.
    public let stderr: String

    public init(command: [String], status: Int32?, stderr: String) {
        self.command = command
        self.status = status
        self.stderr = stderr
    }

    public var description: String {
        let line = command.map { $0.contains(" ") || $0.isEmpty ? "'\($0)'" : $0 }.joined(separator: " ")
        let outcome = status.map { "exited with status \($0)" } ?? "could not be started"
        return "command `\(line)` \(outcome); stderr:\n\(stderr)"
    }
}
