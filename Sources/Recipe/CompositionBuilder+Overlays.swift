import Foundation
import Timeline

extension CompositionBuilder {
    func makeOverlay(_ overlay: Recipe.Overlay, total: MediaTime, renderSize: PixelSize,
                             input: String, date: Date) throws(CompositionBuildError) -> OverlayLayer {
        var range = TimeRange(start: .zero, end: total)
        if let during = overlay.during {
            let start = during.start.resolved(end: total), end = MediaTime.min(during.end.resolved(end: total), total)
            guard start < end else {
                throw recipeError("overlay during [\(during.start), \(during.end)] starts after the output ends (\(total)s)", at: during.location)
            }
            range = TimeRange(start: start, end: end)
        }
        if overlay.fadeIn + overlay.fadeOut > range.duration {
            throw recipeError("overlay fades (\(overlay.fadeIn)s + \(overlay.fadeOut)s) are longer than the time it is shown (\(range.duration)s)", at: overlay.location)
        }
        let content: OverlayLayer.Content
        switch overlay.content {
        case let .image(path):
            content = .image(path: path)
        case let .imageSequence(paths, fps):
            content = .imageSequence(paths: paths, frameDuration: MediaTime(seconds: 1 / fps, preferredTimescale: 60_000))
        case let .text(template, font, size, color):
            let text = template.render(.init(inputPath: input, recipeName: recipe.name, date: date))
            content = .text(text, fontPath: font, pixelSize: size.pixels(of: Double(renderSize.height)), color: color)
        }
        let shorter = Double(min(renderSize.width, renderSize.height))
        var layer = OverlayLayer(content: content, anchor: overlay.anchor, margin: overlay.margin.pixels(of: shorter),
                                 width: overlay.width?.pixels(of: Double(renderSize.width)), timeRange: range)
        try rampEdit {
            if overlay.fadeIn > .zero {
                try layer.opacity.setRamp(from: 0, to: overlay.opacity, range: TimeRange(start: range.start, duration: overlay.fadeIn))
            } else {
                try layer.opacity.set(overlay.opacity, at: range.start)
            }
            if overlay.fadeOut > .zero {
                try layer.opacity.setRamp(from: overlay.opacity, to: 0, range: TimeRange(start: range.end - overlay.fadeOut, end: range.end))
            }
        }
        if let move = overlay.move {
            // The glide starts when the overlay appears and lasts `duration` (at most the
            // time it is shown), then it rests at `to`.
            let length = MediaTime.min(move.duration ?? range.duration, range.duration)
            var motion = Ramp<Timeline.Point>(defaultValue: move.from.unitPoint)
            try rampEdit { try motion.setRamp(from: move.from.unitPoint, to: move.to.unitPoint, range: TimeRange(start: range.start, duration: length)) }
            layer.motion = motion
        }
        let height = Double(renderSize.height)
        if let outline = overlay.outline {
            layer.textEffects.outlineWidth = outline.size.pixels(of: height)
            layer.textEffects.outlineColor = outline.color
        }
        if let shadow = overlay.shadow {
            layer.textEffects.shadowOffset = shadow.size.pixels(of: height)
            layer.textEffects.shadowColor = shadow.color
        }
        return layer
    }
}
