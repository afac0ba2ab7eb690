import Foundation
import DropcutRecipe
import DropcutRender
import DropcutTimeline

/// Which output streams are copied from a source as they are (pass-through, the ffmpeg
/// CLI's `-c copy`) and, for each stream that is not, why — in words, for `plan` and the
/// render's log.
///
/// A stream is copied only when the output would change nothing of it. The video: one
/// clip filling the whole output from one source track, at speed 1, upright (no display
/// matrix), square pixels, at its stored size, at its own rate (not variable, not
/// interlaced), 8-bit 4:2:0 SDR stating video-range BT.709 (what the output states), in
/// the output's codec, drawn with no transform, crop, fade or other layer and no overlay,
/// and cut (if at all) on keyframes. The audio: one clip's sound filling the whole output, whole, at
/// speed 1 and unity volume (no music, audio items, ducking, fades or pitch), no loudness
/// normalisation, AAC at the rate and channel count the output would choose anyway, not cut at its start.
/// When the video cannot be copied whole, it is spliced where it can be (smart rendering,
/// `PassThrough+Splice.swift`): the groups of pictures of one H.264 source the output
/// shows unchanged are copied, the rest encoded to sit beside them.
/// `output.video.reencode: always` copies nothing.
///
/// Pure: it reads the builder's composition and the probed media, and asks `pictures`
/// (where a file's track's keyframes and IDR pictures lie; nil when not known) only for a
/// clip that is cut or could be spliced.
public struct PassThrough: Sendable, Hashable {
    /// What happens to one kind of output stream.
    public enum Decision: Sendable, Hashable {
        /// The stream's packets are copied from this source.
        case copied(StreamCopy)
        /// The stream is decoded and encoded, for these reasons (never empty).
        case encoded([String])
        /// The video is spliced: groups of pictures copied, the rest encoded (pieces with
        /// their reasons in the plan).
        case spliced(VideoSplice)
        /// The output has no such stream.
        case absent

        public var copy: StreamCopy? {
            if case let .copied(copy) = self { return copy }
            return nil
        }

        public var splice: VideoSplice? {
            if case let .spliced(splice) = self { return splice }
            return nil
        }

        public var reasons: [String] {
            if case let .encoded(reasons) = self { return reasons }
            return []
        }
    }

    public var video: Decision
    public var audio: Decision

    public init(video: Decision, audio: Decision) {
        self.video = video
        self.audio = audio
    }

    /// The decision for `built` written with `settings` (whose audio format and dynamic
    /// range are final).
    public init(built: BuiltComposition, settings: ExportSettings, reencode: Recipe.Reencode,
                pictures: (String, TrackID) -> SourcePictureIndex? = { _, _ in nil }) {
        video = Self.decideVideo(built: built, settings: settings, reencode: reencode, pictures: pictures)
        audio = Self.decideAudio(built: built, settings: settings, reencode: reencode)
    }

    /// The settings with the copies filled in.
    public func applied(to settings: ExportSettings) -> ExportSettings {
        var settings = settings
        settings.videoCopy = video.copy
        settings.videoSplice = video.splice
        settings.audioCopy = audio.copy
        return settings
    }

    /// One line per stream: `video: copied from clip.mp4 (stream 0)`, `audio: re-encoded:
    /// a music bed is mixed in`.
    public var lines: [String] {
        [("video", video), ("audio", audio)].compactMap { kind, decision in
            switch decision {
            case let .copied(copy):
                return "\(kind): copied from \((copy.asset as NSString).lastPathComponent) (stream \(copy.trackID - 1))"
            case let .encoded(reasons):
                return "\(kind): re-encoded: \(reasons.joined(separator: "; "))"
            case let .spliced(splice):
                return Self.lines(splice).joined(separator: "\n")
            case .absent:
                return nil
            }
        }
    }

