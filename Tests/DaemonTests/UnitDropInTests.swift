import Testing
import DropcutDaemon

/// The systemd drop-in a config needs: every folder a mount requirement, written folders
/// writable, home folders bound in, unit-file quoting.
@Suite struct UnitDropInTests {
    func config(_ folders: [FolderConfig], state: String = "/var/lib/dropcut") -> DaemonConfig {
        DaemonConfig(path: "/etc/dropcut/dropcut.yaml", stateDirectory: state, folders: folders)
    }

    func lines(_ text: String, _ key: String) -> [String] {
        text.split(separator: "\n").filter { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
    }

    @Test func everyFolderIsRequiredAndTheWrittenOnesAreWritable() {
        let text = UnitDropIn.text(for: config([
            FolderConfig(name: "a", inbox: "/srv/a/in", outbox: "/srv/a/out", failed: "/srv/a/failed", archive: "/srv/a/archive",
                         recipe: "/etc/dropcut/recipes/a.yaml", assets: ["/srv/assets"]),
            FolderConfig(name: "b", inbox: "/mnt/share/b/in", outbox: "/srv/a/out", failed: "/srv/a/failed", afterSuccess: .delete,
                         assets: ["/srv/assets"]),
        ]), exists: { _ in true })
        let written = ["/srv/a/in", "/srv/a/out", "/srv/a/failed", "/srv/a/archive", "/mnt/share/b/in", "/var/lib/dropcut"]
        #expect(lines(text, "ReadWritePaths") == written.map { "-" + $0 })
        #expect(lines(text, "RequiresMountsFor") == written + ["/srv/assets", "/etc/dropcut/recipes"])
        #expect(!text.contains("ProtectHome") && !text.contains("PrivateTmp"))
        #expect(text.contains("[Unit]") && text.contains("[Service]"))
    }

    @Test func homeAndTemporaryFoldersAreBoundInAndUnitSyntaxIsQuoted() {
        let text = UnitDropIn.text(for: config([
            FolderConfig(name: "h", inbox: "/home/ann/My Clips", outbox: "/home/ann/100%", failed: "/tmp/failed",
                         afterSuccess: .delete, assets: ["/root/logos"]),
        ], state: "/var/lib/dropcut"), exists: { _ in true })
        #expect(lines(text, "RequiresMountsFor").first == "\"/home/ann/My Clips\"")
        #expect(lines(text, "BindPaths") == ["\"-/home/ann/My Clips\"", "-/home/ann/100%%"])
        #expect(lines(text, "BindReadOnlyPaths") == ["-/root/logos"])
        #expect(lines(text, "ReadWritePaths") == ["-/tmp/failed", "-/var/lib/dropcut"])
        #expect(lines(text, "ProtectHome") == ["tmpfs"])
        #expect(lines(text, "PrivateTmp") == ["no"])
    }

    @Test func aFolderDropcutWillCreateIsWritableThroughTheNearestExistingOne() {
        // /srv/media exists; its outbox and the new/deeper failed folder do not yet.
        let present: Set<String> = ["/", "/srv", "/srv/media", "/srv/media/in", "/var/lib/dropcut"]
        let text = UnitDropIn.text(for: config([
            FolderConfig(name: "m", inbox: "/srv/media/in", outbox: "/srv/media/out", failed: "/srv/media/new/failed",
                         afterSuccess: .delete),
        ]), exists: { present.contains($0) })
        #expect(lines(text, "ReadWritePaths") == ["-/srv/media/in", "-/srv/media", "-/var/lib/dropcut"])
        // Mount requirements name the folders themselves.
        #expect(lines(text, "RequiresMountsFor") == ["/srv/media/in", "/srv/media/out", "/srv/media/new/failed", "/var/lib/dropcut"])
    }

    /// The network sandbox opens only as far as the config needs: nothing without http and
    /// webhooks (or with a unix socket), loopback for a loopback listener, anywhere for
    /// webhooks; and the unit's own lines stay when nothing is needed.
    @Test func networkIsOpenedOnlyAsTheConfigNeeds() {
        let folder = FolderConfig(name: "a", inbox: "/srv/in", outbox: "/srv/out", failed: "/srv/failed")
        var plain = config([folder])
        #expect(lines(UnitDropIn.text(for: plain, exists: { _ in true }), "PrivateNetwork").isEmpty)
        plain.http = HTTPConfig(listen: .unix(path: "/run/dropcut/http.sock"))
        #expect(lines(UnitDropIn.text(for: plain, exists: { _ in true }), "RestrictAddressFamilies").isEmpty)

        var local = config([folder])
        local.http = HTTPConfig(listen: .tcp(host: "127.0.0.1", port: 8181))
        let localText = UnitDropIn.text(for: local, exists: { _ in true })
        #expect(lines(localText, "PrivateNetwork") == ["no"])
        #expect(lines(localText, "RestrictAddressFamilies") == ["AF_UNIX AF_INET AF_INET6"])
        #expect(lines(localText, "IPAddressAllow") == ["localhost"])
        #expect(lines(localText, "IPAddressDeny").isEmpty)

        var hooks = local
        hooks.webhooks = [WebhookConfig(url: "https://hooks.example/dropcut", secret: [UInt8](repeating: 1, count: 32))]
        let hooksText = UnitDropIn.text(for: hooks, exists: { _ in true })
        #expect(lines(hooksText, "IPAddressDeny") == [""])
        #expect(lines(hooksText, "IPAddressAllow").isEmpty)
    }
}
