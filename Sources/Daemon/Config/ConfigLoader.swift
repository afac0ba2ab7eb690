import Foundation
import DropcutRecipe
import DropcutSupport

/// A config that cannot be used: every problem, each at its file:line:column.
public struct ConfigError: Error, Sendable, CustomStringConvertible {
    package var diagnostics: [RecipeDiagnostic]
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}

/// Reads and validates `/etc/dropcut/dropcut.yaml` (docs/daemon.md). Relative
/// paths are taken from the config file's folder. Checks what would otherwise fail at the
/// first clip: inboxes exist, nothing is written inside an inbox, recipes load with the
/// folder's asset folders, asset folders exist.
public enum ConfigLoader {
    static let topKeys = ["state_dir", "poll_interval", "settle", "workers", "stop_timeout", "retry_delay", "lease_timeout",
                          "memory_limit", "cpu_limit", "open_files", "job_timeout", "job_timeout_minimum", "max_duration",
                          "folders", "http", "webhooks", "coordinator"]
    static let folderKeys = ["name", "inbox", "outbox", "failed", "after_success", "archive", "recipe", "assets",
                             "retries", "output_mode", "output_group"]

    /// Loads and validates the config at `path`.
    public static func load(_ path: String) throws(ConfigError) -> DaemonConfig {
        let text: String
        do { text = try TextFile.read(path, followSymlinks: true) } catch {
            throw ConfigError(diagnostics: [RecipeDiagnostic("the config file \(error)", at: .wholeFile(path))])
        }
        return try load(yaml: text, path: path)
    }

    /// Validates `yaml` as if read from `path`.
    package static func load(yaml: String, path: String) throws(ConfigError) -> DaemonConfig {
        let root: RecipeNode
        do {
            root = try RecipeNode.parse(yaml: yaml, file: path, document: "config")
        } catch {
            throw ConfigError(diagnostics: error.diagnostics)
        }
        let path = absolute(path, base: FileManager.default.currentDirectoryPath)
        let base = (path as NSString).deletingLastPathComponent
        var reader = RecipeReader()
        var config = DaemonConfig(path: path, stateDirectory: "/var/lib/dropcut", folders: [])
        guard let top = reader.fields(root, "the config", allowed: topKeys) else {
            throw ConfigError(diagnostics: reader.diagnostics)
        }
        if let node = top["state_dir"], let text = reader.string(node, "state_dir") {
            config.stateDirectory = absolute(text, base: base)
        }
        if let node = top["poll_interval"], let d = duration(node, "poll_interval", &reader, minimum: 0.05) { config.pollInterval = d }
        if let node = top["settle"], let d = duration(node, "settle", &reader, minimum: 0) { config.settle = d }
        if let node = top["stop_timeout"], let d = duration(node, "stop_timeout", &reader, minimum: 0) { config.stopTimeout = d }
        if let node = top["retry_delay"], let d = duration(node, "retry_delay", &reader, minimum: 0) { config.retryDelay = d }
        if let node = top["workers"], let n = reader.integer(node, "workers", in: 1...64) { config.workers = n }
        if let node = top["lease_timeout"], let d = duration(node, "lease_timeout", &reader, minimum: 1, maximum: 3600) {
            config.leaseTimeout = d
        }
        decodeLimits(top, into: &config.limits, &reader)
        if let node = top["http"] { config.http = decodeHTTP(node, base: base, &reader) }
        if let node = top["webhooks"] { config.webhooks = decodeWebhooks(node, &reader) }
        if let node = top["coordinator"] { config.coordinator = decodeCoordinator(node, base: base, &reader) }
        if let node = top["folders"], let items = reader.list(node, "folders") {
            if items.isEmpty { reader.error("folders must name at least one folder to watch", at: node.location) }
            for item in items {
                if let folder = decodeFolder(item, base: base, index: config.folders.count, &reader) {
                    if config.folders.contains(where: { $0.name == folder.name }) {
                        reader.error("two folders are named '\(folder.name)'; names must differ", at: item.location)
                    }
                    config.folders.append(folder)
                }
            }
        } else if top["folders"] == nil {
            reader.error("folders is missing: list the folders to watch (name, inbox, outbox, failed...)", at: top.location)
        }
        checkOverlaps(config.folders, root: root, &reader)
        if !reader.diagnostics.isEmpty { throw ConfigError(diagnostics: reader.diagnostics) }
        return config
    }

