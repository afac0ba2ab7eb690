import DropcutTimeline

/// The bounds of every number a recipe (or an iPhone `.AAE` sidecar) may hold, in one place.
///
/// Each value is checked against its bound where it is parsed, so a recipe error names the
/// place and the bound. A value past these bounds used to reach the builder or the renderer
/// and trap there (`Int(1e19)`, Int64 tick overflow, a 1e12-character frame number): the
/// bounds are chosen far above any real use and far below where the arithmetic downstream
/// (Int64 ticks at timescales up to 2^31, Int pixel counts, Int32 sample times) overflows.
/// `RecipeReference.keys` writes its documented ranges from these constants, so docs/recipes.md's
/// reference cannot drift from what the decoder accepts.
package enum RecipeLimits {
    // MARK: Times

    /// The longest time anywhere in a recipe (trims, ranges, fades, offsets, durations, ramp
    /// keyframes) and in a sidecar's regions: 24 hours. 24 h at the finest timescale a
    /// recipe can write (1 ns) is 8.64e13 ticks, ~2^46, so sums and products of times stay
    /// within Int64 / Int128; at 16x slow motion an output is still below 400 hours.
    package static let maximumTimeSeconds: Int64 = 86_400
    package static let maximumTime = MediaTime(seconds: maximumTimeSeconds)
    /// How messages and the reference write `maximumTime`.
    package static let maximumTimeText = "24 hours (86400 s)"

    /// `clips[].duration`: how long a still image is shown, at most 4 hours. Every output
    /// frame of it is composited and encoded like a movie's, so a still is as costly as a
    /// clip of its length; past a few hours it is a typo (`duration: 3600` meant as
    /// minutes), and a daemon's job timeout grows with the output's length.
    package static let maximumStillSeconds: Int64 = 14_400
    package static let maximumStillDuration = MediaTime(seconds: maximumStillSeconds)
    /// How messages and the reference write `maximumStillDuration`.
    package static let maximumStillText = "4 hours (14400 s)"

    /// `music.duck.attack`, `release` and `hold`: at most 10 s (longer is not ducking).
    package static let maximumDuckTimeSeconds: Int64 = 10

    // MARK: Rates

    /// `output.fps`: frames per second.
    package static let frameRate: ClosedRange<Int64> = 1...240
    /// `overlays[].fps`: an image sequence's frames per second.
    package static let sequenceFrameRate: ClosedRange<Double> = 0.1...120
    /// `clips[].speed[].rate` and `clips[].ramp[].rate`: 0.05 (20x slower) to 16x faster.
    package static let speedRate: ClosedRange<Double> = 0.05...16
    /// `clips[].ramp`: keyframes per ramp, and `clips[].speed`: ranges per clip. Every speed
    /// range is one scale of the composition tracks, each moving all later segments.
    package static let maximumKeyframes = 1_000
    /// How long a ramp may glide (change rate) in all, in source time: 5 minutes, i.e. at
    /// most 6,000 stepped speed ranges of 50 ms (holding a rate makes one range). Building
    /// costs grow with the square of the ranges (a 2-minute glide took 4.6 s to plan in a
    /// debug build, a 24-hour one would take days); real ramps glide for a fraction of a second.
    package static let maximumGlideSeconds: Int64 = 300

    /// `overlays[].rotate` and rotate keyframes, in degrees either way: a hundred turns.
    package static let rotationDegrees: ClosedRange<Double> = -36_000...36_000
    /// Scale keyframes of `overlays[].animate`: a hundredfold covers any zoom-in entrance
    /// (the raster is rescaled from the picture, so its cost grows with the square).
    package static let overlayScale: ClosedRange<Double> = 0...100
    /// `overlays[].spin.perspective`: the eye's distance in pixels. Nearer than 50 px a
    /// logo's edge swings past the eye (behind it nothing is drawn); past 100,000 px the
    /// perspective is nil anyway.
    package static let spinPerspective: ClosedRange<Double> = 50...100_000
    /// `overlays[].animate[].repeat`: passes of an animation that does not repeat forever.
    package static let repeatCount: ClosedRange<Int> = 1...100_000

    // MARK: Sizes

    /// `output.size`: pixels a side (FFmpeg's encoders and 4:2:0 need even sides, too).
    package static let outputSide: ClosedRange<Int> = 16...8192
    /// The largest source picture side dropcut reads (from a media header, which a damaged
    /// or hostile file can set to anything): 8K and a bit.
    package static let maximumSourceSide = 8192
    /// Lengths on the output (`overlays[].margin`, `width`, `size`) in pixels: four times the
    /// largest output side, enough to push an overlay off any frame, and small enough for
    /// `Int` pixel arithmetic and FreeType's 26.6 fixed point.
    package static let maximumLengthPixels: Double = 32_768
    /// The same lengths as a percentage of their reference side.
    package static let maximumLengthPercent: Double = 100
    /// Caption lines per cue: more than 4 lines cover the picture.
    package static let maximumCaptionLines = 4
    /// A caption safe-area margin, in % of the frame side: two margins leave at least 10 %.
    package static let captionSafeAreaPercent: ClosedRange<Double> = 0...45
    /// `overlays[].outline.width` and `shadow.offset` (pixels or percent).
    package static let maximumStroke: Double = 100
    /// `overlays[].frames`: the width of the number in the pattern (`%02d` is 2).
    package static let maximumFrameNumberWidth = 10

    // MARK: Layer trees

    /// `overlays[].group`: how deep groups nest (a top-level group is 1 deep). Core
    /// Animation has no limit, but each level the renderer walks may hold an offscreen
    /// picture at most the output's size while its children are drawn into it (when the
    /// group is translucent and its children overlap), so the depth bounds that memory.
    package static let maximumGroupDepth = 8
    /// `overlays`: layers in a recipe, every group and every overlay inside groups
    /// counted. Each is rasterised once and blended every frame it shows; a few dozen is a
    /// busy watermark, and the bound keeps a recipe's layer tree (and `plan`'s listing of it) small.
    package static let maximumOverlayLayers = 256

    // MARK: Encoding and levels

    /// `output.video.crf`.
    package static let crf: ClosedRange<Int> = 0...51
    /// `output.audio.bitrate`, bits per second (AAC's useful range).
    package static let audioBitrate: ClosedRange<Int> = 32_000...512_000
    /// `output.audio.loudness`, LUFS.
    package static let loudness: ClosedRange<Double> = -60 ... -5
    /// `clips[].volume` and `music.gain`, dB.
    package static let gain: ClosedRange<Double> = -60...20
    /// `clips[].transform[].scale`: a hundredth (a thumbnail of a 4K frame is still a few
    /// pixels) to a hundred times (a few source pixels filling the frame); zero has no inverse.
    package static let transformScale: ClosedRange<Double> = 0.01...100
    /// `clips[].transform[].rotate` in degrees: ten turns either way between keyframes is
    /// already a blur; beyond it a typo.
    package static let transformRotation: ClosedRange<Double> = -3600...3600
    /// `clips[].transform[].move` as % of the output's side: ten frames' width either way.
    package static let maximumMovePercent: Double = 1000
    /// `audio[].pitch`, semitones: an octave either way. The shift stretches the sound by
    /// the frequency ratio (WSOLA, 0.5x to 2x) and resamples it back; further, formant-naive
    /// shifting turns voices into chipmunks or giants and WSOLA's frames audibly repeat.
    package static let pitchSemitones: ClosedRange<Double> = -12...12
    /// `audio`: items per recipe. Each is a composition track read during the whole
    /// render, with a decoder of its own while it plays.
    package static let maximumAudioItems = 100
    /// `music.duck.depth`, dB.
    package static let duckDepth: ClosedRange<Double> = -60...0
    /// `music.duck.threshold`, dBFS.
    package static let duckThreshold: ClosedRange<Double> = -90...0

    // MARK: Text

    /// `overlays[].text`: 4 KiB of UTF-8, a screenful; more is a mistake (a pasted file).
    package static let maximumTextBytes = 4_096
    /// `output.filename`: the template, at most a file name's length on Linux (NAME_MAX).
    package static let maximumFilenameBytes = 255

    // MARK: Deliverables

    /// `outputs:`: deliverables per drop. Each video is its own render for now, so a list
    /// this long already takes many times one render.
    package static let maximumOutputs = 16
    /// `poster: { at: best }`: the frames scored, spread over the output (each one
    /// decoded and composited; memory is one frame).
    package static let posterCandidates = 32
    /// `outputs[].preview.duration`: a preview is a glimpse, every frame of it kept in
    /// the animation encoder until the end.
    package static let maximumPreviewSeconds: Int64 = 30
    /// `outputs[].preview.width`: pixels.
    package static let previewWidth: ClosedRange<Int> = 16...1920
    /// `outputs[].preview.fps`.
    package static let previewFrameRate: ClosedRange<Int> = 1...30
    /// The most rungs an HLS ladder has (`outputs[].hls.heights`): eight covers 240p to 4K.
    package static let maximumHLSRungs = 8
    /// An HLS rung's height in pixels: from a thumbnail-sized rung up to 8K.
    package static let hlsHeight: ClosedRange<Int> = 64...4320
    /// An HLS segment's target length, seconds: Apple's authoring spec recommends 6 s;
    /// under a second a segment is mostly headers, over 20 s a player waits long to start.
    package static let hlsSegmentSeconds: ClosedRange<Int64> = 1...20
}

extension RecipeLimits {
    /// `32k`, `512k`, `1.5M` — a bit rate as the reference writes it.
    static func bitrateText(_ bits: Int) -> String {
        if bits % 1_000_000 == 0 { return "\(bits / 1_000_000)M" }
        if bits % 1_000 == 0 { return "\(bits / 1_000)k" }
        return "\(bits)"
    }

    /// `0.05 to 16`.
    static func rangeText(_ range: ClosedRange<Double>, _ unit: String = "") -> String {
        "\(formatNumber(range.lowerBound))\(unit) to \(formatNumber(range.upperBound))\(unit)"
    }
}
