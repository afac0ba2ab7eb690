import ArgumentParser
import Daemon
import Foundation
import Logging
import MediaIO
import ServiceLifecycle

/// `dropcut watch [--config FILE] [--once]`: the daemon (DESIGN.md "The daemon"). The
/// scheduler and the SIGHUP reloader run as services of one `ServiceGroup`, which turns
/// SIGTERM and SIGINT into a graceful shutdown.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch", abstract: "Run the daemon: watch the configured inboxes and render what settles.")
    @OptionGroup var options: DaemonConfigOption
    @Flag(name: .long, help: "Process what is settled now (and what is still arriving), then exit.") var once = false

    func run() async throws {
        let settings = try options.load(command: "watch")
        let logger = Logger(label: "dropcut") { _ in JournalLogHandler() }
        var ffmpegLogger = logger
        ffmpegLogger.logLevel = .warning
        FFmpegLog.route(to: ffmpegLogger)

        let scheduler = Scheduler(config: settings, once: once, logger: logger)
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: scheduler, successTerminationBehavior: .gracefullyShutdownGroup),
        ]
        if !once {
            services.append(.init(service: ConfigReloader(path: settings.path, scheduler: scheduler, logger: logger)))
        }
        var groupConfig = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint],
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
}
