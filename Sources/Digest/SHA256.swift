internal import CDropcutCrypto
import Foundation
import DropcutSupport

/// SHA-256 (FIPS 180-4), for the checksums of a deliverables manifest, a webhook's
/// `job.done` and the listener's session cookie: OpenSSL's libcrypto (its EVP interface),
/// which every dropcut process has loaded already (libcurl and libpq link it) and which
/// uses the CPU's SHA extensions where there are some — a hand-written digest ran 6–12
/// times slower than it on the path before a job is recorded done.
///
/// Owns its libcrypto context (freed in `deinit`); not copyable, so the context has one
/// owner. Feed it bytes with `update`, then take the digest once.
public struct SHA256: ~Copyable {
    private let context: OpaquePointer

    public init() {
        // Allocation failure is the only way these fail, as for any Swift allocation.
        guard let context = EVP_MD_CTX_new() else { preconditionFailure("EVP_MD_CTX_new: out of memory") }
        precondition(EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1, "EVP_DigestInit_ex(sha256) failed")
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Adds `bytes` to what is hashed.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        precondition(EVP_DigestUpdate(context, base, bytes.count) == 1, "EVP_DigestUpdate failed")
    }

    /// Adds `bytes` to what is hashed (an array or slice in place, anything else copied once).
    public mutating func update(_ bytes: some Sequence<UInt8>) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if done == nil { Array(bytes).withUnsafeBytes { update($0) } }
    }

    /// The 32-byte digest of everything added.
    public consuming func digest() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        precondition(EVP_DigestFinal_ex(context, &out, &length) == 1, "EVP_DigestFinal_ex failed")
        return Array(out.prefix(Int(length)))
    }

    /// The digest of everything added, as 64 lower-case hex digits.
    public consuming func finish() -> String { Self.hex(digest()) }

    /// The digest of `bytes`, in hex.
    public static func hex(of bytes: some Sequence<UInt8>) -> String {
        var hash = SHA256()
        hash.update(bytes)
        return hash.finish()
    }

    /// The digest of the file at `path`, in hex, read in 1 MiB blocks (memory does not
    /// grow with the file). Blocking: run it off the cooperative pool.
    public static func hex(ofFile path: String) throws(SystemError) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError(errno: errno, function: "open", path: path) }
        defer { close(fd) }
        _ = posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL)
        let size = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 64)
        defer { buffer.deallocate() }
        var hash = SHA256()
        while true {
            let count = read(fd, buffer, size)
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemError(errno: errno, function: "read", path: path)
            }
            hash.update(UnsafeRawBufferPointer(start: buffer, count: count))
        }
        return hash.finish()
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
