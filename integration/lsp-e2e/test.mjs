// End-to-end test: drives the built hashls binary (`hashls serve --stdio`)
// with the vscode-jsonrpc / vscode-languageserver-protocol client library,
// the way the VS Code client talks to it.
//
//   HASHLS_BIN=/path/to/hashls node --test test.mjs
//
// HASHLS_ARGS (a JSON array, default ["serve","--stdio"]) overrides the
// arguments; HASHLS_STATE_DIR is passed through (a temp dir by default).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-jsonrpc/node';
import {
  InitializeRequest,
  InitializedNotification,
  DidOpenTextDocumentNotification,
  DidChangeTextDocumentNotification,
  ExecuteCommandRequest,
  DocumentSymbolRequest,
  FoldingRangeRequest,
  CodeActionRequest,
  ApplyWorkspaceEditRequest,
  WorkDoneProgressCreateRequest,
  ShutdownRequest,
  ExitNotification,
  LogMessageNotification,
} from 'vscode-languageserver-protocol';

const BIN = process.env.HASHLS_BIN;
const ARGS = process.env.HASHLS_ARGS ? JSON.parse(process.env.HASHLS_ARGS) : ['serve', '--stdio'];

// A client-side copy of an open document, edited like an editor buffer.
class Doc {
  constructor(uri, text, version) {
    this.uri = uri;
    this.text = text;
    this.version = version;
  }
  // offsetAt converts an LSP position (UTF-16 columns) to a string index
  // (JS strings are UTF-16, so columns are string indices within the line).
  offsetAt(pos) {
    let off = 0;
    for (let l = 0; l < pos.line; l++) {
      const nl = this.text.indexOf('\n', off);
      if (nl < 0) return this.text.length;
      off = nl + 1;
    }
    let end = this.text.indexOf('\n', off);
    if (end < 0) end = this.text.length;
    if (end > off && this.text[end - 1] === '\r') end--;
    return Math.min(off + pos.character, end);
  }
  apply(edits) {
    // Apply from the end so earlier offsets stay valid.
    const sorted = [...edits].sort((a, b) => this.offsetAt(b.range.start) - this.offsetAt(a.range.start));
    for (const e of sorted) {
      const s = this.offsetAt(e.range.start);
      const en = this.offsetAt(e.range.end);
      this.text = this.text.slice(0, s) + e.newText + this.text.slice(en);
    }
    this.version++;
  }
}

