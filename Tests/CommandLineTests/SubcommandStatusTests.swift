import Foundation
import Testing
import TestSupport

/// Every `dropcut` subcommand does real work: each succeeds on minimal valid input and
/// none claims to be pending. Update the table when a subcommand is added.
@Suite(.tags(.slow)) struct SubcommandStatusTests {
    enum Status { case real, pending }

    static let table: [String: Status] = [
        "probe": .real,
        "validate": .real,
        "render": .real,
        "plan": .real,
        "watch": .real,
        "status": .real,
        "retry": .real,
        "init": .real,
    ]

    /// Arguments with which a real subcommand succeeds, using inputs made in `dir`.
    static func successfulArguments(for name: String, in dir: TemporaryDirectory) throws -> [String]? {
        switch name {
        case "probe": return ["probe", try Fixtures.makeClip(in: dir.path, audio: false)]
        case "validate": return ["validate", try Fixtures.makeFile(in: dir.path, name: "r.yaml", contents: "version: 1\n")]
        case "plan": return ["plan", try Fixtures.makeClip(in: dir.path, audio: false)]
        case "render": return ["render", try Fixtures.makeClip(in: dir.path, audio: false)]
        case "init": return ["init", dir.file("start")]
        case "watch", "status", "retry":
            try FileManager.default.createDirectory(atPath: dir.file("inbox"), withIntermediateDirectories: true)
            let config = try Fixtures.makeFile(in: dir.path, name: "dropcut.yaml", contents: """
                state_dir: state
                settle: 0.1
                folders:
                  - { name: f, inbox: inbox, outbox: outbox, failed: failed, after_success: delete }
                """)
            switch name {
            case "watch": return ["watch", "--once", "--config", config]
            case "status": return ["status", "--config", config]
            default:
                // A failed clip to put back.
                try FileManager.default.createDirectory(atPath: dir.file("failed"), withIntermediateDirectories: true)
                _ = try Fixtures.makeFile(in: dir.file("failed"), name: "clip.mp4", contents: "x")
                return ["retry", "--config", config, "f", "clip.mp4"]
            }
        default: return nil
        }
    }

    static var pendingNames: [String] { table.filter { $0.value == .pending }.keys.sorted() }
    static var realNames: [String] { table.filter { $0.value == .real }.keys.sorted() }

    @Test func tableListsExactlyTheSubcommandsInHelp() async throws {
        let result = try await DropcutProcess.run(["--help"])
        #expect(result.status == 0)
        // Subcommand lines in help: two spaces, then a lower-case name, then its abstract.
        let section = try #require(result.stdout.components(separatedBy: "SUBCOMMANDS:").dropFirst().first,
                                   "no SUBCOMMANDS section in:\n\(result.stdout)")
        let names = section.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("  "), !line.hasPrefix("   ") else { return nil }
            let word = line.drop { $0 == " " }.prefix { $0 != " " }
            return !word.isEmpty && word.allSatisfy(\.isLowercase) ? String(word) : nil
        }
        #expect(Set(names) == Set(Self.table.keys))
        #expect(Self.pendingNames.isEmpty)
    }

    @Test(arguments: realNames)
    func realSubcommandSucceedsWithoutClaimingToBePending(_ name: String) async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let args = try #require(try Self.successfulArguments(for: name, in: dir), "no successful invocation for \(name)")

        let result = try await DropcutProcess.run(args)

        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(!result.stderr.contains("not implemented"))
        #expect(!result.stdout.isEmpty)
    }

    @Test func unknownSubcommandIsAUsageError() async throws {
        let result = try await DropcutProcess.run(["bogus"])
        #expect(result.status == 64)  // EX_USAGE
        #expect(result.stderr.contains("bogus"))
        #expect(result.stdout.isEmpty)
    }
}
