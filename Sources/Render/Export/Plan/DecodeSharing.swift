import Foundation
import DropcutTimeline

/// When outputs can be made from one decode: the rules `RenderPlan` groups its outputs
/// by, each a comparison of two outputs' sessions (what they show and how they sound),
/// never of where they go.
enum DecodeSharing {
    /// Whether `b`'s pictures can be composited from the source frames `a` decodes: the
    /// same composition and the same frame grid and instruction timing (how either
    /// encodes, or copies, does not matter to a picture).
    static func sharesPictures(_ a: ExportSession, _ b: ExportSession) -> Bool {
        a.composition == b.composition && a.settings.deinterlace == b.settings.deinterlace
            && Timing(a.videoComposition) == Timing(b.videoComposition)
    }

    /// Whether `a` and `b` can be rendered from one decode: the same composition (tracks,
    /// sources and source times), the same frame grid and instruction timing (so every
    /// frame draws the same source frames), the same audio mix in the same format, and
    /// no video copied (a copy has no decode to share). Sound copied from the same source
    /// is shared too: each output copies its packets (nothing to decode).
    static func sharesDecode(_ a: ExportSession, _ b: ExportSession) -> Bool {
        guard !a.settings.copiesVideo, !b.settings.copiesVideo, a.settings.audioCopy == b.settings.audioCopy else { return false }
        return sharesPictures(a, b) && a.audioMix == b.audioMix
            && a.settings.audioSampleRate == b.settings.audioSampleRate && a.settings.audioChannels == b.settings.audioChannels
            && a.settings.loudnessTarget == b.settings.loudnessTarget
    }

    /// Whether `b` encodes the very mix `a` encodes (neither copying its sound): the same
    /// composition, audio mix, format and loudness target.
    static func sharesMix(_ a: ExportSession, _ b: ExportSession) -> Bool {
        a.settings.audioCopy == nil && b.settings.audioCopy == nil && a.composition == b.composition && a.audioMix == b.audioMix
            && a.settings.audioSampleRate == b.settings.audioSampleRate && a.settings.audioChannels == b.settings.audioChannels
            && a.settings.loudnessTarget == b.settings.loudnessTarget
    }

    /// Whether `small`'s every frame is `large`'s scaled down: the same pictures
    /// (`sharesPictures`), in the same dynamic range, neither with overlays (they are
    /// placed on each canvas in pixels), `small` smaller with exactly `large`'s shape, and
    /// every layer placed as in `large` then scaled by that ratio (the same `fit`; crops
    /// the same). Such an output is scaled from `large`'s composite rather than composited
    /// itself: not the same pixels (one more resampling), the same picture (`SharedDecodeTests`
    /// bounds the difference by PSNR).
    static func scalesDown(_ large: ExportSession, to small: ExportSession) -> Bool {
        let a = large.videoComposition, b = small.videoComposition
        let big = a.renderSize, size = b.renderSize
        guard large.overlays.isEmpty, small.overlays.isEmpty, large.settings.dynamicRange == small.settings.dynamicRange,
              size.width < big.width, size.width * big.height == size.height * big.width,
              sharesPictures(large, small), a.instructions.count == b.instructions.count else { return false }
        let scale = DropcutTimeline.AffineTransform(scaleX: Double(size.width) / Double(big.width), y: Double(size.height) / Double(big.height))
        func scaled(_ x: DropcutTimeline.AffineTransform, _ y: DropcutTimeline.AffineTransform) -> Bool {
            let z = x.concatenating(scale)
            return zip([z.a, z.b, z.c, z.d, z.tx, z.ty], [y.a, y.b, y.c, y.d, y.tx, y.ty])
                .allSatisfy { abs($0 - $1) <= 1e-9 * Swift.max(1, abs($0)) }
        }
        for (x, y) in zip(a.instructions, b.instructions) {
            guard x.layerInstructions.count == y.layerInstructions.count else { return false }
            for (p, q) in zip(x.layerInstructions, y.layerInstructions) {
                // The default is the value only before the first keyframe.
                let keyed = p.transform.keyframes.first.map { $0.start <= x.timeRange.start } ?? false
                guard p.cropRectangle == q.cropRectangle, p.transform.keyframes.count == q.transform.keyframes.count,
                      keyed || scaled(p.transform.defaultValue, q.transform.defaultValue) else { return false }
                for pair in zip(p.transform.keyframes, q.transform.keyframes) {
                    switch pair {
                    case let (.set(v, t), .set(w, u)):
                        guard t == u, scaled(v, w) else { return false }
                    case let (.ramp(v0, v1, r), .ramp(w0, w1, s)):
                        guard r == s, scaled(v0, w0), scaled(v1, w1) else { return false }
                    default:
                        return false
                    }
                }
            }
        }
        return true
    }

    /// For each output of `outputs` that another scales down to (`scalesDown`), the
    /// largest such, composited itself.
    static func scaledFrom(_ outputs: [ExportSession]) -> [Int: Int] {
        var sources: [Int: Int] = [:]
        let area = outputs.map { $0.videoComposition.renderSize.width * $0.videoComposition.renderSize.height }
        for index in outputs.indices {
            let larger = outputs.indices.filter { area[$0] > area[index] && scalesDown(outputs[$0], to: outputs[index]) }
            if let largest = larger.max(by: { area[$0] < area[$1] }) { sources[index] = largest }
        }
        // Scaled only from an output composited itself (the largest of its shape is).
        return sources.filter { sources[$0.value] == nil }
    }

    /// What decides which source frames a video composition draws, and nothing of how
    /// (sizes, transforms, crops are each output's own).
    private struct Timing: Hashable {
        struct Layer: Hashable {
            var trackID: TrackID
            var opacity: Ramp<Double>
            var frameSampling: FrameSampling
        }
        struct Instruction: Hashable {
            var timeRange: TimeRange
            var backgroundColor: Color?
            var layers: [Layer]
        }
        var frameDuration: MediaTime
        var backgroundColor: Color
        var instructions: [Instruction]

        init(_ videoComposition: VideoComposition) {
            frameDuration = videoComposition.frameDuration
            backgroundColor = videoComposition.backgroundColor
            instructions = videoComposition.instructions.map { instruction in
                Instruction(timeRange: instruction.timeRange, backgroundColor: instruction.backgroundColor,
                            layers: instruction.layerInstructions.map {
                                Layer(trackID: $0.trackID, opacity: $0.opacity, frameSampling: $0.frameSampling)
                            })
            }
        }
    }
}
