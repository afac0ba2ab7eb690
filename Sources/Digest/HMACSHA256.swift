internal import CDropcutCrypto

/// HMAC-SHA256 (RFC 2104 over FIPS 180-4): what a Standard Webhooks signature is, from
/// OpenSSL's libcrypto as `SHA256` is.
public enum HMACSHA256 {
    /// The 32-byte authentication code of `message` under `key` (any length; a longer key
    /// than SHA-256's 64-byte block is hashed first, as RFC 2104 says).
    public static func authenticationCode(for message: some Sequence<UInt8>, key: [UInt8]) -> [UInt8] {
        let message = Array(message)
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        // Never a null pointer for an empty key or message (libcrypto reads 0 bytes of it).
        let keyBytes = key.isEmpty ? [0] : key
        let messageBytes = message.isEmpty ? [0] : message
        let done = keyBytes.withUnsafeBytes { k in
            messageBytes.withUnsafeBufferPointer { m in
                HMAC(EVP_sha256(), k.baseAddress, Int32(key.count), m.baseAddress, message.count, &out, &length)
            }
        }
        precondition(done != nil && length == 32, "HMAC(sha256) failed")
        return Array(out.prefix(Int(length)))
    }
}
