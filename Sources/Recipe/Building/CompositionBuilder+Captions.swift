import Foundation
import DropcutSubtitles
import DropcutSupport
import DropcutTimeline

extension CompositionBuilder {
    /// The captions: the cues read from the recipe's source (or the dropped clip's
    /// `.srt`/`.vtt` sidecar), mapped from the clip's source time through the composition,
    /// styled for an output `renderSize`, and where they came from; nil when there are none.
    func makeCaptions(input: String, clips: [PlacedClip], composition: Composition,
                      renderSize: PixelSize) throws(CompositionBuildError) -> (track: CaptionTrack, source: String, warnings: [String])? {
        let cues: [CaptionCue], source: String
        var warnings: [String] = []
        switch recipe.captions?.source ?? .sidecar {
        case .sidecar:
            guard let path = Self.captionSidecar(besides: input) else { return nil }
            (cues, warnings) = try Self.readCaptions(path)
            source = path
        case let .file(path):
            (cues, warnings) = try Self.readCaptions(path)
            source = path
        case .embedded:
            do { cues = try probe.subtitleCues(input) } catch {
                throw .media(path: input, reason: "captions: embedded: \(Self.reason(error, about: input))")
            }
            source = "\(input) (its subtitle stream)"
        }
        // A sidecar without `captions:` in the recipe: the default style.
        let spec: Recipe.Captions
        if let captions = recipe.captions {
            spec = captions
        } else {
            guard case let .success(font) = AssetResolver().resolveFont(Recipe.Captions.defaultFont, recipeFile: "") else {
                throw .media(path: Recipe.Captions.defaultFont, reason: "the default caption font is not installed (fonts-dejavu-core)")
            }
            spec = Recipe.Captions(font: font, location: SourceLocation(file: recipe.name, line: 1, column: 1))
        }
        // The cues are the dropped clip's; a recipe without `{input}` captions its first clip.
        let asset = (clips.first { $0.spec.source == "{input}" } ?? clips[0]).media.path
        let mapped = CaptionTiming.retime(cues, asset: asset, in: composition)
        return (CaptionTrack(cues: mapped, style: spec.style(outputHeight: renderSize.height)), source, warnings)
    }

    /// The clip's caption sidecar: `<stem>.srt` or `<stem>.vtt` beside it (any letter case;
    /// the exact case first, then `.srt` before `.vtt`).
    package static func captionSidecar(besides input: String) -> String? {
        SidecarFile.path(besides: input, extensions: [SubtitleFormat.subRip.rawValue, SubtitleFormat.webVTT.rawValue])
    }

    /// Reads and parses a subtitle file, refusing what is too large before reading it: its
    /// cues, and what was skipped in it (each kind once, `file:line: what`).
    static func readCaptions(_ path: String) throws(CompositionBuildError) -> (cues: [CaptionCue], warnings: [String]) {
        guard let format = SubtitleFormat(fileName: path) else {
            throw .media(path: path, reason: "not a subtitle file: captions are read from .srt and .vtt files")
        }
        let bytes: [UInt8]
        do {
            // Not through a symlink, never a FIFO or device, at most the parser's limit.
            bytes = try TextFile.bytes(path, limit: SubtitleLimits.maximumFileBytes)
        } catch {
            throw .media(path: path, reason: "the captions \(error)")
        }
        do {
            let document = try format.read(bytes, path: path)
            return (document.captions, document.warnings.map(\.description))
        } catch {
            throw .media(path: path, reason: error.line > 0 ? "line \(error.line): \(error.reason)" : error.reason)
        }
    }
}
