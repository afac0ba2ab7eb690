import Foundation

/// The status page (`GET /`): per folder, what is queued, what renders (progress and
/// speed, kept live by server-sent events), recent outputs with a thumbnail, and recent
/// failures with their reason and a Retry button. Plain HTML, readable without JavaScript;
/// its one script and its style are inline, nothing is fetched from elsewhere.
package struct StatusPage: Sendable {
    package var report: StatusReport
    package var folders: [FolderConfig]
    /// Retry buttons are shown (a token is configured and this browser is logged in).
    package var canRetry: Bool
    /// A token is configured and this browser is not logged in: a login link is shown.
    package var offerLogin: Bool

    package func html() -> String {
        let daemon = report.daemon
        var body = "<header><h1>dropcut</h1><p class=\"daemon\">"
        if let daemon, report.isRunning {
            body += "running on \(Self.escape(daemon.host?.host ?? "?")), version \(Self.escape(daemon.version ?? "?")), since \(Self.time(daemon.started))"
        } else {
            body += "the daemon is not running"
        }
        body += "</p>"
        if offerLogin { body += "<p><a href=\"/login\">Log in</a> to retry failed clips.</p>" }
        body += "</header>\n<main>\n"
        if let farm = report.farm { body += farmSection(farm) }
        for folder in folders { body += section(folder) }
        body += "</main>\n"
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
            <title>dropcut</title><style>\(Self.style)</style></head>
            <body>
            \(body)<script>\(Self.script)</script>
            </body></html>

            """
    }

    /// One folder's part: its id is `folder-<name>` (names are letters, digits, - and _).
    func section(_ folder: FolderConfig) -> String {
        let daemon = report.isRunning ? report.daemon : nil
        let running = daemon?.running.filter { $0.folder == folder.name } ?? []
        let queued = daemon?.queued.filter { $0.folder == folder.name } ?? []
        let done = report.done.filter { $0.folder == folder.name }
        let failed = report.failures.filter { $0.folder == folder.name }
        var html = "<section class=\"folder\" id=\"folder-\(Self.escape(folder.name))\">\n<h2>\(Self.escape(folder.name)) <small>\(Self.escape(folder.inbox))</small></h2>\n"
        if let reason = daemon?.unavailable[folder.name] { html += "<p class=\"unavailable\">Inbox unavailable: \(Self.escape(reason))</p>\n" }

        html += "<h3>Rendering</h3>\n<ul class=\"running\">"
        for job in running {
            let percent = Int((job.progress * 100).rounded(.down))
            html += "<li class=\"job\" data-job=\"\(Self.escape(job.job))\"><span class=\"name\">\(Self.escape(job.input))</span> "
                + "<progress max=\"100\" value=\"\(percent)\">\(percent)%</progress> <span class=\"percent\">\(percent)%</span> "
                + "<span class=\"speed\">\(job.speed.map { String(format: "%.2f× real time", $0) } ?? "")</span></li>"
        }
        if running.isEmpty { html += "<li class=\"none\">nothing</li>" }
        html += "</ul>\n<h3>Queued</h3>\n<ul class=\"queued\">"
        for clip in queued {
            let retry = clip.retryAt.map { " (retry at \(Self.time($0)))" } ?? ""
            html += "<li class=\"job\">\(Self.escape(clip.input))\(retry)</li>"
        }
        if queued.isEmpty { html += "<li class=\"none\">nothing</li>" }
        html += "</ul>\n<h3>Done</h3>\n<ul class=\"done\">"
        for record in done {
            let outputs = record.outputNames.joined(separator: ", ")
            let timing = record.elapsedMilliseconds.map { String(format: " in %.1f s", Double($0) / 1000) } ?? ""
            let speed = record.speed.map { String(format: " (%.2f×)", $0) } ?? ""
            html += "<li class=\"job\" data-job=\"\(Self.escape(record.id))\">"
                + "<img class=\"thumb\" src=\"/api/v1/jobs/\(Self.percentEncode(record.id))/thumbnail\" alt=\"\" width=\"160\" loading=\"lazy\"> "
                + "<span class=\"name\">\(Self.escape(record.input))</span> → <span class=\"outputs\">\(Self.escape(outputs))</span>"
                + "<span class=\"when\">\(timing)\(speed), \(Self.time(record.updatedAt))</span></li>"
        }
        if done.isEmpty { html += "<li class=\"none\">nothing yet</li>" }
        html += "</ul>\n<h3>Failed</h3>\n<ul class=\"failed\">"
        for record in failed {
            let name = record.droppedName(record.input)?.printable ?? record.input
            html += "<li class=\"job\" data-job=\"\(Self.escape(record.id))\"><span class=\"name\">\(Self.escape(name))</span>: "
                + "<span class=\"reason\">\(Self.escapeLines(record.error ?? "unknown error"))</span> <span class=\"when\">\(Self.time(record.updatedAt))</span>"
            // In failed/ under the bytes it was dropped with, which the printable name gives back.
            let stillThere = FailedClipRetry.failedClip(name, in: folder.failed) != nil
            if canRetry && stillThere {
                let action = "/api/v1/failed/\(Self.percentEncode(folder.name))/\(Self.percentEncode(name))/retry"
                html += " <form class=\"retry\" method=\"post\" action=\"\(Self.escape(action))\"><button class=\"retry\" type=\"submit\">Retry</button></form>"
            }
            html += "</li>"
        }
        if failed.isEmpty { html += "<li class=\"none\">nothing</li>" }
        html += "</ul>\n</section>\n"
        return html
    }

    /// With a database coordinator: the whole farm, every host's claimed jobs with their
    /// step and lease (by the database's clock) and the queue's length, as last read.
    func farmSection(_ farm: DaemonStatus.Farm) -> String {
        let claimed = farm.jobs.filter { $0.state == "claimed" }
        let queued = farm.jobs.filter { $0.state == "queued" }.count
        var html = "<section class=\"farm\" id=\"farm\">\n<h2>Farm <small>\(Self.escape(farm.coordinator)), read \(Self.time(farm.read))</small></h2>\n"
        if let error = farm.error { html += "<p class=\"unavailable\">The coordinator cannot be read: \(Self.escape(error))</p>\n" }
        html += "<p>\(claimed.count) claimed, \(queued) queued</p>\n<ul class=\"farm\">"
        for job in claimed {
            let lease = job.leaseLeft.map { $0 >= 0 ? String(format: "lease %.1f s left", $0) : "lease expired" } ?? ""
            html += "<li class=\"job\"><span class=\"name\">\(Self.escape(job.folder))/\(Self.escape(job.clip))</span> "
                + "\(Self.escape(job.step ?? "claimed")) on <span class=\"host\">\(Self.escape(job.host ?? "?"))</span>"
                + "<span class=\"when\">epoch \(job.epoch), \(lease)</span></li>"
        }
        if claimed.isEmpty { html += "<li class=\"none\">nothing claimed</li>" }
        html += "</ul>\n</section>\n"
        return html
    }

    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(c.properties.generalCategory == .control ? "\u{FFFD}" : c)
            }
        }
        return out
    }

    /// Text of several lines (a failure's reason and its detail): each line escaped, the
    /// line breaks kept as `<br>` (a newline is a control character, which `escape` would
    /// show as U+FFFD).
    static func escapeLines(_ text: String) -> String {
        // "\r\n" is one Character to Swift: made a plain "\n" before splitting.
        text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false)
            .map { escape(String($0)) }
            .joined(separator: "<br>")
    }

    /// A path segment: everything but unreserved characters percent-encoded.
    static func percentEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    static func time(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        return "<time datetime=\"\(formatter.string(from: date))\">\(formatter.string(from: date))</time>"
    }

    static let style = """
        body{font:15px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;background:#fafafa}
        h1{margin:0}h2 small{font-weight:normal;color:#777;font-size:.7em}
        section.folder,section.farm{background:#fff;border:1px solid #ddd;border-radius:6px;padding:.5em 1em;margin:1em 0}
        ul{list-style:none;padding:0}li.job{margin:.3em 0}li.none{color:#999}
        progress{width:12em;vertical-align:middle}img.thumb{vertical-align:middle;border-radius:3px;background:#000}
        .reason{color:#a00}.when,.speed{color:#777;font-size:.9em;margin-left:.4em}form.retry{display:inline}
        """

    /// Keeps "Rendering" live: each status from `/api/v1/events` updates the bars and
    /// speeds in place; when the set of running jobs changes, the folder sections are
    /// fetched again and swapped in (the page itself is not reloaded). Retry buttons post
    /// with fetch and swap the sections too.
    static let script = """
        (function(){
        if(!window.EventSource)return;
        var shown=null;
        function ids(s){return (s.running||[]).map(function(j){return j.job}).sort().join(",")}
        function refresh(){fetch("/",{credentials:"same-origin"}).then(function(r){return r.text()}).then(function(t){
          var doc=new DOMParser().parseFromString(t,"text/html");
          document.querySelectorAll("section.folder").forEach(function(old){var n=doc.getElementById(old.id);if(n)old.replaceWith(n)});
          hook();});}
        function hook(){document.querySelectorAll("form.retry").forEach(function(f){f.onsubmit=function(e){e.preventDefault();
          fetch(f.action,{method:"POST",credentials:"same-origin"}).then(function(r){return r.text().then(function(t){
            if(!r.ok)alert(t);refresh();})});};});}
        hook();
        var es=new EventSource("/api/v1/events");
        es.addEventListener("status",function(e){var s=JSON.parse(e.data);var now=ids(s);
          if(shown!==null&&now!==shown){shown=now;refresh();return;}
          shown=now;
          (s.running||[]).forEach(function(j){var li=document.querySelector('li.job[data-job="'+j.job+'"]');if(!li)return;
            var p=Math.floor(j.progress*100);var bar=li.querySelector("progress");if(bar){bar.value=p;bar.textContent=p+"%";}
            var t=li.querySelector(".percent");if(t)t.textContent=p+"%";
            var sp=li.querySelector(".speed");if(sp)sp.textContent=j.speed?j.speed.toFixed(2)+"× real time":"";});});
        })();
        """
}