    /// The one source track a kind's stream could be copied from, when the composition
    /// takes that kind from exactly one clip: its segment, or the reasons there is none.
    private static func singleSegment(_ type: MediaType, in composition: Composition)
        -> Result<(track: CompositionTrack, segment: TrackSegment, source: TrackSegment.Source), Reasons>? {
        let tracks = composition.tracks(of: type).filter { $0.segments.contains { !$0.isEmpty } }
        guard !tracks.isEmpty else { return nil }
        let noun = type == .video ? "video" : "sound"
        guard tracks.count == 1 else {
            return .failure(Reasons(["the \(noun) combines \(tracks.count) tracks (several clips or layers)"]))
        }
        let track = tracks[0]
        let filled = track.segments.filter { !$0.isEmpty }
        guard filled.count == 1, let segment = filled.first, let source = segment.source else {
            return .failure(Reasons(["the \(noun) is made of \(filled.count) pieces"]))
        }
        var reasons: [String] = []
        if segment.target != TimeRange(start: .zero, end: composition.duration) {
            reasons.append("the clip's \(noun) does not fill the output (\(segment.target) of \(composition.duration) s)")
        }
        if segment.isStill {
            reasons.append("a still picture")
        } else if segment.source?.timeRange.duration != segment.target.duration {
            reasons.append("the speed changes (×\(String(format: "%g", segment.speed)))")
        }
        return reasons.isEmpty ? .success((track, segment, source)) : .failure(Reasons(reasons))
    }

    struct Reasons: Error {
        static let none = Reasons([])
        var list: [String]
        init(_ list: [String]) { self.list = list }
    }

    // MARK: Video

    private static func decideVideo(built: BuiltComposition, settings: ExportSettings, reencode: Recipe.Reencode,
                                    pictures: (String, TrackID) -> SourcePictureIndex?) -> Decision {
        // Each file's index read once, and only when asked for.
        var indexes: [String: SourcePictureIndex?] = [:]
        let index = { (asset: String, track: TrackID) -> SourcePictureIndex? in
            if let known = indexes[asset] { return known }
            let read = pictures(asset, track)
            indexes[asset] = read
            return read
        }
        let whole = decideWholeVideo(built: built, settings: settings, reencode: reencode, pictures: index)
        guard case let .encoded(reasons) = whole, reencode != .always else { return whole }
        switch splice(built: built, settings: settings, pictures: index) {
        case let .success(splice):
            return .spliced(splice)
        case let .failure(failure):
            return .encoded(reasons + failure.list.filter { !reasons.contains($0) })
        }
    }

    private static func decideWholeVideo(built: BuiltComposition, settings: ExportSettings, reencode: Recipe.Reencode,
                                         pictures: (String, TrackID) -> SourcePictureIndex?) -> Decision {
        guard let single = singleSegment(.video, in: built.composition) else { return .absent }
        var reasons: [String] = []
        if reencode == .always { reasons.append("output.video.reencode is always") }
        let picked: (track: CompositionTrack, segment: TrackSegment, source: TrackSegment.Source)
        switch single {
        case let .failure(failure): return .encoded(reasons + failure.list)
        case let .success(found): picked = found
        }
        let source = picked.source
        guard let probed = built.media[source.track.asset]?.video, probed.trackID == source.track.trackID else {
            return .encoded(reasons + ["the source's video was not probed"])
        }
        reasons += sourceReasons(probed, settings: settings, output: built.videoComposition)
        reasons += drawingReasons(trackID: picked.track.trackID, built: built, size: probed.naturalSize)
        // Finding the keyframes reads the file: only when nothing else stands in the way.
        if reasons.isEmpty {
            reasons += cutReasons(source.timeRange, of: probed.timeRange, noun: "video",
                                  keyframes: { pictures(source.track.asset, source.track.trackID)?.keyframes })
        }
        guard reasons.isEmpty else { return .encoded(reasons) }
        return .copied(StreamCopy(asset: source.track.asset, trackID: source.track.trackID, range: source.timeRange,
                                  statedColour: statedColour(probed)))
    }

