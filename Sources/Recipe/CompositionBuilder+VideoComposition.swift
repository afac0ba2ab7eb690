import Foundation
import Timeline

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
            let shortest = clips.map(shownFrameDuration).filter { $0 > .zero }.min() ?? MediaTime(value: 1, timescale: 30)
            frameDuration = MediaTime.max(shortest, MediaTime(value: 1, timescale: 60))
        }
        var instructions: [VideoCompositionInstruction] = []
        for (i, clip) in clips.enumerated() {
            let passStart = clip.start + (i > 0 ? transition : .zero)
            let passEnd = clip.end - (i < clips.count - 1 ? transition : .zero)
            if passStart < passEnd {
                var layer = LayerInstruction(trackID: clip.videoTrack)
                layer.frameSampling = clip.spec.frames
                try rampEdit { try layer.setTransform(clip.transform, at: passStart) }
                instructions.append(VideoCompositionInstruction(timeRange: TimeRange(start: passStart, end: passEnd), layerInstructions: [layer]))
            }
            if i < clips.count - 1, transition > .zero {
                instructions.append(try transitionInstruction(from: clip, to: clips[i + 1], duration: transition, renderSize: renderSize))
            }
        }
        return VideoComposition(renderSize: renderSize, frameDuration: frameDuration, instructions: instructions)
    }

    /// The time each picture of `clip` is shown: a field's for interlaced video that is
    /// deinterlaced (two pictures a frame), else a frame's.
    func shownFrameDuration(_ clip: PlacedClip) -> MediaTime {
        recipe.output.deinterlace == .auto && clip.video.isInterlaced ? clip.video.fieldDuration : clip.video.frameDuration
    }

    /// The outgoing clip over the incoming one, with the ramps of the recipe's kind:
    /// crossfade fades the outgoing layer out, push slides both left by the canvas width,
    /// wipe crops the outgoing layer away from the right.
    func transitionInstruction(from a: PlacedClip, to b: PlacedClip, duration: MediaTime,
                                       renderSize: PixelSize) throws(CompositionBuildError) -> VideoCompositionInstruction {
        let range = TimeRange(start: b.start, duration: duration)
        var from = LayerInstruction(trackID: a.videoTrack), to = LayerInstruction(trackID: b.videoTrack)
        from.frameSampling = a.spec.frames
        to.frameSampling = b.spec.frames
        try rampEdit {
            switch recipe.transition.kind {
            case .crossfade:
                try from.setTransform(a.transform, at: range.start)
                try to.setTransform(b.transform, at: range.start)
                try from.setOpacityRamp(from: 1, to: 0, range: range)
            case .push:
                let width = Double(renderSize.width)
                try from.setTransformRamp(from: a.transform, to: a.transform.concatenating(Timeline.AffineTransform(translationX: -width, y: 0)), range: range)
                try to.setTransformRamp(from: b.transform.concatenating(Timeline.AffineTransform(translationX: width, y: 0)), to: b.transform, range: range)
            case .wipe:
                let w = Double(a.video.naturalSize.width), h = Double(a.video.naturalSize.height)
                try from.setTransform(a.transform, at: range.start)
                try to.setTransform(b.transform, at: range.start)
                try from.setCropRectangleRamp(from: Rect(x: 0, y: 0, width: w, height: h), to: Rect(x: 0, y: 0, width: 0, height: h), range: range)
            case .cut:
                break
            }
        }
        return VideoCompositionInstruction(timeRange: range, layerInstructions: [from, to])
    }
}
