import ArgumentParser
import DropcutDaemon
import Foundation
import Logging
import DropcutPipeline
import ServiceLifecycle

/// `dropcut watch [--config FILE] [--once]`: the daemon (docs/daemon.md). The
/// scheduler, the SIGHUP reloader and `ShutdownOnSignal` (SIGTERM and SIGINT, caught from
/// the command's first line by `DaemonSignals`) run as services of one `ServiceGroup`.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch", abstract: "Run the daemon: watch the configured inboxes and render what settles.")
    @OptionGroup var options: DaemonConfigOption
    @Flag(name: .long, help: "Process what is settled now (and what is still arriving), then exit.") var once = false
    @Flag(name: .long, help: "Check the config (every mistake at file:line:column), list its folders, and exit.")
    var check = false
    @Flag(name: .long, help: "With --check: print the systemd drop-in (RequiresMountsFor=, ReadWritePaths=) its folders need.")
    var unitDropIn = false
    @Option(name: .long, help: "With --check, run by root: check the folders as this user (default: dropcut, the service's, when it exists).")
    var serviceUser: String?
    @Flag(name: .long, help: "With --check: print nothing for a good config, only problems (the units' ExecReload=).")
    var quiet = false

    func validate() throws {
        if unitDropIn && !check { throw ValidationError("--unit-drop-in goes with --check") }
        if once && check { throw ValidationError("--once and --check exclude each other") }
        if serviceUser != nil && !check { throw ValidationError("--service-user goes with --check") }
        if quiet && (!check || unitDropIn) { throw ValidationError("--quiet goes with --check (and not --unit-drop-in)") }
    }

    func run() async throws {
        if check {
            let settings = try options.load(command: "watch")
            let (problems, user) = try Self.checkFoldersAsService(settings, user: serviceUser)
            try Self.refuse(problems)
            if !quiet { print(unitDropIn ? UnitDropIn.text(for: settings) : Self.summary(of: settings, checkedAs: user), terminator: "") }
            return
        }
        // Caught from here on: a stop asked for while starting is a graceful stop.
        let signals: DaemonSignals
        do {
            signals = try DaemonSignals.install()
        } catch {
            printError("dropcut watch: \(error)")
            throw ExitCode(1)
        }
        let settings = try options.load(command: "watch")
        // Before READY=1 can be sent: a folder the daemon cannot use would fail every clip
        // of a daemon that said it was ready. Checked as this process's user: it is the
        // one that will write.
        try Self.refuse(FolderCheck(config: settings).problems())
        let logger = Logger(label: "dropcut") { _ in JournalLogHandler() }
        var ffmpegLogger = logger
        ffmpegLogger.logLevel = .warning
        EngineLog.route(to: ffmpegLogger)
        // Before anything opens a descriptor: what the network may take (the listener's
        // caps) is set from it.
        let descriptors = DescriptorLimit.raiseSoftToHard()
        if descriptors.error != nil { logger.warning("\(descriptors)") } else { logger.notice("\(descriptors)") }

        let identity: HostIdentity
        do {
            identity = try HostIdentity.current()
        } catch {
            printError("dropcut watch: \(error)")
            throw ExitCode(1)
        }
        let scheduler = Scheduler(config: settings, once: once, identity: identity, logger: logger)
        // The renewer first: services stop in reverse order, so leases are renewed while
        // the scheduler drains its jobs.
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: ShutdownOnSignal(signals: signals, logger: logger), successTerminationBehavior: .gracefullyShutdownGroup),
            .init(service: LeaseRenewer(scheduler: scheduler, logger: logger)),
        ]
        // Only with `http:` in the config: otherwise nothing listens (and no thread starts).
        if let http = settings.http {
            let router = APIRouter(config: settings, metrics: scheduler.metrics, board: scheduler.board, logger: logger)
            // A listener that cannot start stops the daemon, gracefully (cancelling the group
            // would leave the scheduler waiting for a shutdown that never comes).
            let environment = ProcessInfo.processInfo.environment
            let idle = HTTPServer.idleTimeout(fromEnvironment: environment) ?? HTTPServer.defaultIdleTimeout
            let request = HTTPServer.requestTimeout(fromEnvironment: environment) ?? HTTPServer.defaultRequestTimeout
            services.append(.init(service: HTTPServer(config: http, router: router, metrics: scheduler.metrics, logger: logger,
                                                      idleTimeout: idle, requestTimeout: request,
                                                      limits: ConnectionLimits(descriptors: descriptors.soft, inUse: DescriptorLimit.inUse),
                                                      descriptors: descriptors.soft),
                                  failureTerminationBehavior: .gracefullyShutdownGroup))
        }
        // Only with webhooks configured; before the scheduler, so it stops after it and
        // still delivers what the jobs draining at shutdown announce.
        if let outbox = scheduler.webhooks {
            let backoff = WebhookBackoff.fromEnvironment(ProcessInfo.processInfo.environment) ?? WebhookBackoff()
            let metrics = scheduler.metrics, urls = settings.webhooks.map(\.url)
            for endpoint in urls.indices { metrics.webhookPending(endpoint: endpoint + 1, 0) }
            services.append(.init(service: WebhookDelivery(outbox: outbox, logger: logger, backoff: backoff) { report in
                metrics.webhookAttempt(report.outcome)
                if let index = urls.firstIndex(of: report.url) { metrics.webhookPending(endpoint: index + 1, report.pending) }
            }, failureTerminationBehavior: .gracefullyShutdownGroup))
        }
        // Before the scheduler: it publishes each status the scheduler posts, the last one
        // after the scheduler has drained its jobs, then ends.
        services.append(.init(service: scheduler.publisher, successTerminationBehavior: .gracefullyShutdownGroup,
                              failureTerminationBehavior: .gracefullyShutdownGroup))
        services.append(.init(service: scheduler, successTerminationBehavior: .gracefullyShutdownGroup))
        if !once {
            services.append(.init(service: ConfigReloader(path: settings.path, scheduler: scheduler, signals: signals, logger: logger)))
        }
        var groupConfig = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [],
                                                    cancellationSignals: [], logger: logger)
        // The scheduler cancels running jobs itself after stop_timeout; this is the backstop.
        groupConfig.maximumGracefulShutdownDuration = settings.stopTimeout + .seconds(10)
        do {
            try await ServiceGroup(configuration: groupConfig).run()
        } catch {
            printError("dropcut watch: \(error)")
            throw ExitCode(1)
        }
        if once {
            let done = await scheduler.completed, failed = await scheduler.failures
            print("dropcut watch --once: \(done) done, \(failed) failed")
            if failed > 0 { throw ExitCode(1) }
        }
    }

    /// The folders checked as the service will use them: run by root, as `named` (a unit
    /// whose drop-in says another `User=`), else as the packaged service user when this
    /// machine has it (the unit runs as it), else as this process's user. Returns the
    /// problems and whom they were checked as, with why when not the service user.
    static func checkFoldersAsService(_ config: DaemonConfig, user named: String?) throws -> (problems: [String], user: String) {
        let check = FolderCheck(config: config), me = FolderCheck.currentUser()
        if let named, FolderCheck.user(named: named) == nil {
            printError("dropcut watch: --service-user \(named): this machine has no such user")
            throw ExitCode(1)
        }
        guard me.uid == 0 else {
            if let named, named != me.name {
                printError("dropcut watch: --service-user \(named): only root can check as another user; run the check as root or as \(named)")
                throw ExitCode(1)
            }
            return (check.problems(), "user \(me.name)")
        }
        guard let service = FolderCheck.user(named: named ?? FolderCheck.serviceUserName) else {
            return (check.problems(), "user \(me.name) (this machine has no user \(FolderCheck.serviceUserName), the service's)")
        }
        if let problems = check.problems(as: service) { return (problems, "user \(service.name), the service's") }
        return (check.problems(), "user \(me.name) (could not take on user \(service.name)'s ids)")
    }

    /// Prints each folder problem and exits 1, when there are any: the unit retries it (a
    /// config the loader rejects exits 78 and is not retried: `ExitCode.badConfig`).
    static func refuse(_ problems: [String]) throws {
        guard !problems.isEmpty else { return }
        for problem in problems { printError("dropcut watch: \(problem)") }
        throw ExitCode(1)
    }

    /// What `--check` prints for a valid config: each folder's route.
    static func summary(of config: DaemonConfig, checkedAs user: String) -> String {
        var lines = ["\(config.path): OK, \(config.folders.count) folder(s), state in \(config.stateDirectory); folders checked as \(user)"]
        for folder in config.folders {
            let after = folder.afterSuccess == .archive ? "archived to \(folder.archive ?? "?")" : "deleted"
            lines.append("  \(folder.name): \(folder.inbox) -> \(folder.outbox) (recipe: \(folder.recipe ?? "identity"));"
                         + " failures to \(folder.failed); originals \(after)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
