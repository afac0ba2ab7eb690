/// A plain-text listing of a composition, its video composition and audio mix, in the
/// spirit of AVFoundation's segment descriptions: one line per segment, instruction,
/// layer and volume keyframe. Deterministic: the same model always gives the same text.
public enum TimelineDescription {
    public static func text(composition: Composition, videoComposition: VideoComposition? = nil,
                            audioMix: AudioMix? = nil) -> String {
        var lines: [String] = ["composition duration \(composition.duration)"]
        for track in composition.tracks {
            lines.append("track \(track.trackID) \(track.mediaType.rawValue)")
            for (i, segment) in track.segments.enumerated() {
                lines.append("  \(i): \(segment)")
            }
        }
        if let videoComposition {
            let frame = videoComposition.frameDuration
            lines.append("video composition renderSize \(videoComposition.renderSize) frameDuration \(frame.value)/\(frame.timescale) background \(videoComposition.backgroundColor)")
            for instruction in videoComposition.instructions {
                var line = "  instruction \(instruction.timeRange)"
                if let background = instruction.backgroundColor { line += " background \(background)" }
                lines.append(line)
                for layer in instruction.layerInstructions {
                    lines.append("    layer trackID \(layer.trackID)" + layerDetails(layer))
                }
            }
        }
        if let audioMix {
            lines.append("audio mix")
            for parameters in audioMix.inputParameters {
                let keyframes = parameters.volume.keyframes
                let volume = keyframes.isEmpty ? "1.00 (default)" : keyframes.map(\.description).joined(separator: ", ")
                var line = "  trackID \(parameters.trackID) volume \(volume)"
                // How scaled segments sound, where the track has any.
                if let track = composition.track(parameters.trackID), track.segments.contains(where: { !$0.isEmpty && $0.speed != 1 }) {
                    line += "; scaled audio \(parameters.timePitchAlgorithm.rawValue)"
                }
                if let pitch = parameters.pitchDescription { line += "; \(pitch)" }
                lines.append(line)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func layerDetails(_ layer: LayerInstruction) -> String {
        var parts: [String] = []
        func add<V>(_ name: String, _ ramp: Ramp<V>) {
            guard !ramp.keyframes.isEmpty else { return }
            parts.append("\(name) " + ramp.keyframes.map(\.description).joined(separator: ", "))
        }
        add("opacity", layer.opacity)
        add("transform", layer.transform)
        add("crop", layer.cropRectangle)
        if layer.frameSampling != .repeat { parts.append("frames \(layer.frameSampling.rawValue)") }
        return parts.isEmpty ? "" : " " + parts.joined(separator: "; ")
    }
}
