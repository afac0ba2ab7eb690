/// A video output as pieces, in output order: runs of the source's groups of pictures
/// shown unchanged, copied packet for packet, and everything else, encoded — what editors
/// call smart rendering (Final Cut Pro, Resolve, Avidemux's "smart copy").
///
/// Everything is counted in frames of one constant-rate grid: output frame `i` is shown
/// at `i × frameDuration`, source frame `n` at `n × frameDuration` from the source's
/// start. The plan is pure; `PassThrough` (Pipeline) says which output frames show which
/// source frame unchanged and where the source's IDR pictures are.
public struct SmartRenderPlan: Sendable, Hashable {
    /// A run of output frames made one way.
    public enum Piece: Sendable, Hashable {
        /// Output frames `output` are source frames `source` (as many), copied as they
        /// are: whole groups of pictures, from an IDR picture to the next or to the end.
        case copied(output: Range<Int>, source: Range<Int>)
        /// Output frames `output` are encoded, for these reasons (never empty).
        case encoded(output: Range<Int>, reasons: [String])

        /// The output frames of the piece.
        public var output: Range<Int> {
            switch self {
            case let .copied(output, _), let .encoded(output, _): output
            }
        }

        public var isCopied: Bool {
            if case .copied = self { return true }
            return false
        }
    }

    /// What one output frame shows, as far as copying is concerned.
    package enum Frame: Sendable, Hashable {
        /// Source frame `n`, pixel for pixel.
        case source(Int)
        /// Anything else, and why.
        case changed(String)
    }

    /// Why frames shown unchanged are encoded all the same.
    package static let partialGroupReason = "a group of pictures is shown only in part (a cut between keyframes)"

    public let pieces: [Piece]

    /// Plans `frames` (one entry per output frame) against a source whose IDR pictures are
    /// source frames `idrFrames` (ascending) and which has `sourceFrames` frames in all.
    ///
    /// A group of pictures — from an IDR picture to the next, or to the source's end — is
    /// copied where the output shows each of its frames, in order, on consecutive output
    /// frames; every other output frame is encoded. So an encoded run reaches outward to
    /// the copied groups on either side of it, and a copied run starts on an IDR picture
    /// (a decoder needs nothing before it) and ends where the next IDR picture starts (no
    /// picture of it is referred to from outside it: H.264 references never cross an IDR).
    package init(frames: [Frame], idrFrames: [Int], sourceFrames: Int) {
        // The group each IDR picture starts, by its frame: its end (the next IDR or the end).
        var groupEnd: [Int: Int] = [:]
        let starts = idrFrames.filter { $0 >= 0 && $0 < sourceFrames }
        for (k, start) in starts.enumerated() where groupEnd[start] == nil {
            let end = starts[(k + 1)...].first { $0 > start } ?? sourceFrames
            groupEnd[start] = end
        }
        var pieces: [Piece] = []
        var encodedStart: Int?
        var reasons: [String] = []
        var partial = false
        func closeEncoded(at end: Int) {
            guard let start = encodedStart else { return }
            var list = reasons
            if partial { list.append(Self.partialGroupReason) }
            pieces.append(.encoded(output: start..<end, reasons: list))
            encodedStart = nil
            reasons = []
            partial = false
        }
        var i = 0
        while i < frames.count {
            if case let .source(n) = frames[i], let end = groupEnd[n], Self.shows(frames, from: i, source: n..<end) {
                closeEncoded(at: i)
                let count = end - n
                if case let .copied(output, source) = pieces.last, output.upperBound == i, source.upperBound == n {
                    pieces[pieces.count - 1] = .copied(output: output.lowerBound..<(i + count), source: source.lowerBound..<end)
                } else {
                    pieces.append(.copied(output: i..<(i + count), source: n..<end))
                }
                i += count
                continue
            }
            if encodedStart == nil { encodedStart = i }
            switch frames[i] {
            case let .changed(reason): if !reasons.contains(reason) { reasons.append(reason) }
            case .source: partial = true
            }
            i += 1
        }
        closeEncoded(at: frames.count)
        self.pieces = pieces
    }

    /// Whether output frames from `start` show source frames `source`, in order.
    private static func shows(_ frames: [Frame], from start: Int, source: Range<Int>) -> Bool {
        guard start + source.count <= frames.count else { return false }
        for (k, n) in source.enumerated() where frames[start + k] != .source(n) { return false }
        return true
    }

    /// Output frames copied.
    package var copiedFrames: Int { pieces.reduce(0) { $0 + ($1.isCopied ? $1.output.count : 0) } }

    /// Whether any frame is copied.
    package var copiesAny: Bool { pieces.contains { $0.isCopied } }

    /// Whether every frame is encoded.
    package var encodesAll: Bool { !copiesAny }
}