    private static func decodeFolder(_ node: RecipeNode, base: String, index: Int, _ reader: inout RecipeReader) -> FolderConfig? {
        guard let f = reader.fields(node, "a folder", allowed: folderKeys) else { return nil }
        func path(_ key: String, required: Bool) -> String? {
            guard let value = f[key] else {
                if required { reader.error("\(key) is missing in this folder", at: f.location) }
                return nil
            }
            return reader.string(value, key).map { absolute($0, base: base) }
        }
        let name = f["name"].flatMap { reader.string($0, "name") } ?? "folder\(index + 1)"
        if let at = f["name"]?.location, name.isEmpty || !name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) {
            reader.error("name must be letters, digits, - or _ (got '\(name)')", at: at)
        }
        guard let inbox = path("inbox", required: true), let outbox = path("outbox", required: true),
              let failed = path("failed", required: true) else { return nil }
        var folder = FolderConfig(name: name, inbox: inbox, outbox: outbox, failed: failed)
        if let node = f["after_success"], let choice = reader.choice(node, "after_success", FolderConfig.AfterSuccess.self) {
            folder.afterSuccess = choice
        }
        folder.archive = path("archive", required: false)
        if folder.afterSuccess == .archive && folder.archive == nil {
            reader.error("archive is missing: after_success: archive needs an archive folder (or say after_success: delete)", at: f.location)
        }
        if let node = f["assets"] {
            let items: [RecipeNode]
            if case .sequence = node { items = reader.list(node, "assets") ?? [] } else { items = [node] }
            for item in items {
                guard let text = reader.string(item, "assets") else { continue }
                let dir = absolute(text, base: base)
                if let problem = FolderCheck.reachProblem(dir) { reader.error("asset folder \(dir) \(problem)", at: item.location) }
                folder.assets.append(dir)
            }
        }
        if let node = f["retries"], let n = reader.integer(node, "retries", in: 0...100) { folder.retries = n }
        if let node = f["output_mode"] {
            if case let .scalar(text, _, _) = node, let mode = mode_t(text, radix: 8), mode <= 0o7777 {
                folder.outputMode = mode
            } else {
                reader.error("output_mode must be octal permission bits like \"0644\", got \(reader.describe(node))", at: node.location)
            }
        }
        if let node = f["output_group"], let group = reader.string(node, "output_group") {
            if let gid = gid_t(group) {
                folder.outputGroup = gid
            } else if let entry = getgrnam(group) {
                folder.outputGroup = entry.pointee.gr_gid
            } else {
                reader.error("output_group '\(group)' is not a group on this machine", at: node.location)
            }
        }

