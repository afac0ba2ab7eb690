/// How a layer shows source frames when output frames fall between them — in slow
/// motion, where several output frames map into one source frame's interval.
public enum FrameSampling: String, Sendable, Hashable, CaseIterable {
    /// The source frame whose interval covers the time, repeated as often as needed
    /// (AVFoundation's behaviour: slow motion judders on a low-rate source).
    case `repeat`
    /// The covering frame mixed with the next one, weighted by how far the time lies
    /// between them: smoother slow motion from a 30 fps source, at the cost of ghosting.
    case blend
}
