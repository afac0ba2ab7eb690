/// HMAC-SHA256 (RFC 2104 over FIPS 180-4): what a Standard Webhooks signature is. Built on
/// `SHA256` rather than a crypto library for the same reason the digest is (Support has no
/// C import, and this is a dozen lines checked against RFC 4231's vectors).
public enum HMACSHA256 {
    /// SHA-256's block size: longer keys are hashed first, shorter ones padded with zeros.
    static let blockSize = 64

    /// The 32-byte authentication code of `message` under `key`.
    public static func authenticationCode(for message: some Sequence<UInt8>, key: [UInt8]) -> [UInt8] {
        var block = key
        if block.count > blockSize {
            var hash = SHA256()
            hash.update(block)
            block = hash.digest()
        }
        block += [UInt8](repeating: 0, count: blockSize - block.count)
        var inner = SHA256()
        inner.update(block.map { $0 ^ 0x36 })
        inner.update(message)
        var outer = SHA256()
        outer.update(block.map { $0 ^ 0x5c })
        outer.update(inner.digest())
        return outer.digest()
    }
}
