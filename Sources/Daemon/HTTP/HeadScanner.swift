import Foundation

/// Finds where a request's head ends (the empty line after its header fields) in the bytes
/// of a connection as they arrive, and whether it is past the size a head may have — before
/// the HTTP parser sees it, so an oversize head is answered 431 whatever its size (the
/// parser's own limit, 80 KiB, ends in a 400 and a reset). Pure: fed chunks, keeps a byte
/// count and one bit of state.
package struct HeadScanner: Sendable, Hashable {
    package enum Result: Sendable, Hashable {
        /// The head goes on past these bytes.
        case needMore
        /// The head ends after `bytes` bytes of this chunk (the rest is the body, or more).
        case complete(bytes: Int)
        /// The head is over the limit.
        case tooLarge
    }

    /// The most bytes a head may have, its empty line included.
    package let limit: Int
    /// Bytes of the head seen so far.
    package private(set) var count = 0
    /// The last byte other than CR was LF: one more LF ends the head (CR LF CR LF, or the
    /// bare LF LF that parsers accept).
    private var afterNewline = false
    /// Whether the request line has begun: empty lines before it are skipped (RFC 9112 §2.2).
    private var started = false

    package init(limit: Int) {
        self.limit = max(1, limit)
    }

    package mutating func scan(_ bytes: some Collection<UInt8>) -> Result {
        var index = 0
        for byte in bytes {
            index += 1
            count += 1
            if count > limit { return .tooLarge }
            switch byte {
            case 0x0D: continue
            case 0x0A:
                if afterNewline && started { return .complete(bytes: index) }
                afterNewline = true
            default:
                started = true
                afterNewline = false
            }
        }
        return .needMore
    }
}
