import Foundation
import Testing
import TestSupport

/// The SFTP/sshfs harness itself: a real sshd on 127.0.0.1 and real sshfs mounts, one with
/// hard links and one without, torn down completely. What these tests pin down about
/// sshfs (which calls fail, with which errno) is what DurableFiles' publishing relies on.
@Suite(.serialized, .tags(.slow)) struct SSHFSHarnessTests {
    /// renameat2(2) through dlsym: Swift's Glibc module does not declare it (_GNU_SOURCE).
    static func renameNoReplace(_ from: String, _ to: String) -> (rc: Int32, errno: Int32) {
        typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2") else { return (-1, ENOSYS) }
        let rc = unsafeBitCast(symbol, to: RenameAt2.self)(AT_FDCWD, from, AT_FDCWD, to, 1 /* RENAME_NOREPLACE */)
        return (rc, rc == 0 ? 0 : errno)
    }

    static func write(_ text: String, _ path: String) throws {
        try text.write(toFile: path, atomically: false, encoding: .utf8)
    }

    @Test func twoMountsOfOneFolderSeeEachOthersFiles() throws {
        let server = try SFTPServer()
        let a = try SSHFSMount(server)
        let b = try SSHFSMount(server, hardLinks: false)
        #expect(SSHFSMount.isMounted(a.path) && SSHFSMount.isMounted(b.path))
        try Self.write("from a", a.file("one.txt"))
        try Self.write("from b", b.file("two.txt"))
        #expect(try String(contentsOfFile: b.file("one.txt"), encoding: .utf8) == "from a")
        #expect(try String(contentsOfFile: a.file("two.txt"), encoding: .utf8) == "from b")
        // It is the server's folder that holds them, not a local copy.
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.export).sorted() == ["one.txt", "two.txt"])
    }

    @Test func linkWorksOnTheNormalMountAndFailsOnTheOneWithoutHardLinks() throws {
        let server = try SFTPServer()
        let normal = try SSHFSMount(server)
        let noLinks = try SSHFSMount(server, hardLinks: false)
        try Self.write("x", normal.file("source"))

        #expect(link(normal.file("source"), normal.file("linked")) == 0)
        var info = stat()
        #expect(stat(server.export + "/linked", &info) == 0 && info.st_nlink == 2)

        let rc = link(noLinks.file("source"), noLinks.file("refused"))
        let code = errno
        #expect(rc == -1)
        #expect(code == EPERM, "link on the mount without hard links: \(String(cString: strerror(code)))")
        #expect(access(server.export + "/refused", F_OK) != 0)
        // A taken name is still EEXIST there (the kernel looks the name up first).
        #expect(link(noLinks.file("source"), noLinks.file("linked")) == -1 && errno == EEXIST)
    }

    /// What renameat2(RENAME_NOREPLACE) does over sshfs: sshfs 3.7 refuses every flag with
    /// EINVAL, so NOREPLACE is unsupported there; only a name the kernel already knows to
    /// be taken fails with EEXIST, before sshfs is asked. On the local disk it works.
    @Test func renameNoReplaceIsUnsupportedOverSSHFS() throws {
        let server = try SFTPServer()
        for mount in [try SSHFSMount(server), try SSHFSMount(server, hardLinks: false)] {
            try Self.write("a", mount.file("a"))
            try Self.write("taken", mount.file("taken"))
            let free = Self.renameNoReplace(mount.file("a"), mount.file("free"))
            #expect(free.rc == -1 && free.errno == EINVAL, "renameat2 to a free name: \(free)")
            let taken = Self.renameNoReplace(mount.file("a"), mount.file("taken"))
            #expect(taken.rc == -1 && taken.errno == EEXIST, "renameat2 to a taken name: \(taken)")
            #expect(try String(contentsOfFile: mount.file("taken"), encoding: .utf8) == "taken")
            for name in ["a", "taken"] { unlink(mount.file(name)) }
        }
        let local = try TemporaryDirectory()
        try Self.write("a", local.file("a"))
        #expect(Self.renameNoReplace(local.file("a"), local.file("b")).rc == 0)
    }

    /// O_CREAT|O_EXCL is exclusive over sshfs (the server opens with O_EXCL): the fallback
    /// where neither hard links nor NOREPLACE exist depends on it.
    @Test func exclusiveCreateIsExclusiveAcrossMounts() throws {
        let server = try SFTPServer()
        let a = try SSHFSMount(server, hardLinks: false)
        let b = try SSHFSMount(server, hardLinks: false)
        let fd = open(a.file("lock"), O_CREAT | O_EXCL | O_WRONLY, 0o600)
        #expect(fd >= 0)
        close(fd)
        #expect(open(b.file("lock"), O_CREAT | O_EXCL | O_WRONLY, 0o600) == -1 && errno == EEXIST)
    }

    @Test func teardownUnmountsAndStopsTheServer() throws {
        var server: SFTPServer? = try SFTPServer()
        var mount: SSHFSMount? = try SSHFSMount(server!, hardLinks: false)
        let path = mount!.path, pid = server!.pid, folder = server!.directory
        try Self.write("x", mount!.file("x"))
        server = nil   // the mount keeps its server
        #expect(kill(pid, 0) == 0)
        mount = nil
        #expect(!SSHFSMount.isMounted(path))
        #expect(kill(pid, 0) == -1 && errno == ESRCH)
        #expect(access(folder, F_OK) != 0)
    }

    /// The server listens on 127.0.0.1 and nowhere else.
    @Test func serverListensOnLoopbackOnly() throws {
        let server = try SFTPServer()
        let hex = String(format: "%04X", server.port)
        let table = try String(contentsOfFile: "/proc/net/tcp", encoding: .utf8)
        var listening: [String] = []
        for line in table.split(separator: "\n") {
            // sl local_address rem_address st ...; st 0A is LISTEN.
            let fields = line.split(separator: " ").map(String.init)
            if fields.count > 3, fields[1].hasSuffix(":" + hex), fields[3] == "0A" { listening.append(fields[1]) }
        }
        #expect(listening == ["0100007F:" + hex])
    }
}
