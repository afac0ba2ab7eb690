import Foundation
import DropcutMediaIO
import DropcutSupport
import DropcutTimeline

/// A spliced video stream (`VideoSplice`) as its `FileLane` writes it: piece by piece, the
/// copied groups of pictures' packets as they are, and each encoded piece composited
/// (its own `FrameProducer` over just its frames) and encoded by an encoder of its own,
/// so it starts with an IDR picture and is flushed whole before the next copied group.
///
/// One stream, one description: the source's `avcC` with the encoder's SPS and PPS (under
/// their own id) added, set before the header. Every packet is re-timed on the frame
/// grid: presentation time its frame's, decode time the presentation time of the picture
/// `decodeDelay` pictures before it — frames one apart, so `stts` is one entry whatever
/// the joins (a source's frames left out stay out where copied, as its own steps), and
/// no picture is decoded after it is due.
///
/// Two IDR pictures in a row (at a join: each piece numbers its own) are given different
/// `idr_pic_id`s (`IDRPictureIDGuard`, which rewrites the second's slice headers). One
/// that cannot be rewritten fails the splice as `StreamCopyUnsuitable`, and the video is
/// encoded whole: a stream against H.264 7.4.3 is not written.
final class VideoSplicer {
    let stream: Int
    private let session: ExportSession
    private let splice: VideoSplice
    private let muxer: Muxer
    /// One tick of the output stream (the source's time base, or the frame's timescale
    /// when a frame is no whole number of those), and a frame in ticks.
    private let tick: MediaTime
    private let frameTicks: Int64
    /// Where a copied group's pictures lie, from the copy's start half a frame early.
    private let copyGrid: FrameGrid
    /// Pictures every decode time lies behind in presentation order.
    private let decodeDelay: Int
    /// The output frames a picture is on, ascending: every frame, but those a copied
    /// group leaves out as its source does (`VideoSplice.missingFrames`).
    private let presented: [Int]
    /// Output frames the pieces cover (the stream's end, in frames).
    private let frameTotal: Int
    /// Output frames shown so far (the furthest picture written, and its frame).
    private var covered = 0
    /// The encoded pieces' settings and the parameter sets every piece's encoder must
    /// make; nil when every piece is copied (no quantisers are read, no encoder opened).
    private let encoding: (settings: VideoEncoderSettings, parameterSets: [UInt8])?
    /// Opened at `init` (their stream and parameter sets are needed before the header);
    /// used by the first copied and the first encoded piece.
    private var firstCopier: StreamCopier?
    private var firstEncoder: VideoEncoder?
    private let packet: Packet
    /// Renumbers an IDR picture whose `idr_pic_id` repeats the one before's.
    private let idrPictureIDs: IDRPictureIDGuard
    /// Packets written.
    private var written = 0
    /// What an encoded piece stores of each canvas: turned back and in the source's colour.
    private let pictureFormat: SplicedPictureFormat
    /// The encoded pieces' constant rate factor: from the source's quantisers (nil: none
    /// is encoded).
    let crf: Int?

    /// Frames of the first copied group whose quantisers are averaged: each is decoded
    /// before the first piece is written (a 1440x1080 frame, 12 ms), so half a second at
    /// 30 fps — an IDR picture and the P and B pictures after it, what the source's rate
    /// control does with a scene. (60 took 0.5 s of a 1.1 s splice of an iPhone's 2.6 s
    /// Live Photo.)
    static let quantiserSample = 15

    /// x264's rate factor for pieces as fine as a source whose frames were quantised at
    /// `mean` on average: four steps finer, because the pieces re-encode pictures already
    /// coded once, and a phone's hardware encoder leaves noise x264 codes at a cost.
    /// Measured on a 720p30 x264 CRF 23 clip cut between keyframes, the encoded frames
    /// against the source's: 43.2 dB at the source's mean, 44.8 at two steps finer, 46.2 at
    /// four (the ffmpeg CLI re-encoding at the source's CRF: 43.5); on an iPhone's 720p30
    /// low-light clip (`osx_IMG_2908.MOV`, 102 frames encoded) against the lossless full
    /// render: 39.3 dB at two steps finer, 40.7 at four (the output 0.84 and 1.02 MB).
    static func crf(matching mean: Double) -> Int {
        min(51, max(0, Int((mean - 4).rounded())))
    }

