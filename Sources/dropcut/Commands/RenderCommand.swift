import ArgumentParser
import Foundation
import Logging
import DropcutMediaIO
import DropcutPipeline
import DropcutRecipe
import DropcutRender
import DropcutSupport

/// `dropcut render [--recipe R] [-o|--output PATH|DIR] [--assets DIR]... [--progress FORMAT]
/// [-q] [-y|-n] INPUT...`: renders each input through the recipe (default: the identity
/// recipe — orientation fixed from the display matrix, source size and rate; streams it
/// changes nothing of are copied, the others encoded).
///
/// Each output is written under a hidden temporary name beside its final one and published
/// only when complete — a set of one through the one set commit (`SetCommit`, replacing
/// what has the name; with `-n` a name that exists is refused instead), so a failed or
/// interrupted render leaves nothing behind and never clobbers an earlier output with half
/// a file.
struct RenderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render clips through a recipe (default: fix orientation; copy what needs no change, encode the rest).",
        discussion: """
            Each output goes beside its input, named by the recipe (clip.dropcut.mp4 for the identity recipe), \
            or to --output. An output that exists is replaced unless -n is given. Progress goes to standard error \
            (--progress json: to standard output, one JSON object per line); "INPUT -> OUTPUT" lines to standard \
            output. Exit status: 0 done, 1 an input failed (the cause on standard error, naming the file), \
            130 interrupted, 64 a usage error.
            """)

    @OptionGroup var options: RecipeOptions
    @Option(name: [.short, .long], help: "Output file (one input) or directory. Default: beside each input, named by the recipe.")
    var output: String?
    @Option(name: .long, help: ArgumentHelp(
        "auto: a redrawn line on a terminal, a line per 10 % otherwise; bar: the redrawn line always; json: one JSON object per line on standard output; none.",
        valueName: "format"))
    var progress: ProgressFormat = .auto
    @Flag(name: [.short, .long], help: "Write nothing to standard error unless something fails: no progress, no warnings.")
    var quiet = false
    @Flag(name: .long, help: "Also write FFmpeg's own warnings and errors to standard error as they come.")
    var verbose = false
    @Flag var overwrite: OverwriteChoice = .overwrite

    func validate() throws {
        if let output, options.inputs.count > 1, !Self.isDirectory(output) {
            throw ValidationError("--output \(output) is not a directory: with several inputs, give a directory")
        }
        if quiet && verbose { throw ValidationError("--quiet and --verbose exclude each other") }
        if quiet && progress == .bar { throw ValidationError("--quiet writes no progress bar: leave out --progress bar") }
    }

    func run() async throws {
        let messages = EngineMessages(verbose: verbose, quiet: quiet)
        let logger = messages.install()
        let recipe = try options.loadRecipe(command: "render")
        let style = progress.style(terminal: isatty(2) == 1, quiet: quiet)
        let interrupt = InterruptHandler()
        var failed = false
        for input in options.inputs {
            if interrupt.wasInterrupted {
                printError("dropcut render: interrupted; \(input) not rendered")
                throw ExitCode(130)
            }
            do {
                let destinations = try await render(input, recipe: recipe, style: style, logger: logger, interrupt: interrupt)
                _ = messages.heldLines()
                // One "input -> file" line per file written, the manifest last (JSON has them as "end" objects).
                if style != .json {
                    for destination in destinations { print("\(input) -> \(destination)") }
                }
            } catch ExportError.cancelled, is CancellationError {
                printError("dropcut render: \(input): interrupted; no output written")
                throw ExitCode(130)
            } catch {
                // Every message names the clip (an encoder's error alone does not); FFmpeg's
                // own lines follow it, never precede it.
                let text = "\(error)"
                let message = "dropcut render: " + (text.contains(input) ? text : "\(input): \(text)")
                printError(message + messages.heldLines())
                if style == .json { RenderProgress.failed(input: input, message: message) }
                failed = true
            }
        }
        if failed { throw ExitCode(1) }
    }

    private func render(_ input: String, recipe: Recipe, style: RenderProgress.Style, logger: Logger,
                        interrupt: InterruptHandler) async throws -> [String] {
        if !recipe.outputs.isEmpty {
            return try await renderDeliverables(input, recipe: recipe, style: style, logger: logger, interrupt: interrupt)
        }
        let replacing = overwrite == .overwrite
        // Probing, measuring and exporting all run in one task, so an interrupt at any
        // point cancels what is running.
        let task = Task { () throws -> [String] in
            let production = try await Production.prepare(recipe: recipe, input: input)
            let destination = destinationPath(for: input, filename: production.outputFilename)
            if Self.sameFile(destination, input) {
                throw RenderCommandError("\(input): the output \(destination) would overwrite the input; choose another --output or filename")
            }
            if !replacing && Self.exists(destination) { throw RenderCommandError.exists(destination) }
            let progress = RenderProgress(style: style, input: input, outputs: [
                .init(label: (input as NSString).lastPathComponent, path: destination, duration: production.composition.duration.seconds),
            ])
            let partial = PartialOutput(besides: destination, tag: "\(getpid())")
            do {
                try await production.export(to: partial.path, logger: logger) { progress.update(0, $0) }
                try Self.publish(partial.path, as: destination, replacing: replacing)
                progress.finish(success: true)
            } catch {
                progress.finish(success: false)
                throw error
            }
            progress.ended(0, path: destination)
            return [destination]
        }
        interrupt.onInterrupt { task.cancel() }
        defer { interrupt.onInterrupt(nil) }
        return try await task.value
    }

    /// A recipe with `outputs:`: every deliverable into `--output` (a directory) or beside
    /// the input, published together with the manifest last, or nothing at all.
    private func renderDeliverables(_ input: String, recipe: Recipe, style: RenderProgress.Style, logger: Logger,
                                    interrupt: InterruptHandler) async throws -> [String] {
        let directory: String
        if let output {
            guard Self.isDirectory(output) else {
                throw RenderCommandError("--output \(output) is not a directory: a recipe with outputs: writes several files, give a directory")
            }
            directory = output
        } else {
            directory = (input as NSString).deletingLastPathComponent
        }
        let replacing = overwrite == .overwrite
        let task = Task { () throws -> [String] in
            let deliverables = try await Deliverables.prepare(recipe: recipe, input: input)
            for item in deliverables.items {
                let destination = (directory as NSString).appendingPathComponent(item.filename)
                if Self.sameFile(destination, input) {
                    throw RenderCommandError("\(input): the deliverable \(destination) would overwrite the input; choose another --output or filename")
                }
            }
            if !replacing {
                for name in deliverables.items.map(\.publishedName) + [deliverables.manifestFilename] {
                    let path = (directory as NSString).appendingPathComponent(name)
                    if Self.exists(path) { throw RenderCommandError.exists(path) }
                }
            }
            let progress = RenderProgress(style: style, input: input, outputs: deliverables.items.map { item in
                guard case .video = item.kind else { return nil }
                return .init(label: item.filename, path: (directory as NSString).appendingPathComponent(item.filename),
                             duration: item.production.composition.duration.seconds)
            })
            let files: [Deliverables.File]
            do {
                files = try await deliverables.render(into: directory, tag: "\(getpid())", logger: logger,
                                                      replacing: replacing) { progress.update($0, $1) }
                progress.finish(success: true)
            } catch let error as SetCommitError where error.nameExists {
                // Appeared while the set rendered: nothing of it is published.
                progress.finish(success: false)
                throw RenderCommandError.exists(error.path)
            } catch {
                progress.finish(success: false)
                throw error
            }
            // The manifest last, after the items in their order.
            let paths = files.map { (directory as NSString).appendingPathComponent($0.name) }
            for (index, path) in paths.enumerated() { progress.ended(index < deliverables.items.count ? index : nil, path: path) }
            return paths
        }
        interrupt.onInterrupt { task.cancel() }
        defer { interrupt.onInterrupt(nil) }
        return try await task.value
    }

    /// Publishes the finished render `temporary` as `destination`: a set of one through the
    /// one set commit, as a deliverable set is — replacing what has the name (as `mv`
    /// does), or, not `replacing`, only if nothing has it when it is published (exclusive:
    /// a file that appeared during the render is never replaced). On a failure the
    /// temporary file is removed.
    static func publish(_ temporary: String, as destination: String, replacing: Bool) throws {
        var set = SetCommit.State.setOfOne(temporary: temporary, name: (destination as NSString).lastPathComponent)
        let commit = SetCommit(directory: (destination as NSString).deletingLastPathComponent,
                               policy: replacing ? .replace : .refuseExisting, durability: .volatile, tag: "\(getpid())")
        do {
            try commit.publish(&set)
        } catch let error as SetCommitError where error.nameExists {
            throw RenderCommandError.exists(error.path)
        } catch let error as SystemError {
            throw RenderCommandError("\(destination): cannot move the finished render into place: \(String(cString: strerror(error.errno)))")
        }
    }

    /// `--output` as a file, `--output` directory + recipe filename, or the recipe
    /// filename beside the input.
    func destinationPath(for input: String, filename: String) -> String {
        if let output {
            return Self.isDirectory(output) || output.hasSuffix("/") ? (output as NSString).appendingPathComponent(filename) : output
        }
        return ((input as NSString).deletingLastPathComponent as NSString).appendingPathComponent(filename)
    }

    static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// Something has the name (a dangling symlink too).
    static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    static func sameFile(_ a: String, _ b: String) -> Bool {
        var sa = stat(), sb = stat()
        guard stat(a, &sa) == 0, stat(b, &sb) == 0 else { return false }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }
}

/// Why `dropcut render` refused or failed an input, naming the file.
struct RenderCommandError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }

    /// `-n`: `path` exists and is left as it is.
    static func exists(_ path: String) -> Self {
        Self("\(path) exists; -n/--no-overwrite leaves it as it is (nothing written; -y replaces it)")
    }
}
