/// What the analysis pass of `fit: smart` found in one clip: the detections of each
/// analysed picture and where the shots change. Times are the clip's source times (0 is
/// its first picture); boxes are in the stored picture, normalised (`SubjectBox`).
///
/// Its size grows with the clip by a few boxes per analysed picture (tens of bytes);
/// the pictures themselves are never kept.
public struct SubjectAnalysis: Sendable, Hashable {
    /// One analysed picture: its source time (seconds) and what the detectors found in it.
    public struct Sample: Sendable, Hashable {
        public var time: Double
        public var boxes: [SubjectBox]
        public init(time: Double, boxes: [SubjectBox]) {
            self.time = time
            self.boxes = boxes
        }
    }

    public var samples: [Sample]
    /// Source times (seconds) at which a new shot starts, ascending.
    public var cuts: [Double]
    /// Where the analysis ends, seconds: the clip's length, or the end of what was
    /// analysed of it.
    public var duration: Double
    /// Where it starts (0, or about where a trimmed clip starts).
    public var start: Double

    public init(samples: [Sample], cuts: [Double], duration: Double, start: Double = 0) {
        self.samples = samples
        self.cuts = cuts
        self.duration = duration
        self.start = start.isFinite ? max(0, start) : 0
    }

    /// The shots as half-open source-time ranges, in order, covering start...duration.
    public var shots: [Range<Double>] {
        var bounds = [start]
        for cut in cuts where cut > bounds.last! && cut < duration { bounds.append(cut) }
        bounds.append(max(duration, bounds.last!))
        return zip(bounds, bounds.dropFirst()).map { $0.0..<$0.1 }
    }
}

/// Runs `fit: smart`'s analysis pass on real media (`DropcutReframe.SubjectAnalyzer`); the
/// composition builder asks for it only for `fit: smart`, so building stays a pure
/// function of what it is given.
public protocol SubjectAnalyzing: Sendable {
    /// The analysis of the video of the file at `path`, looking for `subject`, over the
    /// source times `range` (seconds: what a trimmed clip shows; the analysis may start
    /// a little before it, at a keyframe). Throws with a message naming the file when it
    /// cannot be decoded.
    func analysis(of path: String, subject: SmartFit.Subject, within range: ClosedRange<Double>) throws -> SubjectAnalysis
}

/// For builders that never meet `fit: smart`: asking is an error that says so.
public struct NoSubjectAnalysis: SubjectAnalyzing {
    /// The error thrown when `fit: smart` asks for an analysis this builder was not given.
    public struct Unavailable: Error, CustomStringConvertible {
        public var description: String { "fit: smart needs the subject analysis, which this build of the composition was not given" }
    }
    public init() {}
    public func analysis(of path: String, subject: SmartFit.Subject, within range: ClosedRange<Double>) throws -> SubjectAnalysis { throw Unavailable() }
}

extension SubjectAnalysis {
    /// The analysis with every box carried through `transform` (a clip's orientation,
    /// which maps its stored `naturalSize` picture to the upright one), normalised to the
    /// upright picture.
    public func upright(through transform: AffineTransform, naturalSize: PixelSize) -> SubjectAnalysis {
        let w = Double(naturalSize.width), h = Double(naturalSize.height)
        let frame = transform.boundingBox(of: Size(width: w, height: h))
        guard frame.width > 0, frame.height > 0 else { return self }
        var mapped = self
        for i in mapped.samples.indices {
            for j in mapped.samples[i].boxes.indices {
                let r = mapped.samples[i].boxes[j].rect
                // The box's own corners, moved: its bounding box in upright pixels.
                let corners = [Point(x: r.x * w, y: r.y * h), Point(x: r.maxX * w, y: r.y * h),
                               Point(x: r.x * w, y: r.maxY * h), Point(x: r.maxX * w, y: r.maxY * h)].map(transform.apply(to:))
                let xs = corners.map(\.x), ys = corners.map(\.y)
                mapped.samples[i].boxes[j].rect = Rect(x: (xs.min()! - frame.x) / frame.width, y: (ys.min()! - frame.y) / frame.height,
                                                       width: (xs.max()! - xs.min()!) / frame.width, height: (ys.max()! - ys.min()!) / frame.height)
            }
        }
        return mapped
    }
}
