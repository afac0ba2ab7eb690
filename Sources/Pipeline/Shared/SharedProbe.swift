import Synchronization
import DropcutTimeline

/// Probes each file once for all the deliverables.
final class SharedProbe: MediaProbing, @unchecked Sendable {
    private let probe: any MediaProbing
    private let cache = Mutex<[String: ProbedMedia]>([:])
    /// What probing each file threw: the composition builder words it for the person (a
    /// `CompositionBuildError`), but whoever sorts the failure needs the error itself.
    private let failures = Mutex<[String: any Error]>([:])

    init(_ probe: any MediaProbing) { self.probe = probe }

    func probe(_ path: String) throws -> ProbedMedia {
        if let known = cache.withLock({ $0[path] }) { return known }
        let media: ProbedMedia
        do {
            media = try probe.probe(path)
        } catch {
            failures.withLock { $0[path] = error }
            throw error
        }
        cache.withLock { $0[path] = media }
        return media
    }

    /// What probing `path` threw, if it did.
    func failure(for path: String) -> (any Error)? {
        failures.withLock { $0[path] }
    }

    func subtitleCues(_ path: String) throws -> [CaptionCue] {
        try probe.subtitleCues(path)
    }
}