    init(_ session: ExportSession, splice: VideoSplice, muxer: Muxer) throws {
        self.session = session
        self.splice = splice
        self.muxer = muxer
        guard let firstCopied = splice.plan.pieces.first(where: \.isCopied), case let .copied(_, source) = firstCopied else {
            throw ExportError.invalidComposition(["a splice copies nothing"])
        }
        let copier = try StreamCopier(path: splice.asset, trackID: splice.trackID,
                                      range: Self.sourceRange(source, of: splice, frameDuration: session.videoComposition.frameDuration),
                                      statingColour: splice.statedColour)
        stream = try copier.addStream(to: muxer)
        firstCopier = copier
        let frameDuration = session.videoComposition.frameDuration
        // The output counts in the source's ticks when a frame is a whole number of them;
        // else (29.97 fps stamped by a 600 Hz clock) in the frame's own timescale.
        if let ratio = frameDuration.ratio(to: copier.timeBase), ratio.denominator == 1, ratio.numerator > 0,
           let ticks = Int64(exactly: ratio.numerator) {
            tick = copier.timeBase
            frameTicks = ticks
        } else {
            guard frameDuration.isNumeric, frameDuration.value > 0, frameDuration.timescale > 0 else {
                throw StreamCopyUnsuitable(path: splice.asset, stream: Int(splice.trackID) - 1, reason: "its frame rate is not a number")
            }
            tick = MediaTime(value: 1, timescale: frameDuration.timescale)
            frameTicks = frameDuration.value
            try muxer.retime(stream: stream, tick: tick, frameDuration: frameDuration)
        }
        // A copied group's pictures, from half a frame before its first: each is the frame
        // it is within an eighth of a frame of (`FrameGrid.stampTolerance`).
        guard let grid = FrameGrid(origin: Self.halfFrame(frameDuration), frameDuration: frameDuration) else {
            throw StreamCopyUnsuitable(path: splice.asset, stream: Int(splice.trackID) - 1, reason: "its frame rate is not a number")
        }
        copyGrid = grid
        let format = try SplicedPictureFormat(canvas: session.videoComposition.renderSize, matrix: splice.orientation,
                                              colour: splice.colour)
        pictureFormat = format
        presented = Self.presentedFrames(splice)
        frameTotal = splice.plan.pieces.last?.output.upperBound ?? 0
        // The source's sets as the copy writes them (restated, for an untagged source).
        let extradata = muxer.extradata(ofStream: stream)
        guard var configuration = H264DecoderConfiguration(extradata) ?? H264DecoderConfiguration(annexB: extradata, nalLengthSize: 4) else {
            throw StreamCopyUnsuitable(path: splice.asset, stream: Int(splice.trackID) - 1, reason: "its avcC cannot be read")
        }
        guard splice.plan.pieces.contains(where: { !$0.isCopied }) else {
            // Every piece copied (a cut on an IDR picture): the source's sets alone.
            crf = nil
            encoding = nil
            decodeDelay = splice.sourceReorderDepth
            idrPictureIDs = IDRPictureIDGuard(configuration: configuration)
            packet = try Packet()
            return
        }
        let sourceQuality = try SourceQuantiser.mean(
            path: splice.asset, trackID: splice.trackID,
            from: Self.sourceRange(source, of: splice, frameDuration: frameDuration).start, frames: Self.quantiserSample)
        let crf = sourceQuality.map(Self.crf(matching:)) ?? session.settings.crf
        self.crf = crf
        // The very code points the copied pictures state (restated, for an untagged source).
        let settings = OutputEncoders.splicedPieces(session.settings, format: format, frameDuration: frameDuration, crf: crf,
                                                    colour: splice.colour, codePoints: muxer.colourCodePoints(ofStream: stream),
                                                    match: splice.encoding)
        let encoder = try OutputEncoders.piece(settings)
        let parameterSets = encoder.extradata
        encoding = (settings, parameterSets)
        firstEncoder = encoder
        decodeDelay = max(splice.sourceReorderDepth, encoder.reorderDepth)
        let units = H264DecoderConfiguration.nalUnits(parameterSets, lengthSize: 4) ?? []
        let sps = units.filter { $0.first.map { $0 & 0x1F == 7 } == true }
        let pps = units.filter { $0.first.map { $0 & 0x1F == 8 } == true }
        guard sps.count == 1, pps.count == 1,
              H264DecoderConfiguration.SequenceParameters(sps[0])?.id == splice.encoding.parameterSetID,
              H264DecoderConfiguration.PictureParameters(pps[0])?.id == splice.encoding.parameterSetID else {
            throw ExportError.invalidComposition(["the encoder's parameter sets are not under id \(splice.encoding.parameterSetID)"])
        }
        configuration.sequenceParameterSets += sps
        configuration.pictureParameterSets += pps
        guard let bytes = configuration.bytes else {
            throw StreamCopyUnsuitable(path: splice.asset, stream: Int(splice.trackID) - 1, reason: "its avcC has no room for more parameter sets")
        }
        try muxer.replaceExtradata(ofStream: stream, with: bytes)
        idrPictureIDs = IDRPictureIDGuard(configuration: configuration)
        packet = try Packet()
    }

