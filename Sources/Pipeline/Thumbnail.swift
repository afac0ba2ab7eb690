import Foundation
import DropcutMediaIO
import DropcutRecipe
import DropcutRender
import DropcutSupport
import DropcutTimeline

/// A small picture of a rendered file, for the daemon's status page: its first frame as an
/// identity recipe shows it (orientation applied, SDR), fitted into a bound, as JPEG.
public enum Thumbnail {
    /// The status page's thumbnails fit in this.
    public static let bound = PixelSize(width: 320, height: 320)

    /// The JPEG of `path`'s first frame fitted into `bound` (never upscaled).
    public static func jpeg(of path: String, fittingIn bound: PixelSize = Thumbnail.bound) async throws -> [UInt8] {
        var recipe = Recipe(name: "thumbnail")
        recipe.output.sizeBound = .max(bound)
        let production = try await Production.prepare(recipe: recipe, input: path)
        return try await BlockingWork.run("dropcut-thumbnail") { [built = production.built, settings = production.settings] _ in
            var sdr = settings
            sdr.dynamicRange = .sdr
            let renderer = try PosterRenderer(composition: built.composition, videoComposition: built.videoComposition,
                                              overlays: [], settings: sdr)
            return try PictureEncoder.encode(try renderer.frame(0), as: .jpeg)
        }
    }
}
