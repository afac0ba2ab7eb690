import Testing
import CDropcutFFmpeg
import DropcutMediaIO
import TestSupport

/// `Demuxer(path:)` on inputs that are not media: it throws an `FFmpegError` that names the
/// file and the failing FFmpeg function, and never crashes.
@Suite struct DemuxerErrorTests {
    enum BadInput: String, CaseIterable, CustomTestStringConvertible {
        case zeroByteFile, textRenamedMP4, missingPath

        var testDescription: String { rawValue }

        /// Makes the input in `dir`; returns its path.
        func make(in dir: TemporaryDirectory) throws -> String {
            switch self {
            case .zeroByteFile: return try Fixtures.makeFile(in: dir.path, name: "empty.mp4")
            case .textRenamedMP4:
                return try Fixtures.makeFile(in: dir.path, name: "notes.mp4", contents: "shopping list:\neggs\nmilk\n")
            case .missingPath: return dir.file("no-such-clip.mp4")
            }
        }

        /// The AVERROR FFmpeg returns for it.
        var expectedCode: Int32 {
            switch self {
            // AVERROR_INVALIDDATA = FFERRTAG('I','N','D','A'), a macro Swift does not import.
            case .zeroByteFile, .textRenamedMP4: return -Self.tag("I", "N", "D", "A")
            case .missingPath: return cff_averror(ENOENT)
            }
        }

        static func tag(_ a: Character, _ b: Character, _ c: Character, _ d: Character) -> Int32 {
            Int32(a.asciiValue!) | Int32(b.asciiValue!) << 8 | Int32(c.asciiValue!) << 16 | Int32(d.asciiValue!) << 24
        }
    }

    @Test(arguments: BadInput.allCases)
    func throwsFFmpegErrorNamingTheFile(_ input: BadInput) throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let path = try input.make(in: dir)

        let error = try #require(throws: FFmpegError.self) { _ = try Demuxer(path: path) }

        #expect(error.path == path)
        #expect(error.function == "avformat_open_input")
        #expect(error.code < 0)
        #expect(error.code == input.expectedCode)
        #expect(error.streamIndex == nil)
        #expect(!error.message.isEmpty)
        #expect(error.message == Self.strerror(error.code))
        #expect(error.description.contains(path))
        #expect(error.description.contains(error.message))
        #expect(error.description.contains("avformat_open_input"))
    }

    @Test func missingFileMessageIsTheSystemText() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let error = try #require(throws: FFmpegError.self) { _ = try Demuxer(path: dir.file("gone.mov")) }
        #expect(error.message == "No such file or directory")
    }

    /// av_strerror's text, computed here independently of MediaIO.
    static func strerror(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard av_strerror(code, &buffer, buffer.count) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
