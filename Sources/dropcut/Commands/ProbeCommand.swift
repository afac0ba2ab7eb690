import ArgumentParser
import Foundation
import DropcutMediaIO
import DropcutReframe
import DropcutSubtitles
import DropcutTimeline

/// `dropcut probe [--json] INPUT`: the streams of a media file, in file order; for a
/// subtitle file (`.srt`, `.vtt`), its cues as read (`SubtitleProbeReport`).
struct ProbeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe", abstract: "Show a media file's streams, in file order, or a subtitle file's cues (.srt, .vtt).")

    @Flag(name: .long, help: "Print JSON.") var json = false
    @Flag(name: .long, help: "Also run fit: smart's analysis and print what it found: shot cuts, and the faces, people and motion of each analysed picture (text).")
    var reframe = false
    @Argument(help: "Media file.") var input: String

    func validate() throws {
        if json && reframe { throw ValidationError("--reframe prints text: leave out --json") }
    }

    func run() async throws {
        // FFmpeg's own lines never come before dropcut's message (which has its detail line).
        _ = EngineMessages(verbose: false, quiet: false).install()
        if let format = SubtitleFormat(fileName: input) {
            guard !reframe else {
                printError("dropcut probe: --reframe reads pictures: \(input) is a subtitle file")
                throw ExitCode(1)
            }
            do {
                let document = try SubtitleProbeReport.read(input, format: format)
                print(json ? SubtitleProbeReport.json(document) : SubtitleProbeReport.text(document), terminator: "")
            } catch {
                printError("dropcut probe: \(error)")
                throw ExitCode(1)
            }
            return
        }
        let demuxer: Demuxer, streams: [StreamInfo]
        // A PNG or JPEG (by its content) is a still image, as a recipe clip takes it:
        // decoded once here, so a damaged picture is reported as a render would meet it.
        let still = StillPicture.isPicture(input)
        do {
            if still {
                let picture = try StillPicture.probe(input)
                demuxer = try Demuxer(path: input, formats: StillPicture.formats, format: StillPicture.format(of: input))
                // A photo's EXIF orientation, shown as a movie's display matrix is.
                streams = demuxer.streams.map { stream in
                    var stream = stream
                    if stream.kind == .video { stream.displayMatrix = picture.displayMatrix }
                    return stream
                }
            } else {
                try StillPicture.refuseHEIF(input)
                demuxer = try Demuxer(path: input)
                // As a render sees them: an unstated field order asked of the first frame.
                streams = try FieldOrderDetection.resolving(demuxer.streams, of: demuxer)
            }
        } catch {
            printError("dropcut probe: \(error)")
            throw ExitCode(1)
        }
        print(json ? ProbeReport.json(demuxer, streams: streams, still: still) : ProbeReport.text(demuxer, streams: streams, still: still),
              terminator: "")
        if reframe {
            let size = streams.first(where: { $0.kind == .video }).flatMap { $0.displaySize ?? $0.size } ?? PixelSize(width: 1, height: 1)
            do {
                let analysis = try SubjectAnalyzer().analysis(of: input, subject: .auto)
                print(ProbeReport.reframe(analysis, size: size), terminator: "")
            } catch {
                printError("dropcut probe: \(input): \(error)")
                throw ExitCode(1)
            }
        }
    }
}

