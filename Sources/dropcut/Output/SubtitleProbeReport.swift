import Foundation
import DropcutSubtitles
import DropcutSupport

/// `dropcut probe FILE.srt|FILE.vtt`: the cues as the parser reads them — times in the
/// file's own time (seconds), the text with its markup as written (lines joined with
/// `\n`), the WebVTT settings kept — and what was skipped, each kind once.
enum SubtitleProbeReport {
    /// Reads `path` as `format`; a refused file is an error naming the file and line.
    static func read(_ path: String, format: SubtitleFormat) throws -> SubtitleDocument {
        let bytes: [UInt8]
        do {
            bytes = try TextFile.bytes(path, followSymlinks: true, limit: SubtitleLimits.maximumFileBytes)
        } catch {
            throw Failure(description: "\(path): \(error)")
        }
        do {
            return try format.read(bytes, path: path)
        } catch {
            throw Failure(description: error.description)
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func json(_ document: SubtitleDocument) -> String {
        let cues = document.cues.map { cue -> String in
            var fields = ["\"start\": \(seconds(cue.start))", "\"end\": \(seconds(cue.end))", "\"text\": \(ProbeReport.quote(cue.text))"]
            if !cue.identifier.isEmpty { fields.insert("\"id\": \(ProbeReport.quote(cue.identifier))", at: 0) }
            let settings = settingsFields(cue.settings).map { "\(ProbeReport.quote($0.0)): \(ProbeReport.quote($0.1))" }
            fields.append("\"settings\": {" + settings.joined(separator: ", ") + "}")
            return "    {" + fields.joined(separator: ", ") + "}"
        }
        let warnings = document.warnings.map { "    " + ProbeReport.quote($0.description) }
        return "{\n  \"format\": \(ProbeReport.quote(document.format == .webVTT ? "webvtt" : "srt")),\n"
            + "  \"cues\": [" + (cues.isEmpty ? "" : "\n" + cues.joined(separator: ",\n") + "\n  ") + "],\n"
            + "  \"warnings\": [" + (warnings.isEmpty ? "" : "\n" + warnings.joined(separator: ",\n") + "\n  ") + "]\n}\n"
    }

    static func text(_ document: SubtitleDocument) -> String {
        var lines = ["\(document.format == .webVTT ? "WebVTT" : "SubRip"): \(document.cues.count) cue\(document.cues.count == 1 ? "" : "s"), "
                     + "\(document.captions.count) shown"]
        for cue in document.cues {
            let settings = settingsFields(cue.settings).map { "\($0.0):\($0.1)" }.joined(separator: " ")
            lines.append("  \(seconds(cue.start)) --> \(seconds(cue.end))\(settings.isEmpty ? "" : " " + settings)  "
                         + ProbeReport.quote(cue.text))
        }
        lines += document.warnings.map { "warning: \($0)" }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Milliseconds as seconds, exactly (`1.5`, `3723.004`).
    private static func seconds(_ milliseconds: Int64) -> String {
        let whole = milliseconds / 1000, fraction = milliseconds % 1000
        guard fraction != 0 else { return "\(whole)" }
        var digits = String(fraction)
        digits = String(repeating: "0", count: 3 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(whole).\(digits)"
    }

    /// The settings the cue kept, by their WebVTT names, values written as the spec writes them.
    private static func settingsFields(_ settings: WebVTTCueSettings) -> [(String, String)] {
        var fields: [(String, String)] = []
        if let vertical = settings.vertical { fields.append(("vertical", vertical)) }
        switch settings.line {
        case let .percent(percent)?: fields.append(("line", "\(format(percent))%"))
        case let .number(number)?: fields.append(("line", format(number)))
        case nil: break
        }
        if let align = settings.lineAlignment { fields.append(("lineAlign", align.rawValue)) }
        if let position = settings.position { fields.append(("position", "\(format(position))%")) }
        if let align = settings.positionAlignment { fields.append(("positionAlign", align.rawValue)) }
        if let size = settings.size { fields.append(("size", "\(format(size))%")) }
        if let align = settings.alignment { fields.append(("align", align.rawValue)) }
        if let region = settings.region { fields.append(("region", region)) }
        return fields
    }

    private static func format(_ value: Double) -> String { String(format: "%g", value) }
}