    /// What of the source itself the output would change.
    static func sourceReasons(_ probed: ProbedMedia.Video, settings: ExportSettings,
                                      output: VideoComposition) -> [String] {
        var reasons: [String] = []
        let codec = settings.videoCodec.rawValue
        if probed.codec != codec {
            reasons.append("the source's codec is \(probed.codec ?? "unknown"), the output's \(codec)")
        }
        if probed.pixelFormat != "yuv420p" {
            reasons.append("the source's pixel format is \(probed.pixelFormat ?? "unknown"), the output's yuv420p")
        }
        if settings.dynamicRange != .sdr {
            reasons.append("the output is HDR (HLG, 10-bit)")
        }
        // What dropcut writes in SDR is video-range BT.709, said so in the stream: a copy
        // is that when the source says so itself. A source that states no colour is
        // copied stating what players take it for (`statedColour`: BT.709 for HD, BT.601
        // for SD), in its parameter sets and the container.
        if let color = probed.color, color.isHDR {
            reasons.append("the source is HDR (\(color.dynamicRangeName)), the output SDR")
        } else if !probed.colorIsStated {
            if probed.codec != "h264" {
                reasons.append("the source does not state its colour (the output says BT.709)")
            }
        } else if let color = probed.color, color.primaries != .bt709 || color.transfer != .sdr || color.matrix != .bt709 || color.fullRange {
            reasons.append("the source's colour is not video-range BT.709, the output's")
        }
        if probed.isInterlaced { reasons.append("the source is interlaced") }
        if probed.isVariableFrameRate { reasons.append("the source's frame rate is variable") }
        if probed.pixelAspectRatio != .square { reasons.append("the source's pixels are not square") }
        if probed.preferredTransform != .identity {
            let turn = probed.preferredTransform.turnDescription.map { " (\($0))" } ?? ""
            reasons.append("the source's display matrix needs an orientation fix\(turn)")
        }
        if output.renderSize != probed.encodedSize {
            reasons.append("the size changes from \(probed.encodedSize) to \(output.renderSize)")
        }
        if output.frameDuration != probed.frameDuration {
            reasons.append("the frame rate changes from \(rate(probed.frameDuration)) to \(rate(output.frameDuration)) fps")
        }
        return reasons
    }

    /// The colour a copy of `probed` states when the source states none: what players take
    /// an untagged stream for (BT.709 for HD, BT.601 for SD, the range as the source's);
    /// nil when the source states its own.
    static func statedColour(_ probed: ProbedMedia.Video) -> ColorDescription? {
        guard !probed.colorIsStated else { return nil }
        return (probed.color ?? ColorDescription(primaries: .unknown, transfer: .unknown, matrix: .unknown))
            .resolved(width: probed.encodedSize.width, height: probed.encodedSize.height)
    }

    /// What drawing the track into the output would change: another layer, a transform,
    /// crop or fade, an overlay.
    private static func drawingReasons(trackID: TrackID, built: BuiltComposition, size: PixelSize) -> [String] {
        var reasons: [String] = []
        let frame = Rect(x: 0, y: 0, width: Double(size.width), height: Double(size.height))
        var layered = false, transformed = false, cropped = false, faded = false
        for instruction in built.videoComposition.instructions {
            if instruction.layerInstructions.count > 1 || instruction.layerInstructions.contains(where: { $0.trackID != trackID }) {
                layered = true
            }
            for layer in instruction.layerInstructions where layer.trackID == trackID {
                if !isConstant(layer.opacity, 1.0) { faded = true }
                if !isConstant(layer.transform, .identity) { transformed = true }
                if !isConstant(layer.cropRectangle, { $0.isInfinite || ($0.x <= 0 && $0.y <= 0 && $0.maxX >= frame.maxX && $0.maxY >= frame.maxY) }) {
                    cropped = true
                }
            }
        }
        if layered { reasons.append("other layers are composited") }
        if transformed { reasons.append("the picture is moved, scaled or turned") }
        if cropped { reasons.append("the picture is cropped") }
        if faded { reasons.append("the picture's opacity changes (a fade)") }
        if !built.overlays.isEmpty {
            reasons.append("\(built.overlays.count) overlay\(built.overlays.count == 1 ? " is" : "s are") drawn")
        }
        return reasons
    }

