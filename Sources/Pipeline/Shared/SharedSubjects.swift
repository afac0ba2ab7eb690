import Synchronization
import DropcutTimeline

/// Analyses each clip once per subject for `fit: smart`, for every output of a drop (the
/// deliverables differ in size and smoothness, which only the planning after it uses).
final class SharedSubjects: SubjectAnalyzing, @unchecked Sendable {
    private struct Key: Hashable { var path: String; var subject: SmartFit.Subject; var range: ClosedRange<Double> }
    private let analyzer: any SubjectAnalyzing
    private let cache = Mutex<[Key: SubjectAnalysis]>([:])

    init(_ analyzer: any SubjectAnalyzing) { self.analyzer = analyzer }

    func analysis(of path: String, subject: SmartFit.Subject, within range: ClosedRange<Double>) throws -> SubjectAnalysis {
        let key = Key(path: path, subject: subject, range: range)
        if let known = cache.withLock({ $0[key] }) { return known }
        let analysis = try analyzer.analysis(of: path, subject: subject, within: range)
        cache.withLock { $0[key] = analysis }
        return analysis
    }
}
