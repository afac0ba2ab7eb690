import Foundation
import Logging
import ServiceLifecycle

/// Reloads the config on SIGHUP (`systemctl reload dropcut`), a `Service` beside the
/// scheduler: RELOADING=1 to systemd, read and validate the file again, hand it to the
/// scheduler, READY=1. A config that does not validate is logged with every problem and
/// the old one stays in force; running jobs are never dropped.
public struct ConfigReloader: Service {
    let path: String
    let scheduler: Scheduler
    let signals: DaemonSignals
    let logger: Logger
    let notifier = SystemdNotifier()

    package init(path: String, scheduler: Scheduler, signals: DaemonSignals, logger: Logger) {
        self.path = path
        self.scheduler = scheduler
        self.signals = signals
        self.logger = logger
    }

    public func run() async throws {
        let signals = self.signals
        await withGracefulShutdownHandler {
            while await signals.next(.reload) != nil {
                await reload()
            }
        } onGracefulShutdown: {
            signals.wake(.reload)
        }
    }

    /// Reloads once (what SIGHUP does).
    package func reload() async {
        notifier.reloading()
        var log = logger
        log[metadataKey: "DROPCUT_CONFIG"] = "\(path)"
        do {
            let config = try ConfigLoader.load(path)
            // As at start (`FolderCheck`): a folder added or changed that the daemon cannot
            // use would fail every clip of it.
            let problems = FolderCheck(config: config).problems()
            if !problems.isEmpty { throw DaemonError(problems.joined(separator: "\n")) }
            let refused = try await scheduler.apply(config)
            if !refused.isEmpty {
                // Named, with what stays in force: a key that seemed applied but was not is
                // how a second daemon came to share nothing with this one (issue 28).
                log.error("config reload: \(refused.map(\.key).joined(separator: ", ")) cannot change while dropcut runs; kept: \(refused.map(\.description).joined(separator: "; ")). Restart dropcut to apply; the rest of the config is applied",
                          metadata: ["MESSAGE_ID": "\(MessageID.configRejected.rawValue)"])
            }
            log.notice("config reloaded: \(config.folders.count) folder(s)\(refused.isEmpty ? "" : " (except \(refused.map(\.key).joined(separator: ", ")))")",
                       metadata: ["MESSAGE_ID": "\(MessageID.configReloaded.rawValue)"])
        } catch {
            log.error("config reload failed; keeping the previous config:\n\(error)",
                      metadata: ["MESSAGE_ID": "\(MessageID.configRejected.rawValue)"])
        }
        notifier.ready(status: scheduler.summary)
    }
}
