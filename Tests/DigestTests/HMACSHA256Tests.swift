import DropcutDigest
import Testing

@Suite struct HMACSHA256Tests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// RFC 4231's test cases 1–4, 6 and 7 (5 truncates the output): short keys, a key
    /// longer than the block (hashed first) and data longer than the block.
    @Test func rfc4231Vectors() {
        let cases: [(key: [UInt8], data: [UInt8], mac: String)] = [
            ([UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8),
             "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
            (Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
             "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
            ([UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50),
             "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
            (Array(1...25), [UInt8](repeating: 0xcd, count: 50),
             "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
            ([UInt8](repeating: 0xaa, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
             "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
            ([UInt8](repeating: 0xaa, count: 131),
             Array("This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.".utf8),
             "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
        ]
        for (n, test) in cases.enumerated() {
            #expect(Self.hex(HMACSHA256.authenticationCode(for: test.data, key: test.key)) == test.mac, "case \(n + 1)")
        }
    }

    /// A key of exactly one block is used as it is, one byte more is hashed first.
    @Test func keysAroundTheBlockSize() {
        let message = Array("dropcut".utf8)
        let block = [UInt8](repeating: 0x42, count: 64)
        var hash = SHA256()
        hash.update(block + [0x42])
        let hashedKey = hash.digest()
        #expect(HMACSHA256.authenticationCode(for: message, key: block + [0x42])
                == HMACSHA256.authenticationCode(for: message, key: hashedKey))
        #expect(HMACSHA256.authenticationCode(for: message, key: block) != HMACSHA256.authenticationCode(for: message, key: block + [0x42]))
    }

    @Test func digestBytesAreTheHex() {
        var hash = SHA256()
        hash.update(Array("abc".utf8))
        #expect(Self.hex(hash.digest()) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}
