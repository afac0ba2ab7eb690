import ArgumentParser

struct WatchCommand: NotYetImplemented {
    static let configuration = CommandConfiguration(
        commandName: "watch", abstract: "Run the daemon: watch the configured inboxes and render what settles.")
    @Option(name: .long, help: "Config file.") var config: String = "/etc/dropcut/dropcut.yaml"
    @Flag(name: .long, help: "Process what is settled now, then exit.") var once = false
}

struct StatusCommand: NotYetImplemented {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show the daemon's queue, running jobs and recent failures.")
    @Option(name: .long, help: "Config file.") var config: String = "/etc/dropcut/dropcut.yaml"
    @Flag(name: .long, help: "Print JSON.") var json = false
}
