/// The kind of media a track carries.
public enum MediaType: String, Sendable, Hashable, Codable, CaseIterable {
    case video
    case audio
}

/// A track's persistent identifier inside a composition or an asset (CMPersistentTrackID).
/// Valid ids are positive.
public typealias TrackID = Int32
