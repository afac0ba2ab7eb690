import DropcutDaemon
import DropcutPipeline
import Foundation

/// One of several processes the publishing tests start at once: in each round it writes a
/// file of its own beside `directory`'s final names, waits for the round's instant (the
/// same wall-clock instant for every racer, so their publishes collide) and publishes it
/// under the round's name with `DurableFiles.linkUnique`, as the daemon publishes an
/// output. Prints `<round> <final name> <start ns> <end ns>` a line; exits 1 with the
/// error on stderr at the first failure.
///
/// `PublishRacer DIRECTORY RACER ROUNDS START_NS INTERVAL_MS METHOD [folders]` — METHOD is
/// the first `PublishMethod` tried (link, renameNoReplace, placeholder); `folders` publishes
/// a folder a round instead (as an HLS ladder is published: `clip-<round>/`, holding
/// `clip.m3u8` with the contents and a rung's folder).
@main
struct PublishRacer {
    /// What racer `racer` publishes in `round`: its identity, then bytes that differ per
    /// racer and round, so a file replaced by another's shows.
    static func contents(racer: Int, round: Int) -> Data {
        var bytes = Array("racer \(racer) round \(round)\n".utf8)
        var state = UInt64(racer &* 7919 &+ round &* 104_729 &+ 1)
        for _ in 0..<8192 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes.append(UInt8(truncatingIfNeeded: state >> 33))
        }
        return Data(bytes)
    }

    static func realtimeNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count == 7 || (arguments.count == 8 && arguments[7] == "folders"), let racer = Int(arguments[2]), let rounds = Int(arguments[3]),
              let start = Int64(arguments[4]), let interval = Int64(arguments[5]),
              let method = ["link": PublishMethod.link, "renameNoReplace": .renameNoReplace,
                            "placeholder": .placeholder][arguments[6]] else {
            FileHandle.standardError.write(Data("usage: PublishRacer DIRECTORY RACER ROUNDS START_NS INTERVAL_MS METHOD [folders]\n".utf8))
            exit(64)
        }
        let directory = arguments[1]
        let folders = arguments.count == 8
        var report = ""
        for round in 0..<rounds {
            let source = (directory as NSString).appendingPathComponent(".racer-\(racer)-\(round).tmp")
            do {
                if folders {
                    try FileManager.default.createDirectory(atPath: source + "/120p", withIntermediateDirectories: true)
                    try contents(racer: racer, round: round).write(to: URL(fileURLWithPath: source + "/clip.m3u8"))
                    try Data("segment".utf8).write(to: URL(fileURLWithPath: source + "/120p/seg-00000.m4s"))
                } else {
                    try contents(racer: racer, round: round).write(to: URL(fileURLWithPath: source))
                }
                let due = start + Int64(round) * interval * 1_000_000
                while case let wait = due - realtimeNanoseconds(), wait > 0 {
                    var pause = timespec(tv_sec: Int(wait / 1_000_000_000), tv_nsec: Int(wait % 1_000_000_000))
                    nanosleep(&pause, nil)
                }
                let began = realtimeNanoseconds()
                let final = try DurableFiles.linkUnique(source, into: directory, name: folders ? "clip-\(round)" : "clip-\(round).mp4",
                                                        tag: "racer-\(racer)-\(round)", from: method)
                report += "\(round) \((final as NSString).lastPathComponent) \(began) \(realtimeNanoseconds())\n"
            } catch {
                FileHandle.standardError.write(Data("racer \(racer) round \(round): \(error)\n".utf8))
                exit(1)
            }
        }
        FileHandle.standardOutput.write(Data(report.utf8))
    }
}
