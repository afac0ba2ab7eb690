import Testing
@testable import DropcutTimeline

/// The pitch shift dropcut adds to an audio mix input's parameters: its ratio, and how the
/// text description lists it.
@Suite struct AudioMixPitchTests {
    @Test(arguments: -24...24)
    func ratioIsTwoToTheSemitonesOverTwelve(semitones: Int) {
        var parameters = AudioMixInputParameters(trackID: 1)
        #expect(parameters.pitchRatio == 1, "no shift by default")
        parameters.pitchShift = Double(semitones)
        let ratio = parameters.pitchRatio
        // An octave per 12 semitones, exactly at the octaves.
        if semitones % 12 == 0 {
            #expect(ratio == Double(1 << ((semitones + 24) / 12)) / 4, "\(semitones)")
        }
        // Each semitone multiplies by the twelfth root of 2.
        var other = parameters
        other.pitchShift = Double(semitones + 1)
        #expect(abs(other.pitchRatio / ratio - 1.0594630943592953) < 1e-12)
    }

    @Test func descriptionListsTheShiftOnlyWhereThereIsOne() throws {
        var composition = Composition()
        let music = SourceTrack(asset: "voice.wav", trackID: 1, mediaType: .audio, duration: 10)
        let a = composition.addTrack(.audio), b = composition.addTrack(.audio), c = composition.addTrack(.audio)
        for track in [a, b, c] {
            try composition.edit(track: track) { try $0.insert(TimeRange(start: 0, duration: 2), of: music, at: 1) }
        }
        var mix = AudioMix()
        mix.edit(track: a) { $0.pitchShift = 12 }
        mix.edit(track: b) { $0.pitchShift = -2.5 }
        mix.edit(track: c) { _ in }
        let text = TimelineDescription.text(composition: composition, audioMix: mix)
        #expect(text.hasSuffix("""
        audio mix
          trackID 1 volume 1.00 (default); pitch +12 semitones
          trackID 2 volume 1.00 (default); pitch -2.5 semitones
          trackID 3 volume 1.00 (default)

        """), "\(text)")
        // The SVG timeline names the shift in the track's label.
        let svg = TimelineSVG.render(composition: composition, audioMix: mix)
        #expect(svg.contains(">track 1 (audio, pitch +12 semitones)</text>") && svg.contains(">track 2 (audio, pitch -2.5 semitones)</text>")
                && svg.contains(">track 3 (audio)</text>"))
    }
}
