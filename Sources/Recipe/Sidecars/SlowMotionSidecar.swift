import Foundation
import DropcutTimeline

/// The slowed section of an iPhone slow-motion clip, read from the `.AAE` sidecar that
/// Photos keeps next to the movie (`IMG_1234.MOV` + `IMG_1234.AAE`).
///
/// The movie itself plays at normal speed; the slow part lives only in the sidecar. The
/// sidecar is an XML property list whose `adjustmentData` holds a binary property list —
/// zlib- or raw-deflate-compressed, or not compressed at all — of the form
/// `{ slowMotion: { rate: 0.25, regions: [ { timeRange: { start: CMTime, duration: CMTime } } ] } }`,
/// each CMTime a dictionary of `value`, `timescale`, `flags` and `epoch`.
package struct SlowMotionSidecar: Sendable, Hashable {
    /// The sidecar file it was read from.
    package var path: String
    /// The playback rate inside the regions: 0.25 plays a 120 fps capture at 30 fps.
    package var rate: Double
    /// The slowed sections, in the movie's source time, in the sidecar's order, with the
    /// sidecar's exact values and timescales.
    package var regions: [DropcutTimeline.TimeRange]

    /// The rates accepted: iPhone slow motion only slows, at most down to 0.05
    /// (240 fps played at 12).
    package static let rateRange: ClosedRange<Double> = 0.05...1

    /// Real sidecars are a few kilobytes; anything far larger is not one, and is not read
    /// whole into memory.
    static let maximumFileSize = 16 << 20

    package init(path: String, rate: Double, regions: [DropcutTimeline.TimeRange]) {
        self.path = path
        self.rate = rate
        self.regions = regions
    }

    /// The sidecar next to `input`: the file `<stem>.AAE` in `input`'s folder, the
    /// extension in any letter case (`.aae`, `.Aae`…). A stem that matches exactly is
    /// preferred; otherwise one that differs only in letter case (`CLIP.aae` for
    /// `clip.mov`), as copies through case-insensitive file systems produce. Nil when there
    /// is none or the folder cannot be listed.
    package static func path(besides input: String) -> String? {
        SidecarFile.path(besides: input, extensions: ["aae"])
    }

    /// Reads and parses the sidecar at `path`.
    package init(contentsOf path: String) throws(SlowMotionSidecarError) {
        let data = try Self.contents(of: path)
        try self.init(data: data, path: path)
    }

    /// Parses sidecar bytes; `path` names the sidecar in errors and is kept in `path`.
    package init(data: Data, path: String) throws(SlowMotionSidecarError) {
        func failure(_ cause: SlowMotionSidecarError.Cause) -> SlowMotionSidecarError {
            SlowMotionSidecarError(path: path, cause: cause)
        }

        // The sidecar: an XML property list (a binary one is accepted too, once checked).
        if data.starts(with: Data("bplist".utf8)), let problem = BinaryPlistChecker.problem(in: data) {
            throw failure(.notAPropertyList(problem))
        }
        let (outerValue, outerFormat) = try Self.propertyList(data) { failure(.notAPropertyList($0)) }
        // Foundation falls back to the old OpenStep text format, which reads almost any
        // text as a string; a sidecar is never written that way.
        guard outerFormat == .xml || outerFormat == .binary else {
            throw failure(.notAPropertyList("the file is not in the XML or binary plist format"))
        }
        guard let outer = outerValue as? [String: Any] else {
            throw failure(.notAPropertyList("it holds \(Self.describe(outerValue)), not a dictionary"))
        }
        guard let adjustment = outer["adjustmentData"] else { throw failure(.missingAdjustmentData(found: nil)) }
        guard let packed = adjustment as? Data else {
            throw failure(.missingAdjustmentData(found: Self.describe(adjustment)))
        }

        // The payload: a binary property list, deflated or not.
        let payloadData = try Self.unpack(packed, path: path)
        if let problem = BinaryPlistChecker.problem(in: payloadData) {
            throw failure(.payloadNotBinaryPropertyList(problem))
        }
        // Checked above, so Foundation should read it; if it still refuses, its reason would
        // talk about text lines (it retries a binary plist as text), so say what is known.
        let corrupt = "it starts with bplist but does not parse (corrupt or truncated)"
        let (payloadValue, payloadFormat) = try Self.propertyList(payloadData) { _ in
            failure(.payloadNotBinaryPropertyList(corrupt))
        }
        guard payloadFormat == .binary else { throw failure(.payloadNotBinaryPropertyList(corrupt)) }
        guard let payload = payloadValue as? [String: Any] else {
            throw failure(.payloadNotBinaryPropertyList("it holds \(Self.describe(payloadValue)), not a dictionary"))
        }

        guard let slowMotion = payload["slowMotion"] as? [String: Any] else {
            throw failure(.missingSlowMotion(formatIdentifier: outer["adjustmentFormatIdentifier"] as? String))
        }
        guard let rateValue = slowMotion["rate"] else { throw failure(.invalidRate(found: nil)) }
        guard let rate = Self.number(rateValue), Self.rateRange.contains(rate) else {
            throw failure(.invalidRate(found: Self.describe(rateValue)))
        }
        guard let regionsValue = slowMotion["regions"] else { throw failure(.noRegions(found: nil)) }
        guard let list = regionsValue as? [Any], !list.isEmpty else {
            throw failure(.noRegions(found: Self.describe(regionsValue)))
        }

        var regions: [DropcutTimeline.TimeRange] = []
        for (index, element) in list.enumerated() {
            let field = "slowMotion.regions[\(index)]"
            func invalid(_ key: String, _ problem: String) -> SlowMotionSidecarError {
                failure(.invalidRegion(index: index, field: field + key, problem: problem))
            }
            guard let region = element as? [String: Any] else {
                throw invalid("", "must be a dictionary with a timeRange, got \(Self.describe(element))")
            }
            guard let timeRangeValue = region["timeRange"] else { throw invalid(".timeRange", "is missing") }
            guard let timeRange = timeRangeValue as? [String: Any] else {
                throw invalid(".timeRange", "must be a dictionary of start and duration, got \(Self.describe(timeRangeValue))")
            }
            let start = try Self.time(timeRange["start"]) { invalid(".timeRange.start", $0) }
            let duration = try Self.time(timeRange["duration"]) { invalid(".timeRange.duration", $0) }
            guard start >= .zero else {
                throw invalid(".timeRange.start", "is negative (\(start.value)/\(start.timescale) s); a slowed section starts within the clip")
            }
            guard duration > .zero else {
                throw invalid(".timeRange.duration", "must be > 0, got \(duration.value)/\(duration.timescale) s")
            }
            // The same bound as a recipe's times: the region becomes speed ranges whose tick
            // arithmetic is sized for it, and no slow-motion capture lasts a day.
            guard start + duration <= RecipeLimits.maximumTime else {
                throw invalid(".timeRange", "ends at \(start + duration) s, past \(RecipeLimits.maximumTimeText); a slowed section lies within the clip")
            }
            regions.append(DropcutTimeline.TimeRange(start: start, duration: duration))
        }
        self.init(path: path, rate: rate, regions: regions)
    }

    // MARK: Reading

    /// The file's bytes, with the system's reason when it cannot be read.
    private static func contents(of path: String) throws(SlowMotionSidecarError) -> Data {
        func unreadable(_ why: String) -> SlowMotionSidecarError {
            SlowMotionSidecarError(path: path, cause: .unreadable(why))
        }
        // POSIX rather than Data(contentsOf:), for errno's short reason ("Permission
        // denied", "Is a directory") instead of a Cocoa error dump.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw unreadable(String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw unreadable(String(cString: strerror(errno)))
            }
            if count == 0 { return data }
            data.append(contentsOf: chunk[..<count])
            if data.count > maximumFileSize {
                throw unreadable("larger than \(maximumFileSize >> 20) MiB, too large for a sidecar")
            }
        }
    }

    /// The payload as a binary property list: as is when it already is one, else inflated
    /// (zlib-wrapped first, as Photos writes it, then raw deflate).
    private static func unpack(_ packed: Data, path: String) throws(SlowMotionSidecarError) -> Data {
        func failure(_ cause: SlowMotionSidecarError.Cause) -> SlowMotionSidecarError {
            SlowMotionSidecarError(path: path, cause: cause)
        }
        let magic = Data("bplist".utf8)
        guard !packed.isEmpty else {
            // Foundation decodes malformed base64 in <data> to nothing, so say both.
            throw failure(.payloadNotDecompressible("it is empty (or its base64 is malformed)"))
        }
        if packed.starts(with: magic) { return packed }
        let inflated: Data
        do throws(Inflate.Failure) {
            inflated = try inflateEither(packed)
        } catch {
            throw failure(.payloadNotDecompressible(error.description))
        }
        guard inflated.starts(with: magic) else {
            throw failure(.payloadNotBinaryPropertyList("it inflates to \(inflated.count) bytes that do not start with bplist"))
        }
        return inflated
    }

    /// `data` inflated as a zlib stream, else as raw deflate. When both fail, the failure
    /// reported is the zlib one if the data starts with a valid zlib header (so a truncated
    /// zlib stream says "truncated", not "invalid block type").
    private static func inflateEither(_ data: Data) throws(Inflate.Failure) -> Data {
        let zlibFailure: Inflate.Failure
        do throws(Inflate.Failure) {
            return try Inflate.decompress(data, wrapper: .zlib)
        } catch {
            if case .tooLarge = error { throw error }
            zlibFailure = error
        }
        do throws(Inflate.Failure) {
            return try Inflate.decompress(data, wrapper: .raw)
        } catch {
            let bytes = Array(data.prefix(2))
            // RFC 1950: method 8 (deflate) in the low nibble, header a multiple of 31.
            let zlibHeader = bytes.count == 2 && bytes[0] & 0x0F == 8 && (Int(bytes[0]) << 8 | Int(bytes[1])) % 31 == 0
            throw zlibHeader ? zlibFailure : error
        }
    }

    /// The parsed property list and its format; `failure` makes the error from the
    /// parser's reason, when it gives one.
    private static func propertyList(
        _ data: Data, failure: (String?) -> SlowMotionSidecarError
    ) throws(SlowMotionSidecarError) -> (Any, PropertyListSerialization.PropertyListFormat) {
        var format = PropertyListSerialization.PropertyListFormat.xml
        do {
            let value = try PropertyListSerialization.propertyList(from: data, options: [], format: &format)
            return (value, format)
        } catch {
            throw failure((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String)
        }
    }

    // MARK: Values

    /// A CMTime dictionary as an exact `MediaTime`; `problem` makes the error from a
    /// reason phrased to follow the time's key path ("is missing").
    private static func time(
        _ value: Any?, problem: (String) -> SlowMotionSidecarError
    ) throws(SlowMotionSidecarError) -> MediaTime {
        guard let value else { throw problem("is missing") }
        guard let dictionary = value as? [String: Any] else {
            throw problem("must be a CMTime dictionary (value, timescale, flags, epoch), got \(describe(value))")
        }
        guard let flagsValue = dictionary["flags"] else { throw problem("has no flags: not a CMTime") }
        guard let flags = integer(flagsValue) else { throw problem("has flags \(describe(flagsValue)), not an integer") }
        // CMTimeFlags: 1 valid, 2 has been rounded, 4 +infinity, 8 -infinity, 16 indefinite.
        guard flags & 1 != 0 else { throw problem("is an invalid CMTime: flags \(flags) lack the valid bit (1)") }
        guard flags & 0x1C == 0 else {
            throw problem("is not a numeric time: flags \(flags) mark it infinite or indefinite")
        }
        guard let timescaleValue = dictionary["timescale"] else { throw problem("has no timescale") }
        guard let timescale = integer(timescaleValue), timescale > 0 else {
            throw problem("has timescale \(describe(timescaleValue)); it must be an integer > 0")
        }
        guard let ticksValue = dictionary["value"] else { throw problem("has no value") }
        guard let ticks = integer(ticksValue) else {
            throw problem("has value \(describe(ticksValue)), not an integer")
        }
        // MediaTime holds an Int64 value over an Int32 timescale. Keep the sidecar's own
        // numbers when they fit; otherwise the reduced fraction, which is the same time.
        var v = ticks, ts = timescale
        if Int64(exactly: v) == nil || Int32(exactly: ts) == nil {
            let g = Int128(gcd(v.magnitude, ts.magnitude))
            v /= g
            ts /= g
        }
        guard let value64 = Int64(exactly: v), let timescale32 = Int32(exactly: ts) else {
            throw problem("is \(ticks)/\(timescale) s, which does not reduce to a 64-bit value over a 32-bit timescale")
        }
        return MediaTime(value: value64, timescale: timescale32)
    }

    private static func gcd(_ a: UInt128, _ b: UInt128) -> UInt128 {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }

    /// An integer property-list number (64-bit signed or unsigned), or nil for anything
    /// else, booleans and fractional reals included.
    private static func integer(_ value: Any) -> Int128? {
        if type(of: value) == Bool.self { return nil }
        if let signed = value as? Int64 { return Int128(signed) }
        if let unsigned = value as? UInt64 { return Int128(unsigned) }
        return nil
    }

    /// A real or integer property-list number, or nil for anything else (booleans too).
    private static func number(_ value: Any) -> Double? {
        if type(of: value) == Bool.self { return nil }
        return value as? Double
    }

    /// A found value, shortly, for messages: `2`, `the text 'fast'`, `an empty list`.
    static func describe(_ value: Any) -> String {
        if let flag = value as? Bool, type(of: value) == Bool.self { return flag ? "true" : "false" }
        if let number = value as? NSNumber { return number.description }
        if let text = value as? String {
            return "the text '\(text.count > 40 ? String(text.prefix(40)) + "…" : text)'"
        }
        if let data = value as? Data { return "\(data.count) bytes of data" }
        if let list = value as? [Any] { return list.isEmpty ? "an empty list" : "a list of \(list.count)" }
        if value is [String: Any] || value is [AnyHashable: Any] { return "a dictionary" }
        if value is Date { return "a date" }
        return "a value of type \(type(of: value))"
    }
}
