import Foundation
import Testing
@testable import DropcutPipeline
import TestSupport

@Suite struct PartialOutputTests {
    @Test func hiddenBesideItsFinalNameWithItsExtension() {
        #expect(PartialOutput(besides: "/out/clip.social.mp4", tag: "123").path == "/out/.clip.social.partial-123.mp4")
        #expect(PartialOutput(besides: "clip.mov", tag: "7").path == ".clip.partial-7.mov")
        #expect(PartialOutput(directory: "/outbox", filename: "noext", tag: "job").path == "/outbox/.noext.partial-job")
    }

    /// However long the clip's name (up to NAME_MAX, in any script), the temporary name
    /// fits in a directory entry and keeps whole characters.
    @Test(arguments: [String(repeating: "a", count: 250), String(repeating: "é", count: 120), String(repeating: "🎬", count: 60)])
    func longNamesFitNameMax(stem: String) throws {
        let partial = PartialOutput(directory: "/outbox", filename: stem + ".mp4", tag: "0123456789abcdef0123456789abcdef")
        let name = (partial.path as NSString).lastPathComponent
        #expect(name.utf8.count <= 255)
        #expect(name.hasPrefix(".") && name.hasSuffix(".partial-0123456789abcdef0123456789abcdef.mp4"))
        #expect(String(validating: Array(name.utf8), as: UTF8.self) != nil)
        // And the filesystem agrees.
        let dir = try TemporaryDirectory()
        let file = PartialOutput(directory: dir.path, filename: stem + ".mp4", tag: "0123456789abcdef0123456789abcdef")
        #expect(FileManager.default.createFile(atPath: file.path, contents: Data()))
        file.remove()
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    /// The tag read back from every name the scheme makes (long stems cut, no extension,
    /// a stem holding `.partial-` itself), and from no other name.
    @Test func theTagIsReadBackFromTheNamesTheSchemeMakes() {
        let id = "20261127T010000Z-0123456789ab"
        for filename in ["clip.dropcut.mp4", "clip", "a.partial-b.mp4", String(repeating: "é", count: 200) + ".mov", "clip.dropcut.json"] {
            let name = (PartialOutput(directory: "/o", filename: filename, tag: id).path as NSString).lastPathComponent
            #expect(PartialOutput.tag(ofName: name) == id, "\(name)")
        }
        for name in ["clip.mp4", ".hidden.mp4", "clip.partial-x.mp4", ".clip.partial-", ".clip.partial-.mp4"] {
            #expect(PartialOutput.tag(ofName: name) == nil, "\(name)")
        }
    }
}
