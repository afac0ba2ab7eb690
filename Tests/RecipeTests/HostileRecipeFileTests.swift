import Foundation
import DropcutSupport
import Testing
@testable import DropcutRecipe
import TestSupport

/// Recipe and config files as an attacker or a careless user leaves them: aliases that
/// expand exponentially, symlinks to devices, FIFOs, huge files. Each is refused at once
/// with a message that names the file and the cause.
@Suite struct HostileRecipeFileTests {
    /// "Billion laughs": nine levels of nine aliases — 387,420,489 leaves if expanded.
    static let billionLaughs: String = {
        var yaml = "version: 1\nl0: &l0 [\"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\"]\n"
        for level in 1...8 {
            let previous = Array(repeating: "*l\(level - 1)", count: 9).joined(separator: ", ")
            yaml += "l\(level): &l\(level) [\(previous)]\n"
        }
        return yaml
    }()

    @Test func anchorsAndAliasesAreRefusedWithTheirPosition() throws {
        let started = ContinuousClock.now
        do {
            _ = try RecipeNode.parse(yaml: Self.billionLaughs, file: "laughs.yaml")
            Issue.record("an aliased recipe was accepted")
        } catch {
            let messages = error.diagnostics.map(\.description)
            #expect(messages.first == "laughs.yaml:2:5: YAML anchors and aliases (&l0, *l0) are not supported; write the value out",
                    "\(messages)")
            #expect(messages.count == 9)   // one per anchored line, none for the expansion
        }
        #expect(ContinuousClock.now - started < .seconds(1))
        // A single anchor on a scalar, used once, is refused too (the value must be written out).
        #expect(throws: RecipeError.self) {
            _ = try RecipeNode.parse(yaml: "version: 1\noutput: { fps: &rate 30 }\nmusic: { gain: *rate }\n", file: "a.yaml")
        }
        // Text that merely contains & and * is not an anchor.
        let plain = try RecipeNode.parse(yaml: "version: 1\ntext: Tom & Jerry * 2\n", file: "b.yaml")
        guard case let .mapping(entries, _) = plain else { Issue.record("not a mapping"); return }
        #expect(entries.last?.value == .scalar("Tom & Jerry * 2", plain: true, at: SourceLocation(file: "b.yaml", line: 2, column: 7)))
    }

    @Test func droppedRecipesAreReadOnlyAsSmallRegularFiles() throws {
        let dir = try TemporaryDirectory()
        let good = dir.write("good.yaml", "version: 1\n")
        // A symlink dropped into an inbox is refused (it could name any file the daemon can read).
        let link = dir.file("link.yaml")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: good)
        #expect(Self.problem(link, dropped: true) == "\(link): the recipe is not a regular file (a symlink, folder, FIFO or device is never read)")
        // ... but a recipe the admin or the user named themselves may be a symlink.
        #expect(Self.problem(link, dropped: false) == nil)
        // A symlink to /dev/zero is refused, not read until memory runs out.
        let zero = dir.file("zero.yaml")
        try FileManager.default.createSymbolicLink(atPath: zero, withDestinationPath: "/dev/zero")
        #expect(Self.problem(zero, dropped: true)?.contains("not a regular file") == true)
        #expect(Self.problem(zero, dropped: false)?.contains("not a regular file") == true)
        // A FIFO without a writer does not block.
        let fifo = dir.file("fifo.yaml")
        #expect(mkfifo(fifo, 0o644) == 0)
        let started = ContinuousClock.now
        #expect(Self.problem(fifo, dropped: true)?.contains("not a regular file") == true)
        #expect(ContinuousClock.now - started < .seconds(2))
        // Larger than the cap.
        let big = dir.write("big.yaml", "version: 1\n# " + String(repeating: "x", count: TextFile.maximumSize) + "\n")
        #expect(Self.problem(big, dropped: true) == "\(big): the recipe is larger than 256 KiB")
        // Not UTF-8.
        let latin1 = dir.file("latin1.yaml")
        FileManager.default.createFile(atPath: latin1, contents: Data([0x76, 0x3a, 0x20, 0xe9, 0x0a]))
        #expect(Self.problem(latin1, dropped: true) == "\(latin1): the recipe is not UTF-8 text")
        #expect(Self.problem(good, dropped: true) == nil)
    }

    static func problem(_ file: String, dropped: Bool) -> String? {
        do {
            _ = try RecipeLoader().load([file], dropped: dropped ? [file] : [])
            return nil
        } catch {
            return error.diagnostics.map(\.description).joined(separator: "\n")
        }
    }
}