    /// Source times of source frames `frames`, from half a frame before the first's place to
    /// half a frame before the next's: the pictures a copy of them takes, each stamped
    /// within an eighth of a frame of its place (a phone's clock rounds each time to its ticks).
    private func sourceRange(_ frames: Range<Int>) -> TimeRange {
        Self.sourceRange(frames, of: splice, frameDuration: session.videoComposition.frameDuration)
    }

    private static func sourceRange(_ frames: Range<Int>, of splice: VideoSplice, frameDuration d: MediaTime) -> TimeRange {
        let half = halfFrame(d)
        return TimeRange(start: splice.sourceStart + d.multiplied(by: Int64(frames.lowerBound), dividedBy: 1) - half,
                         end: splice.sourceStart + d.multiplied(by: Int64(frames.upperBound), dividedBy: 1) - half)
    }

    /// Half of `d`, exactly where its timescale allows.
    private static func halfFrame(_ d: MediaTime) -> MediaTime {
        d.timescale <= Int32.max / 2 ? MediaTime(value: d.value, timescale: d.timescale * 2) : d.multiplied(by: 1, dividedBy: 2)
    }

    /// The output frames a picture is on, ascending (`presented`).
    static func presentedFrames(_ splice: VideoSplice) -> [Int] {
        var frames: [Int] = []
        frames.reserveCapacity(splice.plan.pieces.last?.output.upperBound ?? 0)
        for piece in splice.plan.pieces {
            switch piece {
            case let .encoded(output, _):
                frames.append(contentsOf: output)
            case let .copied(output, source):
                let missing = missingFrames(in: source, of: splice)
                var next = missing.startIndex
                for place in source {
                    if next < missing.endIndex, splice.missingFrames[next] == place { next += 1; continue }
                    frames.append(output.lowerBound + place - source.lowerBound)
                }
            }
        }
        return frames
    }

    /// The indices in `splice.missingFrames` of the source frames in `range` left out.
    static func missingFrames(in range: Range<Int>, of splice: VideoSplice) -> Range<Int> {
        firstIndex(atLeast: range.lowerBound, in: splice.missingFrames)..<firstIndex(atLeast: range.upperBound, in: splice.missingFrames)
    }

