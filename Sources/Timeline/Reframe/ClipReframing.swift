import Foundation

/// One clip's `fit: smart` decision, as `dropcut plan` shows it: what the analysis found
/// (upright, normalised), the camera path planned through it, and the sizes to read both
/// in pixels.
public struct ClipReframing: Sendable, Hashable {
    /// The clip's file.
    public var path: String
    public var fit: SmartFit
    /// The clip's upright picture, pixels.
    public var pictureSize: Size
    public var analysis: SubjectAnalysis
    public var cameraPath: CameraPath

    public init(path: String, fit: SmartFit, pictureSize: Size, analysis: SubjectAnalysis, cameraPath: CameraPath) {
        self.path = path
        self.fit = fit
        self.pictureSize = pictureSize
        self.analysis = analysis
        self.cameraPath = cameraPath
    }

    /// `dropcut plan`'s lines: the window, then a line per shot — still where, or moving
    /// how far and how fast — with what it followed.
    public var lines: [String] {
        let w = pictureSize.width, h = pictureSize.height
        let window = "\(Int((cameraPath.window.width * w).rounded()))x\(Int((cameraPath.window.height * h).rounded()))"
        var lines = ["fit: smart \((path as NSString).lastPathComponent) (subject \(fit.subject.rawValue), smoothness \(formatFixed(fit.smoothness, decimals: 2))): "
                     + "window \(window) of \(Int(w))x\(Int(h)), \(cameraPath.shots.count) shot\(cameraPath.shots.count == 1 ? "" : "s")"]
        for shot in cameraPath.shots {
            let samples = analysis.samples.filter { shot.range.contains($0.time) }
            var seen: [String] = []
            for kind in SubjectBox.Kind.allCases {
                let count = samples.filter { $0.boxes.contains { $0.kind == kind } }.count
                if count > 0 { seen.append("\(kind.rawValue) in \(count)") }
            }
            let found = seen.isEmpty ? "nothing to follow: centred" : "\(seen.joined(separator: ", ")) of \(samples.count) pictures"
            let span = "\(formatFixed(shot.range.lowerBound, decimals: 3))–\(formatFixed(shot.range.upperBound, decimals: 3)) s"
            let first = shot.keyframes[0].centre
            if shot.isStill {
                lines.append("  shot \(span): still, centre (\(Int((first.x * w).rounded())), \(Int((first.y * h).rounded()))) px; \(found)")
            } else {
                let xs = shot.keyframes.map { $0.centre.x * w }, ys = shot.keyframes.map { $0.centre.y * h }
                var fastest = 0.0
                for (a, b) in zip(shot.keyframes, shot.keyframes.dropFirst()) where b.time > a.time {
                    let d = hypot((b.centre.x - a.centre.x) * w, (b.centre.y - a.centre.y) * h)
                    fastest = max(fastest, d / (b.time - a.time))
                }
                lines.append("  shot \(span): moves, centre x \(Int(xs.min()!.rounded()))–\(Int(xs.max()!.rounded())), "
                             + "y \(Int(ys.min()!.rounded()))–\(Int(ys.max()!.rounded())) px, at most \(Int(fastest.rounded())) px/s, "
                             + "\(shot.keyframes.count) keyframes; \(found)")
            }
        }
        return lines
    }
}
