internal import CDropcutSystemd

/// Sends structured entries to systemd-journald with `sd_journal_sendv`
/// (`sd_journal_send` is variadic and cannot be called from Swift).
package enum Journal {
    /// A failed send: the negative errno `sd_journal_sendv` returned.
    package struct SendError: Error, Hashable, Sendable, CustomStringConvertible {
        package let errno: Int32
        package var description: String { "sd_journal_sendv failed: errno \(-errno)" }
    }

    /// Sends one entry. `fields` are journal field names (upper case, e.g. `MESSAGE`,
    /// `PRIORITY`, `DROPCUT_JOB`) with their values; values may contain newlines.
    package static func send(_ fields: [(name: String, value: String)]) throws(SendError) {
        // One contiguous buffer of "NAME=value" items, pointed into by the iovecs.
        var bytes: [UInt8] = []
        var spans: [(offset: Int, count: Int)] = []
        for field in fields {
            let start = bytes.count
            bytes.append(contentsOf: field.name.utf8)
            bytes.append(UInt8(ascii: "="))
            bytes.append(contentsOf: field.value.utf8)
            spans.append((start, bytes.count - start))
        }
        let result: Int32 = bytes.withUnsafeMutableBytes { buffer in
            var vectors = spans.map { span in
                iovec(iov_base: buffer.baseAddress! + span.offset, iov_len: span.count)
            }
            return sd_journal_sendv(&vectors, Int32(vectors.count))
        }
        if result < 0 { throw SendError(errno: result) }
    }
}
