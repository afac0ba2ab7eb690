import Foundation
import Testing
import DropcutDaemon
import TestSupport

/// The daemon's config: values, defaults, relative paths, and every mistake reported at
/// its file:line:column.
@Suite struct ConfigLoaderTests {
    func folderSet() throws -> TemporaryDirectory {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.file("in"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir.file("assets"), withIntermediateDirectories: true)
        return dir
    }

    func load(_ yaml: String, in dir: TemporaryDirectory) throws(ConfigError) -> DaemonConfig {
        try ConfigLoader.load(yaml: yaml, path: dir.file("dropcut.yaml"))
    }

    func errors(_ yaml: String, in dir: TemporaryDirectory) -> String {
        do {
            _ = try load(yaml, in: dir)
            return ""
        } catch {
            return error.description
        }
    }

    @Test func fullConfigDecodesWithRelativePathsFromTheConfigFolder() throws {
        let dir = try folderSet()
        try "version: 1\n".write(toFile: dir.file("social.yaml"), atomically: true, encoding: .utf8)
        let config = try load("""
            state_dir: state
            poll_interval: 500ms
            settle: 3s
            workers: 2
            stop_timeout: 45
            retry_delay: 1.5
            folders:
              - name: social
                inbox: in
                outbox: /srv/out
                failed: failed
                after_success: archive
                archive: archive
                recipe: social.yaml
                assets: [assets]
                retries: 4
                output_mode: "0640"
            """, in: dir)
        #expect(config.stateDirectory == dir.file("state"))
        #expect(config.pollInterval == .milliseconds(500))
        #expect(config.settle == .seconds(3))
        #expect(config.workers == 2)
        #expect(config.stopTimeout == .seconds(45))
        #expect(config.retryDelay == .milliseconds(1500))
        let folder = try #require(config.folders.first)
        #expect(folder.name == "social")
        #expect(folder.inbox == dir.file("in"))
        #expect(folder.outbox == "/srv/out")
        #expect(folder.archive == dir.file("archive"))
        #expect(folder.recipe == dir.file("social.yaml"))
        #expect(folder.assets == [dir.file("assets")])
        #expect(folder.retries == 4)
        #expect(folder.outputMode == 0o640)
        #expect(folder.claimedDirectory == dir.file("in/.dropcut/claimed"))
    }

    @Test func defaultsFollowTheDesign() throws {
        let dir = try folderSet()
        let config = try load("folders: [ { inbox: in, outbox: out, failed: failed, after_success: delete } ]\n", in: dir)
        #expect(config.stateDirectory == "/var/lib/dropcut")
        #expect(config.pollInterval == .seconds(2))
        #expect(config.settle == .seconds(3))
        #expect(config.workers == 1)
        #expect(config.folders.first?.retries == 2)
        #expect(config.folders.first?.name == "folder1")
        #expect(config.folders.first?.recipe == nil)
        #expect(config.folders.first?.outputMode == 0o644)
        #expect(config.leaseTimeout == .seconds(60))
        #expect(config.leaseRenewal == .seconds(20))
    }

    /// Issue 19: lease_timeout, range-checked where it is read (a claim's lease is renewed
    /// every third of it, so below 1 s a busy host would lose its own claims).
    @Test func leaseTimeoutIsReadWithItsRange() throws {
        let dir = try folderSet()
        let path = dir.file("dropcut.yaml")
        let folders = "folders: [ { inbox: in, outbox: out, failed: failed, after_success: delete } ]\n"
        let config = try load("lease_timeout: 2s\n" + folders, in: dir)
        #expect(config.leaseTimeout == .seconds(2))
        #expect(config.leaseRenewal > .milliseconds(666) && config.leaseRenewal < .milliseconds(667))
        #expect(try load("lease_timeout: \"00:05:00\"\n" + folders, in: dir).leaseTimeout == .seconds(300))
        let text = errors("lease_timeout: 0.5\nsettle: 1\n" + folders, in: dir)
        #expect(text.contains("\(path):1:16: lease_timeout must be between 1 s and 3600 s (got 0.5 s)"), "\(text)")
        #expect(errors("lease_timeout: \"02:00:00\"\n" + folders, in: dir).contains("\(path):1:16: lease_timeout must be between 1 s and 3600 s (got 7200 s)"))
        #expect(errors("lease_timeout: soon\n" + folders, in: dir).contains("\(path):1:16: lease_timeout"))
        #expect(errors("lease_timeout: 1e30\n" + folders, in: dir).contains("\(path):1:16: lease_timeout must be at most 24 hours"))
        #expect(errors("lease_timout: 60\n" + folders, in: dir).contains("did you mean 'lease_timeout'"))
    }

