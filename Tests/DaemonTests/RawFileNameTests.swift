import Foundation
import DropcutSupport
import Testing
@testable import DropcutDaemon
import DropcutPipeline
import TestSupport
import DropcutTimeline

/// Names as bytes: the printable form, its way back, and the files that carry it.
@Suite struct RawFileNameTests {
    func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// Creates `name` (any bytes) in `directory` with `contents`: FileManager cannot.
    func create(_ name: [UInt8], in directory: String, contents: String = "x") throws {
        let path = RawFileName(bytes: name).path(in: directory)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        try #require(fd >= 0, "open: \(String(cString: strerror(errno)))")
        _ = contents.withCString { write(fd, $0, strlen($0)) }
        close(fd)
    }

    /// The names in `directory` as bytes (readdir), sorted, without `.` and `..`.
    func entries(_ directory: String) -> [[UInt8]] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [[UInt8]] = []
        while let entry = readdir(dir) {
            // In place up to the NUL: readdir's records can be shorter than `d_name`.
            guard let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name) else { continue }
            let start = (UnsafeRawPointer(entry) + offset).assumingMemoryBound(to: CChar.self)
            let name = Array(UnsafeRawBufferPointer(start: start, count: strlen(start)))
            if name != [0x2E] && name != [0x2E, 0x2E] { names.append(name) }
        }
        return names.sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// The contents of the file `name` (any bytes) in `directory`.
    func contents(_ name: RawFileName, in directory: String) throws -> String {
        let fd = open(name.path(in: directory), O_RDONLY)
        try #require(fd >= 0, "open \(name): \(String(cString: strerror(errno)))")
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(fd, &buffer, buffer.count)
        return String(decoding: buffer.prefix(max(0, count)), as: UTF8.self)
    }

    @Test func validUTF8NamesAreTheirOwnPrintableForm() {
        for name in ["clip.mov", "été 🎬 clip.MOV", "日本語.mp4", "a b'c\"d.mp4", String(repeating: "é", count: 127) + ".m"] {
            let raw = RawFileName(bytes: bytes(name))
            #expect(raw.printable == name)
            #expect(!raw.isEscaped)
            #expect(RawFileName.unescape(name) == bytes(name))
        }
    }

    @Test func bytesThatAreNotUTF8AreWrittenAsHex() {
        #expect(RawFileName(bytes: [0x63, 0x61, 0x66, 0xE9] + bytes(".mov")).printable == #"caf\xE9.mov"#)
        // Shift-JIS 日本 (93 FA 96 7B): 0x7B is "{" and stays a character.
        #expect(RawFileName(bytes: [0x93, 0xFA, 0x96, 0x7B] + bytes(".mp4")).printable == #"\x93\xFA\x96{.mp4"#)
        // A surrogate, an overlong "/", a value past U+10FFFF, a lone continuation byte, a
        // sequence cut short: none is UTF-8, each byte is escaped.
        #expect(RawFileName(bytes: [0xED, 0xA0, 0x80]).printable == #"\xED\xA0\x80"#)
        #expect(RawFileName(bytes: [0xC0, 0xAF]).printable == #"\xC0\xAF"#)
        #expect(RawFileName(bytes: [0xF4, 0x90, 0x80, 0x80]).printable == #"\xF4\x90\x80\x80"#)
        #expect(RawFileName(bytes: [0x80, 0x61]).printable == #"\x80a"#)
        #expect(RawFileName(bytes: [0x61, 0xE2, 0x82]).printable == #"a\xE2\x82"#)
        // Valid characters around invalid bytes are kept as characters.
        #expect(RawFileName(bytes: bytes("é") + [0xFF] + bytes("🎬")).printable == "é\\xFF🎬")
    }

    /// Control characters (C0, DEL, C1) never reach a log line, a status line or a
    /// terminal as themselves.
    @Test func controlCharactersAreEscaped() {
        #expect(RawFileName(bytes: bytes("a\nSTOPPING=1\n.mov")).printable == #"a\x0ASTOPPING=1\x0A.mov"#)
        #expect(RawFileName(bytes: bytes("\u{1b}[31mred\u{7f}.mov")).printable == #"\x1B[31mred\x7F.mov"#)
        #expect(RawFileName(bytes: bytes("next\u{85}line.mov")).printable == #"next\xC2\x85line.mov"#)
        #expect(RawFileName(bytes: bytes("tab\there.mov")).isEscaped)
        for byte in UInt8(0x01)...UInt8(0x7F) {
            let printable = RawFileName(bytes: [byte]).printable
            #expect(!printable.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F })
        }
    }

    /// A name that literally reads like an escape cannot be taken for the name it
    /// describes: names with a backslash are escaped too.
    @Test func printableFormsAreUniqueToTheirBytes() {
        let latin1 = RawFileName(bytes: [0x63, 0x61, 0x66, 0xE9] + bytes(".mov"))
        let literal = RawFileName(bytes: bytes(#"caf\xE9.mov"#))
        #expect(latin1.printable == #"caf\xE9.mov"#)
        #expect(literal.printable == #"caf\\xE9.mov"#)
        #expect(RawFileName(bytes: bytes(#"a\b.mov"#)).printable == #"a\\b.mov"#)
        #expect(RawFileName(bytes: bytes(#"a\"#)).printable == #"a\\"#)
        // Every one- and two-byte name (and some longer) has its own printable form.
        var seen: [String: [UInt8]] = [:]
        var names: [[UInt8]] = (1...255).map { [UInt8($0)] }
        for first in [0x5C, 0x78, 0xC3, 0xE9, 0x0A, 0x41] as [UInt8] {
            for second in 1...255 { names.append([first, UInt8(second)]) }
        }
        names += [bytes(#"\x41"#), [0x41], bytes(#"\\x41"#), [0x5C, 0x41], bytes(#"\\"#), [0x5C]]
        for name in names {
            let printable = RawFileName(bytes: name).printable
            #expect(seen[printable] == nil || seen[printable] == name, "\(name) and \(seen[printable] ?? []) share \(printable)")
            seen[printable] = name
        }
    }

    @Test func printableFormsReadBackToTheirBytes() throws {
        var generator = SystemRandomNumberGenerator()
        var samples: [[UInt8]] = [
            [0x63, 0x61, 0x66, 0xE9] + bytes(".mov"), bytes(#"caf\xE9.mov"#), bytes("a\n.mov"), bytes(#"\\\"#),
            bytes(#"\x"#), bytes(#"\xZZ"#), [0x5C, 0xE9], [0xE9, 0x5C],
        ]
        for _ in 0..<2000 {
            samples.append((0..<Int.random(in: 1...40, using: &generator)).map { _ in UInt8.random(in: 1...255, using: &generator) })
        }
        for name in samples {
            let raw = RawFileName(bytes: name)
            #expect(RawFileName.unescape(raw.printable) == name, "\(name) -> \(raw.printable)")
            #expect(String(validating: raw.printable.utf8, as: UTF8.self) != nil)
            let back = try #require(RawFileName(printable: raw.printable))
            #expect(back == raw)
            #expect(raw.isEscaped == (Array(raw.printable.utf8) != name))
        }
        // Lower-case hex is read too; a backslash that starts no escape is not a printable form.
        #expect(RawFileName.unescape(#"caf\xe9"#) == [0x63, 0x61, 0x66, 0xE9])
        for text in [#"a\b"#, #"a\"#, #"\x4"#, #"\xG0"#] { #expect(RawFileName(printable: text) == nil, "\(text)") }
    }

    @Test func pathsCarryTheBytes() throws {
        let dir = try TemporaryDirectory()
        let name: [UInt8] = [0x63, 0x61, 0x66, 0xE9] + bytes(".mov")
        try create(name, in: dir.path)
        #expect(entries(dir.path) == [name])
        var info = stat()
        #expect(stat(RawFileName(bytes: name).path(in: dir.path), &info) == 0)
        #expect(stat(RawFileName(bytes: name).path(in: dir.path + "/"), &info) == 0)
    }

    /// An escaped name too long for NAME_MAX: the clip and its sidecars are shortened
    /// alike, so they still pair by stem, and two such names stay apart.
    @Test func longEscapedNamesAreShortenedAlike() {
        let stem = String(repeating: #"\x93\xFA"#, count: 40)   // 80 Shift-JIS bytes, 320 escaped
        let names = ClaimedNames.of([stem + ".m2ts", stem + ".yaml", stem + ".AAE"])
        #expect(names.allSatisfy { $0.utf8.count <= FileName.maximumBytes }, "\(names.map(\.utf8.count))")
        let stems = names.map { ($0 as NSString).deletingPathExtension.lowercased() }
        #expect(Set(stems).count == 1, "\(stems)")
        #expect(names.map { ($0 as NSString).pathExtension } == ["m2ts", "yaml", "AAE"])
        // Cut between escapes, never inside one: each is still a printable form.
        #expect(names.allSatisfy { RawFileName(printable: $0) != nil }, "\(names)")
        for bytes in 230...240 {
            let cut = ClaimedNames.truncated(String(repeating: #"\x93"#, count: 40) + #"a\\b"#, toBytes: bytes)
            #expect(RawFileName(printable: cut) != nil && cut.utf8.count <= bytes, "\(cut.suffix(8))")
        }
        #expect(ClaimedNames.truncated(#"ab\\\\"#, toBytes: 5) == #"ab\\"#)
        #expect(ClaimedNames.truncated(#"ab\xE9"#, toBytes: 5) == "ab")
        #expect(ClaimedNames.truncated(#"ab\xE9"#, toBytes: 6) == #"ab\xE9"#)
        let other = ClaimedNames.of([String(stem.dropLast(8)) + #"\x94\xFA.m2ts"#])
        #expect(other[0] != names[0])
        // Names that fit are kept as they are.
        #expect(ClaimedNames.of([#"caf\xE9.mov"#, #"caf\xE9.yaml"#]) == [#"caf\xE9.mov"#, #"caf\xE9.yaml"#])
    }

    /// Into the archive under the bytes it was dropped with, numbered rather than
    /// replacing anything, the extension kept.
    @Test func movesGiveTheDroppedNameBack() throws {
        let dir = try TemporaryDirectory()
        let archive = dir.file("archive")
        let dropped = RawFileName(bytes: [0x63, 0x61, 0x66, 0xE9] + bytes(".mov"))
        for round in 0..<2 {
            let source = dir.file(dropped.printable)
            try "clip \(round)".write(toFile: source, atomically: false, encoding: .utf8)
            let moved = try DurableFiles.move(source, into: archive, name: dropped.printable, dropped: dropped, tag: "job\(round)")
            #expect(moved.bytes == (round == 0 ? dropped.bytes : [0x63, 0x61, 0x66, 0xE9] + bytes("-1.mov")))
            #expect(!FileManager.default.fileExists(atPath: source))
        }
        #expect(entries(archive) == [[0x63, 0x61, 0x66, 0xE9] + bytes("-1.mov"), dropped.bytes])
        #expect(try contents(dropped, in: archive) == "clip 0")
        // A name with nothing to give back moves as it is.
        let plain = dir.file("plain.mov")
        try "p".write(toFile: plain, atomically: false, encoding: .utf8)
        #expect(try DurableFiles.move(plain, into: archive, name: "plain.mov", dropped: nil, tag: "job2").printable == "plain.mov")
    }

    /// A crash mid-move leaves `.<printable>.moving-<job>` (before the link, or after it
    /// but before the temporary name was removed): finishing puts the file under its
    /// dropped name once — never a second copy under `-1`.
    @Test(arguments: [false, true])
    func aMoveInterruptedByACrashEndsUnderTheDroppedName(linkedBeforeTheCrash: Bool) throws {
        let dir = try TemporaryDirectory()
        let dropped = RawFileName(bytes: bytes("a\n") + [0xFF] + bytes(".mov"))
        let hidden = dir.file(DurableFiles.temporaryName(dropped.printable, "moving", tag: "job"))
        try "clip".write(toFile: hidden, atomically: false, encoding: .utf8)
        if linkedBeforeTheCrash { #expect(link(hidden, dropped.path(in: dir.path)) == 0) }
        try DurableFiles.finishMoves(in: dir.path, tag: "job", names: [dropped.printable], dropped: [dropped.printable: dropped])
        #expect(entries(dir.path) == [dropped.bytes])
        #expect(try contents(dropped, in: dir.path) == "clip")
    }

    @Test func numberedByteNamesKeepTheirExtensionAndFit() {
        let long = RawFileName(bytes: [UInt8](repeating: 0xE9, count: 251) + bytes(".mov"))
        let numbered = DurableFiles.numbered(long, 12)
        #expect(numbered.bytes.count == FileName.maximumBytes)
        #expect(numbered.bytes.suffix(7) == ArraySlice(bytes("-12.mov")))
        #expect(DurableFiles.numbered(RawFileName(bytes: [0xE9]), 1).bytes == [0xE9] + bytes("-1"))
        #expect(DurableFiles.numbered(RawFileName(bytes: bytes(".x")), 1).bytes == bytes(".x-1"))
    }
}