    /// The index of the first element of `sorted` (ascending) at least `value`.
    static func firstIndex(atLeast value: Int, in sorted: [Int]) -> Int {
        var low = 0, high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Writes every piece in order; calls `follow` with each packet's decode time before
    /// writing it (the lane keeps the sound up with it) and `progress` with the frames
    /// written.
    func run(isCancelled: () -> Bool, follow: (MediaTime) throws -> Void, progress: (Int) -> Void) throws {
        for piece in splice.plan.pieces {
            if isCancelled() { throw ExportError.cancelled }
            switch piece {
            case let .copied(output, source):
                try copy(output: output, source: source, isCancelled: isCancelled, follow: follow, progress: progress)
            case let .encoded(output, _):
                try encode(output: output, isCancelled: isCancelled, follow: follow, progress: progress)
            }
            // Every frame of the piece shown (a copy's last frames may be left out).
            covered = max(covered, piece.output.upperBound)
            progress(covered)
        }
    }

    private func copy(output: Range<Int>, source: Range<Int>, isCancelled: () -> Bool, follow: (MediaTime) throws -> Void,
                      progress: (Int) -> Void) throws {
        let copier = try firstCopier ?? StreamCopier(path: splice.asset, trackID: splice.trackID, range: sourceRange(source),
                                                     statingColour: splice.statedColour)
        firstCopier = nil
        var count = 0
        // One flag per frame of the group (not per picture): no two pictures on one frame,
        // and none on a frame the source leaves out.
        var placed = [Bool](repeating: false, count: source.count)
        let missing = Self.missingFrames(in: source, of: splice)
        for k in missing { placed[splice.missingFrames[k] - source.lowerBound] = true }
        while try copier.takeNext(into: packet) {
            if isCancelled() { throw ExportError.cancelled }
            // Each picture of the group on its own frame of the grid, and no other.
            let stamp = copier.timeBase.multiplied(by: packet.pts ?? 0, dividedBy: 1)
            guard packet.pts != nil, let place = copyGrid.frame(stampedAt: stamp), (0..<Int64(source.count)).contains(place),
                  !placed[Int(place)] else {
                throw StreamCopyUnsuitable(path: splice.asset, stream: Int(splice.trackID) - 1,
                                           reason: "a picture at \(stamp) s from a copied group's start is off the frame grid")
            }
            placed[Int(place)] = true
            try write(frame: output.lowerBound + Int(place), follow: follow)
            count += 1
            progress(covered)
        }
        guard count == source.count - missing.count else {
            throw StreamCopyUnsuitable(path: splice.asset, stream: Int(splice.trackID) - 1,
                                       reason: "a copied group of \(source.count - missing.count) pictures has \(count)")
        }
    }

    private func encode(output: Range<Int>, isCancelled: () -> Bool, follow: (MediaTime) throws -> Void,
                        progress: (Int) -> Void) throws {
        guard let encoding else { throw ExportError.invalidComposition(["a splice without encoded pieces was asked to encode one"]) }
        let encoder = try firstEncoder ?? OutputEncoders.piece(encoding.settings)
        firstEncoder = nil
        guard encoder.extradata == encoding.parameterSets else {
            throw ExportError.invalidComposition(["an encoded piece's parameter sets differ from the sample entry's"])
        }
        let size = session.videoComposition.renderSize
        let producer = try FrameProducer(
            scheduler: FrameScheduler(composition: session.composition, videoComposition: session.videoComposition),
            renderSize: size, overlays: try OverlayRenderer(layers: session.overlays, renderSize: size, logger: session.logger),
            poolSize: 2, deinterlace: session.settings.deinterlace, frames: output)
        defer { producer.stop() }
        try producer.openFirstSources()
        try producer.start()
        func drain() throws -> EncoderResult {
            while true {
                let result = try encoder.receivePacket(into: packet)
                guard result == .packet else { return result }
                guard let frame = packet.pts, output.contains(Int(frame)) else {
                    throw ExportError.invalidComposition(["the encoder returned a picture outside its piece"])
                }
                try write(frame: Int(frame), follow: follow)
                progress(covered)
            }
        }
        while let item = producer.filled.take() {
            if isCancelled() { throw ExportError.cancelled }
            switch item {
            case let .frame(canvas, _):
                try encoder.send(pictureFormat.stored(canvas))
                _ = try drain()
                producer.free.put(canvas)
            case let .failed(error):
                throw error
            case .end:
                try encoder.send(nil)
                while try drain() != .endOfStream {}
                return
            }
        }
        throw isCancelled() ? ExportError.cancelled : ExportError.invalidComposition(["frame pipeline closed early"])
    }

    /// Times the packet as output frame `frame` and writes it: decoded at the presentation
    /// time of the picture `decodeDelay` before it in presentation order (before the first,
    /// a frame apart), shown until the next picture's frame.
    private func write(frame: Int, follow: (MediaTime) throws -> Void) throws {
        let rank = written - decodeDelay
        guard rank < presented.count, !presented.isEmpty else {
            throw StreamCopyUnsuitable(path: splice.asset, stream: Int(splice.trackID) - 1,
                                       reason: "it has more pictures than the output has frames")
        }
        let decodeFrame = Int64(rank >= 0 ? presented[rank] : presented[0] + rank)
        let place = Self.firstIndex(atLeast: frame, in: presented)
        guard Int64(frame) >= decodeFrame, place < presented.count, presented[place] == frame else {
            throw StreamCopyUnsuitable(path: splice.asset, stream: Int(splice.trackID) - 1,
                                       reason: Int64(frame) < decodeFrame ? "its pictures are reordered deeper than \(decodeDelay) frames"
                                                                          : "a picture lies on output frame \(frame), which has none")
        }
        if case let .refused(reason) = try idrPictureIDs.pass(packet) {
            throw StreamCopyUnsuitable(path: splice.asset, stream: Int(splice.trackID) - 1, reason: reason)
        }
        let shownUntil = place + 1 < presented.count ? presented[place + 1] : max(frameTotal, frame + 1)
        covered = max(covered, frame + 1)
        packet.retime(pts: Int64(frame) * frameTicks, dts: decodeFrame * frameTicks, duration: Int64(shownUntil - frame) * frameTicks)
        try follow(tick.multiplied(by: decodeFrame * frameTicks, dividedBy: 1))
        try muxer.write(packet, from: tick, stream: stream)
        written += 1
    }
}
