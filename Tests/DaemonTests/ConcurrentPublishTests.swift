import Foundation
import Testing
import TestSupport

/// Several processes publishing different files to one name at the same moment, many
/// rounds: each file ends under a name of its own, none lost, none replaced, nothing left
/// over — on the local disk with each of the methods, and over sshfs without hard links
/// (two mounts of one share, as two hosts), where only the placeholder is exclusive.
@Suite(.serialized) struct ConcurrentPublishTests {
    static let racers = 6

    @Test(arguments: ["link", "renameNoReplace", "placeholder"])
    func localFolder(method: String) throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let outcome = try PublishRace(directories: [dir.path], truth: dir.path, racers: Self.racers, rounds: 40,
                                      intervalMilliseconds: 20, method: method).run()
        // Real concurrency: most rounds had two publishes in flight at once.
        #expect(outcome.overlappingRounds >= 10, "only \(outcome.overlappingRounds) of 40 rounds overlapped")
        print("local \(method): \(Self.racers) processes x 40 rounds, \(outcome.overlappingRounds) rounds overlapping, \(String(format: "%.2f", outcome.seconds)) s")
    }

    @Test func sshfsWithoutHardLinks() throws {
        let server = try SFTPServer()
        let hostA = try SSHFSMount(server, hardLinks: false)
        let hostB = try SSHFSMount(server, hardLinks: false)
        let outcome = try PublishRace(directories: [hostA.path, hostB.path], truth: server.export, racers: Self.racers,
                                      rounds: 20, intervalMilliseconds: 150).run()
        #expect(outcome.overlappingRounds >= 5, "only \(outcome.overlappingRounds) of 20 rounds overlapped")
        print("sshfs without hard links: \(Self.racers) processes on 2 mounts x 20 rounds, \(outcome.overlappingRounds) rounds overlapping, \(String(format: "%.2f", outcome.seconds)) s")
    }

    @Test func sshfsWithHardLinks() throws {
        let server = try SFTPServer()
        let hostA = try SSHFSMount(server)
        let hostB = try SSHFSMount(server)
        let outcome = try PublishRace(directories: [hostA.path, hostB.path], truth: server.export, racers: Self.racers,
                                      rounds: 20, intervalMilliseconds: 150).run()
        #expect(outcome.overlappingRounds >= 5, "only \(outcome.overlappingRounds) of 20 rounds overlapped")
        print("sshfs with hard links: \(Self.racers) processes on 2 mounts x 20 rounds, \(outcome.overlappingRounds) rounds overlapping, \(String(format: "%.2f", outcome.seconds)) s")
    }
}
