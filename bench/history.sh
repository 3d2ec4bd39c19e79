#!/usr/bin/env bash
# What a long history costs (issue 31): N agent edits of bench/edit.sh's
# 10,000-line (480 KB) file, one after the other, each from the tag the
# previous one printed, each changing 50 lines to a text no edit wrote
# before (so that every edit records a new version). Prints how much the
# store grew (database and write-ahead log) and the per-edit time of the
# first 20 and the last 20 edits (medians: goal within 10% of each other);
# then the Go benchmark of rebuilding the oldest and the deepest kept
# version of such a history (goal ≤ 20 ms).
# The first and last edits run minutes apart, and a shared machine's load
# changes in between; so each edit is also timed against a control run
# just before it: the same kind of edit in another root whose history stays
# short (always made from the file's first version, as bench/edit.sh's
# "edit, new content"), and the medians of edit ÷ control are compared too.
# Usage: bench/history.sh [edits]   (default 300; needs python3)
# BASE=/path/to/older/hashls runs the same edits with it too, in its own
# root and store, alternating with this build's, for a before/after.
set -euo pipefail
cd "$(dirname "$0")/.."
edits=${1:-300}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
go build -tags netgo,osusergo -ldflags '-s -w -extldflags=-static' -o "$work/hashls" . 2> >(grep -v -e 'warning: null character' -e 'anon_sym_' -e '^ *|' -e '^ *[0-9]* |' -e '^# github.com/smacker' >&2)
python3 - "$edits" "$work" "${BASE:-}" <<'PY'
import json, os, statistics, subprocess, sys, time
edits, work, base = int(sys.argv[1]), sys.argv[2], sys.argv[3]
lines = [f"line {i}: some text for the benchmark file" for i in range(1, 10001)]
sel = ",".join(f"{i*200+1}-{i*200+1}" for i in range(50))
runs = {"this build": f"{work}/hashls"}
if base:
    runs["base"] = base
state = {}
for name, b in runs.items():
    root, st = f"{work}/root-{len(state)}", f"{work}/state-{len(state)}"
    os.makedirs(root)
    open(f"{root}/big.txt", "w").write("\n".join(lines) + "\n")
    env = dict(os.environ, HASHLS_STATE_DIR=st)
    out = subprocess.run([b, "--root", root, "tool", "read", json.dumps({"path": f"big.txt:{sel}"})], env=env, capture_output=True, text=True, check=True).stdout
    croot = root + "-control"
    os.makedirs(croot)
    open(f"{croot}/big.txt", "w").write("\n".join(lines) + "\n")
    cout = subprocess.run([b, "--root", croot, "tool", "read", json.dumps({"path": f"big.txt:{sel}"})], env=env, capture_output=True, text=True, check=True).stdout
    state[name] = {"bin": b, "root": root, "env": env, "dir": st, "tag": out.split("\n", 1)[0].rsplit("#", 1)[1], "times": [],
                   "croot": croot, "ctag": cout.split("\n", 1)[0].rsplit("#", 1)[1], "ctimes": []}
def store_bytes(d, root):  # the database and log of root's store
    n = 0
    for dp, _, fs in os.walk(d):
        n += sum(os.path.getsize(os.path.join(dp, f)) for f in fs
                 if (f.endswith(".db") or f.endswith(".db-wal")) and f.split(".db")[0].rsplit("-", 1)[0] == os.path.basename(root))
    return n
for s in state.values():
    s["before"] = store_bytes(s["dir"], s["root"])
original = "\n".join(lines) + "\n"
for r in range(1, edits + 1):
    for s in state.values():
        ops = [f"replace {i*200+1}..{i*200+1}:\n+changed {i} round {r}" for i in range(50)]
        # The control: the file put back, then edited from its first tag.
        open(f"{s['croot']}/big.txt", "w").write(original)
        carg = json.dumps({"input": f"¶big.txt#{s['ctag']}\n" + "\n".join(ops)})
        t = time.perf_counter()
        subprocess.run([s["bin"], "--root", s["croot"], "tool", "edit", carg], env=s["env"], capture_output=True, check=True)
        s["ctimes"].append((time.perf_counter() - t) * 1000)
        arg = json.dumps({"input": f"¶big.txt#{s['tag']}\n" + "\n".join(ops)})
        t = time.perf_counter()
        out = subprocess.run([s["bin"], "--root", s["root"], "tool", "edit", arg], env=s["env"], capture_output=True, text=True)
        s["times"].append((time.perf_counter() - t) * 1000)
        if out.returncode != 0 or not out.stdout.startswith("¶big.txt#"):
            sys.exit(f"edit {r} failed: {out.stderr or out.stdout[:200]}")
        s["tag"] = out.stdout.split("\n", 1)[0].rsplit("#", 1)[1]
for name, s in state.items():
    grown = store_bytes(s["dir"], s["root"]) - s["before"]
    first, last = statistics.median(s["times"][:20]), statistics.median(s["times"][-20:])
    ratios = [t / c for t, c in zip(s["times"], s["ctimes"])]
    rfirst, rlast = statistics.median(ratios[:20]), statistics.median(ratios[-20:])
    print(f"{name}: {edits} edits grew the store by {grown/1e6:.2f} MB ({grown/edits/1e3:.1f} KB an edit; goal ≤ 8 MB for 300)")
    print(f"{name}: per edit, median of the first 20 {first:.2f} ms, of the last 20 {last:.2f} ms: last ÷ first {last/first:.2f} (goal within 10%)")
    print(f"{name}: per edit ÷ its control, median of the first 20 {rfirst:.2f}, of the last 20 {rlast:.2f}: last ÷ first {rlast/rfirst:.2f}")
PY
go test ./workspace -run '^$' -bench 'Rebuild' -benchtime 100x | grep -E '^Benchmark'
