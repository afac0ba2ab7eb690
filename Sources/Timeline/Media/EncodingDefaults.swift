/// dropcut's defaults for the encoders' quality knobs, in one place: what a recipe gets
/// when it says nothing (`output.video.crf`, `preset`), what `ExportSettings` and
/// `VideoEncoderSettings` start from, and what the recipe reference documents.
package enum EncodingDefaults {
    /// x264/x265 constant rate factor: visually transparent for phone footage at a
    /// moderate size.
    package static let crf = 20
    /// x264/x265 speed preset: near real time on two cores at 1080p.
    package static let preset = "veryfast"
}
