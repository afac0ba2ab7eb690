import Foundation

/// A file name as the bytes it is on disk, and the printable UTF-8 form dropcut uses for it.
///
/// Linux names are any bytes but `/` and NUL: a clip saved by an old Windows or SMB client
/// may be `caf<E9>.mov` (Latin-1), which a Swift `String` cannot hold, and a name may hold a
/// newline or a terminal escape. dropcut claims such a clip under its printable form and
/// works on that from then on (probe, render, output name, logs, error file, status), so
/// every later step sees an ordinary name; the archive and failed/ give it its bytes back.
///
/// The printable form is the name itself when it is UTF-8 without control characters or
/// backslashes — nearly every name. Otherwise it is escaped: a backslash is written `\\`,
/// and every byte that is not UTF-8, or belongs to a control character (C0, DEL, C1), is
/// written `\xHH` (`caf<E9>.mov` is `caf\xE9.mov`, `a<LF>b.mov` is `a\x0Ab.mov`). Since
/// every name with a backslash is escaped, a name that is literally `caf\xE9.mov` is shown
/// as `caf\\xE9.mov`: the printable form is unique to its bytes and can be read back.
package struct RawFileName: Sendable, Hashable, CustomStringConvertible {
    /// The name on disk.
    package let bytes: [UInt8]
    /// The name as dropcut shows and uses it: valid UTF-8, no control characters.
    package let printable: String

    /// The name `bytes` (as read from a directory).
    package init(bytes: some Collection<UInt8>) {
        self.bytes = Array(bytes)
        printable = Self.escape(self.bytes)
    }

    /// The name whose printable form is `printable`; nil when `printable` holds a
    /// backslash that is not one of the escapes (`\\`, `\xHH`), so it is no such form.
    package init?(printable: String) {
        guard let bytes = Self.unescape(printable) else { return nil }
        self.bytes = bytes
        self.printable = printable
    }

    /// Whether the printable form differs from the bytes (they need to be given back).
    package var isEscaped: Bool { Self.isEscaped(printable) }

    package var description: String { printable }

    /// Whether `printable` is an escaped form: only those hold a backslash.
    package static func isEscaped(_ printable: String) -> Bool {
        printable.utf8.contains(UInt8(ascii: "\\"))
    }

    /// The printable form of the name `bytes`.
    package static func escape(_ bytes: [UInt8]) -> String {
        // Nearly every name: plain UTF-8, returned as it is.
        if let plain = String(validating: bytes, as: UTF8.self), !plain.unicodeScalars.contains(where: needsEscape) {
            return plain
        }
        var out = ""
        out.reserveCapacity(bytes.count + 16)
        func hex(_ byte: UInt8) {
            out += "\\x"
            out += String(byte >> 4, radix: 16, uppercase: true)
            out += String(byte & 0xF, radix: 16, uppercase: true)
        }
        var i = 0
        while i < bytes.count {
            // The sequence the lead byte announces, checked by the standard library's strict
            // decoder (no overlong forms, surrogates or values past U+10FFFF); anything else
            // is one byte that is not UTF-8.
            let length = switch bytes[i] {
            case 0..<0x80: 1
            case 0xC2...0xDF: 2
            case 0xE0...0xEF: 3
            case 0xF0...0xF4: 4
            default: 0
            }
            guard length > 0, i + length <= bytes.count,
                  let character = String(validating: bytes[i..<(i + length)], as: UTF8.self),
                  let scalar = character.unicodeScalars.first else {
                hex(bytes[i])
                i += 1
                continue
            }
            if scalar == "\\" {
                out += "\\\\"
            } else if needsEscape(scalar) {
                bytes[i..<(i + length)].forEach(hex)
            } else {
                out.unicodeScalars.append(scalar)
            }
            i += length
        }
        return out
    }

    /// Characters written as bytes: C0 controls, DEL, C1 controls (a newline splits a log
    /// line, an escape sequence rewrites a terminal), and the backslash, the escape itself.
    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\\"
    }

    /// The bytes of the printable form `text`, or nil when a backslash in it does not start
    /// `\\` or `\xHH`.
    package static func unescape(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.contains(UInt8(ascii: "\\")) else { return utf8 }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count)
        var i = 0
        while i < utf8.count {
            let byte = utf8[i]
            guard byte == UInt8(ascii: "\\") else {
                out.append(byte)
                i += 1
                continue
            }
            guard i + 1 < utf8.count else { return nil }
            if utf8[i + 1] == UInt8(ascii: "\\") {
                out.append(byte)
                i += 2
            } else if utf8[i + 1] == UInt8(ascii: "x"), i + 3 < utf8.count,
                      let high = hexValue(utf8[i + 2]), let low = hexValue(utf8[i + 3]) {
                out.append(high << 4 | low)
                i += 4
            } else {
                return nil
            }
        }
        return out
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        default: return nil
        }
    }

    /// The NUL-terminated path `directory/<bytes>` (just the name when `directory` is nil),
    /// to pass to `rename`, `link` or `fstatat`: how a name that is not UTF-8 reaches them.
    package func path(in directory: String?) -> [CChar] {
        var path: [UInt8] = []
        if let directory {
            path.append(contentsOf: directory.utf8)
            if path.last != UInt8(ascii: "/") { path.append(UInt8(ascii: "/")) }
        }
        path.append(contentsOf: bytes)
        path.append(0)
        return path.map { CChar(bitPattern: $0) }
    }
}
