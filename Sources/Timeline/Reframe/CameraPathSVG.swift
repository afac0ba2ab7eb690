import Foundation

/// `dropcut plan --svg`'s drawing of a `fit: smart` clip: time across, the picture's
/// width (or height, for a window that moves up and down) down; the crop window as a band,
/// its centre as a line, each detection as a dot (faces red, people blue, motion grey),
/// each cut as a dashed line.
package enum CameraPathSVG {
    package static func render(_ reframing: ClipReframing) -> String {
        let path = reframing.cameraPath
        let vertical = path.window.width >= 0.999 && path.window.height < 0.999
        let plotWidth = 800.0, plotHeight = 200.0, left = 60.0, top = 30.0
        let start = min(reframing.analysis.start, path.shots.first?.range.lowerBound ?? 0)
        let duration = max(reframing.analysis.duration, path.shots.last?.range.upperBound ?? 0, start + 0.001) - start
        func x(_ t: Double) -> Double { left + (t - start) / duration * plotWidth }
        func y(_ f: Double) -> Double { top + f * plotHeight }
        func n(_ v: Double) -> String { formatFixed(v, decimals: 1) }
        let windowSize = vertical ? path.window.height : path.window.width
        var out = [#"<svg xmlns="http://www.w3.org/2000/svg" width="\#(n(left + plotWidth + 20))" height="\#(n(top + plotHeight + 40))" font-family="sans-serif" font-size="10">"#]
        out.append(#"<rect width="100%" height="100%" fill="white"/>"#)
        out.append(#"<text x="\#(n(left))" y="16">\#(TimelineSVG.escape(reframing.lines.first ?? ""))</text>"#)
        out.append(#"<rect class="picture" x="\#(n(left))" y="\#(n(top))" width="\#(n(plotWidth))" height="\#(n(plotHeight))" fill="rgb(245,245,245)" stroke="rgb(51,51,51)"/>"#)
        for shot in path.shots {
            // The window as a band: its edges along the keyframes.
            let points = shot.keyframes + [CameraPath.Keyframe(time: shot.range.upperBound, centre: shot.keyframes.last!.centre)]
            let along = points.map { (t: $0.time, c: vertical ? $0.centre.y : $0.centre.x) }
            let upper = along.map { "\(n(x($0.t))),\(n(y($0.c - windowSize / 2)))" }
            let lower = along.reversed().map { "\(n(x($0.t))),\(n(y($0.c + windowSize / 2)))" }
            out.append(#"<polygon class="window" points="\#((upper + lower).joined(separator: " "))" fill="rgb(142,202,230)" fill-opacity="0.5"/>"#)
            out.append(#"<polyline class="centre" points="\#(along.map { "\(n(x($0.t))),\(n(y($0.c)))" }.joined(separator: " "))" fill="none" stroke="rgb(2,48,71)" stroke-width="1.5"/>"#)
        }
        for sample in reframing.analysis.samples {
            for box in sample.boxes {
                let colour: String
                switch box.kind {
                case .face: colour = "rgb(214,40,40)"
                case .person: colour = "rgb(0,95,204)"
                case .motion: colour = "rgb(150,150,150)"
                }
                let c = vertical ? box.centre.y : box.centre.x
                out.append(#"<circle class="\#(box.kind.rawValue)" cx="\#(n(x(sample.time)))" cy="\#(n(y(c)))" r="1.8" fill="\#(colour)"/>"#)
            }
        }
        for cut in reframing.analysis.cuts {
            out.append(#"<line class="cut" x1="\#(n(x(cut)))" y1="\#(n(top))" x2="\#(n(x(cut)))" y2="\#(n(top + plotHeight))" stroke="black" stroke-dasharray="4 3"/>"#)
        }
        out.append(#"<text x="\#(n(left))" y="\#(n(top + plotHeight + 14))">\#(formatFixed(start, decimals: 2)) s</text>"#)
        out.append(#"<text x="\#(n(left + plotWidth))" y="\#(n(top + plotHeight + 14))" text-anchor="end">\#(formatFixed(start + duration, decimals: 2)) s</text>"#)
        out.append(#"<text x="\#(n(left - 4))" y="\#(n(top + 8))" text-anchor="end">\#(vertical ? "top" : "left")</text>"#)
        out.append(#"<text x="\#(n(left - 4))" y="\#(n(top + plotHeight))" text-anchor="end">\#(vertical ? "bottom" : "right")</text>"#)
        out.append(#"<text x="\#(n(left))" y="\#(n(top + plotHeight + 30))">window (blue band) and its centre; faces red, people blue, motion grey; cuts dashed</text>"#)
        out.append("</svg>")
        return out.joined(separator: "\n") + "\n"
    }

    /// SVG documents one under another, in one document (the plan's timeline, then each
    /// clip's path).
    package static func stacked(_ documents: [String]) -> String {
        var y = 0.0, width = 0.0
        var body: [String] = []
        for document in documents {
            let h = attribute("height", of: document) ?? 0, w = attribute("width", of: document) ?? 0
            let inner = document.replacingFirst(#"<svg xmlns="http://www.w3.org/2000/svg""#, with: #"<svg y="\#(formatFixed(y, decimals: 1))""#)
            body.append(inner)
            y += h
            width = max(width, w)
        }
        return #"<svg xmlns="http://www.w3.org/2000/svg" width="\#(formatFixed(width, decimals: 1))" height="\#(formatFixed(y, decimals: 1))">"# + "\n"
            + body.joined() + "</svg>\n"
    }

    /// The number in `name="…"` on the document's first element.
    static func attribute(_ name: String, of document: String) -> Double? {
        guard let open = document.range(of: "<svg"), let close = document[open.upperBound...].firstIndex(of: ">") else { return nil }
        let tag = document[open.upperBound..<close]
        guard let start = tag.range(of: " \(name)=\"") else { return nil }
        let value = tag[start.upperBound...].prefix { $0 != "\"" }
        return Double(value)
    }
}

extension String {
    fileprivate func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = range(of: target) else { return self }
        return replacingCharacters(in: range, with: replacement)
    }
}