        if let at = f["inbox"]?.location, let problem = FolderCheck.reachProblem(inbox) {
            reader.error("inbox \(inbox) \(problem)", at: at)
        }
        if let node = f["recipe"], let text = reader.string(node, "recipe") {
            let file = absolute(text, base: base)
            folder.recipe = file
            do {
                _ = try RecipeLoader(resolver: AssetResolver(assetDirectories: folder.assets)).load([file])
            } catch {
                reader.error("recipe \(file) does not load:\n" + error.description, at: node.location)
            }
        }
        return folder
    }

    /// Outboxes, failed and archive folders must not lie inside any inbox (the scanner
    /// would pick up the daemon's own results), and two folders must not share an inbox.
    private static func checkOverlaps(_ folders: [FolderConfig], root: RecipeNode, _ reader: inout RecipeReader) {
        for folder in folders {
            let inbox = canonical(folder.inbox)
            for other in folders {
                let written = [("outbox", other.outbox), ("failed", other.failed), ("archive", other.archive)]
                for (key, path) in written {
                    guard let path else { continue }
                    if isInside(canonical(path), inbox) {
                        reader.error("\(key) \(path) of folder '\(other.name)' lies inside the inbox \(folder.inbox) of folder '\(folder.name)'; put it beside the inbox",
                                     at: root.location)
                    }
                }
                if other.name != folder.name && canonical(other.inbox) == inbox && folder.name < other.name {
                    reader.error("folders '\(folder.name)' and '\(other.name)' watch the same inbox \(folder.inbox)", at: root.location)
                }
            }
        }
    }

    /// The worker limits: `memory_limit: 4G | unlimited`, `cpu_limit: 2h | unlimited`,
    /// `open_files: 1024`, `job_timeout: 20x`, `job_timeout_minimum: 10m`, `max_duration: 4h`.
    private static func decodeLimits(_ top: Fields, into limits: inout WorkerLimits, _ reader: inout RecipeReader) {
        if let node = top["memory_limit"] {
            if case let .scalar(text, _, _) = node, text == "unlimited" {
                limits.memoryBytes = nil
            } else if case let .scalar(text, _, _) = node, let bytes = WorkerLimits.bytes(text), bytes >= 16 << 20 {
                limits.memoryBytes = bytes
            } else {
                reader.error("memory_limit must be a size of at least 16M, like \"4G\" or \"512M\", or \"unlimited\"; got \(reader.describe(node))",
                             at: node.location)
            }
        }
        if let node = top["cpu_limit"] {
            if case let .scalar(text, _, _) = node, text == "unlimited" {
                limits.cpuSeconds = nil
            } else if let d = duration(node, "cpu_limit", &reader, minimum: 1) {
                limits.cpuSeconds = UInt64(d.components.seconds)
            }
        }
        if let node = top["open_files"], let n = reader.integer(node, "open_files", in: 64...65536) { limits.openFiles = UInt64(n) }
        if let node = top["job_timeout"] {
            if case let .scalar(text, _, _) = node, text.hasSuffix("x"), let factor = Double(text.dropLast()), (1...1000).contains(factor) {
                limits.timeoutFactor = factor
            } else {
                reader.error("job_timeout must be a multiple of the clip's duration from 1x to 1000x, like \"20x\"; got \(reader.describe(node))",
                             at: node.location)
            }
        }
        if let node = top["job_timeout_minimum"], let d = duration(node, "job_timeout_minimum", &reader, minimum: 1) {
            limits.timeoutMinimumSeconds = d.seconds
        }
        if let node = top["max_duration"], let d = duration(node, "max_duration", &reader, minimum: 1) {
            limits.maxDurationSeconds = d.seconds
        }
    }


    static func duration(_ node: RecipeNode, _ what: String, _ reader: inout RecipeReader, minimum: Double,
                                 maximum: Double? = nil) -> Duration? {
        let seconds: Double
        if let long = longDuration(node) {
            seconds = long
        } else if let short = reader.duration(node, what) {
            seconds = short.seconds
        } else {
            return nil
        }
        if let maximum, !(minimum...maximum).contains(seconds) {
            reader.error("\(what) must be between \(Self.number(minimum)) s and \(Self.number(maximum)) s (got \(Self.number(seconds)) s)",
                         at: node.location)
            return nil
        }
        guard seconds >= minimum else {
            reader.error("\(what) must be at least \(minimum) s", at: node.location)
            return nil
        }
        return .microseconds(Int64((seconds * 1_000_000).rounded()))
    }

    /// `10m`, `2h`, `1d`: the lengths a daemon's settings come in (minutes, hours, days),
    /// besides the seconds every recipe time accepts. Nil when `node` is not one.
    static func longDuration(_ node: RecipeNode) -> Double? {
        guard case let .scalar(text, _, _) = node, let unit = text.last,
              let factor = ["m": 60.0, "h": 3600.0, "d": 86400.0][unit],
              let number = Double(text.dropLast()), number.isFinite, number >= 0, number <= 1e6 else { return nil }
        return number * factor
    }

    /// 60 rather than 60.0 in messages.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    static func absolute(_ path: String, base: String) -> String {
        let joined = path.hasPrefix("/") ? path : (base as NSString).appendingPathComponent(path)
        return (joined as NSString).standardizingPath
    }

    /// The real path of `path`, or of its nearest existing ancestor plus the rest (folders
    /// that will be created later still compare correctly).
    static func canonical(_ path: String) -> String {
        if let real = realpath(path, nil) {
            defer { free(real) }
            return String(cString: real)
        }
        let parent = (path as NSString).deletingLastPathComponent
        guard parent != path, !parent.isEmpty else { return path }
        return (canonical(parent) as NSString).appendingPathComponent((path as NSString).lastPathComponent)
    }

    static func isInside(_ path: String, _ folder: String) -> Bool {
        path == folder || path.hasPrefix(folder.hasSuffix("/") ? folder : folder + "/")
    }
}
