import Foundation
import DropcutTimeline

/// One key of the recipe language, as the reference documents it.
///
/// The decoder takes the keys it accepts from `RecipeReference.keys` (through
/// `RecipeReference.allowedKeys(in:)`), so a key cannot be accepted without a row here, and
/// the reference in docs/recipes.md is generated from the same rows.
package struct RecipeKey: Sendable, Hashable {
    /// Where the key lives: `output.video.crf`; `[]` marks the items of a list
    /// (`clips[].speed[].rate`).
    package let path: String
    /// What values it takes, with their limits.
    package let type: String
    /// What applies when the key is left out.
    package let defaultValue: String
    /// A value, as written after `key:` in YAML; it must validate on its own (tested).
    package let example: String
    /// What it does, in one line.
    package let summary: String

    package init(_ path: String, _ type: String, default defaultValue: String, example: String, _ summary: String) {
        self.path = path
        self.type = type
        self.defaultValue = defaultValue
        self.example = example
        self.summary = summary
    }

    /// The key as written in YAML: the last component of `path`.
    package var name: String {
        path.split(separator: ".").last.map(String.init) ?? path
    }

    /// The mapping the key belongs to: `""` (the top level), `output`, `clips[]`...
    package var section: String {
        guard let dot = path.lastIndex(of: ".") else { return "" }
        return String(path[..<dot])
    }
}

