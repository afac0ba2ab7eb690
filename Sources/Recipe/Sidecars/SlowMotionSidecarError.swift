/// Why an iPhone `.AAE` slow-motion sidecar could not be used: the sidecar's path and
/// the precise cause, so the message alone says which file to look at and what is wrong.
package struct SlowMotionSidecarError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong with the sidecar.
    package enum Cause: Sendable, Hashable {
        /// The file could not be read; the system's reason.
        case unreadable(String)
        /// The file is not an XML (or binary) property list dictionary; the parser's
        /// reason when it gave one.
        case notAPropertyList(String?)
        /// There is no `adjustmentData` `<data>` entry; what was found instead, if anything.
        case missingAdjustmentData(found: String?)
        /// `adjustmentData` is neither a binary property list nor zlib/deflate data that
        /// inflates; why.
        case payloadNotDecompressible(String)
        /// `adjustmentData` (after inflating, if it was compressed) is not a binary
        /// property list dictionary; why.
        case payloadNotBinaryPropertyList(String)
        /// The payload has no `slowMotion` dictionary; the sidecar's
        /// `adjustmentFormatIdentifier`, if it has one.
        case missingSlowMotion(formatIdentifier: String?)
        /// `slowMotion.rate` is missing (nil) or not a number from 0.05 to 1; what was found.
        case invalidRate(found: String?)
        /// `slowMotion.regions` is missing or empty; what was found instead of a non-empty list.
        case noRegions(found: String?)
        /// A region's time range is unusable: `field` is the key path inside the payload
        /// (`slowMotion.regions[0].timeRange.duration`), `problem` says why.
        case invalidRegion(index: Int, field: String, problem: String)
    }

    /// The sidecar file.
    package var path: String
    package var cause: Cause

    package init(path: String, cause: Cause) {
        self.path = path
        self.cause = cause
    }

    /// `IMG_1234.AAE: slowMotion.rate must be a number from 0.05 to 1 (slow motion only slows), got 2`
    package var description: String {
        "\(path): \(reason)"
    }

    /// The cause alone, without the path: `slowMotion.regions is missing: no slowed section`.
    package var reason: String {
        switch cause {
        case let .unreadable(why):
            return "cannot read the slow-motion sidecar: \(why)"
        case let .notAPropertyList(why):
            return "not a property list (an .AAE sidecar is an XML plist)" + (why.map { ": \($0)" } ?? "")
        case let .missingAdjustmentData(found):
            if let found { return "adjustmentData must be <data>, got \(found)" }
            return "no adjustmentData entry: not an edit sidecar"
        case let .payloadNotDecompressible(why):
            return "adjustmentData is neither a binary property list nor zlib/deflate-compressed data that inflates: \(why)"
        case let .payloadNotBinaryPropertyList(why):
            return "adjustmentData is not a binary property list dictionary: \(why)"
        case let .missingSlowMotion(identifier):
            let format = identifier.map { " (adjustment format '\($0)')" } ?? ""
            return "adjustmentData has no slowMotion dictionary: not a slow-motion sidecar\(format)"
        case let .invalidRate(found):
            let bounds = [SlowMotionSidecar.rateRange.lowerBound, SlowMotionSidecar.rateRange.upperBound]
                .map { $0 == $0.rounded() ? String(Int($0)) : String($0) }
            let range = "a number from \(bounds[0]) to \(bounds[1])"
            guard let found else { return "slowMotion.rate is missing; it must be \(range) (slow motion only slows)" }
            return "slowMotion.rate must be \(range) (slow motion only slows), got \(found)"
        case let .noRegions(found):
            if let found { return "slowMotion.regions must be a non-empty list of time ranges, got \(found)" }
            return "slowMotion.regions is missing: no slowed section"
        case let .invalidRegion(_, field, problem):
            return "\(field) \(problem)"
        }
    }
}
