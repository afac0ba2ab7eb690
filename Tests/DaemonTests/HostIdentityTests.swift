import Foundation
import Testing
import DropcutDaemon

/// Who a lease names as its owner.
@Suite struct HostIdentityTests {
    @Test func thisHostIsReadFromTheSystem() throws {
        let identity = try HostIdentity.current(environment: [:])
        #expect(identity.pid == getpid())
        let machine = try String(contentsOfFile: "/etc/machine-id", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(identity.machineID == machine)
        let boot = try String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)
        #expect(identity.bootID == boot.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "-", with: ""))
        #expect(!identity.host.isEmpty && identity.host != "unknown")
    }

    /// Tests run several "hosts" on one machine; containers may want a telling name.
    @Test func theEnvironmentNamesAnotherHost() throws {
        let identity = try HostIdentity.current(environment: ["DROPCUT_HOSTNAME": "host-b",
                                                              "DROPCUT_MACHINE_ID": "0123456789ABCDEF0123456789abcdef"])
        #expect(identity.host == "host-b")
        #expect(identity.machineID == "0123456789abcdef0123456789abcdef")
        #expect(throws: DaemonError.self) { try HostIdentity.current(environment: ["DROPCUT_MACHINE_ID": "host-b"]) }
        #expect(throws: DaemonError.self) { try HostIdentity.current(environment: ["DROPCUT_HOSTNAME": "a/b"]) }
    }
}
