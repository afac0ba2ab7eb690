import Foundation
import MediaIO
import Timeline

/// `fit: smart`'s analysis pass on real media: the clip decoded small and rough
/// (`SketchReader`, ≤ 480 px wide); every picture's luma histogram compared with the one
/// before (shot cuts, found on the frame they happen); ten times a second a sample:
/// motion (the difference from the previous sample), faces looked for five times a second
/// and people (slower) two and a half times, each held until the next look within the
/// shot — and looked for again on a cut's first picture. Memory stays that of one small picture and its
/// predecessor, whatever the clip's length; what grows is the list of boxes found.
public struct SubjectAnalyzer: SubjectAnalyzing {
    /// Seconds between samples (motion; the planner's grid), looks for faces, and for people.
    public var sampleInterval = 0.1
    public var faceInterval = 0.2
    public var peopleInterval = 0.4
    public var maxWidth = 480

    public init() {}

    public func analysis(of path: String, subject: SmartFit.Subject, until end: Double = .infinity) throws -> SubjectAnalysis {
        let reader: SketchReader
        do { reader = try SketchReader(path: path, maxWidth: maxWidth) } catch { throw SubjectAnalysisError.media(error) }
        let detector = try SubjectDetector()
        var shots = ShotCutDetector()
        var samples: [SubjectAnalysis.Sample] = []
        var cuts: [Double] = []
        var lastTime = -Double.infinity, frameTime = 0.0, lastSample = -Double.infinity, lastFaces = -Double.infinity, lastPeople = -Double.infinity
        var faces: [SubjectBox] = [], people: [SubjectBox] = []
        let wantsFaces = subject == .auto || subject == .faces
        let wantsPeople = subject == .auto || subject == .people
        let wantsMotion = subject == .auto || subject == .motion
        var histogram = [Double](repeating: 0, count: 32)
        while true {
            let next: (time: Double, picture: VideoFrame)?
            do { next = try reader.next() } catch { throw SubjectAnalysisError.media(error) }
            guard let (time, picture) = next, !(time > end) else { break }
            // Ascending times only: a damaged timestamp going back is skipped.
            guard time > lastTime else { continue }
            if lastTime.isFinite { frameTime = time - lastTime }
            lastTime = time
            detector.measureHistogram(of: picture)
            for i in histogram.indices { histogram[i] = Double(detector.histogram[i]) }
            let cut = shots.isCut(histogram: histogram, at: time)
            if cut {
                cuts.append(time)
                faces = []; people = []
                lastFaces = -.infinity; lastPeople = -.infinity
            }
            // The rest a few times a second (and on a cut's first picture): boxes for the
            // planner's grid, motion against the picture looked at before.
            guard cut || time >= lastSample + sampleInterval * 0.9 else { continue }
            lastSample = time
            let moved = cut ? nil : try detector.motion(in: picture)
            if cut { _ = try detector.motion(in: picture) }   // the new shot's first picture to compare with
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
        let duration = samples.last.map { $0.time + frameTime } ?? 0
        return SubjectAnalysis(samples: samples, cuts: cuts, duration: duration)
    }
}
