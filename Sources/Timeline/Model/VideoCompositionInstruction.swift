/// What the video looks like over one time range (AVMutableVideoCompositionInstruction):
/// the layers to draw, front first, over a background colour.
public struct VideoCompositionInstruction: Sendable, Hashable {
    public var timeRange: TimeRange
    /// Front-most first, as in AVFoundation.
    public var layerInstructions: [LayerInstruction]
    /// Nil uses the video composition's background colour.
    public var backgroundColor: Color?

    public init(timeRange: TimeRange, layerInstructions: [LayerInstruction] = [], backgroundColor: Color? = nil) {
        self.timeRange = timeRange
        self.layerInstructions = layerInstructions
        self.backgroundColor = backgroundColor
    }
}
