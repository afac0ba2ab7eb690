import Foundation
import DropcutMediaIO
import DropcutRecipe
import DropcutRender
import DropcutTimeline

/// Smart rendering: which of a video output's frames are one source's groups of pictures
/// shown unchanged (copied) and which are encoded (`SmartRenderPlan`), and whether the
/// encoded pieces can sit beside the copied ones in one H.264 stream.
///
/// The source copied from is the movie the output shows longest. It must be what a whole
/// copy needs of a source (`sourceReasons`: the output's codec, size, rate, pixel
/// format and colour, upright, progressive, constant rate, square pixels), and besides:
/// H.264 whose NAL units have 4-byte lengths (what x264 writes), in a profile x264 makes
/// (Constrained Baseline, Main, High; 8-bit 4:2:0, in any SDR colour it states: the
/// encoded pieces are converted into it and say so), its pictures on the output's frame
/// grid, one entropy coder, a parameter-set id it leaves free. An output frame shows a
/// source frame unchanged when it draws that one layer alone at speed 1, with no
/// transform, crop or fade and no overlay (nor burnt-in caption) over it.
extension PassThrough {
    static func splice(built: BuiltComposition, settings: ExportSettings, keeping: Keeping,
                       pictures: (String, TrackID) -> SourcePictureIndex?) -> Result<VideoSplice, Reasons> {
        let composition = built.composition, output = built.videoComposition
        let d = output.frameDuration
        // The movie shown longest.
        var shown: [SourceTrack: MediaTime] = [:]
        for track in composition.tracks(of: .video) {
            for segment in track.segments {
                guard let source = segment.source, !source.track.isStillImage, !segment.isStill else { continue }
                shown[source.track, default: .zero] = shown[source.track, default: .zero] + segment.target.duration
            }
        }
        guard let track = shown.max(by: { $0.value < $1.value || ($0.value == $1.value && $0.key.asset > $1.key.asset) })?.key
        else { return .failure(.none) }
        guard let probed = built.media[track.asset]?.video, probed.trackID == track.trackID else { return .failure(.none) }
        let blocking = sourceReasons(probed, settings: settings, output: output, copy: .pieces(keeping))
        guard blocking.isEmpty else { return .failure(Reasons(blocking)) }
        // With `orientation: keep`, the matrix the copied pictures keep (sourceReasons has
        // checked it is a quarter turn or a mirror): the layer drawn through it is the
        // source unchanged.
        let orientation = keeping.displayMatrix ? probed.preferredTransform : .identity
        // The encoded pieces state the colour the copied ones do: the source's own, or for
        // an untagged one what players take it for (BT.601 for SD, BT.709 for HD).
        let stated = statedColour(probed)
        guard let colour = stated ?? probed.color else {
            return .failure(Reasons(["smart render: the source's colour is not known"]))
        }
        guard probed.codec == "h264" else {
            return .failure(Reasons(["smart render splices H.264 only (\(probed.codec ?? "unknown") cannot give the encoded pieces parameter sets of their own)"]))
        }
        guard let index = pictures(track.asset, track.trackID) else {
            return .failure(Reasons(["smart render: the source's pictures could not be indexed"]))
        }
        guard index.frameDuration == d else {
            return .failure(Reasons(["smart render: the source's pictures do not lie on the output's frame grid"]))
        }
        let encoding: VideoEncoderSettings.SpliceMatch
        switch matchingEncoding(index.decoderConfiguration) {
        case let .success(found): encoding = found
        case let .failure(failure): return .failure(failure)
        }
        func sourceFrame(_ time: MediaTime) -> Int? {
            guard let ratio = (time - index.firstFrame).ratio(to: d), ratio.denominator == 1, ratio.numerator >= 0,
                  ratio.numerator < Int128(index.frameCount) else { return nil }
            return Int(ratio.numerator)
        }
        // An IDR picture's own stamp may stray from its place by a fraction of a frame (a
        // phone's clock rounds each time to its ticks).
        let stamps = FrameGrid(origin: index.firstFrame, frameDuration: d)
        let idr = index.idrPictures.compactMap { stamp in
            stamps?.frame(stampedAt: stamp).flatMap { Int(exactly: $0) }.flatMap { (0..<index.frameCount).contains($0) ? $0 : nil }
        }
        let scheduler = FrameScheduler(composition: composition, videoComposition: output)
        var frames: [SmartRenderPlan.Frame] = []
        frames.reserveCapacity(scheduler.frameCount)
        var plan = scheduler.plan(frame: 0)
        for i in 0..<scheduler.frameCount {
            scheduler.plan(frame: i, into: &plan)
            frames.append(classify(plan, track: track, orientation: orientation, built: built, sourceFrame: sourceFrame))
        }
        let pieces = SmartRenderPlan(frames: frames, idrFrames: idr, sourceFrames: index.frameCount)
        guard pieces.copiesAny else {
            // Why no group of pictures could be copied, in the plan's own words.
            if idr.count <= 1, index.keyframes.count > 1 {
                return .failure(Reasons(["smart render: the source's only IDR picture is its first (an open GOP: its other "
                                         + "keyframes' leading pictures refer back across them), so no later group can be copied"]))
            }
            var why: [String] = []
            for case let .encoded(_, reasons) in pieces.pieces { why += reasons.filter { !why.contains($0) } }
            return .failure(Reasons(["smart render: no group of pictures (IDR to IDR) is shown whole and unchanged"
                                     + (why.isEmpty ? "" : " (\(why.joined(separator: "; ")))")]))
        }
        return .success(VideoSplice(asset: track.asset, trackID: track.trackID, plan: pieces, sourceStart: index.firstFrame, frameDuration: d,
                                    encoding: encoding, sourceReorderDepth: index.reorderDepth, colour: colour, statedColour: stated,
                                    orientation: orientation, missingFrames: index.missingFrames))
    }

