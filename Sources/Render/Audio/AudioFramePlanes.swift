import DropcutMediaIO

extension AudioFrame {
    /// Runs `body` with a way to reach each channel's samples (mono or stereo, what the
    /// export writes), for the limiter and the loudness meter, without building an array
    /// of pointers per block.
    func withPlanes(_ body: ((Int) -> UnsafeMutablePointer<Float>) -> Void) {
        withChannel(0) { first in
            if channels == 1 {
                body { _ in first.baseAddress! }
            } else {
                withChannel(1) { second in body { $0 == 0 ? first.baseAddress! : second.baseAddress! } }
            }
        }
    }
}
