import Foundation
import DropcutMediaIO
import DropcutSupport
import DropcutTimeline

/// `fit: smart`'s analysis pass on real media: the clip decoded small and rough
/// (`SketchReader`, ≤ 480 px wide); every picture's luma histogram compared with the one
/// before (shot cuts, on the first picture of the new shot the sketch decodes); ten
/// times a second a sample: motion (the difference from the previous sample), faces five
/// times a second (once a second in the whole picture, in between near the faces found)
/// and people (slower) twice a second, each held until the next look within the shot —
/// and looked for again on a cut's first picture. Memory stays that of a few small
/// pictures, whatever the clip's length; what grows is the list of boxes found (ten
/// samples a second).
public struct SubjectAnalyzer: SubjectAnalyzing {
    /// Seconds between samples (motion; the planner's grid), looks for faces, and for people.
    public var sampleInterval = 0.1
    public var faceInterval = 0.2
    public var peopleInterval = 0.5
    /// Seconds between looks for faces in the whole picture (between them, near the
    /// faces already found).
    public var wholeInterval = 1.0
    public var maxWidth = 480

    public init() {}

    public func analysis(of path: String, subject: SmartFit.Subject, within range: ClosedRange<Double> = 0...Double.greatestFiniteMagnitude) throws -> SubjectAnalysis {
        let pictures = try SketchPictures(path: path, maxWidth: maxWidth, from: range.lowerBound)
        defer { pictures.stop() }
        let detector = try SubjectDetector()
        var shots = ShotCutDetector()
        var samples: [SubjectAnalysis.Sample] = []
        var cuts: [Double] = []
        var lastTime = -Double.infinity, frameTime = 0.0, lastSample = -Double.infinity, lastWhole = -Double.infinity, lastFaces = -Double.infinity, lastPeople = -Double.infinity
        var faces: [SubjectBox] = [], people: [SubjectBox] = []
        let wantsFaces = subject.follows(.face), wantsPeople = subject.follows(.person), wantsMotion = subject.follows(.motion)
        while let (time, picture) = try pictures.next() {
            defer { pictures.done(with: picture) }
            guard !(time > range.upperBound) else { break }
            // Ascending times only: a damaged timestamp going back is skipped.
            guard time > lastTime else { continue }
            if lastTime.isFinite { frameTime = time - lastTime }
            lastTime = time
            detector.measureHistogram(of: picture)
            let cut = shots.isCut(histogram: detector.histogram, at: time)
            if cut {
                cuts.append(time)
                faces = []; people = []
                lastFaces = -.infinity; lastPeople = -.infinity; lastWhole = -.infinity
            }
            // The rest a few times a second (and on a cut's first picture): boxes for the
            // planner's grid, motion against the picture looked at before.
            guard cut || time >= lastSample + sampleInterval * 0.9 else { continue }
            lastSample = time
            // (On a cut's first picture the difference is the cut, not motion: not kept.)
            let moved = try detector.motion(in: picture)
            if wantsFaces, time >= lastFaces + faceInterval * 0.9 {
                lastFaces = time
                // A face a 20th of the picture's height and up: smaller is a crowd. Between
                // looks at the whole picture (every `wholeInterval`), only around the faces
                // already found: a fraction of the cost; a face lost there is looked for in
                // the whole picture at once.
                let minimum = max(16, picture.height / 20)
                if !faces.isEmpty, time < lastWhole + wholeInterval * 0.99 {
                    faces = try detector.faces(in: picture, minimumSize: minimum, region: Self.around(faces))
                }
                if faces.isEmpty || time >= lastWhole + wholeInterval * 0.99 {
                    faces = try detector.faces(in: picture, minimumSize: minimum)
                    lastWhole = time
                }
            }
            // People only when no face answers the question (`auto`), or when asked.
            if wantsPeople, subject == .people || faces.isEmpty, time >= lastPeople + peopleInterval * 0.9 {
                lastPeople = time
                // Weak HOG answers (SVM weight under 0.8) are mostly walls and shadows.
                people = try detector.people(in: picture).filter { $0.score >= 0.8 }
            } else if !faces.isEmpty, subject == .auto {
                people = []
            }
            var boxes = faces + people
            if wantsMotion, !cut { boxes += moved }
            samples.append(SubjectAnalysis.Sample(time: time, boxes: boxes))
        }
        let duration = samples.last.map { $0.time + frameTime } ?? 0
        return SubjectAnalysis(samples: samples, cuts: cuts, duration: duration, start: min(range.lowerBound, samples.first?.time ?? 0))
    }

    /// Where to look again for `faces`: around them all, each widened by its own size on
    /// every side (a face moves less than that in a fifth of a second).
    static func around(_ faces: [SubjectBox]) -> Rect {
        var region = faces[0].rect
        for face in faces { region = region.union(face.rect) }
        let margin = faces.map { max($0.rect.width, $0.rect.height) }.max() ?? 0
        let x0 = max(0, region.x - margin), y0 = max(0, region.y - margin)
        return Rect(x: x0, y: y0, width: min(1, region.maxX + margin) - x0, height: min(1, region.maxY + margin) - y0)
    }
}

/// The clip's grey pictures decoded on a thread of their own, a few ahead of the
/// analysis (decoding and detecting then use both cores): three pictures made once and
/// passed back and forth.
final class SketchPictures: @unchecked Sendable {
    private enum Item { case picture(Double, VideoFrame), end, failed(FFmpegError) }
    private let free = BoundedQueue<VideoFrame>(capacity: 3)
    private let filled = BoundedQueue<Item>(capacity: 3)

    init(path: String, maxWidth: Int, from start: Double) throws(SubjectAnalysisError) {
        let reader: SketchReader
        do {
            reader = try SketchReader(path: path, maxWidth: maxWidth)
            try reader.seek(to: start)
            for _ in 0..<free.capacity { _ = free.put(try reader.makePicture()) }
        } catch { throw .media(error) }
        let box = ReaderBox(reader)
        let (free, filled) = (self.free, self.filled)
        do throws(DetachedThread.StartError) {
            try DetachedThread.start("dropcut-sketch") {
                while let picture = free.take() {
                    do throws(FFmpegError) {
                        guard let time = try box.reader.next(into: picture) else { _ = filled.put(.end); return }
                        guard filled.put(.picture(time, picture)) else { return }
                    } catch {
                        _ = filled.put(.failed(error))
                        return
                    }
                }
            }
        } catch {
            throw .media(FFmpegError(code: -error.errno, function: "pthread_create", path: path, note: "\(error)"))
        }
    }

    /// The next picture and its time; nil at the end.
    func next() throws(SubjectAnalysisError) -> (Double, VideoFrame)? {
        switch filled.take() {
        case let .picture(time, picture)?: return (time, picture)
        case let .failed(error)?: throw .media(error)
        case .end?, nil: return nil
        }
    }

    /// Hands a picture back to be decoded into again.
    func done(with picture: VideoFrame) { _ = free.put(picture) }

    /// Stops the decoding thread (it ends after the picture in hand).
    func stop() {
        free.close()
        filled.close()
    }
}

/// The reader, moved to the decoding thread and used only there.
private final class ReaderBox: @unchecked Sendable {
    let reader: SketchReader
    init(_ reader: SketchReader) { self.reader = reader }
}
