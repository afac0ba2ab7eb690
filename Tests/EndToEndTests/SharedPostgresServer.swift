import Testing
import TestSupport

/// One PostgreSQL server for every test of a suite that asks for one (`server()`), where
/// each test keeps to rows of its own (its harness's folder name is unique): started at
/// the first that asks — never when none does, as when a filter runs only the suite's
/// other tests —, stopped when the suite ends. A server per test costs its `initdb` and
/// start each time, which a matrix of cases would pay again and again.
struct SharedPostgresServer: SuiteTrait, TestScoping {
    /// The suite's server, started once.
    actor Lazy {
        private var started: Task<PostgresServer, any Error>?

        func server() async throws -> PostgresServer {
            // Set before the first await: tests asking at once all wait for the one start.
            let task = started ?? Task { try await PostgresServer() }
            started = task
            return try await task.value
        }

        func stop() async {
            (try? await started?.value)?.stop()
        }
    }

    @TaskLocal static var current: Lazy?

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let lazy = Lazy()
        do {
            try await Self.$current.withValue(lazy) { try await function() }
        } catch {
            await lazy.stop()
            throw error
        }
        await lazy.stop()
    }

    /// The suite's server; a server of its own for a test outside such a suite.
    static func server() async throws -> PostgresServer {
        guard let current else { return try await PostgresServer() }
        return try await current.server()
    }
}

extension Trait where Self == SharedPostgresServer {
    /// One PostgreSQL server for the suite's tests that ask for one (`SharedPostgresServer`).
    static var sharedPostgresServer: Self { SharedPostgresServer() }
}
