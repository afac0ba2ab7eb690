/// The shape of a stored pixel: `horizontalSpacing : verticalSpacing` (AVFoundation's
/// pixel aspect ratio, FFmpeg's sample aspect ratio). Anamorphic video stores wide (or
/// narrow) pixels: a 720×480 NTSC DV frame with 10:11 pixels is shown 654 wide, a 640×480
/// frame with 16:9 pixels is shown 2.37:1.
///
/// dropcut composites in square pixels: a track's natural size is its display size (the
/// stored width times the ratio, the height as stored — as AVFoundation's presentation
/// size and the ffmpeg CLI's `scale=iw*sar:ih` do), and outputs are 1:1.
public struct PixelAspectRatio: Sendable, Hashable, CustomStringConvertible {
    public var horizontalSpacing: Int
    public var verticalSpacing: Int

    public static let square = PixelAspectRatio(reduced: 1, 1)

    private init(reduced horizontal: Int, _ vertical: Int) {
        horizontalSpacing = horizontal
        verticalSpacing = vertical
    }

    /// The widest and narrowest pixels taken from a file (8:1 or 1:8). Real anamorphic
    /// formats stay within 2:1 (anamorphic 2x lenses) and 3:4; a ratio beyond this is a
    /// broken or hostile header, and trusting it would make a picture 8192 px wide of 16.
    public static let plausibleRange = 0.125...8.0

    /// Nil unless both spacings are positive and the ratio lies in `plausibleRange`
    /// (FFmpeg reports an unknown ratio as 0:1).
    public init?(horizontalSpacing: Int, verticalSpacing: Int) {
        guard horizontalSpacing > 0, verticalSpacing > 0,
              Self.plausibleRange.contains(Double(horizontalSpacing) / Double(verticalSpacing)) else { return nil }
        // Reduced, so equal ratios compare equal.
        var (a, b) = (horizontalSpacing, verticalSpacing)
        while b != 0 { (a, b) = (b, a % b) }
        self.init(reduced: horizontalSpacing / a, verticalSpacing / a)
    }

    public var isSquare: Bool { horizontalSpacing == verticalSpacing }

    /// Pixels within 1 % of square are shown square: no anamorphic format comes near (the
    /// narrowest, PAL 4:3's 16:15, is 6.7 % off), while scalers and encoders leave ratios
    /// like 5353:5370 behind when they round a size to even, and resampling the whole
    /// picture for a fraction of a pixel would only soften it.
    public static let squareTolerance = 0.01

    /// True when the picture is shown at its stored size (square within `squareTolerance`).
    public var isEffectivelySquare: Bool { abs(ratio - 1) < Self.squareTolerance }

    public var ratio: Double { Double(horizontalSpacing) / Double(verticalSpacing) }

    /// `16:9`.
    public var description: String { "\(horizontalSpacing):\(verticalSpacing)" }

    /// The size a picture of `encoded` pixels is shown at in square pixels: the width
    /// times the ratio, rounded to the nearest even pixel (at least 2: a source-sized 4:2:0
    /// output is even, and an odd display width would leave it a one-pixel bar), the
    /// height as stored; the stored size when the pixels are effectively square.
    public func displaySize(of encoded: PixelSize) -> PixelSize {
        guard !isEffectivelySquare else { return encoded }
        let width = (Double(encoded.width) * ratio / 2).rounded() * 2
        return PixelSize(width: Swift.max(2, Int(width)), height: encoded.height)
    }
}
