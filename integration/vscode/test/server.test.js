// Integration test of the extension's command handlers and panel model
// (out/core.js) against the REAL server, without VS Code: the
// vscode-jsonrpc / vscode-languageserver-protocol client (the libraries
// vscode-languageclient is built on) starts `$HASHLS_BIN serve --stdio`,
// opens a document whose buffer differs from the disk, and the handlers run
// as the middleware runs them in VS Code, with `next` sending
// workspace/executeCommand. Server-sent workspace/applyEdit is applied to the
// in-memory document (and reported back with didChange) like an editor does.
//
//   npm run build && HASHLS_BIN=/abs/path/to/hashls node --test test/server.test.js
//
// Without HASHLS_BIN the test is skipped (exit 0). HASHLS_STATE_DIR is passed
// through (default: a temp dir).
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const { createMessageConnection, StreamMessageReader, StreamMessageWriter } = require('vscode-jsonrpc/node');
const P = require('vscode-languageserver-protocol');
const core = require('../out/core.js');

// An absolute path is safest (npm --prefix runs this from integration/vscode).
const BIN = process.env.HASHLS_BIN ? path.resolve(process.env.HASHLS_BIN) : undefined;
if (!BIN) {
  console.log('SKIP: HASHLS_BIN is not set (build with `go build -o /tmp/hashls .` and set HASHLS_BIN=/tmp/hashls)');
}

// Doc is a client-side open document, edited like an editor buffer.
class Doc {
  constructor(uri, text) {
    this.uri = uri;
    this.text = text;
    this.version = 1;
  }
  offsetAt(pos) {
    let off = 0;
    for (let l = 0; l < pos.line; l++) {
      const nl = this.text.indexOf('\n', off);
      if (nl < 0) return this.text.length;
      off = nl + 1;
    }
    let end = this.text.indexOf('\n', off);
    if (end < 0) end = this.text.length;
    return Math.min(off + pos.character, end);
  }
  textIn(range) {
    return this.text.slice(this.offsetAt(range.start), this.offsetAt(range.end));
  }
  apply(edits) {
    const sorted = [...edits].sort((a, b) => this.offsetAt(b.range.start) - this.offsetAt(a.range.start));
    for (const e of sorted) {
      this.text = this.text.slice(0, this.offsetAt(e.range.start)) + e.newText + this.text.slice(this.offsetAt(e.range.end));
    }
    this.version++;
  }
  lineOf(substr) {
    const i = this.text.indexOf(substr);
    assert.ok(i >= 0, `document has ${substr}`);
    return this.text.slice(0, i).split('\n').length; // 1-based
  }
}

function waitFor(pred, what, ms = 5000) {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const tick = () => {
      const v = pred();
      if (v) return resolve(v);
      if (Date.now() - t0 > ms) return reject(new Error(`timed out waiting for ${what}`));
      setTimeout(tick, 5);
    };
    tick();
  });
}

