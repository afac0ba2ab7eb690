#!/usr/bin/env python3
"""Plays an MP4 file in a real headless Chromium and reports what the browser saw, for
tests of outputs made of copied and re-encoded pieces (a player is stricter than ffmpeg
about what an avcC, an edit list or a cut at a GOP boundary must look like).

Usage: chromium_playback.py FILE [SEEK_SECONDS...]

Serves FILE on 127.0.0.1 with byte ranges (Python's http.server sends the whole file to a
Range request, and Chromium's media stack asks for ranges: seeking in a long file then
stalls), opens a page with one <video muted> through chromium_cdp.py (the status page
test's driver: the same browser flags, DevTools over a pipe), plays the file to `ended`
at 16x, then for each seek time sets currentTime and waits for requestVideoFrameCallback
(a frame actually decoded and presented, not only a `seeked` event).

Prints one JSON object:
  {"reachedEnded": bool, "duration": s, "seeks": [{"time": s, "fired": bool,
   "mediaTime": s, "presentedFrames": n}], "errors": [{"code": n, "message": text}],
   "driverError": null or text}
Standard library only.
"""
import http.server, json, os, re, subprocess, sys, threading

PAGE = b"""<!doctype html><meta charset="utf-8"><title>playback</title>
<video id="v" muted playsinline preload="auto" src="/media.mp4"></video>
<script>
window.__errors = [];
document.getElementById('v').addEventListener('error', function (e) {
  var v = e.target;
  window.__errors.push({code: v.error ? v.error.code : 0, message: v.error ? v.error.message : ''});
});
</script>
"""

# Everything in one promise, each wait bounded, so the evaluation always settles: the
# driver awaits it without a deadline of its own.
CHECK = r"""
(async function(seeks, playTimeout, seekTimeout) {
  var v = document.getElementById('v');
  function waitFor(events, ms) {
    return new Promise(function (resolve) {
      var done = false;
      function finish(what) { if (done) return; done = true; events.forEach(function (e) { v.removeEventListener(e, handlers[e]); }); resolve(what); }
      var handlers = {};
      events.forEach(function (e) { handlers[e] = function () { finish(e); }; v.addEventListener(e, handlers[e]); });
      setTimeout(function () { finish('timeout'); }, ms);
    });
  }
  function frame(ms) {
    return new Promise(function (resolve) {
      var done = false;
      v.requestVideoFrameCallback(function (now, meta) {
        if (done) return; done = true;
        resolve({fired: true, mediaTime: meta.mediaTime, presentedFrames: meta.presentedFrames});
      });
      setTimeout(function () { if (done) return; done = true; resolve({fired: false, mediaTime: null, presentedFrames: null}); }, ms);
    });
  }
  var report = {reachedEnded: false, duration: null, seeks: []};
  if (v.readyState < 1 && !v.error) await waitFor(['loadedmetadata', 'error'], seekTimeout);
  report.duration = isFinite(v.duration) ? v.duration : null;
  if (!v.error) {
    v.playbackRate = 16;
    // 16x is what the media clock asks for; a busy machine decodes 1080p at a few times
    // real time, so the bound grows with the file: 2 s of waiting per second of it.
    var ended = waitFor(['ended', 'error'], playTimeout + 2000 * (report.duration || 0));
    try { await v.play(); } catch (e) { window.__errors.push({code: -1, message: 'play(): ' + e}); }
    report.reachedEnded = (await ended) === 'ended';
  }
  for (var i = 0; i < seeks.length; i++) {
    // A media error ends the element for good: no frame will come, and waiting for
    // each seek's would only add its timeout.
    if (v.error) { report.seeks.push({time: seeks[i], fired: false, mediaTime: null, presentedFrames: null}); continue; }
    v.pause();
    var shown = frame(seekTimeout);
    v.currentTime = seeks[i];
    var got = await shown;
    got.time = seeks[i];
    report.seeks.push(got);
  }
  report.errors = window.__errors;
  return report;
})(%s, %d, %d)
"""


class RangeHandler(http.server.BaseHTTPRequestHandler):
    """GET / (the page) and GET /media.mp4 with `Range: bytes=a-b`, `a-` or `-n`."""
    path_on_disk = None

    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path == "/":
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(PAGE)))
            self.end_headers()
            self.wfile.write(PAGE)
            return
        if self.path != "/media.mp4":
            self.send_error(404)
            return
        size = os.path.getsize(self.path_on_disk)
        start, end, status = 0, size - 1, 200
        wanted = re.fullmatch(r"bytes=(\d*)-(\d*)", self.headers.get("Range", "").strip())
        if wanted and (wanted.group(1) or wanted.group(2)):
            if wanted.group(1):
                start = int(wanted.group(1))
                end = min(int(wanted.group(2)), size - 1) if wanted.group(2) else size - 1
            else:
                start = max(size - int(wanted.group(2)), 0)
            if start >= size or start > end:
                self.send_response(416)
                self.send_header("Content-Range", "bytes */%d" % size)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            status = 206
        self.send_response(status)
        self.send_header("Content-Type", "video/mp4")
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("Content-Length", str(end - start + 1))
        if status == 206:
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start, end, size))
        self.end_headers()
        with open(self.path_on_disk, "rb") as f:
            f.seek(start)
            left = end - start + 1
            try:
                while left > 0:
                    chunk = f.read(min(left, 1 << 20))
                    if not chunk:
                        break
                    self.wfile.write(chunk)
                    left -= len(chunk)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the browser read what it wanted of this range and moved on


def main():
    path = os.path.abspath(sys.argv[1])
    seeks = [float(s) for s in sys.argv[2:]]
    RangeHandler.path_on_disk = path
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), RangeHandler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = "http://127.0.0.1:%d/" % server.server_address[1]
    # Bounds in ms: playing to the end (60 s, plus 2 s per second of the file), each seek's frame.
    steps = [{"navigate": url},
             {"eval": CHECK % (json.dumps(seeks), 60000, 10000)}]
    driver = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "EndToEndTests", "chromium_cdp.py")
    run = subprocess.run([sys.executable, driver, json.dumps(steps)], capture_output=True, text=True)
    server.shutdown()
    report = {"reachedEnded": False, "duration": None, "seeks": [], "errors": [], "driverError": None}
    try:
        output = json.loads(run.stdout)
    except ValueError:
        report["driverError"] = "driver printed no report (exit %d): %s %s" % (run.returncode, run.stdout, run.stderr)
    else:
        report["driverError"] = output.get("error")
        results = output.get("results", [])
        if len(results) == 2 and isinstance(results[1], dict):
            report.update(results[1])
    print(json.dumps(report))


main()
