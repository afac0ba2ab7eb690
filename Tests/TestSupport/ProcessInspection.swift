import Foundation

/// What /proc says of a process the tests started: its children, its TCP sockets, its
/// threads' names. (Linux only, as dropcut is.)
public enum ProcessInspection {
    /// The processes whose parent is `parent` (from /proc/<pid>/stat: the 4th field,
    /// after the command name in parentheses, which may itself hold spaces).
    public static func children(of parent: Int32) -> [Int32] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap { entry -> Int32? in
            guard let pid = Int32(entry),
                  let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == parent ? pid : nil
        }
    }

    /// The CPU time `pid` has used (user + system, from /proc/<pid>/stat's 14th and 15th
    /// fields), in seconds; nil when it is gone.
    public static func cpuSeconds(of pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The TCP sockets (IPv4 or IPv6, listening or connected) `pid` holds open, each as
    /// "local -> remote state XX" in /proc's hex (state 0A: LISTEN).
    public static func tcpSockets(of pid: Int32) -> [String] {
        let fds = "/proc/\(pid)/fd"
        let inodes = Set(((try? FileManager.default.contentsOfDirectory(atPath: fds)) ?? []).compactMap { fd -> String? in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(fds)/\(fd)"),
                  target.hasPrefix("socket:[") else { return nil }
            return String(target.dropFirst(8).dropLast())
        })
        var found: [String] = []
        for table in ["/proc/\(pid)/net/tcp", "/proc/\(pid)/net/tcp6"] {
            let lines = ((try? String(contentsOfFile: table, encoding: .utf8)) ?? "").split(separator: "\n").dropFirst()
            for line in lines {
                let fields = line.split(separator: " ")
                if fields.count > 9, inodes.contains(String(fields[9])) { found.append("\(fields[1]) -> \(fields[2]) state \(fields[3])") }
            }
        }
        return found
    }

    /// The names of `pid`'s threads (`comm`).
    public static func threadNames(of pid: Int32) -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.compactMap { try? String(contentsOfFile: "/proc/\(pid)/task/\($0)/comm", encoding: .utf8) }
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    }
}
