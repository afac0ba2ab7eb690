import DropcutMediaIO

/// What the mixer plays a stretched piece through: a `TimeStretcher` (speed changed,
/// pitch kept) or a `PitchShifter` (pitch changed, at any speed). Both stream output in
/// blocks of any size and carry their state from block to block.
protocol AudioStretching: AnyObject {
    /// Source samples per output sample; may change between blocks (a speed ramp's steps).
    var speed: Double { get set }
    /// The next `count` output samples, each channel's handed to `deliver` in pieces
    /// (channel, offset into the request, samples, length).
    func produce(_ count: Int, _ deliver: (_ channel: Int, _ offset: Int, UnsafePointer<Float>, _ length: Int) -> Void) throws(FFmpegError)
}

extension TimeStretcher: AudioStretching {}
