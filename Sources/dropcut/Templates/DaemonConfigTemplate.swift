/// The commented daemon config, the one place its text lives: `dropcut init --print-config`
/// prints it for `/etc/dropcut/dropcut.yaml` (what `scripts/install` and a package install
/// when there is none), and `dropcut init DIR` writes it for a folder of its own.
enum DaemonConfigTemplate {
    /// Where the config is meant to live, which sets its paths.
    enum Place {
        /// `/etc/dropcut/dropcut.yaml`: state in `/var/lib/dropcut`, the folders under
        /// `/srv/dropcut/phone/`, the identity recipe.
        case system
        /// A folder of its own (`dropcut init DIR`): state, folders and the recipe
        /// `recipeFile` beside the config, by relative paths.
        case folder(recipeFile: String)
    }

    static func text(for place: Place) -> String {
        let header: String, stateDirectory: String, folderRoot: String, recipe: String
        switch place {
        case .system:
            header = """
                # dropcut's configuration: /etc/dropcut/dropcut.yaml (installed when there is none;
                # never overwritten). After editing:
                #   dropcut watch --config /etc/dropcut/dropcut.yaml --check   # every mistake, file:line:column
                #   systemctl reload dropcut                                   # a bad file is rejected, the old one kept
                """
            stateDirectory = "/var/lib/dropcut"
            folderRoot = "/srv/dropcut/phone/"
            recipe = "# recipe: /etc/dropcut/recipes/phone.yaml   # none: the identity recipe"
        case let .folder(recipeFile):
            header = """
                # dropcut's configuration, written by dropcut init. Check it, then run the daemon:
                #   dropcut watch --config dropcut.yaml --check   # every mistake, file:line:column
                #   dropcut watch --config dropcut.yaml           # Ctrl-C stops it; --once renders what is there and exits
                """
            stateDirectory = "state"
            folderRoot = ""
            recipe = "recipe: \(recipeFile)   # none: the identity recipe"
        }
        return """
            \(header)
            # Relative paths are taken from this file's folder. Durations: 2s, 500ms, 1.5, 10m, 24h.
            # Every key: docs/daemon.md.

            state_dir: \(stateDirectory)\(String(repeating: " ", count: max(1, 21 - stateDirectory.count)))# job records, status.json, the lock: one daemon per state_dir
            poll_interval: 2s               # inotify wakes dropcut sooner; polling is what works on NFS/SMB
            settle: 3s                      # size, mtime and ctime unchanged this long = fully arrived
            workers: 1                      # clips rendered at once (each uses several cores)
            stop_timeout: 30s               # on stop, running jobs may finish this long (keep TimeoutStopSec above it)
            retry_delay: 5s                 # first retry after a transient error (disk full...), doubled each time
            # Each job renders in a worker process with these limits; one past them fails its attempt.
            job_timeout: 20x                # wall-clock: this many times the output's duration...
            job_timeout_minimum: 600s       # ...but at least this (also while the job is being prepared)
            max_duration: "04:00:00"        # longer outputs are refused before anything renders
            memory_limit: 4G                # data segment of a worker (heap, mappings); or unlimited

            # Optional (docs/connect.md): Prometheus metrics, the status page and Retry over HTTP...
            # http:
            #   listen: 127.0.0.1:8181      # or a unix socket path, or systemd (dropcut.socket)
            #   token_file: /etc/dropcut/http-token   # needed off loopback, and for Retry
            # ...and signed webhooks for each job done, failed, taken over or abandoned.
            # webhooks:
            #   - url: https://cms.example/hooks/dropcut
            #     secret: whsec_...         # 24 to 64 random bytes, base64: openssl rand -base64 32
            #     events: [job.done, job.failed]

            folders:
              # Phone clips: orientation fixed from the display matrix; streams that need no
              # change are copied, the rest encoded H.264/AAC.
              # A <clip>.yaml beside a clip, or a recipe.yaml in the inbox, overrides the recipe.
              - name: phone
                inbox: \(folderRoot)inbox\(folderRoot.isEmpty ? "                  # must exist; dropcut makes the others" : "")
                outbox: \(folderRoot)outbox
                failed: \(folderRoot)failed
                after_success: archive      # archive | delete
                archive: \(folderRoot)archive
                \(recipe)
                retries: 2
                output_mode: "0664"         # outputs, archived originals and error files
                # output_group: video       # the dropcut user must be in it (SupplementaryGroups= in a drop-in)

              # A second pipeline: vertical posts with a logo and a ducked music bed. Copy the
              # example recipe social-vertical.yaml (/usr/share/doc/dropcut/examples/ from the
              # package, /usr/local/share/dropcut/recipes/ from scripts/install) to
              # /etc/dropcut/recipes/social.yaml, put logo.png and bed.mp3 into /srv/dropcut/assets,
              # then uncomment.
              # - name: social
              #   inbox: /srv/dropcut/social/inbox
              #   outbox: /srv/dropcut/social/outbox
              #   failed: /srv/dropcut/social/failed
              #   after_success: archive
              #   archive: /srv/dropcut/social/archive
              #   recipe: /etc/dropcut/recipes/social.yaml
              #   assets: [/srv/dropcut/assets]
              #   retries: 2

            """
    }
}
