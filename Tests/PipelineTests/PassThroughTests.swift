import Foundation
import Testing
@testable import DropcutPipeline
import DropcutRecipe
import DropcutRender
import Synchronization
import TestSupport
import DropcutTimeline

/// Which streams a render copies (pass-through) and why it does not: the pure decision,
/// from recipes and probed media (no files: the probe answers from a table). Each reason
/// the issue names refuses the copy and is named.
@Suite struct PassThroughTests {
    struct Probe: MediaProbing {
        var table: [String: ProbedMedia]
        struct Unknown: Error {}
        func probe(_ path: String) throws -> ProbedMedia {
            guard let media = table[(path as NSString).lastPathComponent] else { throw Unknown() }
            var copy = media
            copy.path = path
            return copy
        }
    }

    struct Silence: SoundLevelMeasuring {
        func levels(of composition: Composition, audioMix: AudioMix, tracks: [TrackID]) throws -> SoundLevels {
            SoundLevels(window: MediaTime(value: 1, timescale: 50), decibels: [])
        }
    }

    /// An upright 1280x720 30 fps H.264 / 48 kHz stereo AAC phone clip of 4 s: what copies.
    static func clip(_ name: String = "clip.mp4", edit: (inout ProbedMedia) -> Void = { _ in }) -> ProbedMedia {
        let range = TimeRange(start: .zero, duration: MediaTime(seconds: 4))
        var video = ProbedMedia.Video(trackID: 1, timeRange: range, naturalSize: PixelSize(width: 1280, height: 720),
                                      frameDuration: MediaTime(value: 1, timescale: 30), color: .bt709)
        video.codec = "h264"
        video.pixelFormat = "yuv420p"
        video.colorIsStated = true
        var media = ProbedMedia(path: name, duration: range.duration, video: video,
                                audio: .init(trackID: 2, timeRange: range, sampleRate: 48000, channels: 2, codec: "aac"))
        edit(&media)
        return media
    }

    /// Empty stand-ins for the files the recipes name.
    static let media: TemporaryDirectory = {
        let dir = try! TemporaryDirectory()
        for name in ["bed.m4a", "two.mp4", "photo.jpg"] { _ = try! Fixtures.makeFile(in: dir.path, name: name) }
        return dir
    }()

    static let bed: ProbedMedia = ProbedMedia(
        path: "bed.m4a", duration: MediaTime(seconds: 10),
        audio: .init(trackID: 1, timeRange: TimeRange(start: .zero, duration: MediaTime(seconds: 10)), codec: "aac"))

    static func decide(_ yaml: String = "version: 1\n", clip: ProbedMedia = clip(), extra: [ProbedMedia] = [bed],
                       keyframes: [MediaTime]? = nil) throws -> PassThrough {
        // The loader wants the files a recipe names to exist; their content is the table's.
        let recipe = try RecipeLoader().load(yaml: yaml.replacingOccurrences(of: "/media/", with: media.path + "/"),
                                             file: media.file("test.yaml"))
        var table: [String: ProbedMedia] = ["clip.mp4": clip]
        for media in extra { table[media.path] = media }
        return try Production(recipe: recipe, input: "/inbox/clip.mp4", probe: Probe(table: table), levels: Silence(),
                              pictures: { _, _ in keyframes.map(Self.index) }).passThrough
    }

    /// A source's index with these keyframes and nothing else known (no IDR pictures, no
    /// spacing: never spliced).
    static func index(_ keyframes: [MediaTime]) -> SourcePictureIndex {
        SourcePictureIndex(keyframes: keyframes, idrPictures: [], frameCount: 0, frameDuration: nil, firstFrame: .zero,
                           reorderDepth: 0, decoderConfiguration: [])
    }

    /// The video is re-encoded and one of the reasons contains `reason`.
    static func expectVideoRefused(_ decision: PassThrough, _ reason: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        #expect(decision.video.copy == nil, "copied: \(decision.lines)", sourceLocation: sourceLocation)
        #expect(decision.video.reasons.contains { $0.contains(reason) }, "\(decision.video.reasons)", sourceLocation: sourceLocation)
    }

    static func expectAudioRefused(_ decision: PassThrough, _ reason: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        #expect(decision.audio.copy == nil, "copied: \(decision.lines)", sourceLocation: sourceLocation)
        #expect(decision.audio.reasons.contains { $0.contains(reason) }, "\(decision.audio.reasons)", sourceLocation: sourceLocation)
    }

