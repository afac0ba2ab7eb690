import Foundation
import DropcutTimeline

extension CompositionBuilder {
    /// How long each loop point of a looped music bed crossfades.
    static let loopCrossfade = MediaTime(value: 1, timescale: 20)

    /// The bed's gain with its fades, as ramps: the fades follow power curves in eight
    /// linear pieces — the fade-in squared, the fade-out cubed — so they sound even
    /// rather than hanging on and then dropping (a straight line spends most of its
    /// length within a few dB of full level), and the fade-out is below −60 dB for its
    /// last few milliseconds: the music is gone when the video ends.
    static func musicLevels(gain: Double, fadeIn: MediaTime, fadeOut: MediaTime, total: MediaTime) throws(CompositionBuildError) -> Ramp<Double> {
        try fadedLevels(gain: gain, fadeIn: fadeIn, fadeOut: fadeOut, over: TimeRange(start: .zero, end: total))
    }

    /// `gain` over `range`, faded in from its start and out to its end with the music
    /// bed's curves (audio items share them).
    static func fadedLevels(gain: Double, fadeIn: MediaTime, fadeOut: MediaTime, over range: TimeRange) throws(CompositionBuildError) -> Ramp<Double> {
        let pieces = 8
        var points: [(time: MediaTime, value: Double)] = []
        func fade(_ range: TimeRange, power: Double, rising: Bool) {
            for i in 0...pieces {
                let x = Double(i) / Double(pieces)
                let time = range.start + range.duration.multiplied(by: Int64(i), dividedBy: Int64(pieces))
                points.append((time, gain * pow(rising ? x : 1 - x, power)))
            }
        }
        if fadeIn > .zero { fade(TimeRange(start: range.start, duration: fadeIn), power: 2, rising: true) } else { points.append((range.start, gain)) }
        if fadeOut > .zero { fade(TimeRange(start: range.end - fadeOut, end: range.end), power: 3, rising: false) }
        do { return try Ramp(polyline: points) } catch {
            throw .media(path: "composition", reason: "cannot set the fades: \(error)")
        }
    }

    /// The music bed: from `offset` into the file, once (cut at the end, silence after it
    /// if shorter) or looped — passes alternating between two tracks, overlapping by
    /// `loopCrossfade` with linear fades, so the loop point is seamless. Gain and fades
    /// are set as volume ramps; `duckMusic` multiplies the ducking in.
    func addMusic(_ music: Recipe.Music, total: MediaTime, to built: inout BuiltComposition) throws(CompositionBuildError) {
        let name = (music.source as NSString).lastPathComponent
        let media: ProbedMedia
        media = try probeMedia(music.source, key: "music.source", at: music.location)
        built.media[music.source] = media
        guard let audio = media.audio, audio.timeRange.duration > .zero else {
            throw recipeError("music.source \(name) has no audio", at: music.location)
        }
        guard music.offset < audio.timeRange.duration else {
            throw recipeError("music.offset \(music.offset)s is past the end of \(name), which lasts \(audio.timeRange.duration)s", at: music.location)
        }
        if music.fadeIn + music.fadeOut > total {
            throw recipeError("music fades (\(music.fadeIn)s + \(music.fadeOut)s) are longer than the output (\(total)s)", at: music.location)
        }
        let body = TimeRange(start: audio.timeRange.start + music.offset, end: audio.timeRange.end)
        // Passes in output time; a body too short to fade in and out loops without fades.
        let crossfade = music.loop && body.duration > Self.loopCrossfade.multiplied(by: 2, dividedBy: 1) ? Self.loopCrossfade : .zero
        var passes: [TimeRange] = []
        var cursor = MediaTime.zero
        while cursor < total {
            let pass = TimeRange(start: cursor, duration: MediaTime.min(body.duration, total - cursor))
            passes.append(pass)
            guard music.loop, pass.end < total else { break }
            cursor = pass.end - crossfade
        }
        let source = SourceTrack(asset: music.source, trackID: audio.trackID, mediaType: .audio, timeRange: audio.timeRange)
        let trackIDs = passes.count > 1 ? [built.composition.addTrack(.audio), built.composition.addTrack(.audio)]
                                        : [built.composition.addTrack(.audio)]
        var crossfades = [TrackID: Ramp<Double>]()
        for (k, pass) in passes.enumerated() {
            let trackID = trackIDs[k % trackIDs.count]
            try edit(&built.composition, trackID) { track throws(CompositionEditError) in
                try track.insert(TimeRange(start: body.start, duration: pass.duration), of: source, at: pass.start)
            }
            guard crossfade > .zero else { continue }
            try rampEdit {
                var ramp = crossfades[trackID] ?? Ramp(defaultValue: 1)
                if k > 0 { try ramp.setRamp(from: 0, to: 1, range: TimeRange(start: pass.start, duration: crossfade)) }
                if k < passes.count - 1 { try ramp.setRamp(from: 1, to: 0, range: TimeRange(start: pass.end - crossfade, end: pass.end)) }
                crossfades[trackID] = ramp
            }
        }
        let levels = try Self.musicLevels(gain: music.gain.linear, fadeIn: music.fadeIn, fadeOut: music.fadeOut, total: total)
        var bed = MusicBed(trackIDs: trackIDs, baseVolumes: [:], duck: music.duck, duration: total)
        for trackID in trackIDs {
            let volume = crossfades[trackID].map { levels.multiplied(by: $0, until: total) } ?? levels
            bed.baseVolumes[trackID] = volume
            built.audioMix.edit(track: trackID) { $0.volume = volume }
        }
        built.music = bed
    }

    /// Ducks the music under the clips' own sound — measured through `levels` after speed
    /// changes, clip volumes and replace items — or under the recipe's manual windows, and
    /// under the audio items that duck it (`duck_music`): the music tracks' volumes become
    /// their base volumes times the `Ducking` envelope. Items duck the music even when it
    /// has no `duck:` (with its defaults), and then only they do. What `plan` lists is what
    /// `render` mixes.
    func duckMusic(in built: inout BuiltComposition) throws(CompositionBuildError) {
        guard var music = built.music else { return }
        let items = built.audioItems.filter(\.ducksMusic).map(\.range)
        guard music.duck != nil || !items.isEmpty else { return }
        let duck = music.duck ?? Recipe.Duck()
        var activity: [TimeRange] = items
        if music.duck == nil {
            // Only the items.
        } else if let windows = music.manualWindows {
            activity += windows
        } else {
            let measured: SoundLevels
            do {
                measured = try levels.levels(of: built.composition, audioMix: built.audioMix, tracks: built.clipAudioTrackIDs)
            } catch is CancellationError {
                throw .cancelled
            } catch {
                throw .media(path: "composition", reason: "cannot measure the clips' sound for ducking: \(error)")
            }
            built.clipLevels = measured
            activity += measured.active(above: duck.threshold.decibels)
        }
        let ducking = Ducking(depth: duck.depth.linear, attack: duck.attack, release: duck.release, hold: duck.hold)
        let factor = ducking.envelope(activity: activity, until: music.duration)
        music.duckedRanges = ducking.bridged(activity)
        music.ducking = factor
        for trackID in music.trackIDs {
            let base = music.baseVolumes[trackID] ?? Ramp(defaultValue: 1)
            built.audioMix.edit(track: trackID) { $0.volume = base.multiplied(by: factor, until: music.duration) }
        }
        built.music = music
    }
}
