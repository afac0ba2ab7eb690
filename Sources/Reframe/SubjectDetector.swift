internal import CDropcutVision
import Foundation
import DropcutMediaIO
import DropcutTimeline

/// The one owner of an OpenCV detector (CVision, C++ behind a C interface): faces by the
/// LBP cascade Debian's opencv-data ships (measured 2.3 times as fast as the Haar
/// `frontalface_alt2` on 1080p, and finding the test set's faces as well), standing people by OpenCV's built-in HOG model,
/// and motion and the luma histogram against the previous picture. Not thread-safe: one
/// analysis, one detector.
final class SubjectDetector {
    /// Where Debian's opencv-data puts the cascades.
    static let cascadeFolders = ["/usr/share/opencv4/lbpcascades", "/usr/share/opencv/lbpcascades"]
    static let faceCascade = "lbpcascade_frontalface.xml"
    /// The most boxes of one kind one picture reports: a crowd is a crowd.
    static let capacity = 64

    private let detector: OpaquePointer
    private var boxes = [cvision_box](repeating: cvision_box(), count: SubjectDetector.capacity)
    private(set) var histogram = [Double](repeating: 0, count: 32)

    init() throws(SubjectAnalysisError) {
        guard let path = Self.cascadeFolders.map({ "\($0)/\(Self.faceCascade)" }).first(where: FileManager.default.fileExists(atPath:)) else {
            throw .detectorMissing("no face cascade (\(Self.faceCascade)) in \(Self.cascadeFolders.joined(separator: " or ")): install Debian's opencv-data")
        }
        var message = [CChar](repeating: 0, count: 256)
        guard let made = cvision_detector_create(path, &message, message.count) else {
            throw .detectorMissing("\(path): \(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
        }
        detector = made
    }

    deinit { cvision_detector_free(detector) }

    /// Faces in `picture` (grey), normalised; at least `minimumSize` pixels wide; only
    /// within `region` (normalised) when one is given.
    func faces(in picture: VideoFrame, minimumSize: Int, region: Rect? = nil) throws(SubjectAnalysisError) -> [SubjectBox] {
        let w = Double(picture.width), h = Double(picture.height)
        let area = region.map {
            cvision_region(x: Int32(max(0, $0.x * w)), y: Int32(max(0, $0.y * h)),
                           width: Int32(min(w, $0.width * w)), height: Int32(min(h, $0.height * h)))
        } ?? cvision_region(x: 0, y: 0, width: 0, height: 0)
        return try run(picture, "faces") { pixels, stride, out in
            cvision_detect_faces(detector, pixels, Int32(picture.width), Int32(picture.height), stride, Int32(minimumSize), area, out, Int32(Self.capacity))
        }
    }

    /// Standing people in `picture`, normalised.
    func people(in picture: VideoFrame) throws(SubjectAnalysisError) -> [SubjectBox] {
        try run(picture, "people") { pixels, stride, out in
            cvision_detect_people(detector, pixels, Int32(picture.width), Int32(picture.height), stride, out, Int32(Self.capacity))
        }
    }

    /// The regions that moved since the previous picture handed here, largest first, at
    /// most `limit` (none: nothing moved, or no previous picture of this size).
    func motion(in picture: VideoFrame, limit: Int = 8) throws(SubjectAnalysisError) -> [SubjectBox] {
        try run(picture, "motion") { pixels, stride, out in
            cvision_motion(detector, pixels, Int32(picture.width), Int32(picture.height), stride, out, Int32(min(limit, Self.capacity)))
        }
    }

    /// The picture's luma histogram into `histogram` (32 bins summing to 1).
    func measureHistogram(of picture: VideoFrame) {
        picture.withPlane(0) { plane, stride in
            histogram.withUnsafeMutableBufferPointer {
                cvision_histogram(plane.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(picture.width), Int32(picture.height), stride, $0.baseAddress!)
            }
        }
    }

    private func run(_ picture: VideoFrame, _ what: String,
                     _ body: (UnsafePointer<UInt8>, Int, UnsafeMutablePointer<cvision_box>) -> Int32) throws(SubjectAnalysisError) -> [SubjectBox] {
        let width = Double(picture.width), height = Double(picture.height)
        let count = picture.withPlane(0) { plane, stride in
            boxes.withUnsafeMutableBufferPointer { body(plane.baseAddress!.assumingMemoryBound(to: UInt8.self), stride, $0.baseAddress!) }
        }
        guard count >= 0 else { throw .detectorFailed(what) }
        return boxes.prefix(Int(count)).compactMap { box in
            guard let kind = Self.kind(box.kind), box.width > 0, box.height > 0, box.x.isFinite, box.y.isFinite else { return nil }
            return SubjectBox(kind: kind, rect: Rect(x: Double(box.x) / width, y: Double(box.y) / height,
                                                     width: Double(box.width) / width, height: Double(box.height) / height),
                              score: Double(box.score))
        }
    }

    private static func kind(_ raw: Int32) -> SubjectBox.Kind? {
        switch raw {
        case Int32(CVISION_FACE.rawValue): return .face
        case Int32(CVISION_PERSON.rawValue): return .person
        case Int32(CVISION_MOTION.rawValue): return .motion
        default: return nil
        }
    }
}
