#!/usr/bin/env python3
"""Smart render's reach over real clips (issue 57), for scripts/bench.

usage: bench_coverage.py DROPCUT CORPUS_MEDIA WORK [SMARTCUT]

Every H.264 or HEVC clip in CORPUS_MEDIA that is at least 2 s long, progressive and
decodes without a message from `ffmpeg -v error` gets two edits, with `orientation:
keep`: a 1 s trim off the start (`trim: [1, end]`) and a 0.3 s text overlay in the
middle (and each is also decided, not rendered, with the default orientation). For each, what
`dropcut plan` decides (spliced, copied whole, or encoded whole with the reason), the
render's wall time beside smartcut's on the same cut (the trim; smartcut draws no
overlays), and how many of each output's frames are bit-identical to a frame of the
source (decoded framemd5; a copied frame is the source's, an encoded one is not).

Prints a Markdown table and the totals: the clips whose every edit splices or copies,
against the target of 90 %.
"""
import json
import os
import subprocess
import sys
import time


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def probe(path):
    out = run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
               "stream=codec_name,field_order,duration:format=duration", "-of", "json", path])
    if out.returncode != 0:
        return None
    data = json.loads(out.stdout or "{}")
    streams = data.get("streams") or []
    if not streams:
        return None
    stream = streams[0]
    duration = stream.get("duration") or data.get("format", {}).get("duration")
    try:
        duration = float(duration)
    except (TypeError, ValueError):
        return None
    return stream.get("codec_name"), stream.get("field_order", "unknown"), duration


def decodes_clean(path):
    out = run(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-map", "0:v:0", "-f", "null", "-"])
    return out.returncode == 0 and not out.stderr.strip()


def frame_md5s(path):
    out = run(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-map", "0:v:0", "-fps_mode", "passthrough",
               "-f", "framemd5", "-"])
    return [line.rsplit(",", 1)[-1].strip() for line in out.stdout.splitlines() if line and not line.startswith("#")]


def identical(output, source_md5s):
    frames = frame_md5s(output)
    return sum(1 for m in frames if m in source_md5s), len(frames)


def decision(dropcut, recipe, clip):
    out = run([dropcut, "plan", "--recipe", recipe, clip])
    line = next((l for l in out.stdout.splitlines() if l.startswith("video: ")), "")
    if line.startswith("video: smart render"):
        copied = line.split(": ", 2)[2].split(",")[0]
        return "spliced", copied
    if line.startswith("video: copied"):
        return "copied whole", ""
    return "encoded whole", line.removeprefix("video: re-encoded: ") or out.stderr.strip().splitlines()[-1:]


def timed(args):
    start = time.monotonic()
    out = run(args)
    return time.monotonic() - start, out


def main():
    dropcut, media, work = sys.argv[1:4]
    smartcut = sys.argv[4] if len(sys.argv) > 4 and os.access(sys.argv[4], os.X_OK) else None
    os.makedirs(work, exist_ok=True)
    rows, reached, clips, by_default = [], 0, 0, {}
    for name in sorted(os.listdir(media)):
        path = os.path.join(media, name)
        facts = probe(path)
        if not facts:
            continue
        codec, field, duration = facts
        if codec not in ("h264", "hevc") or duration < 2 or field not in ("progressive", "unknown") or not decodes_clean(path):
            continue
        clips += 1
        source = set(frame_md5s(path))
        middle = round(duration / 2, 3)
        # `orientation: keep`: a turned clip keeps its display matrix where it is copied
        # (the default bakes the turn into the pixels, which no copy can).
        edits = {
            "trim 1 s": 'version: 1\norientation: keep\nclips: [{ source: "{input}", trim: [1, end] }]\n',
            "overlay 0.3 s": f'version: 1\norientation: keep\noverlays: [{{ text: "dropcut", during: [{middle}, {middle + 0.3:.3f}] }}]\n',
        }
        every = True
        for edit, yaml in edits.items():
            # The same edit with the default orientation: decided only.
            plain = os.path.join(work, f"{name}.{edit.split()[0]}.auto.yaml")
            with open(plain, "w") as f:
                f.write(yaml.replace("orientation: keep\n", ""))
            by_default[edit] = by_default.get(edit, 0) + (decision(dropcut, plain, path)[0] != "encoded whole")
            recipe = os.path.join(work, f"{name}.{edit.split()[0]}.yaml")
            with open(recipe, "w") as f:
                f.write(yaml)
            kind, detail = decision(dropcut, recipe, path)
            every = every and kind != "encoded whole"
            output = os.path.join(work, f"{name}.{edit.split()[0]}.mp4")
            seconds, rendered = timed([dropcut, "render", "--recipe", recipe, "--output", output, path])
            if rendered.returncode != 0:
                rows.append((name, edit, f"render failed: {rendered.stderr.strip().splitlines()[-1:]}", "", "", "", ""))
                continue
            same, total = identical(output, source)
            theirs, theirs_same = "—", "—"
            if smartcut and edit.startswith("trim"):
                cut = os.path.join(work, f"{name}.smartcut.mp4")
                their_seconds, result = timed([smartcut, path, cut, "-k", "1,end"])
                if result.returncode == 0 and os.path.exists(cut):
                    s, t = identical(cut, source)
                    theirs, theirs_same = f"{their_seconds:.2f}", f"{s} of {t}"
                else:
                    theirs = "failed"
            label = kind + (f" ({detail})" if detail else "")
            rows.append((name, edit, label, f"{seconds:.2f}", f"{same} of {total}", theirs, theirs_same))
        reached += every
    print("| clip | edit | dropcut's video | dropcut s | frames bit-identical | smartcut s | smartcut's identical |")
    print("|---|---|---|---:|---|---:|---|")
    for row in rows:
        print("| " + " | ".join(str(c).replace("|", "/") for c in row) + " |")
    share = reached / clips if clips else 0
    print("\nWith the default `orientation: auto` (a turned clip's turn baked into its pixels): "
          + ", ".join(f"{edit}: {count} of {clips} splice or copy" for edit, count in by_default.items()) + ".")
    print(f"\n{reached} of {clips} clips splice or copy for every edit ({share:.0%}; target ≥ 90 %: "
          f"**{'met' if share >= 0.9 else 'NOT met'}**).")
    return 0 if share >= 0.9 else 3


if __name__ == "__main__":
    sys.exit(main())
