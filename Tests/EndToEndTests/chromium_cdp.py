#!/usr/bin/env python3
"""Drives a real headless Chromium through the DevTools protocol over a pipe
(--remote-debugging-pipe: commands on fd 3, answers on fd 4, each JSON ending in NUL),
for the status page's browser test. Standard library only.

Usage: chromium_cdp.py STEPS_JSON
STEPS_JSON is a list of steps, each one of:
  {"navigate": URL}                       open URL in the page, wait for its load
  {"eval": JS, "until": VALUE?, "timeout": S?}
                                          evaluate JS (promises awaited); with "until",
                                          again every 0.2 s until it returns VALUE
  {"sample": JS, "distinct": N, "timeout": S}
                                          evaluate every 0.2 s, keep the values, until N
                                          distinct non-null ones were seen
  {"screenshot": PATH}                    a PNG of the page
Prints one JSON object: {"results": [...one per step...], "error": null or text}.
"""
import base64, json, os, shutil, subprocess, sys, tempfile, time

def main():
    steps = json.loads(sys.argv[1])
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    profile = tempfile.mkdtemp(prefix="dropcut-chromium-")
    to_browser_r, to_browser_w = os.pipe()
    from_browser_r, from_browser_w = os.pipe()

    def child_fds():
        # Through fresh descriptors first: a pipe end may already be 3 or 4, and dup2 onto
        # itself would leave it close-on-exec.
        a, b = os.dup(to_browser_r), os.dup(from_browser_w)
        os.dup2(a, 3)
        os.dup2(b, 4)

    proc = subprocess.Popen(
        [browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
         "--disable-extensions", "--disable-background-networking", "--window-size=1200,900",
         "--remote-debugging-pipe", "--user-data-dir=" + profile, "about:blank"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        close_fds=False, preexec_fn=child_fds)
    os.close(to_browser_r)
    os.close(from_browser_w)
    out = os.fdopen(to_browser_w, "wb", buffering=0)
    inp = os.fdopen(from_browser_r, "rb", buffering=0)
    pending = b""
    next_id = [0]
    events = []

    def send(method, params=None, session=None):
        next_id[0] += 1
        message = {"id": next_id[0], "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        out.write(json.dumps(message).encode() + b"\0")
        wanted = next_id[0]
        nonlocal pending
        while True:
            while b"\0" not in pending:
                chunk = inp.read(65536)
                if not chunk:
                    raise RuntimeError("chromium closed the pipe")
                pending += chunk
            raw, pending = pending.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == wanted:
                if "error" in reply:
                    raise RuntimeError("%s: %s" % (method, reply["error"]))
                return reply.get("result", {})
            events.append(reply)

    results = []
    error = None
    try:
        target = send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        send("Page.enable", session=session)
        send("Runtime.enable", session=session)

        def evaluate(js):
            r = send("Runtime.evaluate", {"expression": js, "returnByValue": True, "awaitPromise": True}, session)
            if "exceptionDetails" in r:
                raise RuntimeError("script error in %r: %s" % (js[:80], r["exceptionDetails"].get("text")))
            return r.get("result", {}).get("value")

        for step in steps:
            if "navigate" in step:
                send("Page.navigate", {"url": step["navigate"]}, session)
                deadline = time.time() + 20
                while time.time() < deadline and evaluate("document.readyState") != "complete":
                    time.sleep(0.1)
                results.append(evaluate("location.href"))
            elif "eval" in step:
                deadline = time.time() + step.get("timeout", 20)
                value = evaluate(step["eval"])
                if "until" in step:
                    while value != step["until"] and time.time() < deadline:
                        time.sleep(0.2)
                        value = evaluate(step["eval"])
                results.append(value)
            elif "sample" in step:
                deadline = time.time() + step.get("timeout", 20)
                seen = []
                while time.time() < deadline:
                    value = evaluate(step["sample"])
                    if value is not None and (not seen or seen[-1] != value):
                        seen.append(value)
                    if len(set(v for v in seen if v is not None)) >= step.get("distinct", 3):
                        break
                    time.sleep(0.2)
                results.append(seen)
            elif "screenshot" in step:
                png = send("Page.captureScreenshot", {"format": "png"}, session)["data"]
                with open(step["screenshot"], "wb") as f:
                    f.write(base64.b64decode(png))
                results.append(step["screenshot"])
    except Exception as e:  # reported to the test, which fails with it
        error = str(e)
    finally:
        try:
            send("Browser.close")
        except Exception:
            pass
        try:
            proc.wait(timeout=10)
        except Exception:
            proc.kill()
        shutil.rmtree(profile, ignore_errors=True)
    print(json.dumps({"results": results, "error": error}))

main()