    @Test func mistakesAreReportedAtTheirPositions() throws {
        let dir = try folderSet()
        let path = dir.file("dropcut.yaml")
        let text = errors("""
            setle: 3s
            workers: 0
            folders:
              - name: "bad name"
                inbox: missing
                outbox: out
                failed: failed
                assets: [nowhere]
                after_success: keep
            """, in: dir)
        #expect(text.contains("\(path):1:1: unknown key 'setle' in the config; did you mean 'settle'?"), "\(text)")
        #expect(text.contains("\(path):2:10: workers must be between 1 and 64"), "\(text)")
        #expect(text.contains("\(path):4:11: name must be letters"), "\(text)")
        #expect(text.contains("\(path):5:12: inbox \(dir.file("missing")) does not exist"), "\(text)")
        #expect(text.contains("\(path):8:14: asset folder \(dir.file("nowhere")) does not exist"), "\(text)")
        #expect(text.contains("\(path):9:20: after_success must be one of archive | delete"), "\(text)")
    }

    /// Issue 17: what a job's worker may use, with the defaults docs/daemon.md gives.
    @Test func workerLimitsDecodeWithTheirDefaults() throws {
        let dir = try folderSet()
        let folders = "folders: [ { inbox: in, outbox: out, failed: failed, after_success: delete } ]\n"
        let defaults = try load(folders, in: dir).limits
        #expect(defaults.timeoutFactor == 20 && defaults.timeoutMinimumSeconds == 600)
        #expect(defaults.maxDurationSeconds == 4 * 3600 && defaults.memoryBytes == 4 << 30 && defaults.cpuSeconds == nil)
        #expect(defaults.timeout(forDuration: 2) == .seconds(600))
        #expect(defaults.timeout(forDuration: 3600) == .seconds(72000))
        #expect(defaults.timeout(forDuration: .infinity) == .seconds(600))

        let limits = try load("""
            memory_limit: 512M
            cpu_limit: "01:00:00"
            open_files: 256
            job_timeout: 5x
            job_timeout_minimum: 30s
            max_duration: "02:00:00"
            """ + "\n" + folders, in: dir).limits
        #expect(limits.memoryBytes == 512 << 20 && limits.cpuSeconds == 3600 && limits.openFiles == 256)
        #expect(limits.timeoutFactor == 5 && limits.timeoutMinimumSeconds == 30 && limits.maxDurationSeconds == 7200)
        #expect(limits.timeout(forDuration: 10) == .seconds(50))
        #expect(try load("memory_limit: unlimited\n" + folders, in: dir).limits.memoryBytes == nil)
    }

    @Test func workerLimitMistakesAreReportedAtTheirPositions() throws {
        let dir = try folderSet()
        let path = dir.file("dropcut.yaml")
        let text = errors("""
            memory_limit: 18446744073709551615G
            job_timeout: 20
            open_files: 3
            max_duration: "25:00:00"
            memory_limit_x: 1
            """, in: dir)
        #expect(text.contains("\(path):1:15: memory_limit must be a size of at least 16M"), "\(text)")
        #expect(text.contains("\(path):2:14: job_timeout must be a multiple of the clip's duration from 1x to 1000x"), "\(text)")
        #expect(text.contains("\(path):3:13: open_files must be between 64 and 65536"), "\(text)")
        #expect(text.contains("\(path):4:15: max_duration must be at most 24 hours"), "\(text)")
        #expect(text.contains("\(path):5:1: unknown key 'memory_limit_x'"), "\(text)")
    }

    /// Issue 17: a duration became `Int64(seconds * 1e6)`, which trapped past ~9.2e12 s;
    /// the config's times share the recipe's bound (24 hours), checked where parsed.
    @Test func hugeDurationsAreErrorsNotTraps() throws {
        let dir = try folderSet()
        let path = dir.file("dropcut.yaml")
        let text = errors("""
            poll_interval: 9223372036854775807
            settle: 1e19
            stop_timeout: "99999999:00:00"
            retry_delay: 86401
            """, in: dir)
        #expect(text.contains("\(path):1:16: poll_interval must be at most 24 hours (86400 s) (got 9223372036854775807)"), "\(text)")
        #expect(text.contains("\(path):2:9: settle must be at most 24 hours (86400 s) (got 1e19)"), "\(text)")
        #expect(text.contains("\(path):3:15: stop_timeout must be at most 24 hours (86400 s) (got 99999999:00:00)"), "\(text)")
        #expect(text.contains("\(path):4:14: retry_delay must be at most 24 hours (86400 s) (got 86401)"), "\(text)")
    }

    @Test func archiveIsRequiredToArchive() throws {
        let dir = try folderSet()
        let text = errors("folders:\n  - { inbox: in, outbox: out, failed: failed }\n", in: dir)
        #expect(text.contains("archive is missing"), "\(text)")
    }