    @Test func theIdentityRecipeCopiesBothStreamsOfAnUprightH264AACClip() throws {
        let decision = try Self.decide()
        #expect(decision.video == .copied(StreamCopy(asset: "/inbox/clip.mp4", trackID: 1,
                                                     range: TimeRange(start: .zero, duration: MediaTime(seconds: 4)))))
        #expect(decision.audio.copy?.trackID == 2)
        #expect(decision.lines == ["video: copied from clip.mp4 (stream 0)", "audio: copied from clip.mp4 (stream 1)"])
        // The copies reach the export settings.
        let recipe = try RecipeLoader().load(yaml: "version: 1\n", file: "/recipes/test.yaml")
        let production = try Production(recipe: recipe, input: "/inbox/clip.mp4", probe: Probe(table: ["clip.mp4": Self.clip()]),
                                        levels: Silence())
        #expect(production.settings.videoCopy?.trackID == 1 && production.settings.audioCopy?.trackID == 2)
    }

    @Test func reencodeAlwaysCopiesNothing() throws {
        let decision = try Self.decide("version: 1\noutput: { video: { reencode: always } }\n")
        Self.expectVideoRefused(decision, "output.video.reencode is always")
        Self.expectAudioRefused(decision, "output.video.reencode is always")
        #expect(decision.lines.first == "video: re-encoded: output.video.reencode is always")
    }

    @Test func reencodeIsAutoOrAlways() throws {
        #expect(try RecipeLoader().load(yaml: "version: 1\n", file: Self.media.file("a.yaml")).output.video.reencode == .auto)
        do {
            _ = try RecipeLoader().load(yaml: "version: 1\noutput: { video: { reencode: never } }\n", file: Self.media.file("b.yaml"))
            Issue.record("reencode: never was accepted")
        } catch {
            #expect("\(error)".contains("2:30: output.video.reencode must be one of auto | always (got 'never')"), "\(error)")
        }
    }

    @Test func aMusicBedCopiesTheVideoAndEncodesTheSound() throws {
        let decision = try Self.decide("version: 1\nmusic: { source: /media/bed.m4a }\n")
        #expect(decision.video.copy != nil)
        Self.expectAudioRefused(decision, "a music bed is mixed in")
    }

    @Test func anAudioItemCopiesTheVideoAndEncodesTheSound() throws {
        let decision = try Self.decide("version: 1\naudio: [{ source: /media/bed.m4a, at: 1 }]\n")
        #expect(decision.video.copy != nil)
        Self.expectAudioRefused(decision, "audio items are mixed in")
    }

    // MARK: Video refused, each reason

    @Test func anOverlayIsDrawn() throws {
        Self.expectVideoRefused(try Self.decide("version: 1\noverlays: [{ text: hello }]\n"), "overlay is drawn")
    }

    @Test func aTransformMovesThePicture() throws {
        Self.expectVideoRefused(try Self.decide("version: 1\nclips: [{ transform: [{ at: 0, scale: 1.5 }] }]\n"), "moved, scaled or turned")
    }

    /// With `orientation: keep`, a quarter turn or a mirror is kept by a whole copy (the
    /// display matrix goes with the packets), every one of the eight; by default (`auto`)
    /// it is drawn upright, and so is a turn by any other angle; an orientation the recipe
    /// asks for turns the pixels.
    @Test func aQuarterTurnIsKeptByAWholeCopyAndOtherTurnsAreDrawn() throws {
        for turns in 0..<4 {
            for mirrored in [false, true] {
                var matrix = AffineTransform(quarterTurns: turns)
                if mirrored { matrix = AffineTransform(scaleX: -1, y: 1).concatenating(matrix) }
                let stored = PixelSize(width: 1280, height: 720)
                let upright = turns % 2 == 1 ? PixelSize(width: 720, height: 1280) : stored
                // As the probe gives it: the translation that keeps the frame at the origin.
                let corners = [Point(x: 0, y: 0), Point(x: 1280, y: 0), Point(x: 0, y: 720), Point(x: 1280, y: 720)].map(matrix.apply)
                matrix.tx = -corners.map(\.x).min()!
                matrix.ty = -corners.map(\.y).min()!
                let clip = Self.clip { $0.video?.preferredTransform = matrix; $0.video?.encodedSize = stored }
                let decision = try Self.decide("version: 1\norientation: keep\n", clip: clip)
                #expect(decision.video.copy?.orientation == matrix, "\(turns) turns, mirrored \(mirrored): \(decision.lines); upright \(upright)")
                if matrix != .identity {
                    #expect(decision.lines.first?.contains("its display matrix kept (shown ") == true, "\(decision.lines)")
                    Self.expectVideoRefused(try Self.decide(clip: clip), "orientation fix")
                }
            }
        }
        let tilted = Self.clip { $0.video?.preferredTransform = AffineTransform(a: 0.98, b: 0.17, c: -0.17, d: 0.98, tx: 0, ty: 0) }
        Self.expectVideoRefused(try Self.decide("version: 1\norientation: keep\n", clip: tilted), "orientation fix")
        #expect(try Self.decide("version: 1\norientation: 90\n").video.copy == nil)
    }

    @Test func theSizeChanges() throws {
        Self.expectVideoRefused(try Self.decide("version: 1\noutput: { size: 640x360 }\n"), "the size changes from 1280x720 to 640x360")
    }

    @Test func theRateChanges() throws {
        Self.expectVideoRefused(try Self.decide("version: 1\noutput: { fps: 25 }\n"), "the frame rate changes from 30 to 25 fps")
    }

    /// A whole copy keeps the packets' times: a variable rate stays as it was — unless the
    /// recipe asks for a constant rate (`output.fps`), even the clip's own nominal one.
    @Test func aVariableRateIsKeptByAWholeCopyUnlessARateIsAskedFor() throws {
        let variable = Self.clip { $0.video?.isVariableFrameRate = true }
        #expect(try Self.decide(clip: variable).video.copy != nil)
        Self.expectVideoRefused(try Self.decide("version: 1\noutput: { fps: 30 }\n", clip: variable),
                                "the source's frame rate is variable, the output's constant (output.fps)")
        #expect(try Self.decide("version: 1\noutput: { fps: 30 }\n").video.copy != nil, "a constant-rate clip at its own rate")
    }

    /// Pieces copy a variable rate only when its frames lie on the output's grid.
    @Test func aVariableRateIsSplicedOnlyOnItsGrid() {
        func reasons(_ configure: @escaping (inout ProbedMedia.Video) -> Void, keeping: PassThrough.Keeping = .init()) -> [String] {
            guard let video = Self.clip(edit: { media in media.video.map { var v = $0; configure(&v); media.video = v } }).video else {
                return ["no video"]
            }
            let output = VideoComposition(renderSize: video.naturalSize, frameDuration: video.frameDuration)
            return PassThrough.sourceReasons(video, settings: ExportSettings(), output: output, copy: .pieces(keeping))
                .filter { $0.contains("variable") }
        }
        #expect(reasons { $0.isVariableFrameRate = true } == ["the source's frame rate is variable, its frames on no one grid"])
        #expect(reasons { $0.isVariableFrameRate = true; $0.variableRateLiesOnGrid = true }.isEmpty)
        #expect(reasons({ $0.isVariableFrameRate = true; $0.variableRateLiesOnGrid = true }, keeping: .init(variableRate: false))
                == ["the source's frame rate is variable, the output's constant (output.fps)"])
    }

    /// A video that ends before its sound (its last frame held to the end) is two pieces,
    /// and the reason says what they are.
    @Test func aVideoEndingBeforeItsSoundSaysWhatItsPiecesAre() throws {
        let short = Self.clip { $0.video?.timeRange = TimeRange(start: .zero, duration: MediaTime(value: 395, timescale: 100)) }
        Self.expectVideoRefused(try Self.decide(clip: short),
                                "the video is made of 2 pieces (0.000–3.950 s clip.mp4, 3.950–4.000 s its last frame held (the video ends before the sound))")
    }

    @Test func anInterlacedClipIsRefused() throws {
        let interlaced = Self.clip { $0.video?.fieldOrder = .topFirst }
        Self.expectVideoRefused(try Self.decide("version: 1\noutput: { deinterlace: off }\n", clip: interlaced), "interlaced")
    }

    @Test func anotherPixelFormatIsConverted() throws {
        Self.expectVideoRefused(try Self.decide(clip: Self.clip { $0.video?.pixelFormat = "yuv422p" }), "pixel format is yuv422p")
        Self.expectVideoRefused(try Self.decide(clip: Self.clip { $0.video?.pixelFormat = "yuv420p10le" }), "pixel format is yuv420p10le")
    }

    @Test func nonSquarePixelsAreWidened() throws {
        let anamorphic = Self.clip {
            $0.video?.pixelAspectRatio = PixelAspectRatio(horizontalSpacing: 4, verticalSpacing: 3)!
            $0.video?.encodedSize = PixelSize(width: 960, height: 720)
        }
        Self.expectVideoRefused(try Self.decide(clip: anamorphic), "not square")
    }

    @Test func otherColourIsConverted() throws {
        Self.expectVideoRefused(try Self.decide(clip: Self.clip { $0.video?.color = .hlg }), "the source is HDR (HLG)")
        // SDR in any colour it states is copied stating it: full range (yuvj420p too), BT.601, Display P3.
        #expect(try Self.decide(clip: Self.clip { $0.video?.color?.fullRange = true; $0.video?.pixelFormat = "yuvj420p" }).video.copy != nil)
        let bt601 = ColorDescription(primaries: .bt601, transfer: .sdr, matrix: .bt601)
        #expect(try Self.decide(clip: Self.clip { $0.video?.color = bt601 }).video.copy != nil)
        let p3 = ColorDescription(primaries: .p3, transfer: .sdr, matrix: .bt709)
        #expect(try Self.decide(clip: Self.clip { $0.video?.color = p3 }).video.copy != nil)
        // An untagged H.264 clip is copied stating what players take it for (its resolved
        // colour: BT.709 for this HD clip); another codec is re-encoded and tagged.
        let untagged = try Self.decide(clip: Self.clip { $0.video?.colorIsStated = false })
        #expect(untagged.video.copy?.statedColour == .bt709, "\(untagged.lines)")
        #expect(try Self.decide(clip: Self.clip()).video.copy?.statedColour == nil)
        let mpeg4 = try Self.decide("version: 1\noutput: { video: { codec: hevc } }\n",
                                    clip: Self.clip { $0.video?.colorIsStated = false; $0.video?.codec = "hevc" })
        Self.expectVideoRefused(mpeg4, "does not state its colour")
        // An HDR output re-encodes even an SDR clip (mapped up to HLG).
        Self.expectVideoRefused(try Self.decide("version: 1\noutput: { dynamic_range: hdr }\n"), "the output is HDR")
        // HDR is never copied, into an HDR output either.
        let hlg = Self.clip { $0.video?.color = .hlg; $0.video?.codec = "hevc"; $0.video?.pixelFormat = "yuv420p10le" }
        #expect(try Self.decide("version: 1\noutput: { dynamic_range: source }\n", clip: hlg).video.copy == nil)
    }

    @Test func aSpeedChangeIsRendered() throws {
        Self.expectVideoRefused(try Self.decide("version: 1\nclips: [{ speed: [{ range: [0, end], rate: 0.5 }] }]\n"), "the speed changes")
        Self.expectVideoRefused(try Self.decide("version: 1\nclips: [{ speed: [{ range: [1, 2], rate: 2 }] }]\n"), "pieces")
    }

    @Test func aTrimOffAKeyframeIsRefusedAndOnKeyframesCopied() throws {
        let trimmed = "version: 1\nclips: [{ trim: [1, 3] }]\n"
        Self.expectVideoRefused(try Self.decide(trimmed), "keyframes are not known")
        Self.expectVideoRefused(try Self.decide(trimmed, keyframes: [0, 2].map { MediaTime(seconds: $0) }), "cut at 1.000 s, not on a keyframe")
        Self.expectVideoRefused(try Self.decide(trimmed, keyframes: [0, 1].map { MediaTime(seconds: $0) }), "cut at 3.000 s, not on a keyframe")
        let onKeys = try Self.decide(trimmed, keyframes: [0, 1, 2, 3].map { MediaTime(seconds: $0) })
        #expect(onKeys.video.copy?.range == TimeRange(start: MediaTime(seconds: 1), end: MediaTime(seconds: 3)), "\(onKeys.lines)")
        // Its sound is cut at 1 s: AAC is copied only from its start.
        Self.expectAudioRefused(onKeys, "AAC is copied only from its start")
        // A cut at the end only: the sound is copied up to it.
        let tail = try Self.decide("version: 1\nclips: [{ trim: [0, 3] }]\n", keyframes: [0, 3].map { MediaTime(seconds: $0) })
        #expect(tail.video.copy != nil && tail.audio.copy?.range.end == MediaTime(seconds: 3), "\(tail.lines)")
    }

    /// Finding keyframes reads the whole file: never for a clip re-encoded anyway.
    @Test func keyframesAreAskedOnlyWhenTheCutIsAllThatDecides() throws {
        let recipe = try RecipeLoader().load(yaml: "version: 1\nclips: [{ trim: [1, 3] }]\noutput: { size: 640x360 }\n",
                                             file: Self.media.file("cut.yaml"))
        let asked = Mutex(0)
        let production = try Production(recipe: recipe, input: "/inbox/clip.mp4", probe: Probe(table: ["clip.mp4": Self.clip()]),
                                        levels: Silence(), pictures: { _, _ in asked.withLock { $0 += 1 }; return nil })
        #expect(production.passThrough.video.copy == nil && asked.withLock { $0 } == 0)
    }

    @Test func theCodecMustBeTheOutputs() throws {
        Self.expectVideoRefused(try Self.decide(clip: Self.clip { $0.video?.codec = "mpeg4" }), "codec is mpeg4, the output's h264")
        // HEVC is copied into an HEVC output, and into one whose recipe names no codec (the
        // output then is HEVC); a recipe naming H.264 has it encoded.
        let hevc = Self.clip { $0.video?.codec = "hevc" }
        Self.expectVideoRefused(try Self.decide("version: 1\noutput: { video: { codec: h264 } }\n", clip: hevc), "codec is hevc, the output's h264")
        #expect(try Self.decide("version: 1\noutput: { video: { codec: hevc } }\n", clip: hevc).video.copy != nil)
        #expect(try Self.decide(clip: hevc).video.copy != nil)
        // Unnamed, where the video is encoded anyway, the codec stays H.264 and says so.
        let drawn = try Self.decide("version: 1\noverlays: [{ text: hi }]\n", clip: hevc)
        #expect(drawn.video.copy == nil && drawn.video.reasons.contains { $0.contains("codec is hevc, the output's h264") })
    }

    @Test func severalClipsOrATransitionAreComposited() throws {
        let second = Self.clip("two.mp4")
        Self.expectVideoRefused(try Self.decide("version: 1\nclips: [{}, { source: /media/two.mp4 }]\n", extra: [second]),
                                "the video combines 2 tracks")
        let crossfade = try Self.decide("version: 1\nclips: [{}, { source: /media/two.mp4 }]\ntransition: { kind: crossfade, duration: 0.5 }\n",
                                        extra: [second])
        #expect(crossfade.video.copy == nil && crossfade.audio.copy == nil, "\(crossfade.lines)")
    }

    @Test func aStillPictureIsEncoded() throws {
        let photo = ProbedMedia(path: "photo.jpg", duration: .zero, video: .stillImage(size: PixelSize(width: 1280, height: 720)))
        let decision = try Self.decide("version: 1\nclips: [{ source: /media/photo.jpg, duration: 2 }]\n", extra: [photo])
        Self.expectVideoRefused(decision, "a still picture")
    }

    // MARK: Audio refused, each reason

    @Test func aGainOrFadeChangesTheSound() throws {
        Self.expectAudioRefused(try Self.decide("version: 1\nclips: [{ volume: -6dB }]\n"), "the volume changes")
    }

    @Test func loudnessNormalisationChangesTheSound() throws {
        Self.expectAudioRefused(try Self.decide("version: 1\noutput: { audio: { loudness: -16LUFS } }\n"), "loudness is normalised to -16 LUFS")
    }

    @Test func anotherAudioCodecIsEncoded() throws {
        Self.expectAudioRefused(try Self.decide(clip: Self.clip { $0.audio?.codec = "mp3" }), "codec is mp3, the output's aac")
    }

    @Test func theSampleRateOrChannelsChange() throws {
        // AAC signals no 47 kHz: the output is 48 kHz.
        Self.expectAudioRefused(try Self.decide(clip: Self.clip { $0.audio?.sampleRate = 47000 }), "sample rate changes from 47000 to 48000 Hz")
        // Six channels are mixed down to stereo.
        Self.expectAudioRefused(try Self.decide(clip: Self.clip { $0.audio?.channels = 6 }), "channels change from 6 to 2")
    }

    @Test func aMutedClipHasNoSoundToCopy() throws {
        let decision = try Self.decide("version: 1\noriginal_audio: mute\n")
        #expect(decision.audio.copy == nil)
        #expect(decision.video.copy != nil)
    }

    @Test func aClipWithoutSoundHasNoAudioLine() throws {
        let decision = try Self.decide(clip: Self.clip { $0.audio = nil })
        #expect(decision.audio == .absent && decision.lines == ["video: copied from clip.mp4 (stream 0)"])
    }
}