    /// A cut that a copy can make: at the source's start or on a keyframe, to the source's
    /// end or a keyframe (packets of a closed group of pictures reference nothing past the
    /// next keyframe).
    private static func cutReasons(_ range: TimeRange, of whole: TimeRange, noun: String,
                                   keyframes: () -> [MediaTime]?) -> [String] {
        let cutsStart = range.start > whole.start
        let cutsEnd = range.end < whole.end
        guard cutsStart || cutsEnd else { return [] }
        guard let times = keyframes() else {
            return ["the \(noun) is cut (at \(range)) and its keyframes are not known"]
        }
        let keys = Set(times)
        var reasons: [String] = []
        if cutsStart && !keys.contains(range.start) { reasons.append("the \(noun) is cut at \(range.start) s, not on a keyframe") }
        if cutsEnd && !keys.contains(range.end) { reasons.append("the \(noun) is cut at \(range.end) s, not on a keyframe") }
        return reasons
    }

    static func rate(_ frameDuration: MediaTime) -> String {
        frameDuration.seconds > 0 ? String(format: "%g", (1 / frameDuration.seconds * 1000).rounded() / 1000) : "?"
    }

    private static func isConstant<Value>(_ ramp: Ramp<Value>, _ value: Value) -> Bool {
        isConstant(ramp) { $0 == value }
    }

    private static func isConstant<Value>(_ ramp: Ramp<Value>, _ accepts: (Value) -> Bool) -> Bool {
        guard accepts(ramp.defaultValue) || !ramp.keyframes.isEmpty else { return false }
        if ramp.keyframes.isEmpty { return true }
        return ramp.keyframes.allSatisfy {
            switch $0 {
            case let .set(v, _): return accepts(v)
            case let .ramp(from, to, _): return accepts(from) && accepts(to)
            }
        } && (ramp.keyframes.first.map { $0.start <= .zero } == true || accepts(ramp.defaultValue))
    }

    // MARK: Audio

    private static func decideAudio(built: BuiltComposition, settings: ExportSettings, reencode: Recipe.Reencode) -> Decision {
        guard !built.composition.tracks(of: .audio).isEmpty else { return .absent }
        var reasons: [String] = []
        if reencode == .always { reasons.append("output.video.reencode is always") }
        if built.music != nil { reasons.append("a music bed is mixed in") }
        if !built.audioItems.isEmpty { reasons.append("audio items are mixed in") }
        if let target = settings.loudnessTarget {
            reasons.append("the loudness is normalised to \(String(format: "%g", target)) LUFS")
        }
        guard let single = singleSegment(.audio, in: built.composition) else {
            return .encoded(reasons + ["the clip has no sound (silence is encoded)"])
        }
        let picked: (track: CompositionTrack, segment: TrackSegment, source: TrackSegment.Source)
        switch single {
        case let .failure(failure):
            // The music and audio items already say why there are several tracks.
            let extra = built.music != nil || !built.audioItems.isEmpty ? failure.list.filter { !$0.contains(" combines ") } : failure.list
            return .encoded(reasons + extra)
        case let .success(found): picked = found
        }
        let source = picked.source
        if let parameters = built.audioMix.parameters(for: picked.track.trackID) {
            if !isConstant(parameters.volume, 1.0) { reasons.append("the volume changes (gain, fades or ducking)") }
            if parameters.pitchShift != 0 { reasons.append("the pitch is shifted") }
        }
        guard let probed = built.media[source.track.asset]?.audio, probed.trackID == source.track.trackID else {
            return .encoded(reasons + ["the source's sound was not probed"])
        }
        if probed.codec != "aac" { reasons.append("the source's codec is \(probed.codec ?? "unknown"), the output's aac") }
        if let rate = settings.audioSampleRate, rate != probed.sampleRate {
            reasons.append("the sample rate changes from \(probed.sampleRate) to \(rate) Hz")
        }
        if let channels = settings.audioChannels, channels != probed.channels {
            reasons.append("the channels change from \(probed.channels) to \(channels)")
        }
        // Its end may be cut (the copy stops before the first block starting past it); its
        // start not: an AAC block decodes right only after the one before it.
        if source.timeRange.start > probed.timeRange.start {
            reasons.append("the sound is cut at \(source.timeRange.start) s; AAC is copied only from its start")
        }
        guard reasons.isEmpty else { return .encoded(reasons) }
        return .copied(StreamCopy(asset: source.track.asset, trackID: source.track.trackID, range: source.timeRange))
    }
}
