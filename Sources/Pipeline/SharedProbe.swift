import Synchronization
import Timeline

/// Probes each file once for all the deliverables.
final class SharedProbe: MediaProbing, @unchecked Sendable {
    private let probe: any MediaProbing
    private let cache = Mutex<[String: ProbedMedia]>([:])

    init(_ probe: any MediaProbing) { self.probe = probe }

    func probe(_ path: String) throws -> ProbedMedia {
        if let known = cache.withLock({ $0[path] }) { return known }
        let media = try probe.probe(path)
        cache.withLock { $0[path] = media }
        return media
    }

    func subtitleCues(_ path: String) throws -> [CaptionCue] {
        try probe.subtitleCues(path)
    }
}
