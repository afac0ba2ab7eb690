import TestSupport

/// The built `dropcut` executable, run as a subprocess.
enum DropcutProcess {
    /// Runs `dropcut args...`; returns its exit status, stdout and stderr.
    static func run(_ args: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try Command.run(BuildProducts.executable(named: "dropcut"), args)
    }
}
