/// Draws a composition as an SVG timeline, like Apple's CompositionDebugView: one row per
/// track with a box per segment (labelled with its source range and speed), a row of
/// video instructions, and each audio track's volume curve drawn over its row — over a
/// level envelope where one is given (the clips' sound under the ducked music).
/// Deterministic output, so it can be diffed and tested.
package enum TimelineSVG {
    /// A sound's level over time, drawn shaded behind some tracks' volume curves.
    package struct LevelEnvelope: Sendable, Hashable {
        /// Length of one level window, from time 0.
        package var window: MediaTime
        /// dBFS per window (−infinity for silence).
        package var decibels: [Double]
        /// The tracks whose rows show it.
        package var tracks: [TrackID]
        /// The level drawn at the bottom of a row (the top is 0 dBFS).
        package var floor: Double = -60

        package init(window: MediaTime, decibels: [Double], tracks: [TrackID]) {
            self.window = window
            self.decibels = decibels
            self.tracks = tracks
        }
    }

    static let labelWidth = 150.0
    static let plotWidth = 900.0
    static let rowHeight = 44.0
    static let rowGap = 8.0
    static let axisHeight = 24.0

    /// `overlays` get a row each below the instructions: a box over the time the layer is
    /// shown, its opacity (fades and keyframes) drawn over it, and a tick at every keyframe
    /// of its animations (each pass of a repeat), labelled with what they animate. The
    /// layers inside a group follow its row, indented and numbered under it (`overlay 1.2.1`),
    /// each with its own opacity (the groups' multiply it).
    package static func render(composition: Composition, videoComposition: VideoComposition? = nil,
                              audioMix: AudioMix? = nil, title: String? = nil, envelope: LevelEnvelope? = nil,
                              overlays: [OverlayLayer] = []) -> String {
        let duration = composition.duration
        let seconds = max(duration.seconds, 0.001)
        func x(_ t: MediaTime) -> Double { labelWidth + plotWidth * max(0, t.seconds) / seconds }

        let overlayRows = layerTree(overlays, path: [])
        let rows = composition.tracks.count + (videoComposition == nil ? 0 : 1) + overlayRows.count
        let height = axisHeight + Double(rows) * (rowHeight + rowGap) + rowGap + (title == nil ? 0 : 20)
        var out: [String] = []
        out.append(#"<svg xmlns="http://www.w3.org/2000/svg" width="\#(n(labelWidth + plotWidth + 20))" height="\#(n(height))" font-family="sans-serif" font-size="10">"#)
        // An opaque background: the drawing uses dark text, which a viewer in dark mode
        // would otherwise show on black.
        out.append(#"<rect class="background" width="100%" height="100%" fill="white"/>"#)
        var top = 0.0
        if let title {
            out.append(#"<text class="title" x="4" y="14" font-size="13">\#(escape(title))</text>"#)
            top += 20
        }
        out.append(contentsOf: axis(duration: duration, top: top, x: x))
        top += axisHeight

        for track in composition.tracks {
            out.append(#"<g class="track" data-track-id="\#(track.trackID)" data-media-type="\#(track.mediaType.rawValue)">"#)
            // A pitch shift is heard over the whole track: said in its label.
            let pitch = audioMix?.parameters(for: track.trackID)?.pitchDescription.map { ", " + $0 } ?? ""
            out.append(#"<text x="4" y="\#(n(top + rowHeight / 2 + 4))">track \#(track.trackID) (\#(track.mediaType.rawValue)\#(pitch))</text>"#)
            for segment in track.segments {
                let x0 = x(segment.target.start), x1 = x(segment.target.end)
                let label: String
                let fill: String
                if let source = segment.source {
                    // Still pictures in a warmer tone than video, so a photo's span stands out.
                    fill = source.track.isStillImage ? "rgb(232,196,143)" : track.mediaType == .video ? "rgb(143,179,232)" : "rgb(159,216,154)"
                    label = source.track.isStillImage ? "\(source.track.asset) still image"
                        : "\(source.track.asset) \(source.timeRange) \(formatFixed(segment.speed, decimals: 2))x"
                } else {
                    fill = "rgb(238,238,238)"
                    label = "empty"
                }
                out.append(#"<rect class="segment" x="\#(n(x0))" y="\#(n(top))" width="\#(n(max(x1 - x0, 0.5)))" height="\#(n(rowHeight))" fill="\#(fill)" stroke="rgb(51,51,51)"\#(segment.isEmpty ? #" stroke-dasharray="4 2""# : "")><title>\#(escape(segment.description))</title></rect>"#)
                out.append(#"<text x="\#(n(x0 + 3))" y="\#(n(top + 13))">\#(escape(label))</text>"#)
            }
            if let envelope, envelope.tracks.contains(track.trackID), !envelope.decibels.isEmpty {
                // A step outline of the levels, closed along the row's bottom.
                var coordinates = ["\(n(x(.zero))),\(n(top + rowHeight))"]
                for (i, level) in envelope.decibels.enumerated() {
                    let y = top + rowHeight * (1 - (min(0, max(envelope.floor, level)) - envelope.floor) / -envelope.floor)
                    let from = envelope.window.multiplied(by: Int64(i), dividedBy: 1), to = envelope.window.multiplied(by: Int64(i + 1), dividedBy: 1)
                    coordinates.append("\(n(x(from))),\(n(y))")
                    coordinates.append("\(n(x(MediaTime.min(to, duration)))),\(n(y))")
                }
                coordinates.append("\(n(x(MediaTime.min(envelope.window.multiplied(by: Int64(envelope.decibels.count), dividedBy: 1), duration)))),\(n(top + rowHeight))")
                out.append(#"<polygon class="level" data-track-id="\#(track.trackID)" points="\#(coordinates.joined(separator: " "))" fill="rgb(127,140,141)" fill-opacity="0.45"><title>the clips' sound, \#(n(envelope.floor)) to 0 dBFS</title></polygon>"#)
            }
            if track.mediaType == .audio, let parameters = audioMix?.parameters(for: track.trackID) {
                let points = parameters.volume.breakpoints(until: duration)
                let peak = max(1, points.map(\.value).max() ?? 1)
                let coordinates = points.map { "\(n(x($0.time))),\(n(top + rowHeight * (1 - $0.value / peak)))" }
                out.append(#"<polyline class="volume" data-track-id="\#(track.trackID)" points="\#(coordinates.joined(separator: " "))" fill="none" stroke="rgb(192,57,43)" stroke-width="2"/>"#)
            }
            out.append("</g>")
            top += rowHeight + rowGap
        }

        if let videoComposition {
            out.append(#"<g class="instructions">"#)
            out.append(#"<text x="4" y="\#(n(top + rowHeight / 2 + 4))">instructions</text>"#)
            for instruction in videoComposition.instructions {
                let x0 = x(instruction.timeRange.start), x1 = x(instruction.timeRange.end)
                let layers = instruction.layerInstructions.map { String($0.trackID) }.joined(separator: ",")
                let title = "instruction \(instruction.timeRange) layers \(layers)" + motionDescription(instruction)
                out.append(#"<rect class="instruction" x="\#(n(x0))" y="\#(n(top))" width="\#(n(max(x1 - x0, 0.5)))" height="\#(n(rowHeight))" fill="rgb(246,213,142)" stroke="rgb(51,51,51)"><title>\#(escape(title))</title></rect>"#)
                out.append(#"<text x="\#(n(x0 + 3))" y="\#(n(top + 13))">layers \#(layers.isEmpty ? "none" : layers)</text>"#)
            }
            out.append("</g>")
            top += rowHeight + rowGap
        }
        for (overlay, path) in overlayRows {
            out.append(contentsOf: overlayRow(overlay, path: path, top: top, until: duration, x: x))
            top += rowHeight + rowGap
        }
        out.append("</svg>")
        return out.joined(separator: "\n") + "\n"
    }

    /// Every layer of the trees `layers`, depth first (a group before what it holds), with
    /// its place: the index in each list from the outermost down.
    static func layerTree(_ layers: [OverlayLayer], path: [Int]) -> [(layer: OverlayLayer, path: [Int])] {
        var rows: [(layer: OverlayLayer, path: [Int])] = []
        for (index, layer) in layers.enumerated() {
            rows.append((layer, path + [index]))
            if case let .group(children, _) = layer.content { rows += layerTree(children, path: path + [index]) }
        }
        return rows
    }

    /// The captions' row: a box over each cue's time, its text as the box's tooltip.
    private static func captionRow(_ track: CaptionTrack, path: [Int], top: Double, until end: MediaTime,
                                   x: (MediaTime) -> Double) -> [String] {
        let id = path.map(String.init).joined(separator: "."), number = path.map { String($0 + 1) }.joined(separator: ".")
        var out = [#"<g class="captions" data-overlay="\#(id)" data-cues="\#(track.cues.count)">"#]
        out.append(#"<text x="4" y="\#(n(top + rowHeight / 2 + 4))">overlay \#(number) (captions)</text>"#)
        for cue in track.cues where cue.timeRange.start < end {
            let x0 = x(cue.timeRange.start), x1 = x(MediaTime.min(cue.timeRange.end, end))
            let text = cue.text.split(separator: "\n").joined(separator: " ")
            out.append(#"<rect class="cue" x="\#(n(x0))" y="\#(n(top))" width="\#(n(max(x1 - x0, 0.5)))" height="\#(n(rowHeight))" fill="rgb(255,236,179)" stroke="rgb(51,51,51)"><title>\#(escape("\(cue.timeRange) \(text)"))</title></rect>"#)
        }
        out.append("</g>")
        return out
    }

    /// One overlay's row: its box, its opacity as a polyline sampled every 1/200 of the
    /// time shown (enough to show an eased or repeating fade), and its keyframe ticks.
    /// `path` places it in the tree: `data-overlay` is its indices joined by dots (`0` for
    /// the first top-level layer, `0.1` for the second inside it), its label counts from 1.
    private static func overlayRow(_ overlay: OverlayLayer, path: [Int], top: Double, until end: MediaTime,
                                   x: (MediaTime) -> Double) -> [String] {
        let kind: String
        switch overlay.content {
        case .image, .imageSequence: kind = "image"
        case .text: kind = "text"
        case let .group(children, _): kind = "group of \(children.count)"
        case let .captions(track): return captionRow(track, path: path, top: top, until: end, x: x)
        }
        let range = overlay.timeRange
        let id = path.map(String.init).joined(separator: "."), number = path.map { String($0 + 1) }.joined(separator: ".")
        var out = [#"<g class="overlay" data-overlay="\#(id)" data-depth="\#(path.count - 1)">"#]
        let indent = 4 + 8 * Double(path.count - 1)
        out.append(#"<text x="\#(n(indent))" y="\#(n(top + rowHeight / 2 + 4))">overlay \#(number) (\#(kind))</text>"#)
        let x0 = x(range.start), x1 = x(MediaTime.min(range.end, end))
        out.append(#"<rect class="overlay-range" x="\#(n(x0))" y="\#(n(top))" width="\#(n(max(x1 - x0, 0.5)))" height="\#(n(rowHeight))" fill="rgb(214,196,232)" stroke="rgb(51,51,51)"><title>\#(escape("overlay \(range)"))</title></rect>"#)
        var coordinates: [String] = []
        for step in 0...200 {
            let t = range.start + range.duration.multiplied(by: Int64(step), dividedBy: 200)
            coordinates.append("\(n(x(t))),\(n(top + rowHeight * (1 - overlay.opacity(at: t))))")
        }
        out.append(#"<polyline class="overlay-opacity" data-overlay="\#(id)" points="\#(coordinates.joined(separator: " "))" fill="none" stroke="rgb(142,68,173)" stroke-width="2"/>"#)
        func passes<V>(_ count: KeyframeAnimation<V>.RepeatCount) -> Int {
            if case let .times(n) = count { return n }
            return .max
        }
        let animations: [(Int, String, [MediaTime], MediaTime, MediaTime, String)] = [
            overlay.animation.opacity.map { (passes($0.repeatCount), "opacity", $0.keyframes.map(\.time), $0.beginTime, $0.period, $0.description) },
            overlay.animation.position.map { (passes($0.repeatCount), "position", $0.keyframes.map(\.time), $0.beginTime, $0.period, $0.description) },
            overlay.animation.scale.map { (passes($0.repeatCount), "scale", $0.keyframes.map(\.time), $0.beginTime, $0.period, $0.description) },
            overlay.animation.rotation.map { (passes($0.repeatCount), "rotate", $0.keyframes.map(\.time), $0.beginTime, $0.period, $0.description) },
            overlay.animation.spin.map { (passes($0.repeatCount), "spin", $0.keyframes.map(\.time), $0.beginTime, $0.period, $0.description) },
        ].compactMap { $0 }
        for (row, (passCount, name, times, begin, period, description)) in animations.enumerated() {
            // Every pass's keyframes while the layer shows, at most 200 ticks a row.
            var ticks: [MediaTime] = []
            var passStart = begin, pass = 0
            repeat {
                for time in times where passStart + time <= range.end { ticks.append(passStart + time) }
                passStart = passStart + period
                pass += 1
            } while period > .zero && passStart < range.end && pass < passCount && ticks.count < 200
            let y = top + 6 + Double(row) * 7
            let marks = ticks.map { "M\(n(x($0))),\(n(y - 3))v6" }.joined(separator: " ")
            out.append(#"<path class="overlay-keyframes" data-property="\#(name)" d="\#(marks)" stroke="rgb(44,62,80)" stroke-width="1.5"><title>\#(escape("\(name) \(description)"))</title></path>"#)
        }
        out.append("</g>")
        return out
    }

    /// A time axis with a tick every 1, 2, 5, 10... seconds, about ten ticks in all.
    private static func axis(duration: MediaTime, top: Double, x: (MediaTime) -> Double) -> [String] {
        let seconds = duration.seconds
        // 1, 2, 5, 10, 20, 50, ... seconds: the first step giving at most twelve ticks.
        var step: Int64 = 1, multipliers: [Int64] = [2, 5, 10], decade: Int64 = 1
        while seconds / Double(step) > 12, step < 1_000_000 {
            if multipliers.isEmpty { decade *= 10; multipliers = [2, 5, 10] }
            step = decade * multipliers.removeFirst()
        }
        var lines = [#"<g class="axis">"#]
        var t: Int64 = 0
        while Double(t) <= seconds + 1e-9 {
            let px = x(MediaTime(seconds: t))
            lines.append(#"<line x1="\#(n(px))" y1="\#(n(top + 14))" x2="\#(n(px))" y2="\#(n(top + axisHeight))" stroke="rgb(153,153,153)"/>"#)
            lines.append(#"<text x="\#(n(px + 2))" y="\#(n(top + 12))">\#(t)s</text>"#)
            t += step
        }
        lines.append("</g>")
        return lines
    }

    /// Numbers with at most two decimals, trailing zeros dropped.
    /// The layers that zoom or turn during `instruction` (a transform ramp whose linear part
    /// changes, or a turn the compositor resamples), as the text listing writes their
    /// transforms: `; layer 2 transform ramp [...] (0.0° 1.00x) -> [...] (10.0° 1.20x)`.
    /// Empty otherwise — slides (push) and placements need no words over the bar.
    static func motionDescription(_ instruction: VideoCompositionInstruction) -> String {
        var parts: [String] = []
        for layer in instruction.layerInstructions {
            let moving = layer.transform.keyframes.contains { keyframe in
                switch keyframe {
                case let .set(value, _): return value.turnDescription != nil
                case let .ramp(from, to, _):
                    return from.turnDescription != nil || to.turnDescription != nil
                        || (from.a, from.b, from.c, from.d) != (to.a, to.b, to.c, to.d)
                }
            }
            guard moving else { continue }
            parts.append("layer \(layer.trackID) transform " + layer.transform.keyframes.map(\.description).joined(separator: ", "))
        }
        return parts.map { "; " + $0 }.joined()
    }

    static func n(_ value: Double) -> String {
        var text = formatFixed(value, decimals: 2)
        while text.contains("."), text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }
}
