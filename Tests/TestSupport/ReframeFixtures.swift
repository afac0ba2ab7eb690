import Foundation

/// `fit: smart`'s labelled test set: real photographs of people (from Debian's packages,
/// fetched by scripts/photos) moved by the ffmpeg CLI along known paths over real
/// backgrounds, so where each face is in each frame is known from the paths, not from
/// any detector. Laid out at 1280x720 and scaled to 640x360 (the analysis looks at 480 px
/// either way; decoding and encoding a quarter of the pixels keeps the suite quick),
/// 30 fps.
///
/// The labels are hand-measured face centres in the photographs (a 50 px grid laid over
/// each): Grace Hopper's at (262, 235) of 512x600, Eileen Collins's at (223, 110) of
/// 512x512.
public enum ReframeFixtures {
    public static let width = 640.0, height = 360.0, fps = 30.0
    /// From the 1280x720 layout to the clip.
    static let scale = width / 1280

    /// The folder the photographs are in: `DROPCUT_PHOTOS` (scripts/test sets it), else
    /// what scripts/photos prints (it fetches them once into ~/.cache/dropcut-photos).
    public static func photos() throws -> String {
        if let dir = ProcessInfo.processInfo.environment["DROPCUT_PHOTOS"], FileManager.default.fileExists(atPath: dir + "/vtest.avi") {
            return dir
        }
        return try Command.runChecked(Repository.path("scripts/photos"), []).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A clip of the set, with where its faces are.
    public struct LabelledClip: Sendable {
        public var path: String
        public var duration: Double
        /// The face centres, pixels, at time `t` (seconds).
        public var faces: @Sendable (Double) -> [(x: Double, y: Double)]

        /// `laidOut`: the face centres in the 1280x720 layout.
        init(path: String, duration: Double, laidOut: @escaping @Sendable (Double) -> [(x: Double, y: Double)],
             still: [ClosedRange<Double>], cuts: [Double]) {
            self.path = path
            self.duration = duration
            faces = { t in laidOut(t).map { ($0.x * ReframeFixtures.scale, $0.y * ReframeFixtures.scale) } }
            self.still = still
            self.cuts = cuts
        }
        /// Where the subjects stand still (the camera should too, once settled).
        public var still: [ClosedRange<Double>]
        /// Where shots change.
        public var cuts: [Double]
    }

    /// Grace Hopper, head and shoulders (the photograph's 270x580 at 130,20), 360 px tall:
    /// her face centre is (82, 133) from the overlay's top left.
    static let hopper = (filter: "crop=270:580:130:20,scale=-2:360", face: (x: 82.0, y: 133.4))
    /// Eileen Collins (200x512 at 123,0), 360 px tall: face centre (70, 77).
    static let collins = (filter: "crop=200:512:123:0,scale=-2:360", face: (x: 70.3, y: 77.3))

    static func background(_ input: Int) -> String { "[\(input)]scale=1280:-2,crop=1280:720,setsar=1" }

    static func encode(_ inputs: [String], _ graph: String, seconds: Double, to output: String) throws {
        var args = ["-hide_banner", "-nostdin", "-loglevel", "error", "-y"]
        // At 30 fps from the start (an image input is 25 fps by default, and the labels'
        // times would then land a frame off after the rate conversion).
        for input in inputs { args += ["-loop", "1", "-framerate", "30", "-i", input] }
        args += ["-filter_complex", graph + ",scale=\(Int(width)):\(Int(height))", "-t", "\(seconds)", "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p"]
        try FixtureCache.ffmpeg(args, output: output)
    }

    /// Hopper still at the left for 2 s, walking right across the frame for 2.5 s, still
    /// at the right: 6 s.
    public static func walk(in dir: String) throws -> LabelledClip {
        let p = try photos(), output = (dir as NSString).appendingPathComponent("walk.mp4")
        @Sendable func x(_ t: Double) -> Double { t < 2 ? 150 : t < 4.5 ? 150 + (t - 2) / 2.5 * 850 : 1000 }
        try encode(["\(p)/building.jpg", "\(p)/grace_hopper.jpg"],
                   "\(background(0))[bg];[1]\(hopper.filter)[p];[bg][p]overlay=x='if(lt(t,2),150,if(lt(t,4.5),150+(t-2)/2.5*850,1000))':y=300,format=yuv420p",
                   seconds: 6, to: output)
        return LabelledClip(path: output, duration: 6, laidOut: { t in [(x(t) + hopper.face.x, 300 + hopper.face.y)] },
                            still: [0...1.95, 5.5...5.95], cuts: [])
    }

    /// Hopper at the left in front of the building for 2.5 s, then a cut to Collins at
    /// the right in front of another building: 5 s.
    public static func cut(in dir: String) throws -> LabelledClip {
        let p = try photos(), output = (dir as NSString).appendingPathComponent("cut.mp4")
        try encode(["\(p)/building.jpg", "\(p)/home.jpg", "\(p)/grace_hopper.jpg", "\(p)/astronaut.png"],
                   "\(background(0))[a];\(background(1))[b];[2]\(hopper.filter)[h];[3]\(collins.filter)[c];"
                   + "[a][h]overlay=x=100:y=300[one];[b][c]overlay=x=900:y=300[two];"
                   + "[one][two]overlay=enable='gte(t,2.5)',format=yuv420p",
                   seconds: 5, to: output)
        return LabelledClip(path: output, duration: 5,
                            laidOut: { t in t < 2.5 ? [(100 + hopper.face.x, 300 + hopper.face.y)] : [(900 + collins.face.x, 300 + collins.face.y)] },
                            still: [0...2.45, 2.5...4.95], cuts: [2.5])
    }

    /// Hopper and Collins side by side, left of the middle, still: 4 s.
    public static func pair(in dir: String) throws -> LabelledClip {
        let p = try photos(), output = (dir as NSString).appendingPathComponent("pair.mp4")
        try encode(["\(p)/home.jpg", "\(p)/grace_hopper.jpg", "\(p)/astronaut.png"],
                   "\(background(0))[bg];[1]\(hopper.filter)[h];[2]\(collins.filter)[c];[bg][h]overlay=x=150:y=300[one];[one][c]overlay=x=330:y=300,format=yuv420p",
                   seconds: 4, to: output)
        return LabelledClip(path: output, duration: 4,
                            laidOut: { _ in [(150 + hopper.face.x, 300 + hopper.face.y), (330 + collins.face.x, 300 + collins.face.y)] },
                            still: [0...3.95], cuts: [])
    }

    /// The building alone, nothing moving: 3 s.
    public static func empty(in dir: String) throws -> LabelledClip {
        let p = try photos(), output = (dir as NSString).appendingPathComponent("empty.mp4")
        try encode(["\(p)/building.jpg"], "\(background(0)),format=yuv420p", seconds: 3, to: output)
        return LabelledClip(path: output, duration: 3, laidOut: { _ in [] }, still: [0...2.95], cuts: [])
    }

    /// `count` copies of Hopper's face, small, in a grid over the building, still: for the
    /// analysis's cost with a crowd.
    public static func crowd(in dir: String, count: Int = 30, seconds: Double = 4) throws -> String {
        let p = try photos(), output = (dir as NSString).appendingPathComponent("crowd\(count).mp4")
        let columns = 6
        var graph = "\(background(0))[bg0];[1]crop=230:260:147:105,scale=-2:110,split=\(count)" + (0..<count).map { "[f\($0)]" }.joined() + ";"
        for i in 0..<count {
            let x = 40 + (i % columns) * 205, y = 20 + (i / columns) * 138
            graph += "[bg\(i)][f\(i)]overlay=x=\(x):y=\(y)[bg\(i + 1)];"
        }
        graph += "[bg\(count)]format=yuv420p"
        try encode(["\(p)/building.jpg", "\(p)/grace_hopper.jpg"], graph, seconds: seconds, to: output)
        return output
    }
}
