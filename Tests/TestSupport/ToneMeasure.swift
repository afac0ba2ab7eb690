import Foundation

/// Measures tones in decoded samples: the level of one frequency (Goertzel over a
/// Hann-windowed stretch, so a loud tone elsewhere in the spectrum does not leak into the
/// bin) and the frequency of a lone tone (rising zero crossings, interpolated).
public enum ToneMeasure {
    /// The level in dBFS (RMS of a sine: a full-scale sine is −3 dB) of `frequency` in
    /// `samples` between `from` and `to` seconds.
    public static func level(_ samples: [Float], frequency: Double, from: Double, to: Double, sampleRate: Int = 48_000) -> Double {
        let start = max(0, Int(from * Double(sampleRate))), end = min(samples.count, Int(to * Double(sampleRate)))
        guard end - start > 16 else { return -.infinity }
        let count = end - start
        let coefficient = 2 * cos(2 * Double.pi * frequency / Double(sampleRate))
        var s1 = 0.0, s2 = 0.0, windowSum = 0.0
        for i in 0..<count {
            let window = 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(count - 1))
            windowSum += window
            let s0 = Double(samples[start + i]) * window + coefficient * s1 - s2
            s2 = s1
            s1 = s0
        }
        let power = s1 * s1 + s2 * s2 - coefficient * s1 * s2
        // The amplitude of a sine at the bin: 2|X| / Σw.
        let amplitude = 2 * power.squareRoot() / windowSum
        return 20 * log10(max(amplitude, 1e-12) / 2.0.squareRoot())
    }

    /// The frequency of the tone between `from` and `to` seconds, from its first to its
    /// last rising zero crossing (each placed between its two samples).
    public static func frequency(_ samples: [Float], from: Double, to: Double, sampleRate: Int = 48_000) -> Double {
        let start = max(0, Int(from * Double(sampleRate))), end = min(samples.count, Int(to * Double(sampleRate)))
        var crossings: [Double] = []
        for i in start..<max(start, end - 1) where samples[i] < 0 && samples[i + 1] >= 0 {
            let a = Double(samples[i]), b = Double(samples[i + 1])
            crossings.append(Double(i) + a / (a - b))
        }
        guard let first = crossings.first, let last = crossings.last, crossings.count > 1 else { return 0 }
        return Double(crossings.count - 1) / ((last - first) / Double(sampleRate))
    }

    /// The first and last times (seconds) where the RMS of 10 ms windows is at or above
    /// `threshold` dBFS: how long a sound lasts.
    public static func span(_ samples: [Float], above threshold: Double, sampleRate: Int = 48_000) -> (start: Double, end: Double)? {
        let window = sampleRate / 100
        var first: Int?, last: Int?
        var i = 0
        while i + window <= samples.count {
            if DecodedMedia.rmsDecibels(samples, i..<(i + window)) >= threshold {
                if first == nil { first = i }
                last = i + window
            }
            i += window
        }
        guard let first, let last else { return nil }
        return (Double(first) / Double(sampleRate), Double(last) / Double(sampleRate))
    }
}
