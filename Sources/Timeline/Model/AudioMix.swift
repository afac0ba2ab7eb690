import Foundation

/// The volume of one composition audio track over time (AVMutableAudioMixInputParameters).
/// Volume is linear gain, 1.0 unchanged; the default is 1.0 before any keyframe.
public struct AudioMixInputParameters: Sendable, Hashable {
    public var trackID: TrackID
    public var volume = Ramp<Double>(defaultValue: 1)
    /// How audio in scaled segments is stretched (AVAudioTimePitchAlgorithm).
    public var timePitchAlgorithm: TimePitchAlgorithm = .preservePitch
    /// Transposition in semitones (+12 an octave up), duration unchanged. dropcut's
    /// addition: AVAudioMixInputParameters has no pitch shift (only
    /// `audioTimePitchAlgorithm`, how scaled segments are stretched), so an AVFoundation app
    /// shifts the file before inserting it (seed 001's recordings); here it belongs to the
    /// track's mix parameters like its volume, so `plan` shows it and the renderer applies
    /// it. Formant-naive: voices shifted far sound smaller or larger.
    public var pitchShift: Double = 0

    /// The frequency factor `pitchShift` gives: 2^(semitones / 12) (2 for +12, 0.5 for −12).
    public var pitchRatio: Double { pow(2, pitchShift / 12) }

    /// `pitch +12 semitones`, `pitch -2.5 semitones`; nil without a shift: how the text
    /// description and the SVG timeline name it.
    var pitchDescription: String? {
        guard pitchShift != 0 else { return nil }
        let number = pitchShift == pitchShift.rounded() && abs(pitchShift) < 1e6 ? String(Int(pitchShift)) : String(pitchShift)
        return "pitch \(pitchShift > 0 ? "+" : "")\(number) semitones"
    }

    public init(trackID: TrackID) {
        self.trackID = trackID
    }

    /// Volume `value` from `time` on.
    public mutating func setVolume(_ value: Double, at time: MediaTime) throws(RampError) {
        try volume.set(value, at: time)
    }

    /// Volume moves linearly from `start` to `end` over `range`, then holds `end`.
    public mutating func setVolumeRamp(from start: Double, to end: Double, range: TimeRange) throws(RampError) {
        try volume.setRamp(from: start, to: end, range: range)
    }

    public func volume(at time: MediaTime) -> Double { volume.value(at: time) }
}

/// How a scaled audio segment is played (AVAudioTimePitchAlgorithm's choices).
public enum TimePitchAlgorithm: String, Sendable, Hashable, CaseIterable {
    /// Time-stretched, pitch kept.
    case preservePitch = "preserve-pitch"
    /// Resampled like tape: pitch follows speed.
    case varispeed
}

/// Per-track volume timelines for a composition's audio (AVMutableAudioMix).
public struct AudioMix: Sendable, Hashable {
    public var inputParameters: [AudioMixInputParameters]

    public init(inputParameters: [AudioMixInputParameters] = []) {
        self.inputParameters = inputParameters
    }

    /// The parameters for `trackID`, if any.
    public func parameters(for trackID: TrackID) -> AudioMixInputParameters? {
        inputParameters.first { $0.trackID == trackID }
    }

    /// The volume of `trackID` at `time`: 1.0 for tracks without parameters.
    public func volume(of trackID: TrackID, at time: MediaTime) -> Double {
        parameters(for: trackID)?.volume(at: time) ?? 1
    }

    /// Runs `body` on the parameters of `trackID`, adding them first if absent.
    @discardableResult
    public mutating func edit<R>(track trackID: TrackID, _ body: (inout AudioMixInputParameters) throws -> R) rethrows -> R {
        if let i = inputParameters.firstIndex(where: { $0.trackID == trackID }) {
            return try body(&inputParameters[i])
        }
        var parameters = AudioMixInputParameters(trackID: trackID)
        let result = try body(&parameters)
        inputParameters.append(parameters)
        return result
    }

    /// Track ids with parameters that are not audio tracks of `composition`.
    public func invalidTrackIDs(for composition: Composition) -> [TrackID] {
        let audio = Set(composition.tracks(of: .audio).map(\.trackID))
        return inputParameters.map(\.trackID).filter { !audio.contains($0) }
    }
}
