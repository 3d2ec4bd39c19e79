#!/usr/bin/env bash
# Soak of the language server binary (not a test): a 5,000-line Go document
# open in an "editor" (a Python LSP client over stdio) takes 20,000
# incremental didChanges (ASCII, é, 😀, line splits and joins, UTF-16
# positions), a request every 10 changes (documentSymbol, foldingRange,
# selectionRange, codeAction) and an agent edit every 250 (hashls.read for a
# tag, then hashls.edit, which comes back as a versioned workspace/applyEdit
# that the client applies and acknowledges with a didChange). It prints the
# server's RSS every 1,000 steps, and at the end compares the sha256 of the
# client's text with the sha256 of the server's buffer (hashls.read
# details.sha256).
# Usage: bench/soak.sh [steps]   (needs python3; default 20000)
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-20000}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
go build -o "$work/hashls" .
mkdir -p "$work/root"
export HASHLS_STATE_DIR="$work/state"
python3 - "$work/hashls" "$work/root" "$steps" <<'PY'
import hashlib, json, os, random, subprocess, sys, time

exe, root, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
random.seed(18)
lines = ["package big", ""]
for i in range(1, 4999):
    lines.append(f"func f{i}() int {{ x := {i}; return x }} // é 😀" if i % 7 == 0 else f"func f{i}() int {{ return {i} }}")
lines.append("")  # final newline
path = os.path.join(root, "big.go")
open(path, "w", encoding="utf-8").write("\n".join(lines))
uri = "file://" + path

p = subprocess.Popen([exe, "serve"], cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
out, inp = p.stdout, p.stdin

def send(msg):
    b = json.dumps(msg).encode()
    inp.write(b"Content-Length: %d\r\n\r\n" % len(b) + b)
    inp.flush()

def recv():
    n = None
    while True:
        line = out.readline()
        if not line:
            raise SystemExit("server closed the connection")
        line = line.strip()
        if not line:
            break
        k, _, v = line.partition(b":")
        if k.lower() == b"content-length":
            n = int(v)
    return json.loads(out.read(n))

version = 1
def u16(s):
    return len(s.encode("utf-16-le")) // 2

def col(line, units):
    """code point index of a UTF-16 column in line (clamped)."""
    n = 0
    for i, ch in enumerate(line):
        if n >= units:
            return i
        n += 2 if ord(ch) > 0xFFFF else 1
    return len(line)

def apply(rng, text):
    sl, sc = rng["start"]["line"], rng["start"]["character"]
    el, ec = rng["end"]["line"], rng["end"]["character"]
    a = lines[sl][:col(lines[sl], sc)]
    b = lines[el][col(lines[el], ec):]
    lines[sl:el + 1] = (a + text + b).split("\n")

def did_change(rng, text):
    global version
    version += 1
    send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": uri, "version": version},
        "contentChanges": [{"range": rng, "text": text}]}})

next_id = 100
def call(method, params):
    global next_id
    next_id += 1
    rid = next_id
    send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
    while True:
        m = recv()
        if m.get("id") == rid and "method" not in m:
            if "error" in m:
                raise SystemExit(f"{method}: {m['error']}")
            return m.get("result")
        if m.get("method") == "workspace/applyEdit":
            for dc in m["params"]["edit"]["documentChanges"]:
                assert dc["textDocument"]["version"] == version, "applyEdit for a stale version"
                for e in dc["edits"]:
                    apply(e["range"], e["newText"])
                    did_change(e["range"], e["newText"])
            send({"jsonrpc": "2.0", "id": m["id"], "result": {"applied": True}})
        elif "method" in m and "id" in m:
            send({"jsonrpc": "2.0", "id": m["id"], "result": None})

def rss():
    for l in open(f"/proc/{p.pid}/status"):
        if l.startswith("VmRSS:"):
            return int(l.split()[1]) / 1024
    return 0.0

call("initialize", {"processId": os.getpid(), "rootUri": "file://" + root, "capabilities": {
    "workspace": {"applyEdit": True, "workspaceEdit": {"documentChanges": True}}},
    "initializationOptions": {"activity": False, "progress": False}})
send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
    "uri": uri, "languageId": "go", "version": 1, "text": "\n".join(lines)}}})
print(f"step      0  lines {len(lines):5d}  RSS {rss():6.1f} MB", flush=True)
inserts = ["x", "é", "😀", "", "foo()", "\n", "a\nb", "\t// c\n"]
start = time.time()
agent_edits = requests = 0
for step in range(1, steps + 1):
    L = random.randrange(len(lines))
    line = lines[L]
    if random.random() < 0.3 and L + 2 < len(lines):  # join lines (delete across breaks)
        rng = {"start": {"line": L, "character": u16(line)}, "end": {"line": L + 1, "character": 0}}
        text = ""
    else:
        a, b = sorted(random.randrange(len(line) + 1) for _ in range(2))
        if b - a > 3:
            b = a + 3
        rng = {"start": {"line": L, "character": u16(line[:a])}, "end": {"line": L, "character": u16(line[:b])}}
        text = random.choice(inserts)
    apply(rng, text)
    did_change(rng, text)
    if step % 10 == 0:
        requests += 1
        L = random.randrange(len(lines))
        pos = {"line": L, "character": random.randrange(u16(lines[L]) + 1)}
        td = {"uri": uri}
        kind = step // 10 % 4
        if kind == 0:
            call("textDocument/documentSymbol", {"textDocument": td})
        elif kind == 1:
            call("textDocument/foldingRange", {"textDocument": td})
        elif kind == 2:
            call("textDocument/selectionRange", {"textDocument": td, "positions": [pos]})
        else:
            call("textDocument/codeAction", {"textDocument": td, "range": {"start": pos, "end": pos}, "context": {"diagnostics": []}})
    if step % 250 == 0:
        agent_edits += 1
        n = random.randrange(1, len(lines))
        r = call("workspace/executeCommand", {"command": "hashls.read", "arguments": [{"path": f"big.go:{n}-{n}"}]})
        tag = r["text"].split("\n", 1)[0].rsplit("#", 1)[1]
        call("workspace/executeCommand", {"command": "hashls.edit", "arguments": [{"input": f"¶big.go#{tag}\nreplace {n}..{n}:\n+// agent edit {step}"}]})
    if step % 1000 == 0:
        print(f"step {step:6d}  lines {len(lines):5d}  RSS {rss():6.1f} MB  {time.time() - start:6.1f} s", flush=True)

r = call("workspace/executeCommand", {"command": "hashls.read", "arguments": [{"path": "big.go:1"}]})
want = hashlib.sha256("\n".join(lines).encode()).hexdigest()
got = r["details"]["sha256"]
print(f"{steps} didChanges, {requests} requests, {agent_edits} agent edits in {time.time() - start:.1f} s")
print(f"client sha256 {want}\nserver sha256 {got}\n{'EQUAL' if want == got else 'DIFFERENT'}")
call("shutdown", None)
send({"jsonrpc": "2.0", "method": "exit"})
p.wait(timeout=10)
sys.exit(0 if want == got else 1)
PY
