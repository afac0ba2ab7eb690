import Foundation
import Testing
import TestSupport

/// `scripts/test --fast` skips what is tagged `.slow` by name (swift test cannot filter by
/// tag yet), found by a line pattern in the script. This keeps the two in step: every
/// suite or test carrying the tag is one the script lists, and nothing else is.
@Suite struct TestTierTests {
    @Test func theFastTierSkipsExactlyWhatIsTaggedSlow() async throws {
        let tagged = try Self.taggedSlow()
        // A scan that found nothing would agree with an empty list: the known ones are seen.
        #expect(tagged.isSuperset(of: ["SSHFSHarnessTests", "PackageInstallTests", "ScaleOutTests", "TakeoverRaceTests"]),
                "\(tagged.sorted())")
        let listed = try await Command.run("bash", [Repository.path("scripts/test"), "--list-slow"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let names = Set(listed.stdout.split(separator: "\n").map(String.init))
        #expect(names == tagged, "tagged but not skipped: \(tagged.subtracting(names).sorted()); skipped but not tagged: \(names.subtracting(tagged).sorted())")
        // The in-process suites of this target stay in the fast tier.
        #expect(!names.contains("ModuleBoundaryTests") && !names.contains("DocumentationTests") && !names.contains("TestTierTests"))
    }

    /// The full tier runs the `.serialized` suites in a process of their own beside the
    /// rest, found by a line pattern too: every serialized suite is one the script lists
    /// (one left out would run twice or not at all), and nothing else is.
    @Test func theSerializedSuitesRunBesideTheRestAreExactlyTheSerializedOnes() async throws {
        let serialized = try Self.suites { $0.contains(#/\.serialized\b/#) }
        #expect(serialized.isSuperset(of: ["ScaleOutTests", "TakeoverRaceTests", "HTTPListenerTests"]), "\(serialized.sorted())")
        let listed = try await Command.run("bash", [Repository.path("scripts/test"), "--list-serialized"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let names = Set(listed.stdout.split(separator: "\n").map(String.init))
        #expect(names == serialized, "serialized but not listed: \(serialized.subtracting(names).sorted()); listed but not serialized: \(names.subtracting(serialized).sorted())")
    }

    /// The names of the suites and tests whose attributes carry `.tags(... .slow ...)`,
    /// wherever the attribute is written: the declaration after it names them.
    static func taggedSlow() throws -> Set<String> {
        try suites { $0.contains(#/\.tags\([^)]*\.slow\b/#) }
    }

    /// The names of the suites and tests whose attribute's arguments satisfy `matches`.
    static func suites(where matches: (Substring) -> Bool) throws -> Set<String> {
        let root = Repository.path("Tests")
        guard let walk = FileManager.default.enumerator(atPath: root) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: root])
        }
        let attribute = #/@(?:Suite|Test)\((?<arguments>[^{]*?)\)\s*(?:@\w+\s+)*(?:(?:final|public|private|fileprivate|internal|static|mutating|nonisolated)\s+)*(?:struct|class|enum|actor|func)\s+(?<name>\w+)/#
        var names: Set<String> = []
        while let relative = walk.nextObject() as? String {
            guard relative.hasSuffix(".swift"), !relative.hasSuffix("TestTierTests.swift") else { continue }
            let text = try String(contentsOfFile: (root as NSString).appendingPathComponent(relative), encoding: .utf8)
            for match in text.matches(of: attribute) where matches(match.output.arguments) {
                names.insert(String(match.output.name))
            }
        }
        return names
    }
}
