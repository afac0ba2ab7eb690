import Foundation

/// Video whose stream leaves its field order unknown while its frames are flagged
/// interlaced (or not), made with the ffmpeg CLI.
///
/// H.264 and MPEG-2 cannot be used: FFmpeg's parsers state their field order for every
/// file (H.264's from the picture timing SEI, or without one from the two fields' picture
/// order counts; MPEG-2's from the picture coding extension), whatever the container.
/// FFV1 version 3 carries each frame's field order in its slice headers and FFmpeg has no
/// parser to read them, so: a moving `testsrc2` at 50p woven into 25i by `tinterlace`,
/// coded as FFV1 (lossless) into AVI, which stores no field order, then copied into
/// Matroska with BT.709 tags (a copy keeps the order unknown: the Matroska muxer writes a
/// `FieldOrder` only for codec parameters that have one; the ffmpeg CLI gives an encoder
/// one from its first frame, so encoding straight to Matroska would state it). The tags
/// keep the render's colour as the source's, so a comparison with the ffmpeg CLI's
/// `bwdif` of the same file measures the deinterlacing alone.
///
/// DV needs no trick: FFmpeg states no field order for it in any container, and its
/// decoder flags every SD frame interlaced, bottom field first.
public enum UnstatedFieldOrderFixture {
    static let quiet = ["-hide_banner", "-nostdin", "-loglevel", "error", "-y"]
    static let tags = ["-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709", "-color_range", "tv"]

    /// 25i FFV1 in Matroska, top or bottom field first, two seconds of `width`x`height`;
    /// returns its path (`dir/ffv1-tff.mkv` or `ffv1-bff.mkv`).
    public static func interlaced(topFirst: Bool, width: Int = 640, height: Int = 360, in dir: String) throws -> String {
        let weave = topFirst ? "tinterlace=interleave_top,setfield=tff" : "tinterlace=interleave_bottom,setfield=bff"
        return try ffv1(source: "testsrc2=size=\(width)x\(height):rate=50:duration=2", filter: weave,
                        name: topFirst ? "ffv1-tff" : "ffv1-bff", in: dir)
    }

    /// 25p FFV1 in Matroska made the same way, its frames flagged progressive: the stream
    /// leaves its order unknown just the same. Returns `dir/ffv1-progressive.mkv`.
    public static func progressive(width: Int = 640, height: Int = 360, in dir: String) throws -> String {
        try ffv1(source: "testsrc2=size=\(width)x\(height):rate=25:duration=2", filter: "setfield=prog",
                 name: "ffv1-progressive", in: dir)
    }

    /// Two seconds of PAL DV (720x576, 25i, bottom field first) in `dir/name` (`.dv`,
    /// `.avi`, `.mov`...), stream-copied from a raw DV file.
    public static func dv(name: String = "dv.avi", in dir: String) throws -> String {
        let raw = (dir as NSString).appendingPathComponent("dv-raw.dv")
        let output = (dir as NSString).appendingPathComponent(name)
        try Command.runChecked("ffmpeg", quiet + ["-f", "lavfi", "-i", "testsrc2=size=720x576:rate=50:duration=2",
                                                  "-vf", "tinterlace=interleave_bottom,setfield=bff,format=yuv420p",
                                                  "-c:v", "dvvideo", raw])
        try Command.runChecked("ffmpeg", quiet + ["-i", raw, "-c", "copy", output])
        return output
    }

    private static func ffv1(source: String, filter: String, name: String, in dir: String) throws -> String {
        let avi = (dir as NSString).appendingPathComponent(name + ".avi")
        let mkv = (dir as NSString).appendingPathComponent(name + ".mkv")
        try Command.runChecked("ffmpeg", quiet + ["-f", "lavfi", "-i", source,
                                                  "-vf", "\(filter),scale=out_color_matrix=bt709:out_range=tv,format=yuv420p",
                                                  "-c:v", "ffv1", "-level", "3", avi])
        try Command.runChecked("ffmpeg", quiet + ["-i", avi, "-c", "copy"] + tags + [mkv])
        return mkv
    }
}
