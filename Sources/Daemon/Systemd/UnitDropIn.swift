import Foundation

/// The systemd drop-in a config needs under the hardened `dropcut.service`
/// (`dropcut watch --check --unit-drop-in`, written by `scripts/install` to
/// `/etc/systemd/system/dropcut.service.d/50-folders.conf`):
/// - `RequiresMountsFor=` every folder, so the service starts after the mounts its folders
///   live on (a network share) and stops before they are unmounted;
/// - `ReadWritePaths=` the folders dropcut writes (inboxes, because claiming renames
///   inside them; outboxes, failed and archive folders; the state folder), since
///   `ProtectSystem=strict` makes everything else read-only;
/// - for folders under `/home`, `/root` or `/run/user`, which `ProtectHome=yes` hides,
///   `ProtectHome=tmpfs` with `BindPaths=` (written) or `BindReadOnlyPaths=` (assets);
///   for folders in `/tmp` or `/var/tmp`, `PrivateTmp=no`.
package enum UnitDropIn {
    /// The drop-in's text for `config`. `exists` tells which folders are there now: a
    /// `ReadWritePaths=` folder that does not exist is ignored by systemd, so for a folder
    /// dropcut will create at start (an outbox, failed or archive folder not made yet) the
    /// nearest existing folder above it is made writable instead.
    package static func text(for config: DaemonConfig,
                            exists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }) -> String {
        var written: [String] = []
        for folder in config.folders {
            written += [folder.inbox, folder.outbox, folder.failed] + (folder.archive.map { [$0] } ?? [])
        }
        written = unique(written + [config.stateDirectory])
        var readOnly: [String] = []
        for folder in config.folders {
            readOnly += folder.assets + (folder.recipe.map { [($0 as NSString).deletingLastPathComponent] } ?? [])
        }
        readOnly = unique(readOnly).filter { !written.contains($0) }

        let all = written + readOnly
        let hidden = { (path: String) in isInside(path, homeFolders) }
        var lines = [
            "# Written by `dropcut watch --config \(config.path) --check --unit-drop-in`:",
            "# the folders of that config. Regenerate it after changing folders.",
            "[Unit]",
        ]
        lines += all.map { "RequiresMountsFor=\(quoted($0))" }
        lines += ["", "[Service]"]
        // "-": a folder that is missing (an unmounted share) must not keep the service from
        // starting with systemd's bare 226/NAMESPACE; dropcut itself reports it by name.
        lines += unique(written.filter { !hidden($0) }.map { existing($0, exists) })
            .map { "ReadWritePaths=\(quoted("-" + $0))" }
        if all.contains(where: { isInside($0, ["/tmp", "/var/tmp"]) }) {
            lines.append("# Folders in /tmp or /var/tmp: the host's, not a private one.")
            lines.append("PrivateTmp=no")
        }
        if all.contains(where: hidden) {
            lines.append("ProtectHome=tmpfs")
            lines += unique(written.filter(hidden).map { existing($0, exists) }).map { "BindPaths=\(quoted("-" + $0))" }
            lines += readOnly.filter(hidden).map { "BindReadOnlyPaths=\(quoted("-" + $0))" }
        }
        lines += network(for: config)
        return lines.joined(separator: "\n") + "\n"
    }

    /// The unit keeps dropcut off the network (`PrivateNetwork=yes`, `IPAddressDeny=any`,
    /// `RestrictAddressFamilies=AF_UNIX`); a config with an HTTP listener on an address
    /// or systemd's socket, or with webhooks, needs IP sockets back — only loopback for a
    /// loopback listener, anywhere for webhooks and a listener with a token.
    static func network(for config: DaemonConfig) -> [String] {
        var needs: [String] = [], anywhere = !config.webhooks.isEmpty
        switch config.http?.listen {
        case let .tcp(host, port)?:
            needs.append("the HTTP listener on \(HTTPConfig.Listen.tcp(host: host, port: port))")
            if !HTTPConfig.Listen.isLoopback(host) { anywhere = true }
        case .systemd?:
            needs.append("the HTTP listener on dropcut.socket's socket")
            if config.http?.token != nil { anywhere = true }
        case .unix?, nil:
            break
        }
        if !config.webhooks.isEmpty { needs.append("webhooks to \(config.webhooks.count) endpoint(s)") }
        guard !needs.isEmpty else { return [] }
        var lines = ["# IP sockets for \(needs.joined(separator: " and ")):", "PrivateNetwork=no",
                     "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6"]
        // An empty IPAddressDeny= resets the unit's `any`; else only loopback is let through.
        lines.append(anywhere ? "IPAddressDeny=" : "IPAddressAllow=localhost")
        return lines
    }

    /// `path` if it exists, else the nearest folder above it that does.
    private static func existing(_ path: String, _ exists: (String) -> Bool) -> String {
        var candidate = path
        while !exists(candidate) && candidate != "/" {
            candidate = (candidate as NSString).deletingLastPathComponent
            if candidate.isEmpty { return "/" }
        }
        return candidate
    }

    /// `paths` in their first order, each once.
    private static func unique(_ paths: [String]) -> [String] {
        var seen = Set<String>()
        return paths.filter { seen.insert($0).inserted }
    }

    /// What `ProtectHome=yes` makes inaccessible.
    static let homeFolders = ["/home", "/root", "/run/user"]

    /// Whether `path` is one of `folders` or lies inside one.
    private static func isInside(_ path: String, _ folders: [String]) -> Bool {
        folders.contains { path == $0 || path.hasPrefix($0 + "/") }
    }

    /// A path as one word of a unit file setting: `%` doubled (specifiers), and quoted
    /// with backslash escapes when it holds spaces, quotes or backslashes.
    static func quoted(_ path: String) -> String {
        let escaped = path.replacingOccurrences(of: "%", with: "%%")
        guard escaped.contains(where: { $0 == " " || $0 == "\t" || $0 == "\"" || $0 == "'" || $0 == "\\" }) else {
            return escaped
        }
        var out = "\""
        for character in escaped {
            if character == "\"" || character == "\\" { out.append("\\") }
            out.append(character)
        }
        return out + "\""
    }
}
