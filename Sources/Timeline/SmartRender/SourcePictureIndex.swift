/// Where a source video track's pictures lie, read from its packets without decoding:
/// what pass-through needs to cut on keyframes and smart rendering needs to copy whole
/// groups of pictures and re-time them on a constant grid.
public struct SourcePictureIndex: Sendable, Hashable {
    /// Presentation times (from the source's start, as `AssetProbe` counts them) of every
    /// keyframe (random-access picture), ascending.
    public var keyframes: [MediaTime]
    /// Presentation times of the IDR pictures (H.264; for other codecs none), ascending:
    /// where a group of pictures starts that refers to nothing before it.
    public var idrPictures: [MediaTime]
    /// Frames of the grid (`frameDuration`) from the first picture to the last: the
    /// pictures, and the places among them no picture is on (`missingFrames`). Without a
    /// grid, the pictures.
    public var frameCount: Int
    /// The frames of the grid no picture is on, ascending (from 0, the first picture's):
    /// where a phone left frames out (in low light, or under load), the picture before
    /// shown longer. Empty for a constant rate.
    package var missingFrames: [Int]
    /// The one frame duration the pictures lie on: the distance between every two
    /// consecutive presentation times, or — when a phone's clock rounds each time to its
    /// ticks (29.97 fps on 600 Hz: 20 ticks apart, now and then 21), or leaves frames out —
    /// the stream's nominal one, every picture within an eighth of a frame of a place of
    /// its own; nil when neither (a variable rate off any grid, fewer than two pictures).
    public var frameDuration: MediaTime?
    /// Presentation time of the first picture.
    public var firstFrame: MediaTime
    /// The most pictures any picture is decoded ahead of its place in presentation order
    /// (0 without reordering; 2 for x264's B-pyramid).
    public var reorderDepth: Int
    /// The codec configuration the track's sample entry carries (H.264: the `avcC`
    /// payload); empty when there is none.
    public var decoderConfiguration: [UInt8]

    public init(keyframes: [MediaTime], idrPictures: [MediaTime], frameCount: Int, frameDuration: MediaTime?,
                firstFrame: MediaTime, reorderDepth: Int, decoderConfiguration: [UInt8], missingFrames: [Int] = []) {
        self.missingFrames = missingFrames
        self.keyframes = keyframes
        self.idrPictures = idrPictures
        self.frameCount = frameCount
        self.frameDuration = frameDuration
        self.firstFrame = firstFrame
        self.reorderDepth = reorderDepth
        self.decoderConfiguration = decoderConfiguration
    }
}
