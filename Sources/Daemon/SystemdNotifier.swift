internal import CSystemd
import Foundation

/// The service manager's notification socket (`sd_notify`): READY=1, STATUS=, WATCHDOG=1,
/// RELOADING=1, STOPPING=1. Without `NOTIFY_SOCKET` (not under systemd) every call does
/// nothing.
public struct SystemdNotifier: Sendable {
    public init() {}

    /// Sends newline-separated `KEY=value` assignments; returns whether they were sent.
    @discardableResult
    public func notify(_ state: String) -> Bool {
        sd_notify(0, state) > 0
    }

    public func ready(status: String) { notify("READY=1\nSTATUS=\(status)") }
    public func status(_ text: String) { notify("STATUS=\(text)") }
    public func watchdog() { notify("WATCHDOG=1") }
    public func stopping() { notify("STOPPING=1") }

    /// RELOADING=1 with the CLOCK_MONOTONIC time in µs (systemd ≥ 253's Type=notify-reload
    /// needs it; older ones ignore it).
    public func reloading() {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let usec = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        notify("RELOADING=1\nMONOTONIC_USEC=\(usec)")
    }

    /// Half the watchdog interval systemd asked for (`WATCHDOG_USEC`, for this pid), or nil.
    public var watchdogInterval: Duration? {
        var usec: UInt64 = 0
        guard sd_watchdog_enabled(0, &usec) > 0, usec > 0 else { return nil }
        return .microseconds(Int64(usec / 2))
    }
}
