import Foundation
import DropcutDigest
import Testing

@Suite struct SHA256Tests {
    @Test func knownVectors() {
        #expect(SHA256.hex(of: Array("".utf8)) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(of: Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(of: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hex(of: [UInt8](repeating: 0x61, count: 1_000_000)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Fed in pieces of every length around the 64-byte block, the digest is the same.
    @Test func piecesMakeTheSameDigest() {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let whole = SHA256.hex(of: bytes)
        for piece in [1, 3, 55, 56, 63, 64, 65, 127, 999] {
            var hash = SHA256()
            var i = 0
            while i < bytes.count { hash.update(bytes[i..<min(i + piece, bytes.count)]); i += piece }
            #expect(hash.finish() == whole, "pieces of \(piece)")
        }
    }

    /// A file, against the sha256sum tool.
    @Test func fileMatchesSha256sum() throws {
        let path = NSTemporaryDirectory() + "dropcut-sha256-\(getpid()).bin"
        defer { unlink(path) }
        let bytes = (0..<(3 << 20) + 17).map { UInt8(truncatingIfNeeded: $0 ^ ($0 >> 9)) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let expected = output.split(separator: " ").first.map(String.init)
        #expect(try SHA256.hex(ofFile: path) == expected)
    }
}