    /// What one output frame shows, as copying sees it.
    private static func classify(_ plan: FramePlan, track: SourceTrack, orientation: DropcutTimeline.AffineTransform,
                                 built: BuiltComposition, sourceFrame: (MediaTime) -> Int?) -> SmartRenderPlan.Frame {
        if let overlay = built.overlays.first(where: { $0.timeRange.contains(plan.time) }) {
            if case .captions = overlay.content { return .changed("captions are burnt in") }
            return .changed("an overlay is drawn")
        }
        guard plan.layers.count == 1, let layer = plan.layers.first else {
            return .changed(plan.layers.isEmpty ? "no clip is shown" : "layers are composited (a transition or a picture in a picture)")
        }
        guard layer.source == track else {
            let name = (layer.source.asset as NSString).lastPathComponent
            return .changed(layer.source.isStillImage ? "a still picture is shown (\(name))" : "another clip is shown (\(name))")
        }
        if layer.opacity < 1 { return .changed("the picture's opacity changes (a fade)") }
        if layer.transform != orientation { return .changed("the picture is moved, scaled or turned") }
        let size = built.videoComposition.renderSize
        if !layer.crop.isInfinite, !(layer.crop.x <= 0 && layer.crop.y <= 0 && layer.crop.maxX >= Double(size.width)
                                     && layer.crop.maxY >= Double(size.height)) {
            return .changed("the picture is cropped")
        }
        guard let segment = built.composition.track(layer.trackID)?.segment(at: plan.time), let source = segment.source,
              source.timeRange.duration == segment.target.duration else {
            let held = built.composition.track(layer.trackID)?.segment(at: plan.time)?.isStill == true
            return .changed(held ? "a frame is held" : "the speed changes")
        }
        guard let n = sourceFrame(layer.sourceTime) else { return .changed("the clip's frames fall between the output's frame times") }
        return .source(n)
    }

    /// x264's settings for pieces that sit beside a source with this `avcC`, or why none do.
    static func matchingEncoding(_ bytes: [UInt8]) -> Result<VideoEncoderSettings.SpliceMatch, Reasons> {
        guard let configuration = H264DecoderConfiguration(bytes) else {
            return .failure(Reasons(["smart render: the source has no readable H.264 configuration (avcC)"]))
        }
        guard configuration.nalLengthSize == 4 else {
            return .failure(Reasons(["smart render: the source's NAL units have \(configuration.nalLengthSize)-byte lengths, the encoder's 4"]))
        }
        let sequences = configuration.sequenceParameters, pictures = configuration.pictureParameters
        guard !sequences.isEmpty, !pictures.isEmpty, !sequences.contains(nil), !pictures.contains(nil) else {
            return .failure(Reasons(["smart render: the source's parameter sets could not be read"]))
        }
        let sps = sequences.compactMap { $0 }, pps = pictures.compactMap { $0 }
        guard let profile = sps[0].x264Profile, sps.allSatisfy({ $0.x264Profile == profile }) else {
            return .failure(Reasons(["smart render: the source's profile (\(sps[0].profileName), \(sps[0].bitDepthLuma)-bit) is not one x264 makes to match"]))
        }
        guard sps.allSatisfy(\.frameMacroblocksOnly) else {
            return .failure(Reasons(["smart render: the source may code fields (interlaced)"]))
        }
        guard let cabac = pps.first?.cabac, pps.allSatisfy({ $0.cabac == cabac }), !(profile == "baseline" && cabac) else {
            return .failure(Reasons(["smart render: the source mixes entropy coders"]))
        }
        guard let id = configuration.freeParameterSetID, configuration.sequenceParameterSets.count < 31 else {
            return .failure(Reasons(["smart render: the source uses every parameter-set id"]))
        }
        let level = sps.map { Int($0.level) }.max() ?? 40
        return .success(VideoEncoderSettings.SpliceMatch(profile: profile, level: level, cabac: cabac, parameterSetID: id))
    }

    /// `plan`'s lines for a spliced video: the totals, then a line per piece.
    static func lines(_ splice: VideoSplice) -> [String] {
        let name = (splice.asset as NSString).lastPathComponent
        let total = splice.plan.pieces.last?.output.upperBound ?? 0
        let kept = splice.orientation == .identity ? "" : ", its display matrix kept (\(turn(splice.orientation)))"
        let rest = splice.plan.copiedFrames == total ? ""
            : ", the rest encoded as \(splice.encoding.profile) level \(String(format: "%.1f", Double(splice.encoding.level) / 10))"
        var lines = ["video: smart render from \(name) (stream \(splice.trackID - 1)): \(splice.plan.copiedFrames) of \(total) frames copied"
                     + rest + kept]
        let d = splice.frameDuration
        func seconds(_ frame: Int) -> String { String(format: "%.3f", d.multiplied(by: Int64(frame), dividedBy: 1).seconds) }
        for piece in splice.plan.pieces {
            switch piece {
            case let .copied(output, source):
                let start = splice.sourceStart + d.multiplied(by: Int64(source.lowerBound), dividedBy: 1)
                let end = splice.sourceStart + d.multiplied(by: Int64(source.upperBound), dividedBy: 1)
                lines.append("  \(seconds(output.lowerBound))–\(seconds(output.upperBound)) s: copied (\(name) \(String(format: "%.3f", start.seconds))–\(String(format: "%.3f", end.seconds)) s, \(output.count) frames)")
            case let .encoded(output, reasons):
                lines.append("  \(seconds(output.lowerBound))–\(seconds(output.upperBound)) s: encoded (\(output.count) frames): \(reasons.joined(separator: "; "))")
            }
        }
        return lines
    }
}
