import Foundation

/// The structural check of a binary property list (`bplist00`) that must pass before
/// Foundation may parse it: `.AAE` sidecars and their payloads come from files anyone can
/// drop next to a clip (see `problem(in:)` for why Foundation cannot be trusted with them).
enum BinaryPlistChecker {
    /// The deepest nesting of containers accepted; a slow-motion payload has 7 levels.
    static let maximumNesting = 32

    /// Why `data` is not a binary property list that is safe to hand to
    /// `PropertyListSerialization`, or nil when it is.
    ///
    /// swift-corelibs-foundation parses binary plists with CoreFoundation and then bridges
    /// the result; a plist holding a set makes that bridging dereference null and kill the
    /// process, and `PropertyListDecoder` hangs on a cyclic reference. Payloads come from
    /// files anyone can drop next to a clip, so every structural fact CoreFoundation relies
    /// on is checked here first, bounded: the trailer, each offset, each length, each
    /// reference, nesting depth (which also catches cycles), and the object types allowed
    /// (booleans, integers, reals, dates, data, ASCII and well-formed UTF-16 strings,
    /// arrays, and dictionaries with string keys — no sets, UIDs, nulls or fill bytes).
    static func problem(in data: Data) -> String? {
        let bytes = [UInt8](data)
        let trailerSize = 32
        guard bytes.starts(with: Array("bplist".utf8)) else { return "it does not start with bplist" }
        guard bytes.starts(with: Array("bplist00".utf8)) else {
            return "unsupported binary plist version '\(String(decoding: bytes.dropFirst(6).prefix(2), as: UTF8.self))'"
        }
        guard bytes.count >= 8 + 1 + trailerSize else { return "it is truncated (\(bytes.count) bytes)" }

        /// The big-endian unsigned integer of `size` (1…8) bytes at `position`, if in bounds.
        func unsigned(at position: Int, size: Int) -> UInt64? {
            guard (1...8).contains(size), position >= 0, position <= bytes.count - size else { return nil }
            var value: UInt64 = 0
            for i in position..<(position + size) { value = value << 8 | UInt64(bytes[i]) }
            return value
        }

        // Trailer: 6 unused bytes, offset size, reference size, object count, top object,
        // offset table position.
        let trailer = bytes.count - trailerSize
        let offsetSize = Int(bytes[trailer + 6]), referenceSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize),
              let objectCount64 = unsigned(at: trailer + 8, size: 8),
              let top64 = unsigned(at: trailer + 16, size: 8),
              let table64 = unsigned(at: trailer + 24, size: 8),
              objectCount64 >= 1, objectCount64 <= UInt64(bytes.count), top64 < objectCount64,
              table64 > 8, table64 <= UInt64(trailer)
        else { return "its trailer is corrupt" }
        let objectCount = Int(objectCount64), table = Int(table64)
        guard objectCount <= (trailer - table) / offsetSize else { return "its offset table runs into the trailer" }

        /// Where `object` starts: after the header, before the offset table.
        func start(of object: Int) -> Int? {
            guard object >= 0, object < objectCount,
                  let offset = unsigned(at: table + object * offsetSize, size: offsetSize),
                  offset >= 8, offset < UInt64(table) else { return nil }
            return Int(offset)
        }
        /// Whether `length` bytes from `position` lie before the offset table.
        func fits(_ position: Int, _ length: Int) -> Bool {
            position <= table && length >= 0 && length <= table - position
        }
        /// A collection's element count and where its elements start: the marker's low
        /// nibble, or 0xF and an integer object after the marker.
        func count(at position: Int) -> (count: Int, body: Int)? {
            let nibble = Int(bytes[position] & 0x0F)
            guard nibble == 0x0F else { return (nibble, position + 1) }
            guard fits(position + 1, 1), bytes[position + 1] & 0xF0 == 0x10 else { return nil }
            let size = 1 << Int(bytes[position + 1] & 0x0F)
            guard size <= 8, fits(position + 2, size), let value = unsigned(at: position + 2, size: size),
                  value <= UInt64(bytes.count) else { return nil }
            return (Int(value), position + 2 + size)
        }

        var checked = Set<Int>()
        func check(_ object: Int, depth: Int) -> String? {
            guard let position = start(of: object) else { return "object \(object) has no valid offset" }
            if checked.contains(object) { return nil }
            guard depth < maximumNesting else { return "it nests more than \(maximumNesting) levels deep (or refers to itself)" }
            let marker = bytes[position]
            let hex = "0x" + String(marker, radix: 16, uppercase: true)
            let truncated = "object \(object) (marker \(hex)) runs past its end"
            switch marker >> 4 {
            case 0x0:  // 0x08 false, 0x09 true; null and fill are not plain values
                guard marker == 0x08 || marker == 0x09 else { return "object \(object) has an unsupported type (marker \(hex))" }
            case 0x1:  // integer of 1, 2, 4, 8 or 16 bytes
                guard marker & 0x0F <= 4, fits(position + 1, 1 << Int(marker & 0x0F)) else { return truncated }
            case 0x2:  // real of 4 or 8 bytes
                guard marker == 0x22 || marker == 0x23, fits(position + 1, 1 << Int(marker & 0x0F)) else { return truncated }
            case 0x3:  // date: an 8-byte real
                guard marker == 0x33, fits(position + 1, 8) else { return truncated }
            case 0x4:  // data
                guard let (length, body) = count(at: position), fits(body, length) else { return truncated }
            case 0x5:  // ASCII string
                guard let (length, body) = count(at: position), fits(body, length) else { return truncated }
                guard bytes[body..<(body + length)].allSatisfy({ $0 < 0x80 }) else {
                    return "object \(object) is an ASCII string with non-ASCII bytes"
                }
            case 0x6:  // UTF-16BE string
                guard let (length, body) = count(at: position), length <= Int.max / 2, fits(body, 2 * length) else { return truncated }
                let units = (0..<length).map { UInt16(bytes[body + 2 * $0]) << 8 | UInt16(bytes[body + 2 * $0 + 1]) }
                var decoder = UTF16()
                var iterator = units.makeIterator()
                decoding: while true {
                    switch decoder.decode(&iterator) {
                    case .scalarValue: continue
                    case .emptyInput: break decoding
                    case .error: return "object \(object) is a UTF-16 string with an unpaired surrogate"
                    }
                }
            case 0xA, 0xD:  // array; dictionary (keys, then values)
                guard let (length, body) = count(at: position) else { return truncated }
                let references = marker >> 4 == 0xD ? 2 * length : length
                guard references <= table, fits(body, references * referenceSize) else { return truncated }
                for i in 0..<references {
                    guard let reference = unsigned(at: body + i * referenceSize, size: referenceSize),
                          reference < UInt64(objectCount) else {
                        return "object \(object) refers to a missing object"
                    }
                    if let problem = check(Int(reference), depth: depth + 1) { return problem }
                    if marker >> 4 == 0xD, i < length, let key = start(of: Int(reference)),
                       bytes[key] >> 4 != 0x5, bytes[key] >> 4 != 0x6 {
                        return "object \(object) is a dictionary with a key that is not a string"
                    }
                }
            default:  // 0x8 UID, 0xB ordered set, 0xC set, and unassigned markers
                return "object \(object) has an unsupported type (marker \(hex))"
            }
            checked.insert(object)
            return nil
        }
        return check(Int(top64), depth: 0)
    }
}