    @Test func foldersTheDaemonWritesMustNotLieInsideAnInbox() throws {
        let dir = try folderSet()
        let text = errors("""
            folders:
              - { name: a, inbox: in, outbox: in/out, failed: failed, after_success: delete }
            """, in: dir)
        #expect(text.contains("outbox \(dir.file("in/out")) of folder 'a' lies inside the inbox"), "\(text)")
        // Through a symlink too.
        try FileManager.default.createSymbolicLink(atPath: dir.file("link"), withDestinationPath: dir.file("in"))
        let linked = errors("""
            folders:
              - { name: a, inbox: in, outbox: link/sub/out, failed: failed, after_success: delete }
            """, in: dir)
        #expect(linked.contains("lies inside the inbox"), "\(linked)")
        let shared = errors("""
            folders:
              - { name: a, inbox: in, outbox: out1, failed: failed, after_success: delete }
              - { name: b, inbox: in, outbox: out2, failed: failed, after_success: delete }
            """, in: dir)
        #expect(shared.contains("folders 'a' and 'b' watch the same inbox"), "\(shared)")
    }

    @Test func aBadFolderRecipeIsAConfigErrorThatPointsIntoTheRecipe() throws {
        let dir = try folderSet()
        try "version: 1\noutput: { crf: 99 }\n".write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        let text = errors("folders: [ { inbox: in, outbox: out, failed: failed, after_success: delete, recipe: r.yaml } ]\n", in: dir)
        #expect(text.contains("recipe \(dir.file("r.yaml")) does not load"), "\(text)")
        #expect(text.contains("\(dir.file("r.yaml")):2:"), "\(text)")
    }

    /// A folder's recipe with `outputs:` loads (the daemon publishes a deliverable set all
    /// or nothing: DeliverableSetDaemonTests); a mistake in one of its outputs is still a
    /// config error that points into the recipe.
    @Test func aFolderRecipeWithOutputsLoadsAndItsMistakesAreConfigErrors() throws {
        let dir = try folderSet()
        try "version: 1\noutputs:\n  - { filename: a.mp4 }\n  - { filename: b.jpg, poster: { at: 1 } }\n"
            .write(toFile: dir.file("set.yaml"), atomically: true, encoding: .utf8)
        let config = try load("folders: [ { inbox: in, outbox: out, failed: failed, after_success: delete, recipe: set.yaml } ]\n", in: dir)
        #expect(config.folders.first?.recipe == dir.file("set.yaml"))
        try "version: 1\noutputs:\n  - { filename: a.mp4 }\n  - { filename: a.mp4, poster: { at: 1 } }\n"
            .write(toFile: dir.file("bad.yaml"), atomically: true, encoding: .utf8)
        let text = errors("folders: [ { inbox: in, outbox: out, failed: failed, after_success: delete, recipe: bad.yaml } ]\n", in: dir)
        #expect(text.contains("recipe \(dir.file("bad.yaml")) does not load"), "\(text)")
        #expect(text.contains("\(dir.file("bad.yaml")):4:"), "\(text)")
    }

    @Test func yamlSyntaxErrorsHaveAPosition() throws {
        let dir = try folderSet()
        let text = errors("folders: [ { inbox: in\n", in: dir)
        #expect(text.contains(dir.file("dropcut.yaml") + ":"), "\(text)")
        #expect(text.contains("YAML syntax"), "\(text)")
        let missing = errors("workers: 1\n", in: dir)
        #expect(missing.contains("folders is missing"), "\(missing)")
    }

    /// A config with nothing in it is called a config (the reading is shared with recipes).
    @Test func anEmptyConfigSaysTheConfigIsEmpty() throws {
        let dir = try folderSet()
        for empty in ["", "\n\n", "# folders come later\n"] {
            #expect(errors(empty, in: dir) == "\(dir.file("dropcut.yaml")):1:1: the config is empty", "\(empty.debugDescription)")
        }
    }

    /// An inbox that cannot be used says which of the reasons it is.
    @Test func anUnusableInboxSaysWhy() throws {
        let dir = try folderSet()
        func inboxError(_ inbox: String) -> String { errors("folders: [ { inbox: \(inbox), outbox: out, failed: failed, after_success: delete } ]\n", in: dir) }
        let missing = inboxError("nowhere")
        #expect(missing.contains("inbox \(dir.file("nowhere")) does not exist (is its filesystem mounted?)"), "\(missing)")
        try "not a folder".write(toFile: dir.file("file"), atomically: false, encoding: .utf8)
        let file = inboxError("file")
        #expect(file.contains("inbox \(dir.file("file")) exists but is a regular file, not a folder"), "\(file)")
        let under = inboxError("file/in")
        #expect(under.contains("inbox \(dir.file("file/in")) cannot be reached: \(dir.file("file")) is not a folder"), "\(under)")
        #expect(inboxError("in") == "")
    }
}
