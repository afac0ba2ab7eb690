import Foundation
import DropcutRecipe
import DropcutRender
import DropcutTimeline

/// Which output streams are copied from a source as they are (pass-through, the ffmpeg
/// CLI's `-c copy`) and, for each stream that is not, why — in words, for `plan` and the
/// render's log.
///
/// A stream is copied only when the output would change nothing of it. The video: one
/// clip filling the whole output from one source track, at speed 1, square pixels, at its
/// own size (with `orientation: keep`, as shown: a quarter-turned or mirrored clip keeps
/// its display matrix, as AVFoundation's passthrough keeps `preferredTransform`), at its own rate (a variable
/// one kept: the packets keep their times; not interlaced), 8-bit 4:2:0 SDR in whatever
/// colour it states (Display P3, full range, BT.601: kept as stated), in the output's
/// codec, drawn with no transform but its orientation, no crop, fade, other layer or
/// overlay, and cut (if at all) on keyframes. The audio: one clip's sound filling the whole output, whole, at
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
    /// What of the sources shown no output stream carries, a line each: a file's other
    /// video streams (a second angle, a depth track), named rather than dropped silently.
    public var leftOut: [String] = []

    public init(video: Decision, audio: Decision) {
        self.video = video
        self.audio = audio
    }

    /// The decision for `built` written with `settings` (whose audio format and dynamic
    /// range are final).
    /// What of a clip a whole copy may keep as it is, where the recipe leaves it so.
    public struct Keeping: Sendable, Hashable {
        /// `orientation: keep`: a quarter-turned or mirrored clip keeps its display matrix
        /// instead of being encoded upright.
        public var displayMatrix: Bool
        /// No `output.fps`: a variable frame rate stays variable (the packets keep their
        /// times); with one, the output is on that constant grid.
        public var variableRate: Bool

        public init(displayMatrix: Bool = false, variableRate: Bool = true) {
            self.displayMatrix = displayMatrix
            self.variableRate = variableRate
        }
    }

    public init(built: BuiltComposition, settings: ExportSettings, reencode: Recipe.Reencode, keeping: Keeping = Keeping(),
                pictures: (String, TrackID) -> SourcePictureIndex? = { _, _ in nil }) {
        video = Self.decideVideo(built: built, settings: settings, reencode: reencode, keeping: keeping, pictures: pictures)
        audio = Self.decideAudio(built: built, settings: settings, reencode: reencode)
        leftOut = Self.leftOut(built)
    }

    /// `leftOut`'s lines: for each file the video shows with other video streams,
    /// `video: clip.mov stream 2 left out (…)`.
    static func leftOut(_ built: BuiltComposition) -> [String] {
        let shown = Set(built.composition.tracks(of: .video).flatMap { $0.segments.compactMap { $0.source?.track.asset } })
        return built.media.keys.sorted().filter(shown.contains).compactMap { path in
            guard let media = built.media[path], let used = media.video, !media.otherVideoStreams.isEmpty else { return nil }
            let streams = media.otherVideoStreams.map { "stream \($0)" }.joined(separator: ", ")
            return "video: \((path as NSString).lastPathComponent) \(streams) left out (an output carries one video stream: "
                + "stream \(used.trackID - 1))"
        }
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
        decisionLines + leftOut
    }

    private var decisionLines: [String] {
        [("video", video), ("audio", audio)].compactMap { kind, decision in
            switch decision {
            case let .copied(copy):
                let upright = copy.orientation == .identity ? "" : ", its display matrix kept (\(Self.turn(copy.orientation)))"
                return "\(kind): copied from \((copy.asset as NSString).lastPathComponent) (stream \(copy.trackID - 1))\(upright)"
            case let .encoded(reasons):
                return "\(kind): re-encoded: \(reasons.joined(separator: "; "))"
            case let .spliced(splice):
                return Self.lines(splice).joined(separator: "\n")
            case .absent:
                return nil
            }
        }
    }

    /// A display matrix in words: how players turn or mirror the stored picture.
    static func turn(_ t: DropcutTimeline.AffineTransform) -> String {
        switch (t.a, t.b, t.c, t.d) {
        case (0, 1, -1, 0): "shown turned 90° clockwise"
        case (-1, 0, 0, -1): "shown turned 180°"
        case (0, -1, 1, 0): "shown turned 90° anticlockwise"
        case (-1, 0, 0, 1): "shown mirrored left to right"
        case (1, 0, 0, -1): "shown mirrored top to bottom"
        case (0, 1, 1, 0), (0, -1, -1, 0): "shown turned a quarter and mirrored"
        default: t.timelineDescription
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
            return .failure(Reasons(["the \(noun) is made of \(filled.count) pieces (\(pieces(filled, noun: noun)))"]))
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

    /// What each piece of a track is, in words: "0–2.100 s the clip, 2.100–2.152 s its
    /// last frame held (the video ends before the sound)".
    private static func pieces(_ segments: [TrackSegment], noun: String) -> String {
        func span(_ range: TimeRange) -> String { String(format: "%.3f–%.3f s", range.start.seconds, range.end.seconds) }
        var words: [String] = []
        for (k, segment) in segments.prefix(4).enumerated() {
            let name = segment.source.map { ($0.track.asset as NSString).lastPathComponent } ?? "nothing"
            let what: String
            if segment.isStill {
                what = k > 0 && k == segments.count - 1 && segments[k - 1].source?.track == segment.source?.track
                    ? "its last frame held (the \(noun) ends before the \(noun == "video" ? "sound" : "picture"))" : "a frame of \(name) held"
            } else if segment.speed != 1 {
                what = "\(name) at ×\(String(format: "%g", segment.speed))"
            } else {
                what = name
            }
            words.append("\(span(segment.target)) \(what)")
        }
        return words.joined(separator: ", ") + (segments.count > 4 ? ", …" : "")
    }

    struct Reasons: Error {
        static let none = Reasons([])
        var list: [String]
        init(_ list: [String]) { self.list = list }
    }

    // MARK: Video

    private static func decideVideo(built: BuiltComposition, settings: ExportSettings, reencode: Recipe.Reencode,
                                    keeping: Keeping, pictures: (String, TrackID) -> SourcePictureIndex?) -> Decision {
        // Each file's index read once, and only when asked for.
        var indexes: [String: SourcePictureIndex?] = [:]
        let index = { (asset: String, track: TrackID) -> SourcePictureIndex? in
            if let known = indexes[asset] { return known }
            let read = pictures(asset, track)
            indexes[asset] = read
            return read
        }
        let whole = decideWholeVideo(built: built, settings: settings, reencode: reencode, keeping: keeping, pictures: index)
        guard case let .encoded(reasons) = whole, reencode != .always else { return whole }
        switch splice(built: built, settings: settings, keeping: keeping, pictures: index) {
        case let .success(splice):
            return .spliced(splice)
        case let .failure(failure):
            return .encoded(reasons + failure.list.filter { !reasons.contains($0) })
        }
    }

    private static func decideWholeVideo(built: BuiltComposition, settings: ExportSettings, reencode: Recipe.Reencode,
                                         keeping: Keeping, pictures: (String, TrackID) -> SourcePictureIndex?) -> Decision {
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
        reasons += sourceReasons(probed, settings: settings, output: built.videoComposition, copy: .whole(keeping))
        reasons += drawingReasons(trackID: picked.track.trackID, built: built, size: probed.naturalSize,
                                  orientation: probed.preferredTransform)
        // Finding the keyframes reads the file: only when nothing else stands in the way.
        if reasons.isEmpty {
            reasons += cutReasons(source.timeRange, of: probed.timeRange, noun: "video",
                                  keyframes: { pictures(source.track.asset, source.track.trackID)?.keyframes })
        }
        guard reasons.isEmpty else { return .encoded(reasons) }
        return .copied(StreamCopy(asset: source.track.asset, trackID: source.track.trackID, range: source.timeRange,
                                  statedColour: statedColour(probed), orientation: probed.preferredTransform))
    }

    /// How much of a source a copy takes: all of its pictures as they are (`whole`), or
    /// groups of them beside encoded pieces (`pieces`, smart render), keeping what the
    /// recipe leaves so. Pieces keep a display matrix (the encoded pictures are stored
    /// turned back, so the one matrix shows them upright too), and a variable rate whose
    /// frames lie on the output's grid (frames left out stay out where copied; the encoded
    /// pieces are on the grid, a frame left out repeating the one before, as in a full
    /// render).
    enum CopyExtent: Equatable {
        case whole(Keeping)
        case pieces(Keeping)

        var keeping: Keeping {
            switch self {
            case let .whole(keeping), let .pieces(keeping): keeping
            }
        }

        var isWhole: Bool {
            if case .whole = self { return true }
            return false
        }
    }

    /// What of the source itself the output would change. A whole copy keeps what the
    /// source states as it states it — its colour (Display P3, full range, BT.601: the
    /// parameter sets and the container say so as they did), its timestamps (a variable
    /// rate stays variable) and, with `orientation: keep`, its display matrix (shown
    /// upright, as AVFoundation's passthrough keeps `preferredTransform`) —, so only a
    /// change the recipe asks for stands in its way. (Without `keep` a turned clip is
    /// encoded upright: players and the corpus check that ignore matrices see it so.)
    /// Pieces beside encoded ones keep the colour and the matrix too (the encoded pieces
    /// are converted into the colour and stored turned back), but not yet a variable rate.
    static func sourceReasons(_ probed: ProbedMedia.Video, settings: ExportSettings,
                              output: VideoComposition, copy extent: CopyExtent) -> [String] {
        var reasons: [String] = []
        let codec = settings.videoCodec.rawValue
        if probed.codec != codec {
            reasons.append("the source's codec is \(probed.codec ?? "unknown"), the output's \(codec)")
        }
        // yuvj420p is yuv420p stating full range: the same pictures, kept so by a copy
        // (the encoded pieces beside it are encoded full range too).
        if !["yuv420p", "yuvj420p"].contains(probed.pixelFormat ?? "") {
            reasons.append("the source's pixel format is \(probed.pixelFormat ?? "unknown"), the output's yuv420p")
        }
        if settings.dynamicRange != .sdr {
            reasons.append("the output is HDR (HLG, 10-bit)")
        }
        // A copy states the colour its source states, and the encoded pieces beside copied
        // ones are encoded stating it too. A source that states no colour is copied
        // stating what players take it for (`statedColour`: BT.709 for HD, BT.601 for SD),
        // in its parameter sets and the container.
        if let color = probed.color, color.isHDR {
            reasons.append("the source is HDR (\(color.dynamicRangeName)), the output SDR")
        } else if !probed.colorIsStated, probed.codec != "h264" {
            reasons.append("the source does not state its colour (the output says BT.709)")
        }
        if probed.isInterlaced { reasons.append("the source is interlaced") }
        // A variable rate is kept where the output may vary (no `output.fps`): copied whole,
        // or spliced when its frames lie on the output's grid (frames left out stay out
        // where copied).
        if probed.isVariableFrameRate, !(extent.keeping.variableRate && (extent.isWhole || probed.variableRateLiesOnGrid)) {
            reasons.append("the source's frame rate is variable" + (!extent.keeping.variableRate ? ", the output's constant (output.fps)"
                                                                    : ", its frames on no one grid"))
        }
        if probed.pixelAspectRatio != .square { reasons.append("the source's pixels are not square") }
        // Kept by a whole copy when it is a quarter turn or a mirror (what players apply
        // exactly) and the output is the upright picture at its size.
        let keepsMatrix = extent.keeping.displayMatrix && probed.preferredTransform.turnDescription == nil
        if probed.preferredTransform != .identity && !keepsMatrix {
            let turn = probed.preferredTransform.turnDescription.map { " (\($0))" } ?? ""
            reasons.append("the source's display matrix needs an orientation fix\(turn)")
        }
        // A quarter turn shows the stored picture's width as its height.
        let turned = keepsMatrix && probed.preferredTransform.a == 0 && probed.preferredTransform.d == 0
        let shown = turned ? PixelSize(width: probed.encodedSize.height, height: probed.encodedSize.width) : probed.encodedSize
        if output.renderSize != shown {
            reasons.append("the size changes from \(shown) to \(output.renderSize)")
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

    /// What drawing the track into the output would change: another layer, a transform
    /// (but `orientation`, the display matrix a whole copy keeps), crop or fade, an overlay.
    private static func drawingReasons(trackID: TrackID, built: BuiltComposition, size: PixelSize,
                                       orientation: DropcutTimeline.AffineTransform) -> [String] {
        var reasons: [String] = []
        let frame = Rect(x: 0, y: 0, width: Double(size.width), height: Double(size.height))
        var layered = false, transformed = false, cropped = false, faded = false
        for instruction in built.videoComposition.instructions {
            if instruction.layerInstructions.count > 1 || instruction.layerInstructions.contains(where: { $0.trackID != trackID }) {
                layered = true
            }
            for layer in instruction.layerInstructions where layer.trackID == trackID {
                if !isConstant(layer.opacity, 1.0) { faded = true }
                if !isConstant(layer.transform, .identity) && !isConstant(layer.transform, orientation) { transformed = true }
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
