import ArgumentParser
import Foundation
import Logging
import DropcutMediaIO
import DropcutPipeline
import DropcutRecipe
import DropcutRender
import DropcutSupport

/// `dropcut render [--recipe R] [--output PATH|DIR] [--assets DIR]... INPUT...`: renders
/// each input through the recipe (default: the identity recipe — orientation fixed from
/// the display matrix, source size and rate, re-encoded).
///
/// Each output is written under a hidden temporary name beside its final one and published
/// only when complete — a set of one through the one set commit (`SetCommit`, replacing
/// what has the name), so a failed or interrupted render leaves nothing
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
        EngineLog.route(to: logger)
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
            } catch ExportError.cancelled, is CancellationError {
                printError("dropcut render: \(input): interrupted; no output written")
                throw ExitCode(130)
            } catch {
                // Every message names the clip (an encoder's error alone does not).
                let text = "\(error)"
                printError("dropcut render: " + (text.contains(input) ? text : "\(input): \(text)"))
                failed = true
            }
        }
        if failed { throw ExitCode(1) }
    }

    private func render(_ input: String, recipe: Recipe, logger: Logger, interrupt: InterruptHandler) async throws -> String {
        if !recipe.outputs.isEmpty { return try await renderDeliverables(input, recipe: recipe, logger: logger, interrupt: interrupt) }
        let bar = ProgressBar(label: (input as NSString).lastPathComponent)
        // Probing, measuring and exporting all run in one task, so an interrupt at any
        // point cancels what is running.
        let task = Task { () throws -> String in
            let production = try await Production.prepare(recipe: recipe, input: input)
            let destination = destinationPath(for: input, filename: production.outputFilename)
            if Self.sameFile(destination, input) {
                throw RenderCommandError("\(input): the output \(destination) would overwrite the input; choose another --output or filename")
            }
            let partial = PartialOutput(besides: destination, tag: "\(getpid())")
            try await production.export(to: partial.path, logger: logger) { bar.update($0) }
            try Self.publish(partial.path, as: destination)
            return destination
        }
        interrupt.onInterrupt { task.cancel() }
        defer { interrupt.onInterrupt(nil) }
        do {
            let destination = try await task.value
            bar.finish(success: true)
            return destination
        } catch {
            bar.finish(success: false)
            throw error
        }
    }

    /// A recipe with `outputs:`: every deliverable into `--output` (a directory) or beside
    /// the input, published together with the manifest last, or nothing at all.
    private func renderDeliverables(_ input: String, recipe: Recipe, logger: Logger, interrupt: InterruptHandler) async throws -> String {
        let directory: String
        if let output {
            guard Self.isDirectory(output) else {
                throw RenderCommandError("--output \(output) is not a directory: a recipe with outputs: writes several files, give a directory")
            }
            directory = output
        } else {
            directory = (input as NSString).deletingLastPathComponent
        }
        let task = Task { () throws -> [Deliverables.File] in
            let deliverables = try await Deliverables.prepare(recipe: recipe, input: input)
            for item in deliverables.items {
                let destination = (directory as NSString).appendingPathComponent(item.filename)
                if Self.sameFile(destination, input) {
                    throw RenderCommandError("\(input): the deliverable \(destination) would overwrite the input; choose another --output or filename")
                }
            }
            let progress = DeliverablesProgress(labels: deliverables.items.map { item in
                if case .video = item.kind { return item.filename } else { return nil }
            })
            do {
                let files = try await deliverables.render(into: directory, tag: "\(getpid())", logger: logger) { progress.update($0, $1) }
                progress.finish(success: true)
                return files
            } catch {
                progress.finish(success: false)
                throw error
            }
        }
        interrupt.onInterrupt { task.cancel() }
        defer { interrupt.onInterrupt(nil) }
        let files = try await task.value
        // One "input -> file" line per file written, the manifest last.
        return files.map { (directory as NSString).appendingPathComponent($0.name) }.joined(separator: "\n\(input) -> ")
    }

    /// Publishes the finished render `temporary` as `destination`: a set of one through the
    /// one set commit, replacing what has the name (as `mv` does); on a failure the
    /// temporary file is removed.
    static func publish(_ temporary: String, as destination: String) throws {
        var set = SetCommit.State.setOfOne(temporary: temporary, name: (destination as NSString).lastPathComponent)
        let commit = SetCommit(directory: (destination as NSString).deletingLastPathComponent, policy: .replace,
                               durability: .volatile, tag: "\(getpid())")
        do {
            try commit.publish(&set)
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
