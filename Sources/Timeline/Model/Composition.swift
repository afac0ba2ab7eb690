/// A composition: tracks of segments that take content from asset tracks and place it in
/// composition time (AVMutableComposition). Value type; edit a track with `edit(track:_:)`.
public struct Composition: Sendable, Hashable {
    public private(set) var tracks: [CompositionTrack] = []

    public init() {}

    /// Adds an empty track and returns its id: `preferredTrackID` when given, positive and
    /// unused, else the next free id (ids start at 1, as AVFoundation's do).
    @discardableResult
    public mutating func addTrack(_ mediaType: MediaType, preferredTrackID: TrackID? = nil) -> TrackID {
        let used = Set(tracks.map(\.trackID))
        let id: TrackID
        if let preferred = preferredTrackID, preferred > 0, !used.contains(preferred) {
            id = preferred
        } else {
            id = (used.max() ?? 0) + 1
        }
        tracks.append(CompositionTrack(trackID: id, mediaType: mediaType))
        return id
    }

    /// Removes the track with `trackID`, if there is one.
    public mutating func removeTrack(_ trackID: TrackID) {
        tracks.removeAll { $0.trackID == trackID }
    }

    /// The track with `trackID`, if any.
    public func track(_ trackID: TrackID) -> CompositionTrack? {
        tracks.first { $0.trackID == trackID }
    }

    /// The tracks carrying `mediaType`, in track order.
    public func tracks(of mediaType: MediaType) -> [CompositionTrack] {
        tracks.filter { $0.mediaType == mediaType }
    }

    /// Runs `body` on the track with `trackID` in place. Throws
    /// `CompositionEditError.unknownTrack` when absent, and whatever `body` throws.
    @discardableResult
    public mutating func edit<R>(track trackID: TrackID, _ body: (inout CompositionTrack) throws -> R) throws -> R {
        guard let i = tracks.firstIndex(where: { $0.trackID == trackID }) else {
            throw CompositionEditError.unknownTrack(trackID)
        }
        return try body(&tracks[i])
    }

    /// The end of the longest track.
    public var duration: MediaTime {
        tracks.reduce(MediaTime.zero) { MediaTime.max($0, $1.end) }
    }

    /// Every track's validation errors, in track order; empty when the composition is valid.
    public func validate() -> [CompositionValidationError] {
        tracks.flatMap { $0.validate() }
    }
}
