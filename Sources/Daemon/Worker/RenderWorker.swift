internal import CDropcutLinux
import Foundation
import Logging
import DropcutPipeline
import DropcutRecipe

/// The worker side of a job (`dropcut worker`, started by the daemon, never by hand):
/// reads its `WorkerRequest` on stdin, limits itself, then loads the recipe, probes the
/// media and renders into a temporary file in the outbox (a recipe with `outputs:`: one
/// for each deliverable), reporting on fd 3
/// (`WorkerEvent`s). The daemon does everything else — records, commit, archive — so a
/// worker that dies leaves the job exactly where the daemon's record says.
public enum RenderWorker {
    /// Exit statuses: 0 rendered, 1 failed (and said why in a `failed` event), 2 not
    /// started by a daemon.
    public static func run(logger: Logger) async -> Int32 {
        // Die with the daemon (a worker is never worth keeping alone); ignore the signals
        // meant for the daemon: systemd's stop (KillMode=mixed sends SIGTERM to the main
        // process only, but an admin's `pkill dropcut` reaches all), a terminal's Ctrl-C.
        // The daemon stops its workers with SIGKILL.
        _ = dropcut_die_with_parent()
        for sig in [SIGTERM, SIGINT, SIGHUP] { signal(sig, SIG_IGN) }
        guard let request = readRequest() else {
            FileHandle.standardError.write(Data("dropcut worker: no job request on standard input; this command is run by `dropcut watch`\n".utf8))
            return 2
        }
        // The daemon died before the death signal was asked for.
        guard getppid() == request.parent else { return 2 }
        apply(request.limits)
        var log = logger
        if let inbox = request.inbox {
            log.handler = DroppedNameLogHandler(log.handler, claimed: (request.input as NSString).deletingLastPathComponent, inbox: inbox)
        }
        for (key, value) in request.logFields { log[metadataKey: key] = "\(value)" }
        var ffmpegLog = log
        ffmpegLog.logLevel = .warning
        EngineLog.route(to: ffmpegLog)
        let events = WorkerEventSink(descriptor: WorkerProcess.eventDescriptor)
        if request.thumbnail == true {
            do {
                let jpeg = try await Thumbnail.jpeg(of: request.input)
                events.send(.thumbnail(Data(jpeg)))
                return 0
            } catch {
                events.send(.failed(transient: false, reason: "\(error)", errno: nil, incomplete: nil))
                return 1
            }
        }
        do {
            let recipe = request.recipes.isEmpty ? Recipe(name: "identity")
                : try RecipeLoader(resolver: AssetResolver(assetDirectories: request.assets))
                    .load(request.recipes, dropped: Set(request.droppedRecipes))
            if !recipe.outputs.isEmpty {
                try await renderSet(recipe, request: request, events: events, logger: log)
                return 0
            }
            let production = try await Production.prepare(recipe: recipe, input: request.input)
            let duration = production.composition.duration.seconds
            guard duration <= request.limits.maxDurationSeconds else {
                throw JobFailure.permanent(String(format: "%@: the output would last %.0f s, longer than max_duration (%.0f s)",
                                                  request.input, duration, request.limits.maxDurationSeconds), errno: nil)
            }
            let temporary = PartialOutput(directory: request.outbox, filename: production.outputFilename, tag: request.job).path
            events.send(.rendering(temporary: temporary, output: production.outputFilename, duration: duration))
            let started = ContinuousClock.now
            do {
                try await production.export(to: temporary, logger: log) { events.progress($0.fraction) }
            } catch {
                PartialOutput(path: temporary).remove()
                throw error
            }
            let elapsed = ContinuousClock.now - started
            let seconds = elapsed.seconds
            events.send(.finished(elapsedMilliseconds: Int(seconds * 1000), speed: seconds > 0 ? duration / seconds : nil))
            return 0
        } catch {
            let failure = JobFailure.classify(error)
            let transient: Bool
            if case .permanent = failure { transient = false } else { transient = true }
            events.send(.failed(transient: transient, reason: failure.reason, errno: failure.errno,
                                incomplete: RenderFailure.isIncompleteFile(error) ? true : nil))
            return 1
        }
    }

    /// A recipe with `outputs:`: every deliverable rendered into its temporary file in the
    /// outbox, the whole set announced before the first is written and described once all
    /// are complete. Publishing (all or nothing, the manifest last) is the daemon's, like
    /// a single output's commit. On failure `renderTemporaries` has removed what it wrote.
    static func renderSet(_ recipe: Recipe, request: WorkerRequest, events: WorkerEventSink, logger: Logger) async throws {
        let set = try await Deliverables.prepare(recipe: recipe, input: request.input)
        let durations = set.items.map { $0.production.composition.duration.seconds }
        if let longest = durations.max(), longest > request.limits.maxDurationSeconds {
            throw JobFailure.permanent(String(format: "%@: the output would last %.0f s, longer than max_duration (%.0f s)",
                                              request.input, longest, request.limits.maxDurationSeconds), errno: nil)
        }
        let duration = durations.reduce(0, +)
        let temporaries = set.temporaries(in: request.outbox, tag: request.job)
        let files = zip(set.items, temporaries).map { item, temporary in
            WorkerEvent.SetFile(temporary: temporary, output: item.filename, kind: Self.kind(item.kind))
        }
        events.send(.renderingSet(files: files, manifest: set.manifestFilename, duration: duration))
        let started = ContinuousClock.now
        // Progress over the whole set: each item weighs its share of the total length.
        let before = durations.indices.map { durations[..<$0].reduce(0, +) }
        let described = try await set.renderTemporaries(into: request.outbox, tag: request.job, logger: logger) { index, progress in
            guard duration > 0 else { return }
            events.progress((before[index] + progress.fraction * durations[index]) / duration)
        }
        let seconds = (ContinuousClock.now - started).seconds
        events.send(.described(described))
        events.send(.finished(elapsedMilliseconds: Int(seconds * 1000), speed: seconds > 0 ? duration / seconds : nil))
    }

    static func kind(_ kind: Recipe.Deliverable.Kind) -> String {
        switch kind {
        case .video: "video"
        case .captions: "captions"
        case .poster: "poster"
        case .preview: "preview"
        case .hls: "hls"
        }
    }

    /// The request on stdin (at most `WorkerRequest.maximumBytes`), or nil.
    static func readRequest() -> WorkerRequest? {
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while data.count <= WorkerRequest.maximumBytes {
            let count = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            data.append(contentsOf: chunk[0..<count])
        }
        return try? JSONDecoder().decode(WorkerRequest.self, from: data)
    }

    /// Applies the memory, CPU and descriptor limits to this process.
    static func apply(_ limits: WorkerLimits) {
        func set(_ resource: __rlimit_resource, _ value: UInt64) {
            var limit = rlimit(rlim_cur: rlim_t(value), rlim_max: rlim_t(value))
            _ = setrlimit(__rlimit_resource_t(resource.rawValue), &limit)
        }
        if let bytes = limits.memoryBytes { set(RLIMIT_DATA, bytes) }
        // The soft limit sends SIGXCPU (reported as such), the hard one a second later SIGKILL.
        if let seconds = limits.cpuSeconds {
            var limit = rlimit(rlim_cur: rlim_t(seconds), rlim_max: rlim_t(seconds + 1))
            _ = setrlimit(__rlimit_resource_t(RLIMIT_CPU.rawValue), &limit)
        }
        set(RLIMIT_NOFILE, limits.openFiles)
    }
}
