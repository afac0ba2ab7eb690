import Synchronization
import DropcutTimeline

/// Measures the sound of each distinct composition once, and keeps the error it threw
/// (so `Production.prepare` rethrows the measuring error itself, with its errno).
final class SharedMeter: SoundLevelMeasuring, @unchecked Sendable {
    private struct Key: Hashable { var composition: Composition; var audioMix: AudioMix; var tracks: [TrackID] }
    private let meter: any SoundLevelMeasuring
    private let cache = Mutex<[Key: SoundLevels]>([:])
    private let recorded = Mutex<(any Error)?>(nil)

    init(_ meter: any SoundLevelMeasuring) { self.meter = meter }

    var failure: (any Error)? { recorded.withLock { $0 } }

    func levels(of composition: Composition, audioMix: AudioMix, tracks: [TrackID]) throws -> SoundLevels {
        let key = Key(composition: composition, audioMix: audioMix, tracks: tracks)
        if let known = cache.withLock({ $0[key] }) { return known }
        do {
            let levels = try meter.levels(of: composition, audioMix: audioMix, tracks: tracks)
            cache.withLock { $0[key] = levels }
            return levels
        } catch {
            recorded.withLock { $0 = error }
            throw error
        }
    }
}
