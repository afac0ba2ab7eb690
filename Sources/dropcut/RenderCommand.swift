import ArgumentParser
import Daemon
import Dispatch
import Foundation
import Logging
import MediaIO
import Recipe
import Render
import Timeline

/// `dropcut render [--recipe R] [--output PATH|DIR] [--assets DIR]... INPUT...`: renders
/// each input through the recipe (default: the identity recipe — orientation fixed from
/// the display matrix, source size and rate, re-encoded).
///
/// Each output is written under a hidden temporary name beside its final one and renamed
/// into place only when complete, so a failed or interrupted render leaves nothing
/// behind and never clobbers an earlier output with half a file.
struct RenderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render", abstract: "Render clips through a recipe (default: fix orientation, re-encode).")

    @OptionGroup var options: RecipeOptions
    @Option(name: .long, help: "Output file (one input) or directory. Default: beside each input, named by the recipe.")
    var output: String?

    func validate() throws {
        if let output, options.inputs.count > 1, !Self.isDirectory(output) {
            throw ValidationError("--output \(output) is not a directory: with several inputs, give a directory")
        }
    }

    func run() async throws {
        let recipe = try options.loadRecipe(command: "render")
        var logger = Logger(label: "dropcut")
        logger.logLevel = .warning
        FFmpegLog.route(to: logger)
        let interrupt = InterruptHandler()
        var failed = false
        for input in options.inputs {
            if interrupt.wasInterrupted {
                printError("dropcut render: interrupted; \(input) not rendered")
                throw ExitCode(130)
            }
            do {
                let destination = try await render(input, recipe: recipe, logger: logger, interrupt: interrupt)
                print("\(input) -> \(destination)")
            } catch ExportError.cancelled {
                printError("dropcut render: \(input): interrupted; no output written")
                throw ExitCode(130)
            } catch {
                printError("dropcut render: \(error)")
                failed = true
            }
        }
        if failed { throw ExitCode(1) }
    }

    private func render(_ input: String, recipe: Recipe, logger: Logger, interrupt: InterruptHandler) async throws -> String {
        let clip = try ClipRender(input: input, recipe: recipe)
        let destination = destinationPath(for: input, filename: clip.outputFilename)
        if Self.sameFile(destination, input) {
            throw RenderCommandError("\(input): the output \(destination) would overwrite the input; choose another --output or filename")
        }
        let temporary = Self.temporaryPath(for: destination)
        let bar = ProgressBar(label: (input as NSString).lastPathComponent)
        let task = Task { try await clip.export(to: temporary, logger: logger) { bar.update($0) } }
        interrupt.onInterrupt { task.cancel() }
        defer { interrupt.onInterrupt(nil) }
        do {
            try await task.value
        } catch {
            bar.finish(success: false)
            unlink(temporary)
            throw error
        }
        bar.finish(success: true)
        guard rename(temporary, destination) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw RenderCommandError("\(destination): cannot move the finished render into place: \(reason)")
        }
        return destination
    }

    /// `--output` as a file, `--output` directory + recipe filename, or the recipe
    /// filename beside the input.
    private func destinationPath(for input: String, filename: String) -> String {
        if let output {
            return Self.isDirectory(output) || output.hasSuffix("/") ? (output as NSString).appendingPathComponent(filename) : output
        }
        return ((input as NSString).deletingLastPathComponent as NSString).appendingPathComponent(filename)
    }

    /// `dir/.name.partial-<pid>.mp4`: hidden (the daemon's scanner skips dot files), same
    /// folder (so the final rename is atomic), same extension (it picks the container).
    static func temporaryPath(for destination: String) -> String {
        let directory = (destination as NSString).deletingLastPathComponent
        let name = (destination as NSString).lastPathComponent
        let ext = (name as NSString).pathExtension
        let stem = (name as NSString).deletingPathExtension
        let hidden = ".\(stem).partial-\(getpid())" + (ext.isEmpty ? "" : ".\(ext)")
        return directory.isEmpty ? hidden : (directory as NSString).appendingPathComponent(hidden)
    }

    static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    static func sameFile(_ a: String, _ b: String) -> Bool {
        var sa = stat(), sb = stat()
        guard stat(a, &sa) == 0, stat(b, &sb) == 0 else { return false }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }
}

struct RenderCommandError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Turns SIGINT and SIGTERM into task cancellation, so an interrupted render removes its
/// partial file instead of dying with it on disk. A signal that arrives between renders
/// (while probing, say) is remembered: the next render is cancelled as it starts.
final class InterruptHandler: @unchecked Sendable {
    private let lock = NSLock()
    private var action: (@Sendable () -> Void)?
    private var interrupted = false
    private var sources: [DispatchSourceSignal] = []

    init() {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { [weak self] in
                guard let self else { return }
                self.lock.lock()
                self.interrupted = true
                let action = self.action
                self.lock.unlock()
                action?()
            }
            source.resume()
            sources.append(source)
        }
    }

    /// True once a signal has arrived.
    var wasInterrupted: Bool {
        lock.lock()
        defer { lock.unlock() }
        return interrupted
    }

    /// Runs `action` on the next signal — at once if one has already arrived.
    func onInterrupt(_ action: (@Sendable () -> Void)?) {
        lock.lock()
        self.action = action
        let already = interrupted
        lock.unlock()
        if already { action?() }
    }
}

/// Progress on standard error: a redrawn bar on a terminal, a line per 10 % otherwise.
final class ProgressBar: @unchecked Sendable {
    private let label: String
    private let isTerminal = isatty(2) == 1
    private let lock = NSLock()
    private var lastShown = -1

    init(label: String) {
        self.label = label
    }

    func update(_ progress: ExportProgress) {
        let percent = Int(progress.fraction * 100)
        lock.lock()
        defer { lock.unlock() }
        if isTerminal {
            guard percent != lastShown else { return }
            lastShown = percent
            let width = 30, filled = width * percent / 100
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            writeStandardError("\r\(label) [\(bar)] \(percent)% \(progress.framesWritten)/\(progress.frameCount) frames")
        } else {
            let step = percent / 10 * 10
            guard step > lastShown else { return }
            lastShown = step
            writeStandardError("\(label): \(step)% (\(progress.framesWritten)/\(progress.frameCount) frames)\n")
        }
    }

    func finish(success: Bool) {
        if isTerminal && lastShown >= 0 { writeStandardError(success ? "\n" : " failed\n") }
    }
}
