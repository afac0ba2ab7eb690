import Foundation
import Testing
import TestSupport
@testable import DropcutMediaIO

/// `PictureHeader` parses bytes from any file dropped as a picture: mutated and cut-short
/// headers of real PNGs and JPEGs (made by the ffmpeg CLI) either parse or throw naming
/// the file, never trap, and the JPEG segment walk always ends.
@Suite struct PictureHeaderFuzzTests {
    @Test func mutatedAndTruncatedHeadersParseOrFailNamingTheFile() throws {
        let dir = try TemporaryDirectory()
        var seeds: [[UInt8]] = []
        for (name, format) in [("p.png", "rgba64be"), ("q.png", "pal8"), ("j.jpg", "yuvj420p")] {
            try Command.runChecked("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=64x48", "-frames:v", "1",
                                              "-pix_fmt", format, dir.file(name)])
            seeds.append([UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.file(name)))))
        }
        var generator = SystemRandomNumberGenerator()
        var parsed = 0, refused = 0
        let path = dir.file("mutant")
        for round in 0..<3000 {
            var bytes = seeds[round % seeds.count]
            // Mutate the first 64 bytes (signature, IHDR or the first segments) and cut
            // the file somewhere.
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                bytes[Int.random(in: 0..<min(64, bytes.count), using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            if round % 3 == 0 { bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &generator))) }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            do {
                let header = try PictureHeader.read(path)
                #expect(header.size.width >= 0 && header.size.height >= 0 && header.bytesPerPixel > 0)
                parsed += 1
            } catch {
                #expect(error.path == path && error.note != nil, "\(error)")
                refused += 1
            }
        }
        print("picture headers: \(parsed) parsed, \(refused) refused of 3000 mutants")
        #expect(parsed > 0 && refused > 0)
    }
}
