import Foundation
import Testing
@testable import DropcutPipeline
import DropcutSupport
import TestSupport

/// The one set commit's policies on real files in a folder: `.neverReplace` moves the whole
/// set to the next suffix when a name is taken and leaves what had it alone; `.replace`
/// renames over a file and an earlier HLS ladder's folder; a volatile commit that fails
/// in the middle takes back what it published, a durable one leaves its state to carry on.
@Suite struct SetCommitTests {
    static func write(_ text: String, _ path: String) throws {
        try text.write(toFile: path, atomically: false, encoding: .utf8)
    }
    static func read(_ path: String) -> String? {
        try? String(contentsOfFile: path, encoding: .utf8)
    }
    static func listing(_ dir: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
    }

    /// A set of a video, a poster and their manifest, rendered under temporary names.
    static func renderedSet(in dir: TemporaryDirectory, tag: String) throws -> SetCommit.State {
        var entries: [SetEntry] = []
        for (name, kind) in [("clip.wide.mp4", "video"), ("clip.poster.png", "poster")] {
            let temporary = PartialOutput(directory: dir.path, filename: name, tag: tag).path
            try write("new \(name)", temporary)
            entries.append(SetEntry(name: name, kind: kind, temporary: temporary,
                                    file: Deliverables.File(name: name, kind: kind, bytes: 0, width: 0, height: 0, sha256: "")))
        }
        entries.append(SetEntry(name: "clip.dropcut.json", kind: SetEntry.manifestKind,
                                temporary: PartialOutput(directory: dir.path, filename: "clip.dropcut.json", tag: tag).path))
        return SetCommit.State(entries: entries)
    }

    /// The manifest as the names given: one line each.
    static func manifest(_ files: [SetEntry], _ names: [String]) -> Data {
        Data(names.joined(separator: "\n").utf8)
    }

    @Test func aTakenNameMovesEveryNameOfTheSetToTheNextSuffix() throws {
        let dir = try TemporaryDirectory()
        try Self.write("someone else's", dir.file("clip.poster.png"))
        var state = try Self.renderedSet(in: dir, tag: "job1")
        var steps: [SetCommit.State] = []
        try SetCommit(directory: dir.path, policy: .neverReplace, durability: .durable, tag: "job1")
            .publish(&state, manifest: Self.manifest, step: { steps.append($0) })
        #expect(state.suffix == 1)
        #expect(try Self.listing(dir) == ["clip.dropcut-1.json", "clip.poster-1.png", "clip.poster.png", "clip.wide-1.mp4"])
        #expect(Self.read(dir.file("clip.poster.png")) == "someone else's")
        #expect(Self.read(dir.file("clip.wide-1.mp4")) == "new clip.wide.mp4")
        #expect(Self.read(dir.file("clip.dropcut-1.json")) == "clip.wide-1.mp4\nclip.poster-1.png")
        #expect(state.entries.map(\.output) == ["clip.wide-1.mp4", "clip.poster-1.png", "clip.dropcut-1.json"].map(dir.file))
        // The suffix is told before anything is published, then each step after it.
        #expect(steps.first?.suffix == 1 && steps.first?.entries.allSatisfy { $0.output == nil } == true)
        #expect(steps.count == 4, "suffix, manifest written, two files published: \(steps.count)")
    }

    @Test func aNameTheCoordinatorRefusesMovesTheSetOnToo() throws {
        let dir = try TemporaryDirectory()
        var state = try Self.renderedSet(in: dir, tag: "job1")
        var asked: [String] = []
        try SetCommit(directory: dir.path, policy: .neverReplace, durability: .volatile, tag: "job1")
            .publish(&state, reserve: { name in
                asked.append(name)
                return name != "clip.wide.mp4"
            }, manifest: Self.manifest)
        #expect(state.suffix == 1 && asked.first == "clip.wide.mp4" && asked.contains("clip.dropcut-1.json"))
        #expect(try Self.listing(dir) == ["clip.dropcut-1.json", "clip.poster-1.png", "clip.wide-1.mp4"])
    }

