import Foundation
import DropcutPipeline

/// The watched inboxes: each one's listing (`InboxScanner`, which remembers what is still
/// arriving), its claims as last seen (`ClaimObserver`), inotify's hint that something
/// changed (`InboxWatcher`), and what the last pass found — which inboxes are away, and
/// how many files are still arriving. Made for the folders at start and made again from
/// a reloaded config by the same `configure`, which keeps what it knew of every inbox
/// and claimed folder that stays.
struct Inboxes {
    private var scanners: [String: InboxScanner] = [:]
    /// The claims in each inbox's claimed folder, every host's, by folder name.
    var observers: [String: ClaimObserver] = [:]
    private var watcher: InboxWatcher?
    /// The inboxes that could not be listed at the last pass, by folder name, with why
    /// (logged once per cause).
    var unavailable: [String: String] = [:]
    /// Files still arriving at the last pass, in every inbox.
    var arriving = 0

    /// Watches `folders` from now on: an inbox (or claimed folder) that stays keeps its
    /// scanner (what is arriving, the mount it was on) or observer (the leases it has
    /// seen change) with the new settle or lease timeout; a new one gets a new one, made
    /// now — its mount noted before the daemon says it is ready —; a removed one is
    /// forgotten, and inotify follows.
    mutating func configure(_ folders: [FolderConfig], settle: Duration, leaseTimeout: Duration) {
        var kept: [String: InboxScanner] = [:]
        var observing: [String: ClaimObserver] = [:]
        for folder in folders {
            if var scanner = scanners[folder.name], scanner.inbox == folder.inbox {
                scanner.settle = settle
                kept[folder.name] = scanner
            } else {
                kept[folder.name] = InboxScanner(inbox: folder.inbox, settle: settle)
            }
            if var observer = observers[folder.name], observer.claimedDirectory == folder.claimedDirectory {
                observer.leaseTimeout = leaseTimeout
                observing[folder.name] = observer
            } else {
                observing[folder.name] = ClaimObserver(claimedDirectory: folder.claimedDirectory, leaseTimeout: leaseTimeout)
            }
        }
        scanners = kept
        observers = observing
        unavailable = unavailable.filter { kept[$0.key] != nil }
        watcher?.watch(folders.map(\.inbox))
    }

    /// Starts inotify on the configured inboxes, calling `wake` on every burst of changes
    /// (nothing when inotify cannot be had: polling finds the same, later).
    mutating func startWatching(wake: @escaping @Sendable () -> Void) {
        watcher = InboxWatcher(onChange: wake)
        watcher?.watch(scanners.values.map(\.inbox).sorted())
    }

    func stopWatching() {
        watcher?.stop()
    }

    /// Lists `folder`'s inbox now; nil for a folder not configured.
    mutating func scan(_ folder: String) -> InboxListing? {
        guard var scanner = scanners[folder] else { return nil }
        let listing = scanner.scan()
        scanners[folder] = scanner
        return listing
    }

    /// A clip left the inbox (claimed here or by another process): not waited for again.
    mutating func forget(_ clip: String, in folder: String) {
        scanners[folder]?.forget(clip)
    }

    /// When the soonest file still arriving in any inbox will have settled.
    var nextSettle: ContinuousClock.Instant? {
        scanners.values.compactMap(\.nextSettle).min()
    }
}