test('extension command handlers against hashls serve --stdio', { skip: !BIN && 'HASHLS_BIN not set', timeout: 60000 }, async (t) => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hashls-vsc-')));
  const stateDir = process.env.HASHLS_STATE_DIR || fs.mkdtempSync(path.join(os.tmpdir(), 'hashls-vsc-state-'));
  const file = path.join(root, 'main.go');
  const disk = 'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println("hello")\n}\n\nfunc helper() int {\n\treturn 1\n}\n';
  fs.writeFileSync(file, disk);
  fs.writeFileSync(path.join(root, 'util.go'), 'package main\n\nfunc util() {}\n');
  const uri = pathToFileURL(file).href;
  // The buffer has unsaved changes (and a non-BMP character).
  const doc = new Doc(uri, disk.replace('"hello"', '"hello, 🌍"'));

  const proc = spawn(BIN, ['serve', '--stdio'], { cwd: root, env: { ...process.env, HASHLS_STATE_DIR: stateDir }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  t.after(() => {
    if (proc.exitCode === null) proc.kill();
  });

  const conn = createMessageConnection(new StreamMessageReader(proc.stdout), new StreamMessageWriter(proc.stdin));
  const activity = new core.ActivityLog();
  const applied = [];
  conn.onRequest(P.ApplyWorkspaceEditRequest.type, (params) => {
    for (const change of params.edit.documentChanges ?? []) {
      if (change.textDocument.uri !== doc.uri || change.textDocument.version !== doc.version) {
        return { applied: false, failureReason: `unexpected ${change.textDocument.uri} v${change.textDocument.version}` };
      }
      doc.apply(change.edits);
    }
    for (const [u, edits] of Object.entries(params.edit.changes ?? {})) {
      assert.equal(u, doc.uri);
      doc.apply(edits);
    }
    applied.push(params);
    conn.sendNotification(P.DidChangeTextDocumentNotification.type, {
      textDocument: { uri: doc.uri, version: doc.version },
      contentChanges: [{ text: doc.text }],
    });
    return { applied: true };
  });
  conn.onRequest(P.WorkDoneProgressCreateRequest.type, () => null);
  conn.onNotification(P.LogMessageNotification.type, () => {});
  conn.onNotification('$/progress', () => {});
  conn.onNotification('hashls/activity', (p) => activity.add(p));
  conn.listen();

  const init = await conn.sendRequest(P.InitializeRequest.type, {
    processId: process.pid,
    rootUri: pathToFileURL(root).href,
    workspaceFolders: [{ uri: pathToFileURL(root).href, name: 'root' }],
    initializationOptions: { progress: true, activity: true, logLevel: 'warning' },
    capabilities: {
      workspace: { applyEdit: true, workspaceEdit: { documentChanges: true }, executeCommand: {} },
      window: { workDoneProgress: true },
      textDocument: { codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ['refactor', 'source'] } } } },
    },
  });
  const advertised = init.capabilities.executeCommandProvider.commands;
  for (const c of core.PALETTE_COMMANDS) {
    assert.ok(advertised.includes(c), `server advertises ${c} (vscode-languageclient registers it as a VS Code command)`);
  }
  conn.sendNotification(P.InitializedNotification.type, {});
  conn.sendNotification(P.DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: 'go', version: doc.version, text: doc.text } });

  // The host: one editor showing doc, the cursor on `cursorLine`.
  let cursorLine = 1;
  const inputs = [];
  const shown = [];
  const picks = [];
  const toolArgs = [];
  const selections = [];
  const messages = [];
  let clipboard = '';
  let editText;
  const host = {
    activeEditor: () => ({ uri, relPath: 'main.go', line: cursorLine }),
    prompt: async () => inputs.shift(),
    showResult: async (kind, label, text) => shown.push({ kind, label, text }),
    pickSearchMatch: async (pattern, matches) => picks.push({ pattern, matches }),
    toolArgs: async () => toolArgs.shift(),
    selectRange: async (u, range) => selections.push({ uri: u, range }),
    writeClipboard: async (text) => (clipboard = text),
    info: (m) => messages.push(['info', m]),
    error: (m) => messages.push(['error', m]),
    editDocumentText: () => editText,
    openEditDocument: async (text) => (editText = text),
    closeEditDocument: async () => (editText = undefined),
  };
  const handler = core.createCommandHandler(host);
  const next = (command, args) => conn.sendRequest(P.ExecuteCommandRequest.type, { command, arguments: args });
  const run = (command, args = []) => handler(command, args, next);
  const noErrors = () => assert.deepEqual(messages.filter((m) => m[0] === 'error'), [], 'no error messages');

  // Read (palette): the buffer's text, not the disk's.
  inputs.push('main.go:1-11');
  const read = await run('hashls.read');
  noErrors();
  assert.equal(shown.at(-1).kind, 'read');
  assert.match(shown.at(-1).text, /^¶main\.go#[0-9A-F]{4}/);
  assert.match(shown.at(-1).text, /hello, 🌍/);
  const tag = core.tagOf(read);
  assert.match(tag, /^[0-9A-F]{4}$/);

  // Edit (palette): open the edit document with a fresh header, write ops, submit.
  await run('hashls.edit');
  noErrors();
  assert.equal(editText, `¶main.go#${tag}\n`, 'header minted over the buffer');
  const line = doc.lineOf('fmt.Println');
  editText += `replace ${line}:\n+\tfmt.Println("edited")\n`;
  await run('hashls.edit');
  noErrors();
  assert.equal(editText, undefined, 'edit document closed after success');
  assert.ok(applied.length >= 1, 'the edit came back as workspace/applyEdit');
  assert.match(doc.text, /fmt\.Println\("edited"\)/);
  assert.equal(fs.readFileSync(file, 'utf8'), disk, 'the disk is untouched (open buffers are the truth)');
  assert.match(messages.at(-1)[1], /^hashls: /);

  // Select block (code action argument): the range covers func helper.
  const helperLine = doc.lineOf('func helper');
  const actions = await conn.sendRequest(P.CodeActionRequest.type, {
    textDocument: { uri },
    range: { start: { line: helperLine - 1, character: 0 }, end: { line: helperLine - 1, character: 0 } },
    context: { diagnostics: [] },
  });
  const selectAction = actions.find((a) => a.command && a.command.command === 'hashls.selectBlock');
  assert.ok(selectAction, `a select-block code action: ${JSON.stringify(actions)}`);
  const sel = await run(selectAction.command.command, selectAction.command.arguments);
  noErrors();
  assert.equal(selections.length, 1);
  assert.equal(selections[0].uri, uri);
  assert.equal(sel.startLine, helperLine);
  assert.equal(doc.textIn(selections[0].range), 'func helper() int {\n\treturn 1\n}');

  // Copy block anchor (palette, cursor on the func line), then edit with it.
  cursorLine = helperLine;
  await run('hashls.copyBlockAnchor');
  noErrors();
  assert.match(clipboard, new RegExp(`^¶main\\.go#[0-9A-F]{4}\\nreplace block ${helperLine}:$`));
  assert.match(messages.at(-1)[1], /copied ¶main\.go#[0-9A-F]{4}/);
  const edited = await run('hashls.edit', [{ input: `${clipboard}\n+func helper() int {\n+\treturn 2\n+}\n` }]);
  assert.match(core.resultText(edited), /main\.go/);
  assert.match(doc.text, /return 2/);
  assert.doesNotMatch(doc.text, /return 1/);

  // Outline, search, find (palette).
  await run('hashls.outline');
  assert.equal(shown.at(-1).kind, 'outline');
  assert.match(shown.at(-1).text, /helper/);
  inputs.push('func (util|helper)');
  await run('hashls.search');
  // The quick pick lists the matches from the server's result.
  assert.deepEqual(picks.at(-1).matches.map((m) => `${m.path}:${m.line}`).sort(), ['main.go:9', 'util.go:3']);
  // A tool from the palette: JSON arguments (the console), result shown.
  toolArgs.push({ limit: 5 });
  await run('hashls.audit');
  assert.equal(shown.at(-1).kind, 'audit');
  assert.match(shown.at(-1).text, /main\.go/);
  inputs.push('*.go');
  await run('hashls.find');
  assert.equal(shown.at(-1).kind, 'find');
  assert.match(shown.at(-1).text, /util\.go/);
  noErrors();

  // A bad edit (API call) rejects with the error kind; via the palette it is shown.
  await assert.rejects(run('hashls.edit', [{ input: '¶main.go#0000\ndelete 1\n' }]), (err) => {
    assert.equal(typeof err.data?.kind, 'string');
    return true;
  });
  editText = '¶nope.go#0000\ndelete 1\n';
  assert.equal(await run('hashls.edit'), undefined);
  assert.match(messages.at(-1)[1], /^hashls edit: .+ \[[a-z_]+\]$/);
  assert.equal(editText, '¶nope.go#0000\ndelete 1\n', 'a failed edit keeps the edit document');

  // The panel model got one entry per tool run, newest first.
  await waitFor(() => activity.entries.filter((e) => e.tool === 'edit').length >= 4, 'edit activity');
  const edits = activity.entries.filter((e) => e.tool === 'edit');
  const failed = edits.filter((e) => e.outcome === 'error');
  assert.equal(failed.length, 2);
  assert.ok(failed.every((e) => e.errorKind), 'error entries carry the error kind');
  const ok = edits.filter((e) => e.outcome === 'ok');
  assert.equal(ok.length, 2);
  assert.deepEqual(ok[1].paths, ['main.go']);
  assert.match(ok[1].diff, /\+\tfmt\.Println\("edited"\)/);
  assert.match(ok[0].diff, /\+\treturn 2/);
  assert.equal(core.activityDocument(ok[0]), ok[0].diff.endsWith('\n') ? ok[0].diff : ok[0].diff + '\n');
  assert.ok(ok[0].durationMs >= 0);
  assert.match(core.activityLabel(ok[0]), /^\d\d:\d\d:\d\d {2}edit {2}ok$/);
  assert.match(core.activityDescription(ok[0]), /^lsp · main\.go( · audit( #\d+)+)? · [\d.]+ m?s$/);
  for (const tool of ['read', 'search_files', 'find']) {
    assert.ok(activity.entries.some((e) => e.tool === tool && e.outcome === 'ok'), `activity for ${tool}`);
  }
  const seqs = activity.entries.map((e) => e.seq);
  assert.deepEqual(seqs, [...seqs].sort((a, b) => b - a), 'newest first');

  await conn.sendRequest(P.ShutdownRequest.type);
  conn.sendNotification(P.ExitNotification.type);
  const { code } = await exited;
  conn.dispose();
  assert.equal(code, 0, `server exit code (stderr: ${stderr})`);
});
