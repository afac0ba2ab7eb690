// Micro-benchmark for the time-stretcher (issue 6: ≥ 100× realtime for 48 kHz stereo on
// one core) and the pitch shift built on it (issue 20). Run by scripts/bench; prints one
// markdown table row per speed, then one per pitch shift.
//
// The source is a minute of generated stereo music-like sound — a chord plus a noise
// burst every half second, so the onset handling is exercised too — held in memory, so
// only the stretcher is timed (thread CPU time, one thread).
import Foundation
import DropcutMediaIO
import DropcutRender

let sampleRate = 48_000, channels = 2, seconds = 60
let length = sampleRate * seconds, pad = sampleRate
var source = [[Float]](repeating: [Float](repeating: 0, count: length + 2 * pad), count: channels)
var noise: UInt32 = 12345
for i in 0..<length {
    let t = Double(i) / Double(sampleRate)
    let chord = 0.2 * sin(2 * .pi * 220 * t) + 0.15 * sin(2 * .pi * 277.2 * t) + 0.1 * sin(2 * .pi * 329.6 * t)
    noise = noise &* 1_664_525 &+ 1_013_904_223
    let burst = (t.truncatingRemainder(dividingBy: 0.5) < 0.03) ? 0.4 * (Double(noise >> 8) / Double(1 << 24) - 0.5) : 0
    source[0][pad + i] = Float(chord + burst)
    source[1][pad + i] = Float(0.8 * chord + burst)
}

func threadCPUSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

print("| speed | output s | CPU s | × realtime (output) | target ≥ 100 |")
print("|---:|---:|---:|---:|---|")
var allMet = true
var sink: Float = 0
for speed in [0.25, 0.5, 0.8, 1.5, 2.0] {
    // The source sits `pad` samples into its buffers, so the stretcher's reads (which
    // start a little before the origin and run a little past the end) stay inside.
    let stretcher = TimeStretcher(channels: channels, sampleRate: sampleRate, speed: speed, origin: Int64(pad)) { (position, count, deliver) throws(FFmpegError) in
        for channel in 0..<channels {
            source[channel].withUnsafeBufferPointer { deliver(channel, 0, $0.baseAddress! + Int(position), count) }
        }
    }
    let outputSamples = Int(Double(length) / speed)
    let block = 1024
    let start = threadCPUSeconds()
    var done = 0
    while done < outputSamples {
        try stretcher.produce(block) { _, _, samples, count in sink += samples[count - 1] }
        done += block
    }
    let cpu = threadCPUSeconds() - start
    let outputSeconds = Double(done) / Double(sampleRate)
    let factor = outputSeconds / cpu
    let met = factor >= 100
    allMet = allMet && met
    print(String(format: "| %.2f | %.1f | %.3f | %.0f | %@ |", speed, outputSeconds, cpu, factor, met ? "met" : "NOT met"))
}
if sink.isNaN { print("(NaN in the output)") }   // keeps the output in use
print(allMet ? "Time-stretch target met at every speed." : "Time-stretch target NOT met.")

// The pitch shift of audio items: the same stretch by the frequency ratio, then the
// band-limited resampling back to length (its windowed-sinc taps are the cost).
print("\n| pitch (semitones) | output s | CPU s | × realtime |")
print("|---:|---:|---:|---:|")
for semitones in [-12.0, -5.0, 7.0, 12.0] {
    let shifter = PitchShifter(channels: channels, sampleRate: sampleRate, ratio: pow(2, semitones / 12), speed: 1, origin: Int64(pad),
                               maximumBlock: 1024) { (position, count, deliver) throws(FFmpegError) in
        for channel in 0..<channels {
            source[channel].withUnsafeBufferPointer { deliver(channel, 0, $0.baseAddress! + Int(position), count) }
        }
    }
    let outputSamples = length - sampleRate   // a second short: the stretch reads ahead
    let start = threadCPUSeconds()
    var done = 0
    while done < outputSamples {
        try shifter.produce(1024) { _, _, samples, count in sink += samples[count - 1] }
        done += 1024
    }
    let cpu = threadCPUSeconds() - start
    let outputSeconds = Double(done) / Double(sampleRate)
    print(String(format: "| %+.0f | %.1f | %.3f | %.0f |", semitones, outputSeconds, cpu, outputSeconds / cpu))
}
if sink.isNaN { print("(NaN in the output)") }
