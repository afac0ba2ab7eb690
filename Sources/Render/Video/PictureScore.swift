/// How good a frame is as a poster: sharp and well exposed. The product of
///
/// - **sharpness**: the variance of the Laplacian of the luma (4·centre − the four
///   neighbours), the classic focus measure: blur, motion blur and flat frames score low;
/// - **exposure**: 1 for a mean luma between 56 and 199 (of 255), falling linearly to 0
///   at 16 (black) and at 239 (white);
/// - **contrast**: the spread between the 5th and 95th percentile of the luma, over 64,
///   at most 1: a fade, a frame of fog or a flat colour scores low.
///
/// Measured on a grid of at most about 400 rows and columns (every pixel of a small
/// frame), with 10-bit samples taken down to 8 bits.
public struct PictureScore: Sendable, Hashable, CustomStringConvertible {
    public var sharpness: Double
    public var meanLuma: Double
    /// 95th minus 5th percentile of the luma.
    public var spread: Int

    public var exposure: Double {
        Swift.min(1, Swift.max(0, (meanLuma - 16) / 40)) * Swift.min(1, Swift.max(0, (239 - meanLuma) / 40))
    }

    public var contrast: Double { Swift.min(1, Double(spread) / 64) }

    /// What `best` maximises.
    public var value: Double { sharpness * exposure * contrast }

    public var description: String {
        String(format: "score %.1f (sharpness %.1f, mean luma %.0f, spread %d)", value, sharpness, meanLuma, spread)
    }

    public init(sharpness: Double, meanLuma: Double, spread: Int) {
        self.sharpness = sharpness
        self.meanLuma = meanLuma
        self.spread = spread
    }

    /// Scores a luma plane: `width`x`height` samples of `bytesPerSample` (1, or 2 for
    /// 9–16-bit samples in native order, taken as 10-bit), rows `stride` bytes apart.
    public init(luma: UnsafeRawBufferPointer, stride: Int, width: Int, height: Int, bytesPerSample: Int) {
        func sample(_ x: Int, _ y: Int) -> Int {
            let offset = y * stride + x * bytesPerSample
            if bytesPerSample == 1 { return Int(luma[offset]) }
            return Int(luma.loadUnaligned(fromByteOffset: offset, as: UInt16.self)) >> 2
        }
        guard width >= 3, height >= 3 else {
            self.init(sharpness: 0, meanLuma: 0, spread: 0)
            return
        }
        let step = Swift.max(1, Swift.min(width, height) / 400)
        var histogram = [Int](repeating: 0, count: 256)
        var sum = 0.0, sumOfSquares = 0.0, lumaSum = 0, count = 0
        var y = 1
        while y < height - 1 {
            var x = 1
            while x < width - 1 {
                let centre = sample(x, y)
                let laplacian = 4 * centre - sample(x - 1, y) - sample(x + 1, y) - sample(x, y - 1) - sample(x, y + 1)
                sum += Double(laplacian)
                sumOfSquares += Double(laplacian * laplacian)
                histogram[Swift.min(255, Swift.max(0, centre))] += 1
                lumaSum += centre
                count += 1
                x += step
            }
            y += step
        }
        let mean = sum / Double(count)
        func percentile(_ p: Double) -> Int {
            let target = Int(Double(count) * p)
            var seen = 0
            for (value, n) in histogram.enumerated() {
                seen += n
                if seen > target { return value }
            }
            return 255
        }
        self.init(sharpness: Swift.max(0, sumOfSquares / Double(count) - mean * mean), meanLuma: Double(lumaSum) / Double(count),
                  spread: percentile(0.95) - percentile(0.05))
    }
}
