import TestSupport

/// The built `dropcut` executable, run as a subprocess.
public enum DropcutProcess {
    /// Runs `dropcut args...`; returns its exit status, stdout and stderr.
    public static func run(_ args: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try Command.run(BuildProducts.executable(named: "dropcut"), args)
    }

    /// `run`, awaited without holding a thread of the concurrency pool (`OwnThread`).
    public static func run(_ args: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await Command.run(BuildProducts.executable(named: "dropcut"), args)
    }
}