/// The recipe language's keys, in the order the decoder lists them in messages ("expected
/// one of: ..."), and the Markdown reference made from them.
package enum RecipeReference {
    /// Every key the decoder accepts. The order within each mapping is the order of the
    /// "expected one of" lists in error messages and breaks ties between "did you mean"
    /// suggestions, so keep it when adding keys.
    package static let keys: [RecipeKey] = [
        RecipeKey("version", "`1`", default: "required", example: "1",
                  "The recipe format version; every recipe file starts with it."),
        RecipeKey("output", "mapping", default: "see `output.*`", example: "{ size: 1080x1920, fit: fill }",
                  "What file to make: name, size, frame rate, encoding."),
        RecipeKey("outputs", "list of at most \(RecipeLimits.maximumOutputs) mappings", default: "none (the one file `output` describes)",
                  example: "[ { filename: \"{name}.square.mp4\", size: 1080x1080, fit: fill }, { filename: \"{name}.poster.jpg\", poster: { at: 2s } } ]",
                  "Several deliverables from one drop: videos, posters, previews and HLS ladders, each `output` with the entry's keys merged in; a manifest `{name}.dropcut.json` lists them."),
        RecipeKey("orientation", "`auto`, `keep`, `0`, `90`, `180` or `270`", default: "`auto`", example: "auto",
                  "`auto` turns each clip as its display matrix says, into the pixels; `keep` too, except that a clip copied whole or spliced (smart render) keeps its display matrix (players turn it; those that ignore matrices show it as stored); degrees turn the stored pixels clockwise, whatever the matrix says."),
        RecipeKey("clips", "list of mappings (at least one)", default: "the dropped clip, whole", example: "[ { source: intro.mp4 }, { source: \"{input}\" } ]",
                  "The clips, in order; `{input}` is the dropped clip."),
        RecipeKey("transition", "mapping", default: "`cut`", example: "{ kind: crossfade, duration: 0.5 }",
                  "How consecutive clips are joined."),
        RecipeKey("overlays", "list of mappings", default: "none", example: "[ { image: logo.png, anchor: top-right } ]",
                  "Images, image sequences and texts drawn over the video, in order (later on top)."),
        RecipeKey("music", "mapping", default: "none", example: "{ source: bed.mp3, gain: -10dB, loop: true }",
                  "A music bed under the clips' own sound."),
        RecipeKey("audio", "list of at most \(RecipeLimits.maximumAudioItems) mappings", default: "none", example: "[ { source: voiceover.m4a, at: 2.0, mode: replace } ]",
                  "Sound files on the output timeline: voice-overs, music, sound effects, each mixed over or replacing the clips' own sound."),
        RecipeKey("original_audio", "`keep` or `mute`", default: "`keep`", example: "mute",
                  "`mute` drops every clip's own sound."),
        RecipeKey("captions", "mapping", default: "the clip's `.srt`/`.vtt` sidecar, if dropped with one", example: "{ source: talk.srt, style: { size: 6%, background: \"#000000a0\" } }",
                  "Subtitles burnt into the picture, timed as the clip's frames are placed (trims, speed, intro)."),

        // output
        RecipeKey("output.filename", "file name template ending in `.mp4`, `.mov` or `.m4v`, at most \(RecipeLimits.maximumFilenameBytes) bytes", default: "`{name}.dropcut.mp4`",
                  example: "\"{name}.social.mp4\"",
                  "The output's name (no folders): `{name}` input stem, `{ext}`, `{recipe}`, `{date:yyyy-MM-dd}` (UTC)."),
        RecipeKey("output.size", "`WIDTHxHEIGHT` (even, \(RecipeLimits.outputSide.lowerBound) to \(RecipeLimits.outputSide.upperBound)), `480p`, `720p`, `1080p`, `2160p`, `{ max: WIDTHxHEIGHT }` or `source`", default: "`source`", example: "1080x1920",
                  "The frame size; `source` is the first clip's size after orientation; a class (`1080p`: 1920x1080, or 1080x1920 for a portrait source) or `max` fits that size into the bound, keeping its shape, never upscaling."),
        RecipeKey("output.size.max", "`WIDTHxHEIGHT` (even, \(RecipeLimits.outputSide.lowerBound) to \(RecipeLimits.outputSide.upperBound))", default: "required", example: "1920x1080",
                  "The bound: the source's size scaled down to fit inside it (sides rounded to even), or kept when it fits."),
        RecipeKey("output.fit", "`fit`, `fill`, `stretch` or `smart`", default: "`fit`", example: "smart",
                  "How clips of another shape go into the frame: letterboxed, cropped to cover, distorted, or cropped to cover with the crop following the subject (faces, people, motion; docs/reframe.md)."),
        RecipeKey("output.smart", "mapping", default: "see `output.smart.*`", example: "{ subject: faces, smoothness: 0.7 }",
                  "What `fit: smart` follows and how calmly; ignored by the other fits."),
        RecipeKey("output.smart.subject", "`auto`, `faces`, `people` or `motion`", default: "`auto`", example: "people",
                  "`auto`: faces, standing people and what moves, a face weighing most; the others follow only that. A clip with nothing to follow is cropped in the middle, as `fill`."),
        RecipeKey("output.smart.smoothness", "number 0 to 1", default: "`0.5`", example: "0.8",
                  "0 follows closely (small dead zone, quick moves); 1 holds still longer and glides."),
        RecipeKey("output.fps", "frame rate \(RecipeLimits.frameRate.lowerBound) to \(RecipeLimits.frameRate.upperBound) (`30`, `29.97`, `30000/1001`) or `source`", default: "`source`", example: "30",
                  "Frames per second; `source` is the highest clip rate, at most 60."),
        RecipeKey("output.deinterlace", "`auto` or `off`", default: "`auto`", example: "off",
                  "Interlaced clips (1080i camcorders, DV): `auto` makes each field a frame (motion-adaptive, so 1080i50 at `fps: source` becomes 50 fps); `off` keeps the frames woven."),
        RecipeKey("output.dynamic_range", "`sdr`, `hdr` or `source`", default: "`sdr`", example: "source",
                  "`sdr`: BT.709, HDR clips tone mapped. `hdr`: HLG in HEVC Main 10 (10-bit BT.2020), HLG clips kept, PQ converted, SDR clips and overlays with their white at HLG 75 %. `source`: `hdr` when any clip is HLG or PQ, else `sdr`."),
        RecipeKey("output.video", "mapping", default: "see `output.video.*`", example: "{ codec: h264, crf: 20, preset: veryfast }",
                  "Video encoding."),
        RecipeKey("output.video.codec", "`h264` or `hevc`", default: "`h264`; `hevc` for HDR outputs and for an HEVC clip copied whole", example: "hevc",
                  "H.264 (libx264) or HEVC (libx265). HDR outputs are HEVC: `h264` with `dynamic_range: hdr` or `source` is an error. Unnamed, an HEVC clip whose video is copied whole stays HEVC."),
        RecipeKey("output.video.crf", "whole number \(RecipeLimits.crf.lowerBound) to \(RecipeLimits.crf.upperBound)", default: "`\(EncodingDefaults.crf)`", example: "18",
                  "Constant rate factor: lower is better quality and larger files."),
        RecipeKey("output.video.preset", "an x264 preset, `ultrafast` to `placebo`", default: "`\(EncodingDefaults.preset)`", example: "medium",
                  "Encoder speed against compression."),
        RecipeKey("output.video.reencode", "`auto` or `always`", default: "`auto`", example: "always",
                  "`auto` copies a clip's video packets as they are when the output would change no pixel of it (one upright clip, same size, rate, pixel format, colour and codec, no overlay, speed change or cut off a keyframe), else copies the groups of pictures it shows unchanged and encodes only the rest (smart render, H.264), and copies its audio packets when no sound changes (AAC, no music, audio items, gain or loudness normalisation); `plan` says which streams and pieces are copied and why the others are not. `always` re-encodes every stream."),
        RecipeKey("output.audio", "mapping", default: "see `output.audio.*`", example: "{ codec: aac, bitrate: 160k }",
                  "Audio encoding and level."),
        RecipeKey("output.audio.codec", "`aac`", default: "`aac`", example: "aac",
                  "The audio codec."),
        RecipeKey("output.audio.bitrate", "bit rate \(RecipeLimits.bitrateText(RecipeLimits.audioBitrate.lowerBound)) to \(RecipeLimits.bitrateText(RecipeLimits.audioBitrate.upperBound)) (`160k`, `0.2M`, `128000`)", default: "`160k`", example: "192k",
                  "AAC bit rate."),
        RecipeKey("output.audio.loudness", "loudness \(RecipeLimits.rangeText(RecipeLimits.loudness, "LUFS"))", default: "none (as mixed)", example: "-16LUFS",
                  "The whole mix brought to this integrated loudness (EBU R128), before the peak limiter."),

        RecipeKey("output.captions", "`burn`, `soft` or `none`", default: "`burn`", example: "soft",
                  "When the clip has captions (`captions:`, or a `.srt`/`.vtt` dropped with it): `burn` draws them into the picture; `soft` writes them as a subtitle stream players can turn on (`mov_text`, in `.mp4`, `.mov` and `.m4v`), the picture left clean; `none` leaves them out."),

        // outputs
        RecipeKey("outputs[].filename", "file name template: `.mp4`, `.mov` or `.m4v` for a video, `.jpg`, `.jpeg`, `.png` or `.webp` for a poster, `.webp` or `.gif` for a preview, `.m3u8` for an HLS ladder, `.vtt` for the captions as a WebVTT file (in output time)", default: "`output.filename`",
                  example: "\"{name}.square.mp4\"", "The deliverable's name, distinct from the others'; placeholders as in `output.filename`."),
        RecipeKey("outputs[].size", "as `output.size`", default: "`output.size`", example: "1080x1080", "The deliverable's frame size."),
        RecipeKey("outputs[].fit", "as `output.fit`", default: "`output.fit`", example: "smart", "How clips go into its frame."),
        RecipeKey("outputs[].smart", "as `output.smart`", default: "`output.smart`", example: "{ subject: faces }", "What its `fit: smart` follows."),
        RecipeKey("outputs[].fps", "as `output.fps`", default: "`output.fps`", example: "30", "Its frame rate."),
        RecipeKey("outputs[].deinterlace", "as `output.deinterlace`", default: "`output.deinterlace`", example: "off", "Interlaced clips."),
        RecipeKey("outputs[].dynamic_range", "as `output.dynamic_range`", default: "`output.dynamic_range`", example: "sdr", "SDR or HDR."),
        RecipeKey("outputs[].video", "as `output.video`, merged key by key", default: "`output.video`", example: "{ crf: 28 }",
                  "Video encoding: the keys given replace `output.video`'s, the others are inherited."),
        RecipeKey("outputs[].audio", "as `output.audio`, merged key by key", default: "`output.audio`", example: "{ bitrate: 96k }",
                  "Audio encoding: the keys given replace `output.audio`'s, the others are inherited."),
        RecipeKey("outputs[].captions", "as `output.captions`", default: "`output.captions`", example: "none",
                  "What this deliverable does with the captions."),
        RecipeKey("outputs[].poster", "mapping", default: "none (a video)", example: "{ at: 2s }",
                  "Makes the deliverable a picture of the composition, drawn exactly as the video of the same size shows it (orientation, fit, overlays)."),
        RecipeKey("outputs[].poster.at", "time in output time, or `best`", default: "required", example: "2s",
                  "Which frame: the one showing at that time, or `best`, the sharpest well-exposed of at most \(RecipeLimits.posterCandidates) frames spread over the output."),
        RecipeKey("outputs[].preview", "mapping", default: "none (a video)", example: "{ from: 0s, duration: 3s, width: 320, fps: 10 }",
                  "Makes the deliverable a short silent animation that loops for ever (animated WebP or GIF, by the filename's extension), drawn as the video shows it, scaled down."),
        RecipeKey("outputs[].preview.from", "time in output time, before its end", default: "`0`", example: "1.5",
                  "Where the preview starts."),
        RecipeKey("outputs[].preview.duration", "seconds, more than 0, at most \(RecipeLimits.maximumPreviewSeconds)", default: "`3`", example: "2s",
                  "How long it lasts; cut at the output's end."),
        RecipeKey("outputs[].preview.width", "even pixels, \(RecipeLimits.previewWidth.lowerBound) to \(RecipeLimits.previewWidth.upperBound)", default: "`320`", example: "480",
                  "Its width (never wider than the output); the height keeps the output's shape, rounded to even."),
        RecipeKey("outputs[].preview.fps", "whole number \(RecipeLimits.previewFrameRate.lowerBound) to \(RecipeLimits.previewFrameRate.upperBound)", default: "`10`", example: "12",
                  "Frames per second: each shows the output's frame at its time."),
        RecipeKey("outputs[].hls", "mapping", default: "none (a video)", example: "{ heights: [1080, 720, 480], segment: 4s }",
                  "Makes the deliverable an adaptive HLS ladder: a folder named after the filename (without `.m3u8`) holding the master playlist (the filename) and one folder of fMP4/CMAF segments per rung, keyframes aligned across the rungs, plus one audio rendition. `size`, `fit`, `fps`, `video` and `audio` apply as for a video: the tallest rung has the output's size."),
        RecipeKey("outputs[].hls.heights", "1 to \(RecipeLimits.maximumHLSRungs) distinct even heights, \(RecipeLimits.hlsHeight.lowerBound) to \(RecipeLimits.hlsHeight.upperBound)", default: "required", example: "[1080, 720, 480]",
                  "The rungs, each the output's shape at that height (width rounded to even). Rungs taller than the output are left out, never upscaled; if none is left, the output's own height is the one rung."),
        RecipeKey("outputs[].hls.segment", "seconds, \(RecipeLimits.hlsSegmentSeconds.lowerBound) to \(RecipeLimits.hlsSegmentSeconds.upperBound)", default: "`6`", example: "4s",
                  "Target segment length: every rung has a keyframe at each multiple of it (to the nearest frame), so players switch rungs at any segment."),

        // clips
        RecipeKey("clips[].source", "`{input}` or a media file: a video, or a PNG or JPEG still image", default: "`{input}`", example: "intro.mp4",
                  "The dropped clip, or a file found like every asset (intro, outro, b-roll, a photo shown for its `duration`)."),
        RecipeKey("clips[].trim", "`[start, end]` in source time; `end` allowed", default: "the whole clip", example: "[0.5, end]",
                  "The part of the clip used: the frames that start at `start` or after it and before `end` (a constant-rate clip's trim moves to those frames' starts; \"Times mean frames\" above)."),
        RecipeKey("clips[].duration", "seconds, more than 0, at most \(RecipeLimits.maximumStillText)", default: "required for a still image", example: "4",
                  "How long a still image (a PNG or JPEG `source`, known by its content) is shown; a still has no sound and takes no `trim`, `speed` or `ramp`. Not for videos: trim them."),
        RecipeKey("clips[].speed", "list of at most \(RecipeLimits.maximumKeyframes) `{ range, rate }`", default: "none", example: "[ { range: [3.0, 5.0], rate: 0.25 } ]",
                  "Slow or fast motion over ranges of source time, inside the trim, not overlapping."),
        RecipeKey("clips[].speed[].range", "`[start, end]` in source time; `end` allowed", default: "required", example: "[3.0, 5.0]",
                  "The source time played at `rate`."),
        RecipeKey("clips[].speed[].rate", "number \(RecipeLimits.rangeText(RecipeLimits.speedRate)) (`0.25`, `1/4`)", default: "required", example: "0.25",
                  "Playback rate: 0.25 is four times slower."),
        RecipeKey("clips[].ramp", "list of 2 to \(RecipeLimits.maximumKeyframes) `{ at, rate }`, changing rate for at most \(RecipeLimits.maximumGlideSeconds) s in all", default: "none", example: "[ { at: 2.4, rate: 1 }, { at: 2.9, rate: 0.25 } ]",
                  "Speed keyframes in source time, glided between in steps of at most 50 ms (like iPhone slow motion)."),
        RecipeKey("clips[].ramp[].at", "time in source time, after the previous keyframe", default: "required", example: "2.4",
                  "Where the keyframe is."),
        RecipeKey("clips[].ramp[].rate", "number \(RecipeLimits.rangeText(RecipeLimits.speedRate))", default: "required", example: "0.25",
                  "The playback rate there."),
        RecipeKey("clips[].audio", "`preserve-pitch`, `varispeed` or `mute`", default: "`preserve-pitch`", example: "varispeed",
                  "Sound in sped-up or slowed parts: stretched at its pitch, played faster/slower like tape, or silent."),
        RecipeKey("clips[].frames", "`repeat` or `blend`", default: "`repeat`", example: "blend",
                  "Slowed video: repeat source frames, or mix the two nearest by time distance."),
        RecipeKey("clips[].volume", "level \(RecipeLimits.rangeText(RecipeLimits.gain, "dB"))", default: "`0dB`", example: "-3dB",
                  "The clip's own sound, before the mix."),
        RecipeKey("clips[].transform", "list of 1 to \(RecipeLimits.maximumKeyframes) `{ at, scale, rotate, move }`, `at` increasing", default: "none",
                  example: "[ { at: 0 }, { at: 4, scale: 1.2, rotate: 10 } ]",
                  "The clip's own motion over its placement, about the output's centre: ramps between keyframes (component-wise on the matrix, as AVFoundation)."),
        RecipeKey("clips[].transform[].at", "time from the clip's start, within the clip", default: "required", example: "4",
                  "When the layer reaches this keyframe."),
        RecipeKey("clips[].transform[].scale", "number \(RecipeLimits.rangeText(RecipeLimits.transformScale))", default: "`1`", example: "1.2",
                  "Zoom about the output's centre."),
        RecipeKey("clips[].transform[].rotate", "degrees \(RecipeLimits.rangeText(RecipeLimits.transformRotation)), clockwise", default: "`0`", example: "10",
                  "Turn about the output's centre (any angle: the compositor resamples)."),
        RecipeKey("clips[].transform[].move", "`[x, y]`: px or % of the output's width and height, may be negative", default: "`[0, 0]`",
                  example: "[0, \"-5%\"]", "Move after the zoom and turn (right and down are positive)."),
        RecipeKey("clips[].ken_burns", "`{ from, to }`", default: "none", example: "{ from: [0, 0, \"100%\", \"100%\"], to: [\"25%\", \"25%\", \"50%\", \"50%\"] }",
                  "Show the clip going from one crop of the upright source to another over its duration, each filling the output; not with `transform`."),
        RecipeKey("clips[].ken_burns.from", "`[x, y, width, height]`: px or % of the upright source", default: "required", example: "[0, 0, \"100%\", \"100%\"]",
                  "The crop shown at the clip's start."),
        RecipeKey("clips[].ken_burns.to", "`[x, y, width, height]`: px or % of the upright source", default: "required", example: "[\"25%\", \"25%\", \"50%\", \"50%\"]",
                  "The crop shown at the clip's end."),

        // transition
        RecipeKey("transition.kind", "`cut`, `crossfade`, `push` or `wipe`", default: "`cut`", example: "crossfade",
                  "How one clip gives way to the next (sound crossfades with every kind but `cut`)."),
        RecipeKey("transition.duration", "seconds, more than 0", default: "`0.5` (`0` for `cut`)", example: "0.75",
                  "How long each transition lasts; clips overlap by this much."),

        // overlays
        RecipeKey("overlays[].image", "a PNG or JPEG file", default: "—", example: "logo.png",
                  "An image overlay (alpha respected). Each overlay has one of `image`, `frames` or `text`."),
        RecipeKey("overlays[].frames", "file pattern with a number (`%02d`, at most \(RecipeLimits.maximumFrameNumberWidth) digits wide), PNG or JPEG", default: "—", example: "spin_%02d.png",
                  "An animated overlay: the numbered files from 0 (or 1) upward while they exist, looping."),
        RecipeKey("overlays[].fps", "number \(RecipeLimits.rangeText(RecipeLimits.sequenceFrameRate))", default: "`12`", example: "24",
                  "Frames per second of a `frames` sequence."),
        RecipeKey("overlays[].text", "text template, at most \(RecipeLimits.maximumTextBytes) bytes", default: "—", example: "\"© {date:yyyy} {name}\"",
                  "A text overlay; `\\n` starts a new line (lines are not wrapped otherwise); placeholders as in `output.filename`. Shaped (HarfBuzz) and bidi-ordered (FriBidi); characters missing from `font` are drawn from the Noto fallback fonts, emoji in colour."),
        RecipeKey("overlays[].anchor", "`top-left`, `top`, `top-right`, `left`, `center`, `right`, `bottom-left`, `bottom` or `bottom-right`",
                  default: "`bottom-right`", example: "top-right",
                  "Where on the frame the overlay sits; text lines align by the anchor's column."),
        RecipeKey("overlays[].margin", "length: pixels (`24`, `\"24px\"`, at most \(lengthPixels)) or `\"4%\"` of the shorter output side (at most \(lengthPercent))", default: "`4%`", example: "24px",
                  "Distance from the anchored edges."),
        RecipeKey("overlays[].width", "length: pixels (at most \(lengthPixels)) or `%` of the output width (at most \(lengthPercent))", default: "the image's own width", example: "15%",
                  "Images: drawn this wide, height by aspect ratio. The picture drawn may be at most twice the output's width and height (`OverlayLimits`)."),
        RecipeKey("overlays[].size", "length: pixels (at most \(lengthPixels)) or `%` of the output height (at most \(lengthPercent))", default: "`4%`", example: "5%",
                  "Text: the font size, at most twice the output's height; the text set may be at most twice the output's width and height."),
        RecipeKey("overlays[].opacity", "number 0 to 1", default: "`1`", example: "0.8",
                  "How opaque the overlay is."),
        RecipeKey("overlays[].fade", "`{ in, out }`", default: "no fades", example: "{ in: 0.5, out: 0.5 }",
                  "Fades at the start and end of the time the overlay is shown."),
        RecipeKey("overlays[].fade.in", "seconds", default: "`0`", example: "0.5",
                  "Fade-in length, from the start of `during`."),
        RecipeKey("overlays[].fade.out", "seconds", default: "`0`", example: "0.5",
                  "Fade-out length, ending with `during`."),
        RecipeKey("overlays[].during", "`[start, end]` in output time; `end` allowed", default: "the whole output", example: "[1.0, end]",
                  "When the overlay is shown."),
        RecipeKey("overlays[].font", "font file name, family and style, or a `.ttf`/`.otf` file", default: "`DejaVuSans.ttf`",
                  example: "DejaVu Sans Bold",
                  "Text: the font, from the asset folders or the system font folders."),
        RecipeKey("overlays[].color", "colour `#rgb`, `#rgba`, `#rrggbb` or `#rrggbbaa`", default: "`#ffffff`", example: "\"#ffffffcc\"",
                  "Text: the colour (with alpha)."),
        RecipeKey("overlays[].move", "`{ from, to, duration }`", default: "none (stays at `anchor`)",
                  example: "{ from: top-right, to: bottom-left, duration: 10 }",
                  "Glides the overlay from one anchor to another from the start of `during`, then rests."),
        RecipeKey("overlays[].move.from", "an anchor", default: "the overlay's `anchor`", example: "top-right",
                  "Where the glide starts."),
        RecipeKey("overlays[].move.to", "an anchor", default: "required", example: "bottom-left",
                  "Where the glide ends."),
        RecipeKey("overlays[].move.duration", "seconds, more than 0", default: "the whole time shown", example: "10",
                  "How long the glide takes."),
        RecipeKey("overlays[].rotate", "degrees \(RecipeLimits.rangeText(RecipeLimits.rotationDegrees))", default: "`0`", example: "-12",
                  "Turns the overlay clockwise about its centre (drawn with bilinear resampling, edges anti-aliased)."),
        RecipeKey("overlays[].spin", "`{ axis, degrees, perspective }`", default: "none (flat)", example: "{ axis: y, degrees: 45, perspective: 500 }",
                  "Turns the overlay in depth about a line through its centre, in perspective (Core Animation's `m34 = -1/perspective`); drawn with a projective inverse map per pixel."),
        RecipeKey("overlays[].spin.axis", "`x` or `y`", default: "`y`", example: "x",
                  "The axis: `y` turns it like a door, `x` like a flap."),
        RecipeKey("overlays[].spin.degrees", "degrees \(RecipeLimits.rangeText(RecipeLimits.rotationDegrees))", default: "`0`", example: "30",
                  "How far it is turned (90: edge-on, 180: seen from behind, mirrored)."),
        RecipeKey("overlays[].spin.perspective", "pixels \(RecipeLimits.rangeText(RecipeLimits.spinPerspective))", default: "`500`", example: "800",
                  "How far the eye is: nearer, the turning edges grow and shrink more."),
        RecipeKey("overlays[].group", "list of overlays, each with the keys of `overlays[]` (groups too: at most \(RecipeLimits.maximumGroupDepth) deep, \(RecipeLimits.maximumOverlayLayers) overlays in a recipe, groups counted)", default: "—",
                  example: "[ { image: logo.png, anchor: left }, { text: \"ACME\", anchor: right } ]",
                  "A group (a CALayer with sublayers): its overlays are placed in its `bounds` as overlays are on the frame, and its placement, `opacity`, fades, `rotate`, `spin` and animations apply to them all, on top of those of every group around it. Its opacity fades what it holds as one picture (Core Animation's group opacity): where its overlays overlap, the lower one does not show through the upper one."),
        RecipeKey("overlays[].bounds", "`[width, height]`: lengths, pixels (at most \(lengthPixels)) or `%` of the output width and height", default: "the output's size",
                  example: "[30%, 120px]",
                  "A group's box: where its overlays' anchors, margins and percentages refer to. At most twice the output's width and height."),
        RecipeKey("overlays[].bounce", "`scale` or `position`", default: "none", example: "scale",
                  "A spring entrance, as CASpringAnimation with its defaults (mass 1, stiffness 100, damping 10), settling in 1.41 s from the start of `during`: `scale` grows from nothing, overshooting 16 %; `position` drops in from above its place. Not with an animation of the same property."),
        RecipeKey("overlays[].animate", "list of `{ property, keyframes, repeat, autoreverse }`, one per property", default: "none",
                  example: "[ { property: rotate, keyframes: [ { at: 0, value: 0 }, { at: 2, value: 360 } ], repeat: forever } ]",
                  "Keyframe animations, as Core Animation's: times from the start of `during`; before the first keyframe its value, after the last pass the value it ended on."),
        RecipeKey("overlays[].animate[].property", "`opacity` (multiplies fades and `opacity`), `position` (replaces `anchor`; not with `move`), `scale`, `rotate` (adds to `rotate`) or `spin` (adds to `spin.degrees`; spins about `y` from 500 px without a `spin` key)",
                  default: "required", example: "rotate",
                  "What the keyframes animate."),
        RecipeKey("overlays[].animate[].keyframes", "list of 1 to \(RecipeLimits.maximumKeyframes) `{ at, value, timing }`", default: "required",
                  example: "[ { at: 0, value: 0 }, { at: 2, value: 360, timing: ease-in-out } ]",
                  "The values over one pass."),
        RecipeKey("overlays[].animate[].keyframes[].at", "seconds from the start of `during`, after the keyframe before", default: "required", example: "0",
                  "When the keyframe's value is reached."),
        RecipeKey("overlays[].animate[].keyframes[].value", "opacity 0 to 1; scale \(RecipeLimits.rangeText(RecipeLimits.overlayScale)); rotate and spin degrees \(RecipeLimits.rangeText(RecipeLimits.rotationDegrees)); position an anchor or `[x, y]`, each 0 (left, top) to 1 (right, bottom) within the margins",
                  default: "required", example: "360",
                  "The value at `at`."),
        RecipeKey("overlays[].animate[].keyframes[].timing", "`linear`, `ease-in`, `ease-out`, `ease-in-out` (CAMediaTimingFunction's curves), `hold` or `spring` (CASpringAnimation's default spring, the segment standing for its 1.41 s settling time); not on the first keyframe",
                  default: "`linear`", example: "ease-in-out",
                  "How the value gets here from the keyframe before (`hold`: keeps the earlier value, then jumps)."),
        RecipeKey("overlays[].animate[].repeat", "passes \(RecipeLimits.repeatCount.lowerBound) to \(RecipeLimits.repeatCount.upperBound), or `forever`", default: "`1`", example: "forever",
                  "How many times the keyframes play (each pass restarts at the first value)."),
        RecipeKey("overlays[].animate[].autoreverse", "`true` or `false`", default: "`false`", example: "true",
                  "Each pass plays forward, then backward (a pass then lasts twice as long)."),
        RecipeKey("overlays[].outline", "width (pixels or `%`) or `{ width, color }`", default: "none", example: "{ width: 2, color: \"#000000\" }",
                  "Text: an outline around the letters."),
        RecipeKey("overlays[].outline.width", "length more than 0, at most \(formatNumber(RecipeLimits.maximumStroke))", default: "`2`", example: "3",
                  "Outline thickness."),
        RecipeKey("overlays[].outline.color", "colour", default: "`#000000`", example: "\"#202020\"",
                  "Outline colour."),
        RecipeKey("overlays[].shadow", "offset (pixels or `%`) or `{ offset, color }`", default: "none", example: "{ offset: 3, color: \"#00000099\" }",
                  "Text: a drop shadow down and to the right."),
        RecipeKey("overlays[].shadow.offset", "length more than 0, at most \(formatNumber(RecipeLimits.maximumStroke))", default: "`2`", example: "3",
                  "How far the shadow falls."),
        RecipeKey("overlays[].shadow.color", "colour", default: "`#00000099`", example: "\"#00000080\"",
                  "Shadow colour."),

        // music
        RecipeKey("music.source", "an audio file (mp3, m4a, wav, flac, ogg...)", default: "required", example: "bed.mp3",
                  "The music, found like every asset."),
        RecipeKey("music.gain", "level \(RecipeLimits.rangeText(RecipeLimits.gain, "dB"))", default: "`0dB`", example: "-10dB",
                  "The music's level when nothing ducks it."),
        RecipeKey("music.offset", "seconds, not negative", default: "`0`", example: "12.5",
                  "Start this far into the file (loops restart here too)."),
        RecipeKey("music.loop", "`true` or `false`", default: "`false`", example: "true",
                  "Repeat, crossfading 50 ms at each loop point; else play once, then silence."),
        RecipeKey("music.fade", "`{ in, out }`", default: "no fades", example: "{ in: 1.0, out: 2.0 }",
                  "Fades of the music bed over the output."),
        RecipeKey("music.fade.in", "seconds", default: "`0`", example: "1.0",
                  "Fade-in from the start (squared curve)."),
        RecipeKey("music.fade.out", "seconds", default: "`0`", example: "2.0",
                  "Fade-out ending with the video (cubed curve)."),
        RecipeKey("music.duck", "mapping", default: "none (no ducking)", example: "{ depth: -12dB, threshold: -30dBFS }",
                  "Lower the music under the clips' own sound."),
        RecipeKey("music.duck.depth", "level \(RecipeLimits.rangeText(RecipeLimits.duckDepth, "dB"))", default: "`-12dB`", example: "-15dB",
                  "How far the music goes down."),
        RecipeKey("music.duck.threshold", "level \(RecipeLimits.rangeText(RecipeLimits.duckThreshold, "dBFS"))", default: "`-30dBFS`", example: "-35dBFS",
                  "The clips' sound at or above this (RMS over 20 ms) ducks the music."),
        RecipeKey("music.duck.attack", "seconds, more than 0, at most \(RecipeLimits.maximumDuckTimeSeconds)", default: "`0.2`", example: "0.15",
                  "How long the music takes to go down, ending as the sound starts."),
        RecipeKey("music.duck.release", "seconds, more than 0, at most \(RecipeLimits.maximumDuckTimeSeconds)", default: "`0.8`", example: "1.0",
                  "How long it takes to come back up after the sound ends."),
        RecipeKey("music.duck.hold", "seconds, 0 to \(RecipeLimits.maximumDuckTimeSeconds)", default: "`0.5`", example: "0.3",
                  "Pauses shorter than this keep the music down."),
        RecipeKey("music.duck.windows", "list of `[start, end]` in output time; `end` allowed", default: "none (measured)",
                  example: "[[2, 5], [9, end]]",
                  "Duck over these ranges instead of measuring the clips' sound."),

        // captions
        RecipeKey("captions.source", "an `.srt` or `.vtt` file, or `embedded`", default: "the dropped clip's sidecar `<stem>.srt` or `<stem>.vtt`", example: "talk.srt",
                  "The cues, in the source time of the dropped clip (`{input}`; the first clip when none is): a subtitle file found like every asset, or `embedded`, the clip's own subtitle stream (`mov_text`, WebVTT or SubRip)."),
        RecipeKey("captions.style", "mapping", default: "see `captions.style.*`", example: "{ font: \"Noto Sans Bold\", size: 6% }",
                  "How the captions look."),
        RecipeKey("captions.style.font", "a font file or family and style", default: "`DejaVuSans-Bold.ttf`", example: "\"Noto Sans Bold\"",
                  "The first font tried; characters it lacks come from the system's Noto fonts (Arabic, Hebrew, Devanagari, CJK, emoji...)."),
        RecipeKey("captions.style.size", "length: px, or % of the output height", default: "`5%`", example: "6%",
                  "Text size (the em)."),
        RecipeKey("captions.style.color", "colour", default: "`#fff`", example: "\"#ffffff\"",
                  "Text colour."),
        RecipeKey("captions.style.highlight", "colour", default: "none", example: "\"#ffd400\"",
                  "Colour of the word being spoken, for cues with word timing (WebVTT timestamps inside the cue)."),
        RecipeKey("captions.style.outline", "length (px, or % of the text size) or `{ width, color }`", default: "`{ width: 6%, color: \"#000\" }`", example: "{ width: 3, color: \"#000\" }",
                  "Outline around the glyphs; `0` for none."),
        RecipeKey("captions.style.outline.width", "length: px, or % of the text size", default: "`6%`", example: "3",
                  "The outline's width."),
        RecipeKey("captions.style.outline.color", "colour", default: "`#000`", example: "\"#000000\"",
                  "The outline's colour."),
        RecipeKey("captions.style.shadow", "length (px, or % of the text size) or `{ offset, color }`", default: "none", example: "{ offset: 4, color: \"#0009\" }",
                  "Drop shadow down and right."),
        RecipeKey("captions.style.shadow.offset", "length: px, or % of the text size", default: "`2`", example: "4",
                  "How far down and right the shadow falls."),
        RecipeKey("captions.style.shadow.color", "colour", default: "`#0009`", example: "\"#00000099\"",
                  "The shadow's colour."),
        RecipeKey("captions.style.background", "colour", default: "none", example: "\"#000000a0\"",
                  "A box behind each line of text."),
        RecipeKey("captions.style.padding", "length: px, or % of the text size", default: "`25%`", example: "12",
                  "Space between the text and the box's edge."),
        RecipeKey("captions.style.corner_radius", "length: px, or % of the text size", default: "`20%`", example: "8",
                  "The box's rounded corners."),
        RecipeKey("captions.style.position", "`bottom`, `top` or `middle`", default: "`bottom`", example: "top",
                  "Where in the safe area captions sit when a WebVTT cue does not place itself (`line:`)."),
        RecipeKey("captions.style.safe_area", "`auto` or `[top, right, bottom, left]` in % of the frame (0 to 45 each)", default: "`auto`", example: "[\"10%\", \"12%\", \"25%\", \"6%\"]",
                  "The area captions never leave. `auto`: 5 % in from each edge (EBU R 95 graphics safe), or for portrait frames 10 % top, 12 % right, 25 % bottom, 6 % left (clear of the short-video apps' buttons and text)."),
        RecipeKey("captions.style.language", "a BCP 47 language tag (`en`, `ar`, `ja`, `zh-Hans`, `zh-Hant`, `ko`)", default: "the system's", example: "zh-Hant",
                  "The captions' language: Han characters take its forms (the Japanese, Korean, Simplified, Traditional or Hong Kong face of Noto Sans CJK), and shaping uses its language-specific forms."),
        RecipeKey("captions.style.max_lines", "whole number 1 to \(RecipeLimits.maximumCaptionLines)", default: "`2`", example: "1",
                  "How many lines wrapping may make of a cue: a cue that wraps to more is set smaller, down to half size, to wrap less. Every line is always drawn: lines the cue itself has never count against it (a cue of 4 written lines shows 4), text is never cut, and a cue too tall or wide for the safe area is set smaller until it fits (the log says so once per captions track)."),
        RecipeKey("captions.style.max_width", "% of the safe area's width, 20% to 100%", default: "`100%`", example: "80%",
                  "The longest a line may be before it breaks (Unicode line-breaking rules)."),

        // audio items
        RecipeKey("audio[].source", "an audio (or video) file", default: "required", example: "voiceover.m4a",
                  "The sound, found like every asset."),
        RecipeKey("audio[].at", "time in output time, before the output's end", default: "`0`", example: "2.0",
                  "Where the item starts; it stops at its end or the output's, whichever is first."),
        RecipeKey("audio[].trim", "`[start, end]` in the file's time; `end` allowed", default: "the whole file", example: "[0.5, end]",
                  "The part of the file played."),
        RecipeKey("audio[].volume", "level \(RecipeLimits.rangeText(RecipeLimits.gain, "dB"))", default: "`0dB`", example: "-3dB",
                  "The item's level."),
        RecipeKey("audio[].fade", "`{ in, out }`", default: "no fades", example: "{ in: 0.2, out: 0.5 }",
                  "Fades at the item's start and end (in: squared, out: cubed, like the music bed's)."),
        RecipeKey("audio[].fade.in", "seconds", default: "`0`", example: "0.2",
                  "Fade-in length, from the item's start."),
        RecipeKey("audio[].fade.out", "seconds", default: "`0`", example: "0.5",
                  "Fade-out length, ending with the item."),
        RecipeKey("audio[].mode", "`mix` or `replace`", default: "`mix`", example: "replace",
                  "`mix` adds the item (a sound effect); `replace` silences the clips' own sound over its range (a voice-over); replace items must not overlap."),
        RecipeKey("audio[].pitch", "semitones \(RecipeLimits.rangeText(RecipeLimits.pitchSemitones))", default: "`0`", example: "+12",
                  "Pitch shift, duration unchanged (+12 an octave up; formant-naive)."),
        RecipeKey("audio[].duck_music", "`true` or `false`", default: "`true` for `replace`, else `false`", example: "true",
                  "The music bed ducks under the item (by `music.duck`'s depth, attack and release, or their defaults)."),
    ]

    /// The keys a mapping accepts, in the reference's order: `section` is `""` for the
    /// top level, else a key's path with `[]` for list items (`clips[]`, `overlays[].move`).
    package static func allowedKeys(in section: String) -> [String] {
        keys.filter { $0.section == section }.map(\.name)
    }

    /// How the reference writes the bound of pixel and percent lengths.
    private static let lengthPixels = "\(formatNumber(RecipeLimits.maximumLengthPixels))px"
    private static let lengthPercent = "\(formatNumber(RecipeLimits.maximumLengthPercent))%"

    /// The reference as Markdown: a table of the top-level keys, then one per section, each
    /// row with the key's type, default, an example and what it does. docs/recipes.md holds this
    /// text between `<!-- recipe-reference:begin -->` and `<!-- recipe-reference:end -->`.
    package static func markdown() -> String {
        var out = "<!-- Generated from Sources/Recipe/Decoding/RecipeKeys.swift by scripts/docs: edit there, not here. -->\n"
        // The bound every time shares, said once rather than in each time's row.
        out += "\nEvery time in a recipe (seconds, `\"250ms\"`, `\"01:02:03.5\"`) is at most \(RecipeLimits.maximumTimeText).\n"
        out += table(title: "Top level", keys.filter { $0.section.isEmpty })
        // A section per top-level key that has keys under it, in the top level's order.
        for top in keys where top.section.isEmpty {
            let under = keys.filter { $0.path.hasPrefix(top.path + ".") || $0.path.hasPrefix(top.path + "[].") }
            if !under.isEmpty { out += table(title: "`\(top.path)`", under) }
        }
        return out
    }

    private static func table(title: String, _ rows: [RecipeKey]) -> String {
        var out = "\n### \(title)\n\n| Key | Type | Default | Example | What it does |\n|---|---|---|---|---|\n"
        for key in rows {
            let cells = ["`\(key.path)`", key.type, key.defaultValue, "`\(key.name): \(key.example)`", key.summary]
            // A `|` would end the cell early, even inside code.
            out += "| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |\n"
        }
        return out
    }
}