/// Renderings of a probed file for `dropcut probe`: the file's `streams` (as
/// `FieldOrderDetection` resolved them).
enum ProbeReport {
    /// `--reframe`: the shots, then a line per analysed picture with its detections in
    /// the stored picture's display pixels (x,y of the top left, width x height, score).
    static func reframe(_ analysis: SubjectAnalysis, size: PixelSize) -> String {
        let w = Double(size.width), h = Double(size.height)
        var lines = ["reframe: \(analysis.samples.count) pictures analysed, \(analysis.shots.count) shot\(analysis.shots.count == 1 ? "" : "s")"
                     + (analysis.cuts.isEmpty ? "" : ", cuts at " + analysis.cuts.map { String(format: "%.3f s", $0) }.joined(separator: ", "))]
        for sample in analysis.samples {
            let boxes = sample.boxes.map { box in
                String(format: "%@ %d,%d %dx%d (%.3g)", box.kind.rawValue, Int(box.rect.x * w), Int(box.rect.y * h),
                       Int(box.rect.width * w), Int(box.rect.height * h), box.score)
            }
            lines.append(String(format: "  %8.3f s  ", sample.time) + (boxes.isEmpty ? "nothing" : boxes.joined(separator: "; ")))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `still`: the file is a still image (a PNG or JPEG): said so, with no duration or
    /// frame rate (an image demuxer's nominal 25 fps is not the picture's).
    static func text(_ demuxer: Demuxer, streams: [StreamInfo], still: Bool = false) -> String {
        let size = streams.first(where: { $0.kind == .video })?.size.map(\.description) ?? "of unknown size"
        var lines = [still ? "\(demuxer.path): \(demuxer.formatName), still image \(size)"
            : "\(demuxer.path): \(demuxer.formatName), duration \(demuxer.duration.map(\.description) ?? "unknown")"]
        for stream in streams {
            var line = "  stream \(stream.index): \(stream.kind.rawValue) \(stream.codecName)"
            if let format = stream.pixelFormat { line += " \(format)" }
            if let size = stream.size { line += " \(size)" }
            if let aspect = stream.pixelAspectRatio, let shown = stream.displaySize, shown != stream.size {
                line += " (pixels \(aspect), shown \(shown))"
            }
            if let order = stream.fieldOrder {
                line += " interlaced, \(order.rawValue)" + (stream.statesFieldOrder ? "" : " (flagged by its frames)")
            }
            if !still, let frame = stream.averageFrameDuration ?? stream.frameDuration {
                line += " \(formatRate(frame)) fps" + (stream.isVariableFrameRate ? " (variable)" : "")
            }
            if let color = stream.color, let size = stream.size {
                let resolved = color.resolved(width: size.width, height: size.height)
                line += " \(resolved.dynamicRangeName) (primaries \(resolved.primaries.rawValue), transfer \(resolved.transfer.rawValue)"
                    + ", matrix \(resolved.matrix.rawValue), \(resolved.fullRange ? "full" : "video") range"
                    + (resolved.peakLuminance.map { ", peak \(Int($0)) cd/m²" } ?? "") + ")"
            }
            if stream.rotation != 0 || stream.mirrored {
                line += " displayed " + (stream.mirrored ? "mirrored left-right, then " : "") + "rotated \(stream.rotation * 90)° clockwise"
            }
            if let rate = stream.sampleRate { line += " \(rate) Hz" }
            if let channels = stream.channels { line += " \(channels) ch" }
            if let layout = stream.channelLayout { line += " (\(layout))" }
            if !still, let duration = stream.duration { line += " duration \(duration)" }
            lines.append(line)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `still`: as for `text`; the report says `"still_image": true`.
    static func json(_ demuxer: Demuxer, streams: [StreamInfo], still: Bool = false) -> String {
        let streams = streams.map { stream -> String in
            var fields = [
                "\"index\": \(stream.index)",
                "\"type\": \(quote(stream.kind.rawValue))",
                "\"codec\": \(quote(stream.codecName))",
            ]
            if let size = stream.size { fields += ["\"width\": \(size.width)", "\"height\": \(size.height)"] }
            if let shown = stream.displaySize {
                fields += ["\"sample_aspect_ratio\": \(quote((stream.pixelAspectRatio ?? .square).description))",
                           "\"display_width\": \(shown.width)", "\"display_height\": \(shown.height)"]
            }
            if let format = stream.pixelFormat { fields.append("\"pixel_format\": \(quote(format))") }
            if !still, let frame = stream.frameDuration { fields.append("\"frame_rate\": \(quote("\(frame.timescale)/\(frame.value)"))") }
            if !still, let frame = stream.averageFrameDuration { fields.append("\"average_frame_rate\": \(quote("\(frame.timescale)/\(frame.value)"))") }
            if stream.kind == .video {
                fields.append("\"field_order\": \(stream.fieldOrder.map { quote($0 == .topFirst ? "top_first" : "bottom_first") } ?? quote("progressive"))")
                // Where the order comes from: the stream's statement, or its first frame.
                fields.append("\"field_order_from\": \(quote(stream.statesFieldOrder ? "stream" : "frames"))")
                if let color = stream.color, let size = stream.size {
                    let resolved = color.resolved(width: size.width, height: size.height)
                    fields += ["\"dynamic_range\": \(quote(resolved.dynamicRangeName))",
                               "\"color_primaries\": \(quote(resolved.primaries.rawValue))",
                               "\"color_transfer\": \(quote(resolved.transfer.rawValue))",
                               "\"color_matrix\": \(quote(resolved.matrix.rawValue))",
                               "\"color_range\": \(quote(resolved.fullRange ? "full" : "video"))"]
                    if let peak = resolved.peakLuminance { fields.append("\"peak_luminance\": \(peak)") }
                    if let profile = resolved.dolbyVisionProfile { fields.append("\"dolby_vision_profile\": \(profile)") }
                }
                fields += ["\"rotation\": \(stream.rotation * 90)", "\"mirrored\": \(stream.mirrored)", "\"variable_frame_rate\": \(stream.isVariableFrameRate)"]
            }
            if let start = stream.startTime { fields.append("\"start_time\": \(start.formatted(decimals: 6))") }
            if let layout = stream.channelLayout { fields.append("\"channel_layout\": \(quote(layout))") }
            if let rate = stream.sampleRate { fields.append("\"sample_rate\": \(rate)") }
            if let channels = stream.channels { fields.append("\"channels\": \(channels)") }
            if !still, let duration = stream.duration { fields.append("\"duration\": \(duration.formatted(decimals: 6))") }
            return "    {" + fields.joined(separator: ", ") + "}"
        }
        var top = ["  \"path\": \(quote(demuxer.path))", "  \"format\": \(quote(demuxer.formatName))"]
        if still { top.append("  \"still_image\": true") }
        if !still, let duration = demuxer.duration { top.append("  \"duration\": \(duration.formatted(decimals: 6))") }
        top.append("  \"streams\": [\n" + streams.joined(separator: ",\n") + "\n  ]")
        return "{\n" + top.joined(separator: ",\n") + "\n}\n"
    }

    /// Frames per second from a frame duration: `30`, `29.97`.
    static func formatRate(_ frameDuration: MediaTime) -> String {
        let rate = 1 / frameDuration.seconds
        let hundredths = (rate * 100).rounded()
        return hundredths.truncatingRemainder(dividingBy: 100) == 0 ? String(Int(hundredths / 100)) : String(hundredths / 100)
    }

    /// A JSON string literal.
    static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
