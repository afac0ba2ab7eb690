import Foundation
import DropcutPipeline

/// One line a worker writes to the daemon on its event pipe (JSON, one object per line).
package enum WorkerEvent: Codable, Sendable, Hashable {
    /// The production is built: it renders into `temporary` (recorded by the daemon so a
    /// crash leaves nothing behind), for `output`, lasting `duration` seconds (which sets
    /// the wall-clock limit).
    case rendering(temporary: String, output: String, duration: Double)
    /// A recipe with `outputs:`: every deliverable is rendered into its temporary file
    /// (`temporary` for `output`, of `kind`), in this order, and `manifest` is the set's
    /// manifest name; `duration` is the sum of their lengths (what the wall-clock limit is
    /// set from: each video is a render of its own). Sent before any file is written, so
    /// the daemon has recorded every name a crash could leave behind.
    case renderingSet(files: [SetFile], manifest: String, duration: Double)
    /// A set's files are complete: what the manifest says of each (named by its final
    /// name as the recipe gives it; the daemon writes the published names). Sent just
    /// before `finished`.
    case described([Deliverables.File])
    /// The fraction of the render done.
    case progress(Double)
    /// The temporary output is complete.
    case finished(elapsedMilliseconds: Int, speed: Double?)
    /// The job cannot be rendered (`transient`: retry it later), with the reason;
    /// `incomplete`: the clip ends before its own index says it should (still being
    /// written?), so the daemon looks again before failing it.
    case failed(transient: Bool, reason: String, errno: Int32?, incomplete: Bool?)
    /// A thumbnail request's JPEG (base64 in the JSON).
    case thumbnail(Data)

    /// One file of a set as the worker renders it.
    package struct SetFile: Codable, Sendable, Hashable {
        /// Where it is rendered: a hidden file in the outbox, or for an HLS ladder a hidden
        /// folder named after the ladder's folder (`.clip.partial-<job>`).
        package var temporary: String
        /// Its name as the recipe gives it (a ladder's: its master playlist's, `clip.m3u8`).
        package var output: String
        /// `video`, `poster`, `preview` or `hls`.
        package var kind: String
    }

    /// The longest line the daemon reads: a longer one is a broken worker. (A thumbnail's
    /// JPEG, 320 px at most, is tens of KB; in base64 a third more.)
    static let maximumLineBytes = 1024 * 1024

    /// The event as one line of JSON with its newline.
    var line: Data {
        var data = (try? JSONEncoder().encode(self)) ?? Data("{}".utf8)
        data.append(0x0A)
        return data
    }

    /// The event a line holds; nil for anything else.
    init?(line: some Collection<UInt8>) {
        guard let event = try? JSONDecoder().decode(WorkerEvent.self, from: Data(line)) else { return nil }
        self = event
    }
}
