internal import CDropcutSystemd
import Foundation

/// The service manager's notification socket (`sd_notify`): READY=1, STATUS=, WATCHDOG=1,
/// RELOADING=1, STOPPING=1. Without `NOTIFY_SOCKET` (not under systemd) every call does
/// nothing.
package struct SystemdNotifier: Sendable {
    package init() {}

    /// Sends newline-separated `KEY=value` assignments; returns whether they were sent.
    @discardableResult
    package func notify(_ state: String) -> Bool {
        sd_notify(0, state) > 0
    }

    package func ready(status: String) { notify("READY=1\nSTATUS=\(Self.oneLine(status))") }
    package func status(_ text: String) { notify("STATUS=\(Self.oneLine(text))") }

    /// `text` with control characters written as `\n`, `\t`, `\u{1b}`...: the protocol
    /// splits assignments at newlines, so a clip named `a\nSTOPPING=1\n.mov` in a status
    /// line must not become an assignment of its own (nor a terminal escape in
    /// `systemctl status`).
    package static func oneLine(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A: out += "\\n"
            case 0x09: out += "\\t"
            case 0x0D: out += "\\r"
            case 0x00..<0x20, 0x7F, 0x80..<0xA0, 0x2028, 0x2029:
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
    package func watchdog() { notify("WATCHDOG=1") }
    package func stopping() { notify("STOPPING=1") }

    /// RELOADING=1 with the CLOCK_MONOTONIC time in µs (systemd ≥ 253's Type=notify-reload
    /// needs it; older ones ignore it).
    package func reloading() {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let usec = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        notify("RELOADING=1\nMONOTONIC_USEC=\(usec)")
    }

    /// Half the watchdog interval systemd asked for (`WATCHDOG_USEC`, for this pid), or nil.
    package var watchdogInterval: Duration? {
        var usec: UInt64 = 0
        guard sd_watchdog_enabled(0, &usec) > 0, usec > 0 else { return nil }
        return .microseconds(Int64(usec / 2))
    }
}