    /// `dropcut render -n`: a name taken when its file is published (here the second of
    /// the set, so the first is already out) fails the whole commit, naming that name; the
    /// file that has it is untouched, and what was published is taken back with every
    /// temporary file.
    @Test func refuseExistingFailsTheWholeSetOnATakenNameAndTakesBackWhatItPublished() throws {
        let dir = try TemporaryDirectory()
        var state = try Self.renderedSet(in: dir, tag: "7")
        try Self.write("someone else's", dir.file("clip.poster.png"))
        var published: [String] = []
        #expect {
            try SetCommit(directory: dir.path, policy: .refuseExisting, durability: .volatile, tag: "7")
                .publish(&state, manifest: Self.manifest, step: { step in
                    published += step.entries.compactMap(\.output).filter { !published.contains($0) }
                })
        } throws: { error in
            guard let refused = error as? SetCommitError else { return false }
            return refused.nameExists && refused.path == dir.file("clip.poster.png")
        }
        #expect(published == [dir.file("clip.wide.mp4")], "the race happened: the first file was out before the second was refused")
        #expect(try Self.listing(dir) == ["clip.poster.png"])
        #expect(Self.read(dir.file("clip.poster.png")) == "someone else's")
    }

    @Test func refuseExistingPublishesAFreeSetUnderItsOwnNames() throws {
        let dir = try TemporaryDirectory()
        var state = try Self.renderedSet(in: dir, tag: "7")
        try SetCommit(directory: dir.path, policy: .refuseExisting, durability: .volatile, tag: "7")
            .publish(&state, manifest: Self.manifest)
        #expect(state.suffix == 0)
        #expect(try Self.listing(dir) == ["clip.dropcut.json", "clip.poster.png", "clip.wide.mp4"])
        #expect(Self.read(dir.file("clip.dropcut.json")) == "clip.wide.mp4\nclip.poster.png")
    }

    @Test func replaceRenamesOverAFileAndAnEarlierLaddersFolder() throws {
        let dir = try TemporaryDirectory()
        try Self.write("old video", dir.file("clip.wide.mp4"))
        try FileManager.default.createDirectory(atPath: dir.file("clip/240p"), withIntermediateDirectories: true)
        try Self.write("old master", dir.file("clip/clip.m3u8"))
        try Self.write("old rung", dir.file("clip/240p/index.m3u8"))
        try Self.write("old manifest", dir.file("clip.dropcut.json"))
        var state = try Self.renderedSet(in: dir, tag: "42")
        let ladder = PartialOutput(directory: dir.path, filename: "clip", tag: "42").path
        try FileManager.default.createDirectory(atPath: ladder, withIntermediateDirectories: false)
        try Self.write("new master", (ladder as NSString).appendingPathComponent("clip.m3u8"))
        state.entries.insert(SetEntry(name: "clip.m3u8", kind: SetEntry.ladderKind, temporary: ladder), at: 1)
        try SetCommit(directory: dir.path, policy: .replace, durability: .volatile, tag: "42")
            .publish(&state, manifest: Self.manifest)
        #expect(state.suffix == 0)
        #expect(try Self.listing(dir) == ["clip", "clip.dropcut.json", "clip.poster.png", "clip.wide.mp4"])
        #expect(Self.read(dir.file("clip.wide.mp4")) == "new clip.wide.mp4")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.file("clip")) == ["clip.m3u8"])
        #expect(Self.read(dir.file("clip/clip.m3u8")) == "new master")
        #expect(Self.read(dir.file("clip.dropcut.json")) == "clip.wide.mp4\nclip\nclip.poster.png")
    }

    @Test func aSingleOutputIsASetOfOneUnderEitherPolicy() throws {
        let dir = try TemporaryDirectory()
        try Self.write("earlier", dir.file("clip.mp4"))
        for (policy, name) in [(SetCommit.Policy.neverReplace, "clip-1.mp4"), (.replace, "clip.mp4")] {
            let temporary = PartialOutput(directory: dir.path, filename: "clip.mp4", tag: "7").path
            try Self.write("render \(policy)", temporary)
            var state = SetCommit.State.setOfOne(temporary: temporary, name: "clip.mp4")
            try SetCommit(directory: dir.path, policy: policy, durability: .volatile, tag: "7").publish(&state)
            #expect(state.entries.first?.output == dir.file(name))
            #expect(Self.read(dir.file(name)) == "render \(policy)")
        }
        #expect(try Self.listing(dir) == ["clip-1.mp4", "clip.mp4"])
    }

    @Test func aVolatileCommitThatFailsInTheMiddleTakesBackWhatItPublished() throws {
        for policy in [SetCommit.Policy.replace, .neverReplace] {
            let dir = try TemporaryDirectory()
            var state = try Self.renderedSet(in: dir, tag: "9")
            // The poster's temporary file is gone: publishing it fails after the video's.
            unlink(try #require(state.entries[1].temporary))
            #expect(throws: SystemError.self) {
                try SetCommit(directory: dir.path, policy: policy, durability: .volatile, tag: "9")
                    .publish(&state, manifest: Self.manifest)
            }
            #expect(try Self.listing(dir) == [], "\(policy)")
        }
    }

    @Test func aDurableCommitThatFailsLeavesItsStateToCarryOnFrom() throws {
        let dir = try TemporaryDirectory()
        var state = try Self.renderedSet(in: dir, tag: "job1")
        let poster = try #require(state.entries[1].temporary)
        try FileManager.default.moveItem(atPath: poster, toPath: dir.file("aside"))
        let commit = SetCommit(directory: dir.path, policy: .neverReplace, durability: .durable, tag: "job1")
        #expect(throws: SystemError.self) { try commit.publish(&state, manifest: Self.manifest) }
        #expect(state.entries[0].output == dir.file("clip.wide.mp4") && state.entries[1].output == nil && state.suffix == 0)
        // Back where it was, the commit carries on from the state and publishes the rest once.
        try FileManager.default.moveItem(atPath: dir.file("aside"), toPath: poster)
        try commit.publish(&state, manifest: Self.manifest)
        #expect(try Self.listing(dir) == ["clip.dropcut.json", "clip.poster.png", "clip.wide.mp4"])
    }

    @Test func aSetThatIsNotFilesAndTheirManifestIsRefused() throws {
        let dir = try TemporaryDirectory()
        var state = try Self.renderedSet(in: dir, tag: "1")
        state.entries.removeLast()
        #expect(throws: SetCommitError.self) {
            try SetCommit(directory: dir.path, policy: .replace, durability: .volatile, tag: "1").publish(&state)
        }
    }
}
