extension Orientation {
    /// The orientation that undoes this one: a quarter turn the other way; a half turn,
    /// mirror or transpose itself.
    package var inverse: Orientation {
        switch self {
        case .rotate90: .rotate270
        case .rotate270: .rotate90
        case .identity, .mirrorX, .mirrorY, .rotate180, .transpose, .antiTranspose: self
        }
    }
}