test('hashls serve: initialize, didOpen, read + edit via applyEdit, documentSymbol, shutdown/exit', { skip: !BIN && 'HASHLS_BIN not set' }, async () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hashls-e2e-')));
  const stateDir = process.env.HASHLS_STATE_DIR || fs.mkdtempSync(path.join(os.tmpdir(), 'hashls-e2e-state-'));
  const file = path.join(root, 'main.go');
  const disk = 'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println("hello")\n}\n\nfunc helper() int {\n\treturn 1\n}\n';
  fs.writeFileSync(file, disk);
  // The buffer has unsaved changes (and a non-BMP character) the server must see.
  const buffer = disk.replace('"hello"', '"hello, 🌍"');
  const uri = pathToFileURL(file).href;

  const proc = spawn(BIN, ARGS, { cwd: root, env: { ...process.env, HASHLS_STATE_DIR: stateDir }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));

  const conn = createMessageConnection(new StreamMessageReader(proc.stdout), new StreamMessageWriter(proc.stdin));
  const doc = new Doc(uri, buffer, 1);
  const applyEdits = [];
  const activity = [];
  const logs = [];

  conn.onRequest(ApplyWorkspaceEditRequest.type, async (params) => {
    applyEdits.push(params);
    for (const change of params.edit.documentChanges ?? []) {
      assert.equal(change.textDocument.uri, doc.uri);
      if (change.textDocument.version !== doc.version) {
        return { applied: false, failureReason: `version ${change.textDocument.version} != ${doc.version}` };
      }
      const before = doc.text;
      doc.apply(change.edits);
      // Send the incremental change, as VS Code does, before answering.
      await conn.sendNotification(DidChangeTextDocumentNotification.type, {
        textDocument: { uri: doc.uri, version: doc.version },
        contentChanges: change.edits.map((e) => ({ range: e.range, text: e.newText })),
      });
      assert.notEqual(doc.text, before);
    }
    return { applied: true };
  });
  conn.onRequest(WorkDoneProgressCreateRequest.type, () => null);
  conn.onNotification('hashls/activity', (p) => activity.push(p));
  conn.onNotification(LogMessageNotification.type, (p) => logs.push(p));
  conn.listen();

  try {
    const init = await conn.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri: pathToFileURL(root).href,
      workspaceFolders: [{ uri: pathToFileURL(root).href, name: 'e2e' }],
      capabilities: {
        workspace: { applyEdit: true, workspaceEdit: { documentChanges: true, changeAnnotationSupport: { groupsOnLabel: true } } },
        window: { workDoneProgress: true },
        textDocument: {
          synchronization: { dynamicRegistration: false },
          documentSymbol: { hierarchicalDocumentSymbolSupport: true },
          codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ['', 'refactor', 'source'] } } },
        },
      },
      initializationOptions: { hashls: { logLevel: 'info' } },
    });
    assert.equal(init.serverInfo?.name, 'hashls');
    assert.equal(init.capabilities.textDocumentSync.change, 2, 'incremental sync');
    for (const c of ['hashls.read', 'hashls.edit', 'hashls.selectBlock', 'hashls.outline']) {
      assert.ok(init.capabilities.executeCommandProvider.commands.includes(c), `command ${c}`);
    }
    await conn.sendNotification(InitializedNotification.type, {});
    await conn.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId: 'go', version: 1, text: buffer },
    });

    // read: the buffer, not the disk, with a tag.
    const read = await conn.sendRequest(ExecuteCommandRequest.type, { command: 'hashls.read', arguments: [{ path: 'main.go' }] });
    assert.match(read.text, /hello, 🌍/);
    const header = read.text.split('\n').find((l) => l.startsWith('¶'));
    assert.ok(header, `no ¶ header in ${read.text}`);
    const tag = header.slice(header.lastIndexOf('#') + 1).trim();
    assert.match(tag, /^[0-9A-F]{4}$/);

    // edit: a hashline edit of the open buffer arrives back as applyEdit.
    const input = `¶main.go#${tag}\nreplace 6..6:\n+\tfmt.Println("edited", "🌍")\ninsert after block 9:\n+\n+func added() {}\n`;
    const edit = await conn.sendRequest(ExecuteCommandRequest.type, { command: 'hashls.edit', arguments: [{ input }] });
    assert.equal(typeof edit.text, 'string');
    assert.equal(applyEdits.length, 1, 'one workspace/applyEdit');
    const dc = applyEdits[0].edit.documentChanges[0];
    assert.equal(dc.textDocument.version, 1, 'versioned against the buffer');
    assert.ok(applyEdits[0].edit.changeAnnotations, 'change annotation sent');
    assert.equal(doc.text, buffer.replace('\tfmt.Println("hello, 🌍")', '\tfmt.Println("edited", "🌍")').replace('\treturn 1\n}\n', '\treturn 1\n}\n\nfunc added() {}\n'));
    assert.equal(fs.readFileSync(file, 'utf8'), disk, 'the disk is untouched');

    // The old tag no longer proves line 6 (the edit changed it): refused
    // with the tool's error kind in the error data, and nothing is sent.
    await assert.rejects(
      conn.sendRequest(ExecuteCommandRequest.type, { command: 'hashls.edit', arguments: [{ input: `¶main.go#${tag}\nreplace 6..6:\n+\tfmt.Println("stale")\n` }] }),
      (err) => { assert.ok(['stale_file', 'conflict'].includes(err.data?.kind), JSON.stringify(err)); return true; },
    );
    assert.equal(applyEdits.length, 1, 'no edit sent for a stale tag');

    // documentSymbol over the edited buffer.
    const syms = await conn.sendRequest(DocumentSymbolRequest.type, { textDocument: { uri } });
    const names = syms.map((s) => s.name);
    for (const n of ['main', 'helper', 'added']) assert.ok(names.includes(n), `symbol ${n} in ${names}`);
    const folds = await conn.sendRequest(FoldingRangeRequest.type, { textDocument: { uri } });
    assert.ok(folds.length > 0, 'folding ranges');
    const actions = await conn.sendRequest(CodeActionRequest.type, {
      textDocument: { uri }, range: { start: { line: 4, character: 0 }, end: { line: 4, character: 0 } }, context: { diagnostics: [] },
    });
    assert.ok(actions.some((a) => a.title.startsWith('Delete block')), JSON.stringify(actions));

    // Activity notifications: one per tool run.
    await new Promise((r) => setTimeout(r, 50));
    assert.ok(activity.some((a) => a.tool === 'edit' && a.outcome === 'ok' && a.paths.includes('main.go')), JSON.stringify(activity));

    await conn.sendRequest(ShutdownRequest.type);
    await conn.sendNotification(ExitNotification.type);
    const { code } = await exited;
    assert.equal(code, 0, `exit code (stderr: ${stderr})`);
  } finally {
    conn.dispose();
    proc.kill();
  }
});
