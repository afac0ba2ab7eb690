import Foundation
import DropcutTimeline

extension CompositionBuilder {
    /// `group`: the time range of the group holding the overlay — its default `during`,
    /// and the bound of its own (times stay output times).
    func makeOverlay(_ overlay: Recipe.Overlay, total: MediaTime, renderSize: PixelSize,
                     input: String, date: Date, group: TimeRange? = nil) throws(CompositionBuildError) -> OverlayLayer {
        var range = group ?? TimeRange(start: .zero, end: total)
        if let during = overlay.during {
            let start = during.start.resolved(end: total), end = MediaTime.min(during.end.resolved(end: total), total)
            guard start < end else {
                throw recipeError("overlay during [\(during.start), \(during.end)] starts after the output ends (\(total)s)", at: during.location)
            }
            range = TimeRange(start: start, end: end)
            if let group {
                guard let shown = range.intersection(group), shown.duration > .zero else {
                    throw recipeError("this overlay is never shown: its during lies outside its group's", at: during.location)
                }
                range = shown
            }
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
        case let .group(children, width, height):
            let groupRange = range
            // Children are laid out in the group's box as overlays are on the output, their
            // lengths relative to the box, and shown only while the group is.
            let box = Size(width: width?.pixels(of: Double(renderSize.width)) ?? Double(renderSize.width),
                           height: height?.pixels(of: Double(renderSize.height)) ?? Double(renderSize.height))
            let boxPixels = PixelSize(width: max(1, Int(box.width.rounded())), height: max(1, Int(box.height.rounded())))
            var layers: [OverlayLayer] = []
            for child in children {
                layers.append(try makeOverlay(child, total: total, renderSize: boxPixels, input: input, date: date, group: groupRange))
            }
            content = .group(layers, size: box)
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
            var motion = Ramp<DropcutTimeline.Point>(defaultValue: move.from.unitPoint)
            try rampEdit { try motion.setRamp(from: move.from.unitPoint, to: move.to.unitPoint, range: TimeRange(start: range.start, duration: length)) }
            layer.motion = motion
        }
        layer.rotation = overlay.rotate
        // Animating the spin alone spins about Y from 500 px, seed 003's m34 = -1/500.
        if let spin = overlay.spin ?? (overlay.animations.contains { $0.property == .spin } ? Recipe.Overlay.Spin() : nil) {
            layer.spin = OverlayLayer.Spin(axis: spin.axis, degrees: spin.degrees, distance: spin.perspective)
        }
        for animation in overlay.animations {
            try applyAnimation(animation, to: &layer)
        }
        if let bounce = overlay.bounce {
            // The spring's settling time, on the timescale the spring curve is sampled at.
            let settle = MediaTime(seconds: TimingFunction.springSettlingSeconds, preferredTimescale: 600)
            do {
                if bounce == .scale {
                    layer.animation.scale = try KeyframeAnimation(keyframes: [.init(time: .zero, value: 0, timing: .spring), .init(time: settle, value: 1)],
                                                                  beginTime: range.start)
                } else {
                    // Drops in from the free room's height above where it rests.
                    let rest = layer.motion?.value(at: range.start) ?? layer.anchor.unitPoint
                    let from = DropcutTimeline.Point(x: rest.x, y: rest.y - 1)
                    layer.animation.position = try KeyframeAnimation(keyframes: [.init(time: .zero, value: from, timing: .spring), .init(time: settle, value: rest)],
                                                                     beginTime: range.start)
                }
            } catch {
                throw recipeError("overlay bounce: \(error)", at: overlay.location)
            }
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

    /// One recipe animation as the layer's keyframe animation of its property, starting
    /// when the layer appears. A keyframe's `timing` paces the segment that ends at it;
    /// the model keeps the timing on the keyframe that starts the segment.
    private func applyAnimation(_ animation: Recipe.Overlay.Animation, to layer: inout OverlayLayer) throws(CompositionBuildError) {
        let begin = layer.timeRange.start, anchor = layer.anchor.unitPoint
        /// The animation of the values `value` reads from the recipe's keyframes.
        func animated<Value>(_ value: (Recipe.Overlay.Animation.Value) -> Value) throws -> KeyframeAnimation<Value> {
            let keyframes: [KeyframeAnimation<Value>.Keyframe] = animation.keyframes.enumerated().map { i, keyframe in
                let next = i + 1 < animation.keyframes.count ? animation.keyframes[i + 1].timing : .linear
                return .init(time: keyframe.at, value: value(keyframe.value), timing: next)
            }
            let count: KeyframeAnimation<Value>.RepeatCount = animation.repeatCount.map { .times($0) } ?? .forever
            return try KeyframeAnimation(keyframes: keyframes, beginTime: begin,
                                         repeatCount: count, autoreverses: animation.autoreverse)
        }
        func number(_ value: Recipe.Overlay.Animation.Value) -> Double {
            if case let .number(n) = value { return n }
            return 0
        }
        do {
            switch animation.property {
            case .opacity: layer.animation.opacity = try animated(number)
            case .scale: layer.animation.scale = try animated(number)
            case .spin: layer.animation.spin = try animated(number)
            case .rotate: layer.animation.rotation = try animated(number)
            case .position:
                layer.animation.position = try animated { value -> DropcutTimeline.Point in
                    if case let .point(p) = value { return p }
                    return anchor
                }
            }
        } catch {
            throw recipeError("overlay \(animation.property.rawValue) animation: \(error)", at: animation.location)
        }
    }
}
