import Foundation
import DropcutTimeline

extension CompositionBuilder {
    func makeVideoComposition(_ clips: [PlacedClip], transition: MediaTime,
                                      renderSize: PixelSize) throws(CompositionBuildError) -> VideoComposition {
        let frameDuration: MediaTime
        if let fps = recipe.output.fps {
            // 1/fps, exactly where it fits. (The rate's value written as the timescale used to be
            // clamped to Int32: `fps: 59.940059940` is 59940059940/10^9, and became 2.1 fps.)
            frameDuration = MediaTime(seconds: 1).multiplied(by: Int64(fps.timescale), dividedBy: fps.value)
        } else {
            // The highest source rate, capped at 60 fps; a deinterlaced clip's is its field rate.
            // At least 1 fps, the least `output.fps` may ask: the rate is the file's word,
            // and a damaged one (a sample delta flipped to 4369 s makes FFmpeg's average
            // rate 405/32783) made one output frame of 81 s for a composition of 1.6 s.
            let shortest = clips.map(shownFrameDuration).filter { $0 > .zero }.min() ?? MediaTime(value: 1, timescale: 30)
            let slowest = MediaTime(value: 1, timescale: Int32(RecipeLimits.frameRate.lowerBound))
            frameDuration = MediaTime.min(MediaTime.max(shortest, MediaTime(value: 1, timescale: 60)), slowest)
        }
        var instructions: [VideoCompositionInstruction] = []
        var ramps: [Ramp<DropcutTimeline.AffineTransform>?] = []
        for clip in clips { ramps.append(try transformRamp(of: clip, renderSize: renderSize)) }
        for (i, clip) in clips.enumerated() {
            let passStart = clip.start + (i > 0 ? transition : .zero)
            let passEnd = clip.end - (i < clips.count - 1 ? transition : .zero)
            if passStart < passEnd {
                var layer = LayerInstruction(trackID: clip.videoTrack)
                layer.frameSampling = clip.spec.frames
                if let ramp = ramps[i] {
                    layer.transform = ramp
                } else {
                    try rampEdit { try layer.setTransform(clip.transform, at: passStart) }
                }
                instructions.append(VideoCompositionInstruction(timeRange: TimeRange(start: passStart, end: passEnd), layerInstructions: [layer]))
            }
            if i < clips.count - 1, transition > .zero {
                instructions.append(try transitionInstruction(from: clip, to: clips[i + 1], ramps: (ramps[i], ramps[i + 1]),
                                                             duration: transition, renderSize: renderSize))
            }
        }
        return VideoComposition(renderSize: renderSize, frameDuration: frameDuration, instructions: instructions)
    }

    /// The time each picture of `clip` is shown: a field's for interlaced video that is
    /// deinterlaced (two pictures a frame), else a frame's; zero for a still image, which
    /// has no rate of its own (`fps: source` then follows the other clips, or is 30).
    func shownFrameDuration(_ clip: PlacedClip) -> MediaTime {
        if clip.video.isStillImage { return .zero }
        return recipe.output.deinterlace == .auto && clip.video.isInterlaced ? clip.video.fieldDuration : clip.video.frameDuration
    }

    /// The outgoing clip over the incoming one, with the ramps of the recipe's kind:
    /// crossfade fades the outgoing layer out, push slides both left by the canvas width,
    /// wipe crops the outgoing layer away from the right.
    /// `ramps` are the two clips' own transform ramps (`transformRamp(of:)`; nil: none).
    func transitionInstruction(from a: PlacedClip, to b: PlacedClip, ramps: (Ramp<DropcutTimeline.AffineTransform>?, Ramp<DropcutTimeline.AffineTransform>?), duration: MediaTime,
                                       renderSize: PixelSize) throws(CompositionBuildError) -> VideoCompositionInstruction {
        let range = TimeRange(start: b.start, duration: duration)
        var from = LayerInstruction(trackID: a.videoTrack), to = LayerInstruction(trackID: b.videoTrack)
        from.frameSampling = a.spec.frames
        to.frameSampling = b.spec.frames
        try rampEdit {
            switch recipe.transition.kind {
            case .crossfade:
                try holdTransforms(&from, &to, a, b, ramps, at: range.start)
                try from.setOpacityRamp(from: 1, to: 0, range: range)
            case .push:
                let width = Double(renderSize.width)
                // The clips' own motion stands still during the push (at its values there).
                let outgoing = ramps.0?.value(at: range.start) ?? a.transform, incoming = ramps.1?.value(at: range.end) ?? b.transform
                try from.setTransformRamp(from: outgoing, to: outgoing.concatenating(DropcutTimeline.AffineTransform(translationX: -width, y: 0)), range: range)
                try to.setTransformRamp(from: incoming.concatenating(DropcutTimeline.AffineTransform(translationX: width, y: 0)), to: incoming, range: range)
            case .wipe:
                let w = Double(a.video.naturalSize.width), h = Double(a.video.naturalSize.height)
                try holdTransforms(&from, &to, a, b, ramps, at: range.start)
                try from.setCropRectangleRamp(from: Rect(x: 0, y: 0, width: w, height: h), to: Rect(x: 0, y: 0, width: 0, height: h), range: range)
            case .cut:
                break
            }
        }
        return VideoCompositionInstruction(timeRange: range, layerInstructions: [from, to])
    }

    /// Each clip's own motion ramp on its layer, or its placement set at `time`.
    private func holdTransforms(_ from: inout LayerInstruction, _ to: inout LayerInstruction, _ a: PlacedClip, _ b: PlacedClip,
                                _ ramps: (Ramp<DropcutTimeline.AffineTransform>?, Ramp<DropcutTimeline.AffineTransform>?), at time: MediaTime) throws {
        if let ramp = ramps.0 { from.transform = ramp } else { try from.setTransform(a.transform, at: time) }
        if let ramp = ramps.1 { to.transform = ramp } else { try to.setTransform(b.transform, at: time) }
    }
}
