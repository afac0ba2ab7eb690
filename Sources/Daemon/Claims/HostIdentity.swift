import Foundation

/// Who holds a claim in a shared inbox: the host's name, its machine id
/// (`/etc/machine-id`), the boot it is in (`/proc/sys/kernel/random/boot_id`) and the
/// daemon's process id. Written into every claim's lease so that people (`dropcut status`,
/// the journal) can tell whose a claim is; the protocol itself never compares identities
/// or clocks of hosts — ownership is the claim folder's name (see `ClaimLease`).
public struct HostIdentity: Codable, Sendable, Hashable {
    /// The host name (`gethostname`), or `DROPCUT_HOSTNAME`.
    package var host: String
    /// 32 lower-case hex digits, or "unknown" where the file is missing (a bare container).
    package var machineID: String
    /// 32 lower-case hex digits (dashes removed), or "unknown".
    package var bootID: String
    /// The daemon's process id.
    package var pid: Int32

    enum CodingKeys: String, CodingKey {
        case host, machineID = "machine_id", bootID = "boot_id", pid
    }

    /// An identity as given (tests; `current()` reads this host's).
    package init(host: String, machineID: String, bootID: String, pid: Int32) {
        self.host = host
        self.machineID = machineID
        self.bootID = bootID
        self.pid = pid
    }

    /// The longest host name kept (HOST_NAME_MAX is 64; a lease from elsewhere may say more).
    static let maximumHostBytes = 255
    /// The largest process id Linux hands out (`pid_max` is at most 2^22).
    static let maximumPID: Int32 = 1 << 22

    /// This process on this host. `DROPCUT_HOSTNAME` and `DROPCUT_MACHINE_ID` replace the
    /// host name and machine id — for tests that run several "hosts" on one machine, and
    /// for containers whose host name says nothing. A machine id that is not 32 hex digits
    /// is an error, not silently replaced.
    public static func current(environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(DaemonError) -> HostIdentity {
        var host = environment["DROPCUT_HOSTNAME"] ?? ""
        if host.isEmpty {
            var buffer = [CChar](repeating: 0, count: 256)
            if gethostname(&buffer, buffer.count - 1) == 0 {
                host = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        }
        guard isValid(host: host) || host.isEmpty else {
            throw DaemonError("DROPCUT_HOSTNAME must be 1 to \(maximumHostBytes) bytes without control characters or '/'")
        }
        var machine = "unknown"
        if let given = environment["DROPCUT_MACHINE_ID"] {
            guard let id = hexID(given) else {
                throw DaemonError("DROPCUT_MACHINE_ID must be 32 hex digits like /etc/machine-id's, got '\(given)'")
            }
            machine = id
        } else if let text = try? String(contentsOfFile: "/etc/machine-id", encoding: .utf8), let id = hexID(text) {
            machine = id
        }
        var boot = "unknown"
        if let text = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8), let id = hexID(text) {
            boot = id
        }
        return HostIdentity(host: host.isEmpty ? "unknown" : host, machineID: machine, bootID: boot, pid: getpid())
    }

    /// 32 hex digits (dashes and surrounding white space dropped), lower-cased; nil otherwise.
    static func hexID(_ text: String) -> String? {
        let digits = text.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "-", with: "").lowercased()
        guard digits.utf8.count == 32, digits.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }) else {
            return nil
        }
        return digits
    }

    static func isValid(host: String) -> Bool {
        !host.isEmpty && host.utf8.count <= maximumHostBytes && !host.contains("/")
            && !host.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// Whether what a lease says of its owner is in range (it was written by another host).
    var problem: String? {
        if !Self.isValid(host: host) { return "its owner's host name is empty, too long or not printable" }
        if machineID != "unknown" && Self.hexID(machineID) != machineID { return "its owner's machine_id is not 32 hex digits" }
        if bootID != "unknown" && Self.hexID(bootID) != bootID { return "its owner's boot_id is not 32 hex digits" }
        if !(1...Self.maximumPID).contains(pid) { return "its owner's pid \(pid) is out of range (1 to \(Self.maximumPID))" }
        return nil
    }

    /// "host-b (pid 4242)", for messages.
    public var description: String { "\(host) (pid \(pid))" }

    /// The host name in a `description` ("render-2 (pid 812)" → "render-2"), as a
    /// coordinator's rows name their holder.
    package static func name(of description: String) -> String {
        guard description.hasSuffix(")"), let open = description.range(of: " (pid ", options: .backwards) else { return description }
        return String(description[..<open.lowerBound])
    }
}
