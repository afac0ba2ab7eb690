import Foundation
import MediaIO
import Timeline

/// `fit: smart`'s analysis pass on real media: the clip decoded small and rough
/// (`SketchReader`, ≤ 480 px wide), every picture up to 15 a second compared with the
/// one before (shot cuts from luma histograms, motion from differences), faces looked
/// for five times a second and people (slower) two and a half times, each held until the
/// next look within the shot. Memory stays that of one small picture and its
/// predecessor, whatever the clip's length; what grows is the list of boxes found.
public struct SubjectAnalyzer: SubjectAnalyzing {
    /// Seconds between analysed pictures, between looks for faces, and for people.
    public var pictureInterval = 1.0 / 15
    public var faceInterval = 0.2
    public var peopleInterval = 0.4
    public var maxWidth = 480

    public init() {}

    public func analysis(of path: String, subject: SmartFit.Subject) throws -> SubjectAnalysis {
        let reader: SketchReader
        do { reader = try SketchReader(path: path, maxWidth: maxWidth) } catch { throw SubjectAnalysisError.media(error) }
        let detector = try SubjectDetector()
        var shots = ShotCutDetector()
        var samples: [SubjectAnalysis.Sample] = []
        var cuts: [Double] = []
        var lastTime = -Double.infinity, lastFaces = -Double.infinity, lastPeople = -Double.infinity
        var faces: [SubjectBox] = [], people: [SubjectBox] = []
        let wantsFaces = subject == .auto || subject == .faces
        let wantsPeople = subject == .auto || subject == .people
        let wantsMotion = subject == .auto || subject == .motion
        var histogram = [Double](repeating: 0, count: 32)
        while true {
            let next: (time: Double, picture: VideoFrame)?
            do { next = try reader.next() } catch { throw SubjectAnalysisError.media(error) }
            guard let (time, picture) = next else { break }
            // Ascending times only (a damaged timestamp going back is skipped), at most
            // one picture per interval.
            guard time >= lastTime + pictureInterval * 0.9 else { continue }
            lastTime = time
            let moved = try detector.motion(in: picture)
            for i in histogram.indices { histogram[i] = Double(detector.histogram[i]) }
            if shots.isCut(histogram: histogram, at: time) {
                cuts.append(time)
                faces = []; people = []
                lastFaces = -.infinity; lastPeople = -.infinity
            }
            if wantsFaces, time >= lastFaces + faceInterval * 0.9 {
                lastFaces = time
                // A face a 20th of the picture's height and up: smaller is a crowd.
                faces = try detector.faces(in: picture, minimumSize: max(16, picture.height / 20))
            }
            // People only when no face answers the question (`auto`), or when asked.
            if wantsPeople, subject == .people || faces.isEmpty, time >= lastPeople + peopleInterval * 0.9 {
                lastPeople = time
                people = try detector.people(in: picture)
            } else if !faces.isEmpty, subject == .auto {
                people = []
            }
            var boxes = faces + people
            if wantsMotion, let moved { boxes.append(moved) }
            samples.append(SubjectAnalysis.Sample(time: time, boxes: boxes))
        }
        let duration = samples.last.map { $0.time + pictureInterval } ?? 0
        return SubjectAnalysis(samples: samples, cuts: cuts, duration: duration)
    }
}
