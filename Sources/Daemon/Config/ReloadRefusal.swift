/// A config key whose new value a reload (SIGHUP) does not take, because it cannot change
/// while the daemon runs: `state_dir` holds the lock that keeps a second daemon out, the
/// job records recovery resumes from, and the status `dropcut status` reads. Moving it live
/// would leave a second daemon free to start on the old folder, and `status` looking in the
/// new one. The old value stays in force until a restart; the rest of the config applies.
package struct ReloadRefusal: Sendable, Hashable, CustomStringConvertible {
    /// The key as the config file spells it.
    package let key: String
    /// The value in force, and the one the file now gives.
    package let kept: String
    package let wanted: String

    package var description: String { "\(key) stays \(kept) (the file now says \(wanted))" }

    /// The keys `new` changes that cannot change live.
    static func refusals(from old: DaemonConfig, to new: DaemonConfig) -> [ReloadRefusal] {
        var refused: [ReloadRefusal] = []
        if new.stateDirectory != old.stateDirectory {
            refused.append(ReloadRefusal(key: "state_dir", kept: old.stateDirectory, wanted: new.stateDirectory))
        }
        // The listener is bound and the delivery service started (or not) at start.
        if new.http != old.http {
            refused.append(ReloadRefusal(key: "http", kept: old.http.map { "\($0.listen)" } ?? "off", wanted: new.http.map { "\($0.listen)" } ?? "off"))
        }
        if new.webhooks != old.webhooks {
            refused.append(ReloadRefusal(key: "webhooks", kept: "\(old.webhooks.count) endpoint(s)", wanted: "\(new.webhooks.count) endpoint(s)"))
        }
        // Who decides the claims cannot change under claims it decided.
        if new.coordinator != old.coordinator {
            refused.append(ReloadRefusal(key: "coordinator", kept: old.coordinator?.target ?? "none", wanted: new.coordinator?.target ?? "none"))
        }
        return refused
    }
}
