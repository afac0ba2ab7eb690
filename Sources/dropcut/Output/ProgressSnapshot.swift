import Foundation

/// One output's progress at one moment, and the figures ffmpeg shows for it: frames, fps
/// and speed measured by the wall clock since the render started, the output's media time
/// reached (`out_time`), and the time left at the current rate.
struct ProgressSnapshot: Sendable {
    /// Frames written so far (for a copied stream: packets).
    var frame: Int
    /// Frames the output will have.
    var frames: Int
    /// The output's duration, seconds.
    var duration: Double
    /// Wall-clock seconds since the render started.
    var elapsed: Double

    /// 0...1.
    var fraction: Double { frames <= 0 ? 1 : Swift.min(1, Double(Swift.max(0, frame)) / Double(frames)) }
    /// 0...100, to a tenth; 100 only once every frame is written.
    var percent: Double { frame >= frames ? 100 : Swift.min(99.9, (fraction * 1000).rounded(.down) / 10) }
    /// The output's media time reached, seconds.
    var outTime: Double { fraction * duration }
    /// Frames written per wall-clock second (nil before any time has passed).
    var fps: Double? { elapsed > 0 ? Double(frame) / elapsed : nil }
    /// Media seconds written per wall-clock second: `speed=3.1x`.
    var speed: Double? { elapsed > 0 ? outTime / elapsed : nil }
    /// Seconds left at the rate so far (nil until a frame is written).
    var eta: Double? {
        guard fraction > 0, elapsed > 0 else { return nil }
        return elapsed * (1 - fraction) / fraction
    }

    /// `frame=135/300 fps=58 speed=1.9x eta=0:00:03`.
    var statistics: String {
        "frame=\(frame)/\(frames) fps=\(fps.map { Self.decimal($0, places: $0 < 10 ? 1 : 0) } ?? "-") "
            + "speed=\(speed.map { Self.decimal($0, places: 2) + "x" } ?? "-") eta=\(eta.map(Self.clock) ?? "-")"
    }

    /// The JSON object of `--progress json` for `output` of `input` (one line, no newline).
    func json(input: String, output: String, state: String) -> String {
        "{\"input\":\(ProbeReport.quote(input)),\"output\":\(ProbeReport.quote(output)),\"frame\":\(frame),\"frames\":\(frames),"
            + "\"fps\":\(fps.map { Self.decimal($0, places: 2) } ?? "null"),"
            + "\"out_time\":\"\(Self.ffmpegTime(outTime))\",\"out_time_seconds\":\(Self.decimal(outTime, places: 6)),"
            + "\"duration_seconds\":\(Self.decimal(duration, places: 6)),"
            + "\"speed\":\(speed.map { Self.decimal($0, places: 3) } ?? "null"),\"percent\":\(Self.decimal(percent, places: 1)),"
            + "\"eta_seconds\":\(eta.map { Self.decimal($0, places: 1) } ?? "null"),\"progress\":\"\(state)\"}"
    }

    /// ffmpeg's `out_time`: `HH:MM:SS.micro`.
    static func ffmpegTime(_ seconds: Double) -> String {
        let micro = Int64((Swift.max(0, seconds) * 1_000_000).rounded())
        let whole = micro / 1_000_000
        return String(format: "%02lld:%02lld:%02lld.%06lld", whole / 3600, whole / 60 % 60, whole % 60, micro % 1_000_000)
    }

    /// `H:MM:SS`, whole seconds rounded up (a second left shows as 0:00:01, not 0:00:00).
    static func clock(_ seconds: Double) -> String {
        let whole = Int64(Swift.min(Swift.max(0, seconds), 359_999).rounded(.up))
        return String(format: "%lld:%02lld:%02lld", whole / 3600, whole / 60 % 60, whole % 60)
    }

    /// A JSON number with at most `places` decimals, trailing zeros dropped (`1.5`, `30`).
    static func decimal(_ value: Double, places: Int) -> String {
        guard value.isFinite else { return "0" }
        var text = String(format: "%.\(places)f", value)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text == "-0" ? "0" : text
    }
}
