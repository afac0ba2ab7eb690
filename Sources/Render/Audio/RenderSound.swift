import Foundation
import Logging
import DropcutMediaIO
import DropcutSupport
import DropcutTimeline

/// The sound of a render's encoded outputs (a `RenderPlan.Group`'s movies and ladders),
/// set up once for all of them: outputs that encode the same mix (`DecodeSharing.sharesMix`)
/// read one `SharedAudioMix` — decoded, mixed, brought to its loudness target (measured
/// once, EBU R128, over the whole mix: a second decode of the sound only) and limited
/// once —; an output that copies its sound (pass-through) gets its own `StreamCopier`; an
/// output of a silent composition gets nothing.
final class RenderSound {
    /// What feeds one output's audio stream.
    private enum Source {
        case silent
        case copied(StreamCopier)
        case mixed(mix: Int, consumer: Int)
    }

    private final class Mix {
        let session: ExportSession
        let format: AudioFormat
        let gain: Float
        /// Its sources opened before any encoder exists (as the ffmpeg CLI opens its
        /// inputs first: their probing then peaks while the encoders' buffers do not).
        let mixer: AudioMixer
        var consumers = 0
        /// Made with the first encoder, whose frame size is the mix's block.
        var shared: SharedAudioMix?

        init(session: ExportSession, format: AudioFormat, gain: Float, mixer: AudioMixer) {
            self.session = session
            self.format = format
            self.gain = gain
            self.mixer = mixer
        }
    }

    /// The most samples mixed at once: AAC's frame (1024), with room to spare.
    static let block = 2048

    private var sources: [Source] = []
    private var mixes: [Mix] = []
    /// How far apart the outputs' pictures may lie: the shared mixes' ring spans it.
    private let lead: MediaTime

    /// The sound of `sessions` (one per encoded output, in order), whose pictures lie at
    /// most `lead` apart. Opens every source of the sound — the copied streams', each
    /// mix's — before the caller makes any encoder, and measures each mix's loudness when
    /// its settings ask.
    init(_ sessions: [ExportSession], lead: MediaTime, cancelled: Cancellation, logger: Logger) throws {
        self.lead = lead
        for session in sessions {
            if let copy = session.settings.audioCopy {
                sources.append(.copied(try StreamCopier(path: copy.asset, trackID: copy.trackID, range: copy.range)))
            } else if let index = mixes.firstIndex(where: { DecodeSharing.sharesMix($0.session, session) }) {
                sources.append(.mixed(mix: index, consumer: mixes[index].consumers))
                mixes[index].consumers += 1
            } else if let format = try session.audioFormat() {
                let gain = try session.settings.loudnessTarget.map {
                    try Self.loudnessGain(session, format, target: $0, cancelled: cancelled, logger: logger)
                } ?? 1
                let mixer = Self.mixer(session, format)
                try mixer.openFirstSources()
                let mix = Mix(session: session, format: format, gain: gain, mixer: mixer)
                mix.consumers = 1
                mixes.append(mix)
                sources.append(.mixed(mix: mixes.count - 1, consumer: 0))
            } else {
                sources.append(.silent)
            }
        }
    }

    /// Whether output `index` has a sound stream.
    func hasSound(_ index: Int) -> Bool {
        if case .silent = sources[index] { return false }
        return true
    }

    /// How output `index`'s sound is made, for the log.
    func describe(_ index: Int) -> String {
        switch sources[index] {
        case .silent: "none"
        case .copied: "copied"
        case let .mixed(mix, _):
            "\(mixes[mix].format.sampleRate) Hz \(mixes[mix].format.channels) ch"
                + (mixes[mix].consumers > 1 ? ", mixed once for \(mixes[mix].consumers) outputs" : "")
        }
    }

    /// Output `index`'s audio stream in `muxer` (added after its picture's, before the
    /// header): the copied packets, or the mix encoded by `settings`. Nil when silent.
    func stream(for index: Int, settings: ExportSettings, muxer: Muxer) throws -> (any AudioOutput)? {
        switch sources[index] {
        case .silent:
            return nil
        case let .copied(copier):
            _ = try copier.addStream(to: muxer)
            return AudioCopyStage(copier: copier)
        case let .mixed(which, consumer):
            let mix = mixes[which]
            let encoded = try OutputEncoders.audio(settings, format: mix.format, muxer: muxer)
            if mix.shared == nil {
                precondition(encoded.encoder.frameSize <= mix.mixer.maximumBlock, "AAC frame of \(encoded.encoder.frameSize) samples")
                mix.shared = try SharedAudioMix(
                    mixer: mix.mixer, blockSize: encoded.encoder.frameSize,
                    totalSamples: mix.session.composition.duration.ticks(in: Int32(mix.format.sampleRate)) ?? 0,
                    gain: mix.gain, consumers: mix.consumers, lead: lead)
            }
            return try SharedAudioStage(encoder: encoded.encoder, stream: encoded.stream, mix: mix.shared!, consumer: consumer)
        }
    }

    private static func mixer(_ session: ExportSession, _ format: AudioFormat) -> AudioMixer {
        AudioMixer(composition: session.composition, audioMix: session.audioMix, sampleRate: format.sampleRate,
                   channels: format.channels, maximumBlock: block)
    }

    /// The gain that brings the mix's integrated loudness to `target` LUFS: the whole
    /// mix, measured with `LoudnessMeter` (EBU R128). 1 for silence.
    private static func loudnessGain(_ session: ExportSession, _ format: AudioFormat, target: Double, cancelled: Cancellation,
                                     logger: Logger) throws -> Float {
        let mixer = mixer(session, format)
        let meter = LoudnessMeter(channels: format.channels, sampleRate: format.sampleRate)
        let frame = try AudioFrame(channels: format.channels, sampleRate: format.sampleRate, capacity: block)
        try mixer.mixAll(samples: session.composition.duration.ticks(in: Int32(format.sampleRate)) ?? 0, into: frame) { count in
            // A plain thread: `Task.isCancelled` would always be false here.
            if cancelled.isCancelled { throw ExportError.cancelled }
            frame.withPlanes { plane in meter.add(count: count) { UnsafePointer(plane($0)) } }
        }
        guard let measured = meter.integratedLoudness else { return 1 }
        let gain = LoudnessMeter.gain(toReach: target, from: measured)
        logger.info("loudness measured", metadata: ["integrated": "\(measured) LUFS", "target": "\(target) LUFS",
                                                    "gain": "\(20 * log10(gain)) dB"])
        return Float(gain)
    }
}
