import Foundation

/// Runs external programs with Foundation's `Process` and captures what they print.
public enum Command {
    /// Runs `executable` (a path, or a name looked up on `PATH`) with `args`, waits for it,
    /// and returns its exit status and its whole stdout and stderr (decoded as UTF-8).
    /// A status of 128 + N means the process was killed by signal N.
    ///
    /// Throws a `CommandError` only when the program cannot be found or started; a non-zero
    /// exit is returned, not thrown (see `runChecked` for that).
    /// `environment` is added to (and overrides) this process's environment; `directory`,
    /// when given, is the program's working directory.
    public static func run(_ executable: String, _ args: [String], environment: [String: String] = [:],
                           directory: String? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
        guard let resolved = find(executable) else {
            let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
            throw CommandError(command: [executable] + args, status: nil,
                               stderr: "\(executable): not found (PATH=\(path))")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: resolved)
        process.arguments = args
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let stdoutPipe = Pipe(), stderrPipe = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        do {
            try process.run()
        } catch {
            throw CommandError(command: [resolved] + args, status: nil, stderr: "\(error)")
        }
        // Drain both pipes at once so a chatty child can never block on a full pipe.
        let stderrReader = PipeReader(stderrPipe.fileHandleForReading)
        let stdoutData = stdoutPipe.fileHandleForReading.readDataToEndOfFile()
        let stderrData = stderrReader.wait()
        process.waitUntilExit()
        let status = process.terminationReason == .uncaughtSignal
            ? 128 + process.terminationStatus : process.terminationStatus
        return (status, String(decoding: stdoutData, as: UTF8.self), String(decoding: stderrData, as: UTF8.self))
    }

    /// `run`, awaited: the child is waited for and its output read on a thread of its own
    /// (`OwnThread`), so the calling task leaves its thread of the concurrency pool to other
    /// tests meanwhile. The same result and errors as the blocking `run`.
    public static func run(_ executable: String, _ args: [String], environment: [String: String] = [:],
                           directory: String? = nil) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await OwnThread.run { try run(executable, args, environment: environment, directory: directory) }
    }

    /// The blocking `run` by a name async callers can pick: for a run whose time is
    /// measured (an awaited run can resume late when every pool thread is busy, and the
    /// time measured would be the pool's).
    public static func runBlocking(_ executable: String, _ args: [String], environment: [String: String] = [:],
                                   directory: String? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
        try run(executable, args, environment: environment, directory: directory)
    }

    /// `runChecked`, awaited (see the async `run`).
    @discardableResult
    public static func runChecked(_ executable: String, _ args: [String]) async throws -> String {
        try await OwnThread.run { try runChecked(executable, args) }
    }

    /// Like `run`, but a non-zero exit throws a `CommandError` carrying the command line and
    /// its stderr. Returns stdout.
    @discardableResult
    public static func runChecked(_ executable: String, _ args: [String]) throws -> String {
        let result = try run(executable, args)
        guard result.status == 0 else {
            throw CommandError(command: [executable] + args, status: result.status, stderr: result.stderr)
        }
        return result.stdout
    }

    /// The path `executable` names: itself when it contains a `/`, else the first
    /// executable file of that name in a `PATH` directory. Nil when there is none.
    public static func find(_ executable: String) -> String? {
        let fileManager = FileManager.default
        if executable.contains("/") {
            return fileManager.isExecutableFile(atPath: executable) ? executable : nil
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = (String(directory) as NSString).appendingPathComponent(executable)
            if fileManager.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}

/// Reads a file handle to its end on a background queue.
private final class PipeReader: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        DispatchQueue.global().async {
            self.data = handle.readDataToEndOfFile()
            self.done.signal()
        }
    }

    /// Blocks until the end of the stream; the semaphore orders the write before this read.
    func wait() -> Data {
        done.wait()
        return data
    }
}
