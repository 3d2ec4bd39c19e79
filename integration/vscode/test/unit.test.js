// Unit tests of the compiled extension (out/): the pure logic in core.js and
// activate() in extension.js against the fake vscode module. No editor, no
// server: `npm run build && node --test test/unit.test.js`.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const fake = require('./fake-vscode');

fake.install();
const core = require('../out/core.js');
const ext = require('../out/extension.js');
const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'));

const at = new Date(2026, 10, 21, 9, 5, 7);

test('activity: normalize, newest first, max, bad params ignored', () => {
  const log = new core.ActivityLog(2);
  let changes = 0;
  log.onChange(() => changes++);
  assert.equal(log.add(null, at), undefined);
  assert.equal(log.add('edit', at), undefined);
  assert.equal(log.add([1], at), undefined);
  const a = log.add({ tool: 'read', paths: ['a.go', 3], outcome: 'ok', durationMs: 0.25 }, at);
  assert.deepEqual(a, {
    seq: 1, time: '09:05:07', tool: 'read', paths: ['a.go'], outcome: 'ok', errorKind: undefined,
    message: undefined, auditIds: [], diff: '', durationMs: 0.25, transport: 'lsp', iso: at.toISOString(), external: false, root: undefined,
    agent: undefined, turn: undefined, readOnly: false,
  });
  log.add({ tool: 'edit', paths: ['a.go'], outcome: 'error', errorKind: 'stale', message: 'a.go changed: read it again', durationMs: 3 }, at);
  log.add({ tool: 'edit', paths: ['a.go', 'b.go'], outcome: 'ok', auditIds: [7, 'x', 8], diff: '--- a/a.go\n+++ b/a.go\n', durationMs: 1500 }, at);
  assert.deepEqual(log.entries.map((e) => e.seq), [3, 2], 'newest first, at most max');
  assert.equal(changes, 3);
  assert.deepEqual(log.get(3).auditIds, [7, 8]);
  assert.equal(log.get(1), undefined);
  log.setMax(1);
  assert.deepEqual(log.entries.map((e) => e.seq), [3]);
  log.clear();
  assert.equal(log.entries.length, 0);
  assert.equal(log.add({ tool: 'x' }, at).seq, 4, 'sequence numbers keep growing after clear');
  assert.equal(log.add({}, at).tool, '?');
});

test('activity: panel texts and the diff document', () => {
  const log = new core.ActivityLog();
  const ok = log.add({ tool: 'edit', paths: ['a.go'], outcome: 'ok', auditIds: [12], diff: '--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-x\n+y', durationMs: 12.4 }, at);
  const bad = log.add({ tool: 'edit', paths: ['a.go'], outcome: 'error', errorKind: 'stale', message: 'stale tag\nread again', durationMs: 0.42 }, at);
  assert.equal(core.activityLabel(ok), '09:05:07  edit  ok');
  assert.equal(core.activityLabel(bad), '09:05:07  edit  error (stale)');
  assert.equal(core.activityDescription(ok), 'lsp · a.go · audit #12 · 12 ms');
  assert.equal(core.activityDescription(bad), 'lsp · a.go · 0.4 ms');
  assert.equal(core.activityDescription(log.add({ tool: 'find', paths: ['a', 'b', 'c', 'd', 'e'], transport: 'mcp' }, at)), 'mcp · a, b, c +2');
  assert.match(core.activityTooltip(bad), /message: stale tag/);
  assert.equal(core.activityDocument(ok), '--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-x\n+y\n');
  assert.equal(core.activityDocument(bad), '# hashls edit: error (stale) at 09:05:07\n# paths: a.go\n# stale tag\n# read again\n# (no diff)\n');
  assert.equal(core.activityPath(ok), '/activity/1/edit-1.diff');
  assert.equal(core.formatDuration(1500), '1.5 s');
  assert.equal(core.formatDuration(undefined), '');
});

test('results: errors, select and anchor results, tags', () => {
  assert.equal(core.errorText({ message: 'tag ABCD is stale', data: { kind: 'stale', tool: 'edit' } }), 'tag ABCD is stale [stale]');
  assert.equal(core.errorText(new Error('boom')), 'boom');
  assert.equal(core.errorText('plain'), 'plain');
  const range = { start: { line: 4, character: 0 }, end: { line: 6, character: 1 } };
  assert.deepEqual(core.parseSelectResult({ uri: 'file:///a.go', range, startLine: 5, endLine: 7 }, 'file:///x'), { uri: 'file:///a.go', range, startLine: 5, endLine: 7 });
  assert.equal(core.parseSelectResult({ range }, 'file:///x').uri, 'file:///x');
  assert.throws(() => core.parseSelectResult(null, 'u'), /no range/);
  assert.throws(() => core.parseSelectResult({ range: { start: { line: -1, character: 0 }, end: { line: 0, character: 0 } } }, 'u'), /no range/);
  const an = core.parseAnchorResult({ text: '¶a.go#1A2B\nreplace block 5:', anchor: '¶a.go#1A2B', tag: '1A2B', path: 'a.go' });
  assert.deepEqual([an.anchor, an.tag, an.path], ['¶a.go#1A2B', '1A2B', 'a.go']);
  assert.throws(() => core.parseAnchorResult({ text: '' }), /no anchor/);
  assert.throws(() => core.parseAnchorResult({ text: '¶a.go#1A2B\nreplace block 5:' }), /no anchor, tag or path/);
  assert.equal(core.tagOf({ text: '¶a.go#FFFF\n1:x', shown: [{ path: 'a.go', tag: '0A0B', sha256: 'x' }] }), '0A0B');
  assert.equal(core.tagOf({ text: '¶a.go#C0DE\n1:x' }), undefined, 'the text is never scraped');
  assert.equal(core.tagOf({}), undefined);
  const store = new core.DocStore(2);
  const p1 = store.put('read', 'src/a.go:1-3', 'one');
  assert.equal(p1, '/read/1/src∕a.go:1-3');
  store.put('read', 'b', 'two');
  store.put('read', 'c', 'three');
  assert.equal(store.get(p1), undefined, 'oldest dropped');
});

// fakeHost records what the command handler does to the editor.
function fakeHost(editor, inputs = []) {
  const h = {
    log: [],
    editText: undefined,
    activeEditor: () => editor,
    prompt: async (o) => {
      h.log.push(['prompt', o.value ?? '']);
      return inputs.shift();
    },
    showResult: async (kind, label, text) => h.log.push(['show', kind, label, text]),
    selectRange: async (uri, range) => h.log.push(['select', uri, range]),
    writeClipboard: async (t) => h.log.push(['clipboard', t]),
    info: (m) => h.log.push(['info', m]),
    error: (m) => h.log.push(['error', m]),
    editDocumentText: () => h.editText,
    openEditDocument: async (t) => {
      h.editText = t;
      h.log.push(['openEdit', t]);
    },
    closeEditDocument: async () => {
      h.editText = undefined;
      h.log.push(['closeEdit']);
    },
  };
  return h;
}

function fakeNext(answers) {
  const sent = [];
  const next = async (cmd, args) => {
    sent.push([cmd, args]);
    const a = answers[cmd];
    if (a instanceof Error) throw a;
    return typeof a === 'function' ? a(args[0]) : a;
  };
  return { sent, next };
}

const editor = { uri: 'file:///ws/a.go', relPath: 'a.go', line: 5 };
const range = { start: { line: 4, character: 0 }, end: { line: 6, character: 1 } };

test('commands: select block and copy anchor use the server results', async () => {
  const host = fakeHost(editor);
  const h = core.createCommandHandler(host);
  const { sent, next } = fakeNext({
    'hashls.selectBlock': { uri: 'file:///ws/a.go', range, startLine: 5, endLine: 7 },
    'hashls.copyBlockAnchor': { text: '¶a.go#1A2B\nreplace block 5:', anchor: '¶a.go#1A2B', tag: '1A2B', path: 'a.go', startLine: 5, endLine: 7, range },
  });
  // From the palette: the block at the cursor of the active editor.
  const sel = await h('hashls.selectBlock', [], next);
  assert.equal(sel.startLine, 5);
  assert.deepEqual(sent[0], ['hashls.selectBlock', [{ uri: 'file:///ws/a.go', line: 5 }]]);
  assert.deepEqual(host.log[0], ['select', 'file:///ws/a.go', range]);
  // From a code action: its argument.
  await h('hashls.copyBlockAnchor', [{ uri: 'file:///ws/b.go', line: 9 }], next);
  assert.deepEqual(sent[1], ['hashls.copyBlockAnchor', [{ uri: 'file:///ws/b.go', line: 9 }]]);
  assert.deepEqual(host.log[1], ['clipboard', '¶a.go#1A2B\nreplace block 5:']);
  assert.deepEqual(host.log[2], ['info', 'hashls: copied ¶a.go#1A2B (block 5–7)']);
});

test('commands: failures are shown, malformed results too; no editor is an error', async () => {
  const host = fakeHost(undefined);
  const h = core.createCommandHandler(host);
  const err = Object.assign(new Error('no block begins on line 3'), { code: -32803, data: { kind: 'invalid_edit' } });
  const { sent, next } = fakeNext({ 'hashls.selectBlock': err, 'hashls.copyBlockAnchor': { nope: 1 } });
  assert.equal(await h('hashls.selectBlock', [], next), undefined);
  assert.equal(sent.length, 0, 'nothing sent without an editor');
  assert.match(host.log[0][1], /select block needs an open file editor/);
  assert.equal(await h('hashls.selectBlock', [{ uri: 'file:///ws/a.go', line: 3 }], next), undefined);
  assert.deepEqual(host.log[1], ['error', 'hashls select block: no block begins on line 3 [invalid_edit]']);
  assert.equal(await h('hashls.copyBlockAnchor', [{ uri: 'file:///ws/a.go', line: 3 }], next), undefined);
  assert.match(host.log[2][1], /returned no anchor text/);
  assert.equal(host.log.filter((l) => l[0] === 'clipboard').length, 0);
});

test('commands: read, search, find and outline prompt and show results', async () => {
  const host = fakeHost({ ...editor, selection: { start: 2, end: 4 } }, ['a.go:2-4', 'func \\w+', '', '*.go']);
  const h = core.createCommandHandler(host);
  const { sent, next } = fakeNext({
    'hashls.read': (a) => ({ text: `¶${a.path}#ABCD\n2:x`, details: { tag: 'ABCD' } }),
    'hashls.search_files': { text: 'search result', details: { matches: [] } },
    'hashls.find': { text: 'a.go' },
    'hashls.outline': { text: 'outline text' },
  });
  await h('hashls.read', [], next);
  assert.deepEqual(host.log[0], ['prompt', 'a.go:2-4'], 'prompt prefilled with the file and selection');
  assert.deepEqual(host.log[1], ['show', 'read', 'a.go:2-4', '¶a.go:2-4#ABCD\n2:x']);
  await h('hashls.search', [], next);
  assert.deepEqual(sent[1], ['hashls.search_files', [{ pattern: 'func \\w+', mode: 'regex', path: '.' }]]);
  assert.equal(await h('hashls.find', [], next), undefined, 'empty input cancels');
  assert.equal(sent.length, 2);
  await h('hashls.find', [], next);
  assert.deepEqual(sent[2], ['hashls.find', [{ paths: '*.go' }]]);
  await h('hashls.outline', [], next);
  assert.deepEqual(sent[3], ['hashls.outline', [{ uri: 'file:///ws/a.go' }]]);
  assert.deepEqual(host.log.at(-1), ['show', 'outline', 'a.go', 'outline text']);
  await h('hashls.outline', [{ uri: 'file:///ws/dir/b%20c.go' }], next);
  assert.deepEqual(host.log.at(-1), ['show', 'outline', 'b c.go', 'outline text']);
});

test('commands: edit opens a document with a fresh header, then submits it', async () => {
  const host = fakeHost(editor);
  const h = core.createCommandHandler(host);
  const { sent, next } = fakeNext({
    'hashls.read': { text: '¶a.go#BEEF\n1:package a', shown: [{ path: 'a.go', tag: 'BEEF', sha256: 'x' }] },
    'hashls.edit': (a) => ({ text: `edited a.go (${a.input.length} bytes of input)\n...` }),
  });
  await h('hashls.edit', [], next);
  assert.deepEqual(sent[0], ['hashls.read', [{ path: 'a.go:1' }]]);
  assert.deepEqual(host.log[0], ['openEdit', '¶a.go#BEEF\n']);
  host.editText = '¶a.go#BEEF\nreplace 1:\n+package b';
  await h('hashls.edit', [], next);
  assert.deepEqual(sent[1], ['hashls.edit', [{ input: '¶a.go#BEEF\nreplace 1:\n+package b\n' }]]);
  assert.deepEqual(host.log.slice(2), [['closeEdit'], ['info', 'hashls: edited a.go (33 bytes of input)']]);
  // A failing edit keeps the document open.
  host.editText = '¶a.go#0000\ndelete 1';
  const { next: failing } = fakeNext({ 'hashls.edit': Object.assign(new Error('tag 0000 is unknown'), { data: { kind: 'stale' } }) });
  assert.equal(await h('hashls.edit', [], failing), undefined);
  assert.deepEqual(host.log.at(-1), ['error', 'hashls edit: tag 0000 is unknown [stale]']);
  assert.equal(host.editText, '¶a.go#0000\ndelete 1');
});

test('commands: with arguments, tools pass through and errors propagate', async () => {
  const host = fakeHost(editor);
  const h = core.createCommandHandler(host);
  const err = new Error('bad');
  const { sent, next } = fakeNext({ 'hashls.read': { text: 'r' }, 'hashls.audit': { text: 'a' }, 'hashls.edit': err });
  assert.deepEqual(await h('hashls.read', [{ path: 'a.go' }], next), { text: 'r' });
  assert.deepEqual(await h('hashls.audit', [{}], next), { text: 'a' }, 'tool commands with arguments pass through');
  assert.deepEqual(await h('hashls.selectBlock2', [], next), undefined, 'unknown commands pass through');
  sent.pop();
  await assert.rejects(h('hashls.edit', [{ input: 'x' }], next), /bad/);
  assert.equal(sent.length, 3);
  assert.equal(host.log.length, 0, 'no UI for API calls');
});

test('package.json: commands, view, settings and activation agree with the code', async () => {
  const contributed = pkg.contributes.commands.map((c) => c.command).sort();
  for (const c of core.PALETTE_COMMANDS) {
    assert.ok(contributed.includes(c), `${c} has a palette entry`);
  }
  for (const c of core.TOOL_COMMANDS) {
    assert.ok(contributed.includes(c), `${c} has a palette entry`);
  }
  assert.deepEqual(pkg.contributes.views.hashls.map((v) => v.id), [ext.VIEW_ID], 'the Changes view is in its own container');
  assert.deepEqual(pkg.contributes.viewsContainers.activitybar.map((v) => v.id), ['hashls']);
  assert.ok(fs.existsSync(path.join(__dirname, '..', pkg.contributes.viewsContainers.activitybar[0].icon)));
  assert.equal(pkg.main, './dist/extension.js', 'the bundle (esbuild)');
  // The bundle needs nothing from node_modules: vscode and node's own modules only.
  const bundle = fs.readFileSync(path.join(__dirname, '..', pkg.main), 'utf8');
  const required = new Set([...bundle.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]));
  const builtins = new Set(require('node:module').builtinModules);
  for (const r of required) {
    assert.ok(r === 'vscode' || builtins.has(r.replace(/^node:/, '')), `the bundle requires only vscode and node modules, not ${r}`);
  }
  assert.ok(required.has('vscode'));
  for (const m of Object.values(pkg.contributes.menus).flat()) {
    assert.ok(contributed.includes(m.command), `menu entry ${m.command} is a contributed command`);
  }
  assert.ok(pkg.contributes.configuration.properties['hashls.path']);
  for (const [name, version] of Object.entries({ ...pkg.dependencies, ...pkg.devDependencies })) {
    assert.match(version, /^\d+\.\d+\.\d+$/, `${name} is pinned`);
  }

  // activate() with the fake vscode and a fake client whose server advertises
  // the palette commands (the real client registers server commands itself).
  for (const c of [...core.PALETTE_COMMANDS, 'hashls.audit', 'hashls.extra']) {
    fake.serverCommands.set(c, async () => ({ text: `${c} result` }));
  }
  fake.state.config['hashls.path'] = '/opt/hashls';
  fake.state.config['hashls.stateDir'] = '/tmp/state';
  const context = { subscriptions: [] };
  const api = ext.activate(context);
  assert.equal(await api.ready, true);
  const client = fake.clients.at(-1);
  assert.equal(client.serverOptions.command, '/opt/hashls');
  assert.ok(fake.calls.some((c) => c.name === 'output' && c.args[0] === 'hashls: starting /opt/hashls (from the hashls.path setting)'),
    'the output channel says which binary started');
  assert.deepEqual(client.serverOptions.args, ['serve']);
  assert.equal(client.serverOptions.transport, 0, 'stdio transport (appends --stdio)');
  assert.equal(client.serverOptions.options.cwd, '/ws');
  assert.deepEqual(client.clientOptions.initializationOptions, { progress: true, activity: true, logLevel: 'warning', applyEditTimeoutMs: 10000, diagnosticsMs: 0, formatOnWrite: false, review: true, stateDir: '/tmp/state' });
  assert.deepEqual(client.clientOptions.documentSelector, [{ scheme: 'file' }]);
  assert.equal(client.clientOptions.synchronize.configurationSection, 'hashls');
  for (const c of contributed) {
    assert.ok(fake.state.commands.has(c), `${c} is registered`);
  }
  assert.deepEqual(client.registered, ['hashls.extra'], 'the client registers only the server commands the extension does not own');
  assert.deepEqual(await fake.vscode.commands.executeCommand('hashls.extra'), { text: 'hashls.extra result' }, 'through the middleware');
  assert.deepEqual(await fake.vscode.commands.executeCommand('hashls.audit', { limit: 1 }), { text: 'hashls.audit result' }, 'a tool with arguments');
  assert.ok(fake.state.providers.has('hashls'));
  assert.ok(fake.state.treeViews.has('hashls.activity'));

  // A palette command runs through the middleware: prompt, server, result document.
  fake.state.inputs.push('*.go');
  await fake.vscode.commands.executeCommand('hashls.find');
  const shown = fake.state.opened.at(-1);
  assert.equal(shown.uri.scheme, 'hashls');
  assert.equal(shown.getText(), 'hashls.find result');
  assert.equal(shown.languageId, 'hashline');

  // hashls/activity → the panel → the diff document.
  const tree = fake.state.treeViews.get('hashls.activity').treeDataProvider;
  let refreshed = 0;
  tree.onDidChangeTreeData(() => refreshed++);
  client.notifications.get('hashls/activity')({ tool: 'edit', paths: ['a.go'], outcome: 'ok', auditIds: [3], diff: '--- a/a.go\n+++ b/a.go\n', durationMs: 4 });
  client.notifications.get('hashls/activity')({ tool: 'edit', paths: ['a.go'], outcome: 'error', errorKind: 'stale', message: 'read again', durationMs: 1 });
  assert.equal(refreshed, 2);
  const rows = tree.getChildren();
  assert.equal(rows.length, 2);
  const item = tree.getTreeItem(rows[1]);
  assert.match(item.label, /^\d\d:\d\d:\d\d {2}edit {2}ok$/);
  assert.equal(item.description, 'lsp · a.go · audit #3 · 4 ms');
  assert.equal(item.iconPath.id, 'diff');
  assert.equal(item.contextValue, 'hashlsChange');
  assert.deepEqual(item.command, { command: 'hashls.openChange', title: 'Open diff', arguments: [rows[1].seq] });
  assert.equal(tree.getTreeItem(rows[0]).iconPath.id, 'error');
  // This fake server keeps no change texts (audit {id} has no row): the
  // run's unified diff opens instead of the side-by-side one.
  await fake.vscode.commands.executeCommand(item.command.command, ...item.command.arguments);
  const diff = fake.state.opened.at(-1);
  assert.equal(diff.languageId, 'diff');
  assert.equal(diff.uri.scheme, 'hashls');
  assert.equal(diff.getText(), '--- a/a.go\n+++ b/a.go\n');
  await fake.vscode.commands.executeCommand('hashls.clearActivity');
  assert.equal(tree.getChildren().length, 0);

  // Restart stops the client (its commands go) and starts a new one.
  await fake.vscode.commands.executeCommand('hashls.restart');
  assert.notEqual(fake.clients.at(-1), client);
  assert.ok(fake.state.commands.has('hashls.read'));
  await ext.deactivate();
});

test('serverBinary: hashls.path, then the bundled binary, then PATH', () => {
  const none = () => false;
  const all = () => true;
  const only = (want) => (p) => p === want;
  const cases = [
    // [setting, extensionPath, platform, exists, command, source]
    ['/opt/hashls', '/ext', 'linux', all, '/opt/hashls', 'setting'],
    ['  hashls-dev  ', '/ext', 'linux', all, 'hashls-dev', 'setting'],
    ['C:\\tools\\hashls.exe', 'C:\\ext', 'win32', all, 'C:\\tools\\hashls.exe', 'setting'],
    ['', '/ext', 'linux', only('/ext/bin/hashls'), '/ext/bin/hashls', 'bundled'],
    [undefined, '/ext/', 'darwin', only('/ext/bin/hashls'), '/ext/bin/hashls', 'bundled'],
    ['', 'C:\\ext', 'win32', only('C:\\ext\\bin\\hashls.exe'), 'C:\\ext\\bin\\hashls.exe', 'bundled'],
    ['', 'C:\\ext', 'win32', only('C:\\ext\\bin\\hashls'), 'hashls', 'PATH'],
    ['', '/ext', 'linux', none, 'hashls', 'PATH'],
    ['   ', '/ext', 'linux', none, 'hashls', 'PATH'],
    ['', undefined, 'linux', all, 'hashls', 'PATH'],
  ];
  for (const [setting, ext, platform, exists, command, source] of cases) {
    const got = core.serverBinary(setting, ext, platform, exists);
    assert.equal(got.command, command, `${JSON.stringify([setting, ext, platform])} command`);
    assert.equal(got.source, source, `${JSON.stringify([setting, ext, platform])} source`);
    assert.ok(got.describe.includes(command), 'the output line names the binary');
  }
  assert.equal(pkg.contributes.configuration.properties['hashls.path'].default, '', 'unset by default, so the bundled binary is used');
});

test('activate: a missing binary is reported with a pointer to hashls.path', async () => {
  fake.state.startError = new Error('spawn hashls ENOENT');
  for (const k of [...fake.state.commands.keys()]) fake.state.commands.delete(k);
  fake.state.messages.length = 0;
  const api = ext.activate({ subscriptions: [] });
  assert.equal(await api.ready, false);
  assert.match(fake.state.messages[0].text, /could not start "\/opt\/hashls serve --stdio" \(set hashls.path/);
  assert.deepEqual(fake.state.messages[0].items, ['Open Settings']);
  assert.equal(await fake.vscode.commands.executeCommand('hashls.read'), undefined);
  assert.match(fake.state.messages[1].text, /the server is not running \(hashls.read\)/);
  delete fake.state.startError;
});

test('changes: history from the audit log, one entry per audit id, time order, filters, unseen', () => {
  const log = new core.ActivityLog();
  // A live run of this server (no time field: when it arrived).
  const live = log.add({ tool: 'edit', paths: ['a.go'], outcome: 'ok', auditIds: [5], diff: '@@ -3,2 +4,2 @@\n' }, new Date('2026-11-25T01:00:10Z'));
  assert.equal(log.unseen, 1, 'a change counts for the badge');
  log.add({ tool: 'read', paths: ['a.go'], outcome: 'ok' }, new Date('2026-11-25T01:00:11Z'));
  assert.equal(log.unseen, 1, 'a run that changed nothing does not');
  // History: newest first, as hashls.audit answers; #5 is listed already.
  const rows = [
    { id: 6, tool: 'edit', path: 'b.go', time: '2026-11-25T01:00:20Z', transport: 'cli' },
    { id: 5, tool: 'edit', path: 'a.go', time: '2026-11-25T01:00:10Z', transport: 'lsp' },
    { id: 4, tool: 'write', path: 'c/d.txt', time: '2026-11-25T00:59:00Z', transport: 'mcp' },
    { nope: 1 },
  ];
  assert.equal(log.addHistory(rows), 2);
  assert.equal(log.addHistory(rows), 0, 'loading again adds nothing');
  assert.deepEqual(log.entries.map((e) => `${e.tool}:${e.auditIds.join()}:${e.transport}`), ['edit:6:cli', 'read::lsp', 'edit:5:lsp', 'write:4:mcp']);
  assert.equal(log.unseen, 1, 'history is not new');
  assert.equal(log.maxAuditId(), 6);
  // External activity for a row the history already listed is dropped.
  assert.equal(log.add({ tool: 'edit', paths: ['b.go'], outcome: 'ok', auditIds: [6], transport: 'cli', external: true }), undefined);
  const ext = log.add({ tool: 'apply_patch', paths: ['x.go'], outcome: 'ok', auditIds: [7], transport: 'mcp', external: true, time: '2026-11-25T01:01:00Z' });
  assert.equal(ext.iso, '2026-11-25T01:01:00.000Z');
  assert.match(core.activityTooltip(ext), /via mcp \(another process\)/);
  assert.equal(log.unseen, 2);
  log.markSeen();
  assert.equal(log.unseen, 0);
  // The same id from another folder's server is another change.
  assert.ok(log.add({ tool: 'edit', paths: ['a.go'], outcome: 'ok', auditIds: [5] }, new Date(), 'file:///other'));
  // Filters.
  log.setFilter({ transport: 'cli' });
  assert.deepEqual(log.visible().map((e) => e.auditIds[0]), [6]);
  log.setFilter({ path: 'C/D', tool: ' write ' });
  assert.deepEqual(log.visible().map((e) => e.auditIds[0]), [4]);
  assert.equal(core.filterText(log.filter), 'path ~ C/D, tool write');
  log.setFilter({ tool: 'edit', transport: 'mcp' });
  assert.deepEqual(log.visible(), []);
  log.setFilter({});
  assert.equal(log.visible().length, log.entries.length);
  assert.deepEqual(log.values('transport'), ['cli', 'lsp', 'mcp']);
  assert.equal(core.firstChangedLine(live.diff), 4);
  assert.equal(core.firstChangedLine(''), 1);
});

test('changes: audit {id} details, sides and search matches', () => {
  const res = {
    text: 'diff',
    details: { entries: [{ id: 9, tool: 'edit', path: 'a.go', transport: 'cli' }], before: 'x\n', afterUnavailable: 'binary file', diff: '-x\n' },
  };
  const d = core.parseAuditDetail(res, 9);
  assert.deepEqual([d.path, d.tool, d.transport, d.before, d.after], ['a.go', 'edit', 'cli', 'x\n', undefined]);
  assert.equal(core.sideText(d.before, d.beforeUnavailable), 'x\n');
  assert.equal(core.sideText(d.after, d.afterUnavailable), '(binary file)\n');
  assert.equal(core.sideText(undefined, undefined), '', 'a file that did not exist is empty');
  assert.throws(() => core.parseAuditDetail({ text: 'rows', details: { entries: [{ id: 8 }] } }, 9), /no row 9.*update hashls/);
  assert.deepEqual(
    core.searchMatches({
      text: '¶a.go#1A2B\n*2:func F() {\n',
      details: { mode: 'regex', matches: [{ path: 'a.go', line: 2, text: 'func F() {' }, { path: 'dir/b c.go', line: 10, text: '  F()', cut: true }, { path: 7 }] },
    }),
    [
      { path: 'a.go', line: 2, text: 'func F() {' },
      { path: 'dir/b c.go', line: 10, text: '  F()' },
    ],
  );
  assert.deepEqual(core.searchMatches({ text: 'no matches' }), []);
  assert.deepEqual(core.searchMatches(null), []);
  const schemas = core.toolSchemas({ tools: [{ name: 'read', description: 'Read', inputSchema: { type: 'object', required: ['path'] } }, { name: 'bad' }] });
  assert.deepEqual([...schemas.keys()], ['read']);
  assert.deepEqual(schemas.get('read'), { type: 'object', required: ['path'] });
  assert.equal(core.toolSchemas('nonsense').size, 0);
});

test('console: arguments are checked against the tool schema', () => {
  const schema = {
    type: 'object',
    properties: {
      path: { type: 'string' },
      limit: { type: 'number', minimum: 1, maximum: 200 },
      mode: { type: 'string', enum: ['text', 'regex'] },
      edits: { type: 'array', items: { type: 'object', properties: { oldText: { type: 'string' } }, required: ['oldText'] } },
    },
    required: ['path'],
    additionalProperties: false,
  };
  const cases = [
    ['{"path": "a.go"}', undefined],
    ['', '$: missing required "path"'],
    ['[1]', 'the arguments must be one JSON object ({...}), not array'],
    ['{"path": 1}', '$.path: must be string, not number'],
    ['{"path": "a", "limit": 0}', '$.limit: must be at least 1'],
    ['{"path": "a", "mode": "glob"}', '$.mode: must be one of "text", "regex"'],
    ['{"path": "a", "edits": [{}]}', '$.edits[0]: missing required "oldText"'],
    ['{"path": "a", "pth": 1, "x": 2}', '$: unknown argument "pth" (known: path, limit, mode, edits) (+1 more)'],
  ];
  for (const [input, want] of cases) {
    assert.equal(core.checkToolArgs(input, schema).error, want, input);
  }
  assert.match(core.checkToolArgs('{', schema).error, /^not JSON/);
  assert.deepEqual(core.checkToolArgs('{"path":"a"}', schema).args, { path: 'a' });
  assert.deepEqual(core.checkToolArgs('{"any":1}', undefined).args, { any: 1 }, 'no schema: the server checks');
});

test('commands: search opens a quick pick; tools without arguments ask for JSON', async () => {
  const picked = [];
  const host = fakeHost(editor, ['F\\(']);
  host.pickSearchMatch = async (pattern, matches) => picked.push([pattern, matches]);
  host.toolArgs = async (tool) => (tool === 'trash' ? { limit: 2 } : undefined);
  const h = core.createCommandHandler(host);
  const { sent, next } = fakeNext({
    'hashls.search_files': { text: '¶a.go#1A2B\n*3:F()\n', details: { matches: [{ path: 'a.go', line: 3, text: 'F()' }] } },
    'hashls.trash': { text: '#1 a.go' },
  });
  await h('hashls.search', [], next);
  assert.deepEqual(picked, [['F\\(', [{ path: 'a.go', line: 3, text: 'F()' }]]]);
  await h('hashls.trash', [], next);
  assert.deepEqual(sent.at(-1), ['hashls.trash', [{ limit: 2 }]]);
  assert.deepEqual(host.log.at(-1), ['show', 'trash', 'trash', '#1 a.go']);
  assert.equal(await h('hashls.audit', [], next), undefined, 'cancelled');
  assert.equal(sent.length, 2);
});

test('activate: the Changes view loads history, opens side-by-side diffs, reverts, filters and badges', async () => {
  for (const k of [...fake.state.commands.keys()]) fake.state.commands.delete(k);
  fake.serverCommands.clear();
  fake.state.messages.length = 0;
  const reverted = [];
  fake.serverCommands.set('hashls.audit', async ([a]) => {
    if (a.id === 2) {
      return { text: 'd', details: { entries: [{ id: 2, tool: 'edit', path: 'dir/b.go', transport: 'cli' }], before: 'old\n', after: 'new\n', diff: '' } };
    }
    return { text: 'rows', details: { entries: [
      { id: 2, tool: 'edit', path: 'dir/b.go', time: '2026-11-25T01:00:00Z', transport: 'cli' },
      { id: 1, tool: 'write', path: 'a.go', time: '2026-11-25T00:00:00Z', transport: 'mcp' },
    ] } };
  });
  fake.serverCommands.set('hashls.revert', async ([a]) => {
    if (a.id === 1) {
      throw Object.assign(new Error('a.go changed since change #1: read it and edit it instead'), { data: { kind: 'stale_file', suggestedAction: 'revert the later changes first' } });
    }
    reverted.push(a.id);
    return { text: 'reverted' };
  });
  fake.serverCommands.set('hashls.trash', async ([a]) => ({ text: `trash ${JSON.stringify(a)}` }));
  const api = ext.activate({ subscriptions: [] });
  assert.equal(await api.ready, true);
  const client = fake.clients.at(-1);
  const view = fake.state.views.get('hashls.activity');
  const tree = fake.state.treeViews.get('hashls.activity').treeDataProvider;
  assert.deepEqual(tree.getChildren().map((e) => `${e.tool} ${e.transport} ${e.paths}`), ['edit cli dir/b.go', 'write mcp a.go'], 'history loaded at start');
  assert.equal(view.badge, undefined, 'history is not new');

  // A live change while the view is hidden: the badge; showing it clears it.
  client.notifications.get('hashls/activity')({ tool: 'edit', paths: ['c.go'], outcome: 'ok', auditIds: [3], transport: 'cli', external: true });
  assert.deepEqual(view.badge, { value: 1, tooltip: '1 new change' });
  client.notifications.get('hashls/activity')({ tool: 'audit', paths: [], outcome: 'ok' });
  assert.equal(tree.getChildren().length, 3, "the view's own audit calls are not listed");
  view.show(true);
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(view.badge, undefined);

  // Side by side: vscode.diff over the before/after documents.
  const entry = tree.getChildren().find((e) => e.auditIds[0] === 2);
  await fake.vscode.commands.executeCommand('hashls.openChange', entry.seq);
  const diffCall = fake.calls.filter((c) => c.name === 'executeCommand' && c.args[0] === 'vscode.diff').at(-1);
  assert.ok(diffCall, 'vscode.diff ran');
  const [, left, right, title] = diffCall.args;
  const provider = fake.state.providers.get('hashls');
  assert.equal(provider.provideTextDocumentContent(left), 'old\n');
  assert.equal(provider.provideTextDocumentContent(right), 'new\n');
  assert.equal(left.path, '/audit/2/before/b.go');
  assert.equal(title, 'dir/b.go (#2 edit via cli)');

  // Open the location.
  await fake.vscode.commands.executeCommand('hashls.openChangeLocation', entry);
  assert.equal(fake.state.opened.at(-1).uri.path, '/ws/dir/b.go');

  // Revert: done, and refused with the server's explanation.
  assert.deepEqual(await fake.vscode.commands.executeCommand('hashls.revertChange', entry), [2]);
  assert.deepEqual(reverted, [2]);
  assert.match(fake.state.messages.at(-1).text, /reverted #2 \(dir\/b\.go\)/);
  const stale = tree.getChildren().find((e) => e.auditIds[0] === 1);
  assert.deepEqual(await fake.vscode.commands.executeCommand('hashls.revertChange', stale), []);
  assert.match(fake.state.messages.at(-1).text, /revert of change #1 \(a\.go\) refused: a\.go changed since change #1: read it and edit it instead \[stale_file\] — revert the later changes first/);

  // Filter by transport from the quick pick, then clear.
  fake.state.picks.push('transport: mcp');
  await fake.vscode.commands.executeCommand('hashls.filterChanges');
  assert.deepEqual(tree.getChildren().map((e) => e.auditIds[0]), [1]);
  assert.equal(view.description, 'filtered: via mcp');
  await fake.vscode.commands.executeCommand('hashls.clearFilter');
  assert.equal(tree.getChildren().length, 3);

  // The console: pick a tool, JSON checked against its schema (none from
  // a binary that does not exist: the server checks), run, result shown.
  fake.state.picks.push('trash');
  fake.state.inputs.push('{"limit": 3}');
  await fake.vscode.commands.executeCommand('hashls.console');
  assert.equal(fake.state.opened.at(-1).getText(), 'trash {"limit":3}');
  await ext.deactivate();
});

test('activate: one server per workspace folder; commands go to the active folder', async () => {
  for (const k of [...fake.state.commands.keys()]) fake.state.commands.delete(k);
  fake.serverCommands.clear();
  const seen = [];
  fake.serverCommands.set('hashls.audit', async () => ({ text: '', details: { entries: [] } }));
  fake.serverCommands.set('hashls.extra', async () => ({ text: 'x' }));
  fake.state.folders = [
    { uri: fake.vscode.Uri.file('/one'), name: 'one', index: 0 },
    { uri: fake.vscode.Uri.file('/two'), name: 'two', index: 1 },
  ];
  const before = fake.clients.length;
  const api = ext.activate({ subscriptions: [] });
  assert.equal(await api.ready, true);
  const [c1, c2] = fake.clients.slice(before);
  assert.equal(fake.clients.length - before, 2, 'two servers');
  assert.deepEqual([c1.serverOptions.options.cwd, c2.serverOptions.options.cwd], ['/one', '/two']);
  assert.deepEqual(c1.clientOptions.documentSelector, [{ scheme: 'file', pattern: '/one/**' }]);
  assert.deepEqual(c2.clientOptions.documentSelector, [{ scheme: 'file', pattern: '/two/**' }]);
  assert.deepEqual([c1.registered, c2.registered], [['hashls.extra'], []], 'a server command is registered once');
  // Route: the sendRequest of the client that runs it.
  for (const c of [c1, c2]) {
    const orig = c.sendRequest.bind(c);
    c.sendRequest = async (type, params) => {
      seen.push([c.serverOptions.options.cwd, params.command]);
      return orig(type, params);
    };
  }
  fake.state.inputs.push('*.go');
  fake.vscode.window.activeTextEditor = new fake.TextEditor(new fake.TextDocument(fake.vscode.Uri.file('/two/a.go'), 'package a\n'));
  fake.serverCommands.set('hashls.find', async () => ({ text: 'a.go' }));
  await fake.vscode.commands.executeCommand('hashls.find');
  assert.deepEqual(seen.at(-1), ['/two', 'hashls.find']);
  await fake.vscode.commands.executeCommand('hashls.outline', { uri: 'file:///one/b.go' });
  assert.deepEqual(seen.at(-1), ['/one', 'hashls.outline']);
  // Activity rows name their folder.
  c2.notifications.get('hashls/activity')({ tool: 'edit', paths: ['a.go'], outcome: 'ok', auditIds: [1] });
  const tree = fake.state.treeViews.get('hashls.activity').treeDataProvider;
  assert.match(tree.getTreeItem(tree.getChildren()[0]).description, /^two · lsp · a\.go/);
  delete fake.state.folders;
  fake.vscode.window.activeTextEditor = undefined;
  await ext.deactivate();
});

test('activity: agents on the rows, reads hidden unless the filter asks', () => {
  const log = new core.ActivityLog();
  const ed = log.add({ tool: 'edit', paths: ['a.go'], outcome: 'ok', auditIds: [4], transport: 'mcp', agent: 'claude-code', turn: 't1' }, at);
  log.add({ tool: 'read', paths: ['a.go'], outcome: 'ok', transport: 'mcp', agent: 'claude-code', readOnly: true }, at);
  log.add({ tool: 'search_files', paths: ['.'], outcome: 'ok', readOnly: true }, at);
  assert.equal(core.activityDescription(ed), 'claude-code via mcp · a.go · audit #4');
  assert.match(core.activityTooltip(ed), /by claude-code/);
  assert.match(core.activityTooltip(ed), /turn: t1/);
  assert.deepEqual(log.visible().map((e) => e.tool), ['edit'], 'reads and searches are hidden');
  log.setFilter({ reads: true });
  assert.deepEqual(log.visible().map((e) => e.tool), ['search_files', 'read', 'edit']);
  assert.equal(core.filterText(log.filter), 'with reads');
  log.setFilter({ tool: 'read' });
  assert.deepEqual(log.visible().map((e) => e.tool), ['read'], 'a tool filter naming a read shows it');
  log.setFilter({ agent: 'claude-code', reads: true });
  assert.deepEqual(log.visible().map((e) => e.tool), ['read', 'edit']);
  assert.deepEqual(log.values('agent'), ['claude-code']);
  // History rows carry the agent and turn.
  log.setFilter({});
  log.addHistory([{ id: 9, tool: 'write', path: 'b.go', time: at.toISOString(), transport: 'cli', agent: 'codex', turn: 't2' }]);
  const h = log.entries.find((e) => e.auditIds[0] === 9);
  assert.equal(h.agent, 'codex');
  assert.equal(h.turn, 't2');
});

test('review: the store, navigation across files, turns and texts', () => {
  const store = new core.ReviewStore();
  let changes = 0;
  store.onChange(() => changes++);
  assert.equal(store.update({ nope: 1 }), undefined);
  const a = store.update({
    uri: 'file:///ws/a.go', path: 'a.go', version: 3, total: 3,
    hunks: [
      { id: 2, line: 9, added: 2, removed: '', removedLines: 0, agents: ['claude-code'], turns: ['t1'], tools: ['edit'] },
      { id: 1, line: 2, added: 1, removed: 'func a() {}\n', removedLines: 1, agents: ['claude-code'], turns: ['t1'], tools: ['edit'] },
    ],
  }, 'root1');
  assert.deepEqual(a.hunks.map((h) => h.id), [1, 2], 'sorted by line');
  store.update({ uri: 'file:///ws/b.go', path: 'b.go', total: 3, hunks: [{ id: 3, line: 0, added: 0, removed: 'x\ny\n', removedLines: 2, agents: ['codex'], turns: ['t2'], tools: ['write'] }] }, 'root1');
  assert.equal(store.total, 3);
  assert.equal(changes, 2);
  assert.equal(store.hunkAt('file:///ws/a.go', 3).id, 1, 'the nearest hunk');
  assert.equal(store.hunkAt('file:///ws/a.go', 10).id, 2);
  assert.equal(store.next('file:///ws/a.go', 0, 1).hunk.id, 1);
  assert.equal(store.next('file:///ws/a.go', 2, 1).hunk.id, 2);
  assert.equal(store.next('file:///ws/a.go', 9, 1).hunk.id, 3, 'on to the next file');
  assert.equal(store.next('file:///ws/b.go', 0, 1).hunk.id, 1, 'wrapping around');
  assert.equal(store.next('file:///ws/a.go', 2, -1).hunk.id, 3, 'back to the previous file');
  assert.equal(store.next('file:///ws/az.go', 0, 1).hunk.id, 3, 'from a file without hunks: the next file by path');
  assert.equal(store.next('file:///ws/c.go', 0, 1).hunk.id, 1, 'the last by path: around to the first');
  assert.equal(store.next(undefined, 0, 1).hunk.id, 1);
  assert.deepEqual(store.turns(), [{ turn: 't1', agents: ['claude-code'], hunks: 2, files: 1 }, { turn: 't2', agents: ['codex'], hunks: 1, files: 1 }]);
  const [h1] = a.hunks;
  assert.equal(core.hunkWho(h1), 'claude-code · edit');
  assert.equal(core.hunkSummary(h1), '+1 −1 lines by claude-code · edit');
  assert.equal(core.removedMarker(store.get('file:///ws/b.go').hunks[0]), '− 2 lines: x …');
  assert.equal(core.hunkDiff(h1, ['func a() { println(1) }']), '-func a() {}\n+func a() { println(1) }');
  assert.deepEqual(core.splitLines('a\r\nb\n'), ['a', 'b']);
  // A file reviewed: gone; the total is the server's.
  store.update({ uri: 'file:///ws/b.go', path: 'b.go', total: 2, hunks: [] }, 'root1');
  assert.equal(store.files().length, 1);
  assert.equal(store.total, 2);
  store.replaceAll({ files: [], total: 0 }, 'root1');
  assert.equal(store.total, 0);
  assert.equal(store.files().length, 0);
});

test('hashline results: the row under the cursor names a file line', () => {
  const lines = ['¶src/a.go#1A2B', '1:package a', '3-20:import ( .. )', '*21:func main() {', '[b.go#00FF]', ' 7:x', 'garbage'];
  assert.deepEqual(core.hashlineTarget(lines, 0), { path: 'src/a.go', line: 1 });
  assert.deepEqual(core.hashlineTarget(lines, 1), { path: 'src/a.go', line: 1 });
  assert.deepEqual(core.hashlineTarget(lines, 2), { path: 'src/a.go', line: 3 });
  assert.deepEqual(core.hashlineTarget(lines, 3), { path: 'src/a.go', line: 21 });
  assert.deepEqual(core.hashlineTarget(lines, 5), { path: 'b.go', line: 7 });
  assert.equal(core.hashlineTarget(lines, 6), undefined);
  assert.equal(core.hashlineTarget(['5:no header'], 0), undefined);
  assert.equal(core.hashlineTarget(lines, 99), undefined);
});

test('package.json: keybindings are one chord prefix, each key once, every tool in the palette', () => {
  const kb = pkg.contributes.keybindings;
  const keys = kb.map((k) => k.key);
  assert.equal(new Set(keys).size, keys.length, 'no key twice');
  for (const k of kb) {
    assert.match(k.key, /^ctrl\+alt\+h \S+$/, `${k.command}: under the ctrl+alt+h chord`);
    assert.match(k.mac, /^cmd\+alt\+h \S+$/);
    assert.ok(pkg.contributes.commands.some((c) => c.command === k.command), `${k.command} is a command`);
  }
  const contributed = new Set(pkg.contributes.commands.map((c) => c.command));
  const { execFileSync } = require('node:child_process');
  const bin = process.env.HASHLS_BIN;
  if (bin) {
    // Every tool of the binary has a palette entry.
    const list = execFileSync(bin, ['tool', '--list'], { encoding: 'utf8' });
    for (const line of list.split('\n')) {
      const name = line.trim().split(/\s+/)[0];
      if (name) {
        assert.ok(contributed.has('hashls.' + name), `tool ${name} has a palette entry`);
      }
    }
  }
  assert.ok(contributed.has('hashls.lsp'));
  assert.ok(contributed.has('hashls.lsp_edit'), 'lsp_edit (the lsp toolset\'s editing half) has a palette entry');
});

test('activate: reviews are drawn, counted, kept and undone', async () => {
  for (const k of [...fake.state.commands.keys()]) fake.state.commands.delete(k);
  for (const c of [...core.PALETTE_COMMANDS, 'hashls.audit', 'hashls.review', 'hashls.revert']) {
    fake.serverCommands.set(c, async () => ({ text: `${c} result` }));
  }
  const sent = [];
  fake.serverCommands.set('hashls.review', async (args) => {
    sent.push(['review', args[0]]);
    return args[0].action === 'list' ? { files: [], total: 0 } : { total: 0 };
  });
  fake.serverCommands.set('hashls.revert', async (args) => {
    sent.push(['revert', args[0]]);
    return args[0].force ? { details: { restored: ['b.go'] } } : { details: { restored: ['c.go'], skipped: [{ path: 'b.go', why: 'edited outside hashls since' }] } };
  });
  delete fake.state.config['hashls.path'];
  const context = { subscriptions: [] };
  const api = ext.activate(context);
  assert.equal(await api.ready, true);
  const client = fake.clients.at(-1);
  const doc = new fake.TextDocument(fake.vscode.Uri.file('/ws/a.go'), 'package a\n\nfunc a() { println(1) }\n\nfunc b() {}\n', 'go');
  const ed = await fake.vscode.window.showTextDocument(doc);
  client.notifications.get('hashls/review')({
    uri: doc.uri.toString(), path: 'a.go', version: 2, total: 2,
    hunks: [
      { id: 7, line: 2, added: 1, removed: 'func a() {}\n', removedLines: 1, agents: ['claude-code'], turns: ['t1'], tools: ['edit'] },
      { id: 8, line: 4, added: 0, removed: 'gone\n', removedLines: 1, agents: ['claude-code'], turns: ['t1'], tools: ['edit'] },
    ],
  });
  assert.equal(api.reviews.total, 2);
  const status = fake.state.statusItems.at(-1);
  assert.equal(status.text, '$(diff) 2 to review');
  assert.ok(status.shown);
  assert.equal(status.command, 'hashls.nextHunk');
  assert.deepEqual(fake.state.views.get('hashls.activity').badge, { value: 2, tooltip: '2 changes to review (Keep or Undo each)' });
  assert.equal(fake.state.contexts.get('hashls.reviewing'), true);
  const decos = [...ed.decorations.values()];
  assert.deepEqual(decos[0].map((d) => [d.range.start.line, d.range.end.line]), [[2, 2]], 'the added line');
  assert.deepEqual(decos[1].map((d) => d.range.start.line), [2, 4], 'where lines were removed');
  assert.match(decos[1][0].renderOptions.after.contentText, /− 1 line: func a\(\) \{\}/);
  assert.match(decos[1][0].hoverMessage.value, /-func a\(\) \{\}\n\+func a\(\) \{ println\(1\) \}/);
  const lens = fake.state.codeLensProviders.at(-1).provider.provideCodeLenses(doc).map((l) => l.command.title);
  assert.deepEqual(lens, ['$(check) Keep', '$(discard) Undo', 'Keep all 2', 'Undo all', 'claude-code · edit (1/2)', '$(check) Keep', '$(discard) Undo', 'claude-code · edit (2/2)']);

  // Keep and undo at the cursor, a file, next.
  ed.selection = new fake.vscode.Selection(4, 0, 4, 0);
  await fake.vscode.commands.executeCommand('hashls.keepHunk');
  await fake.vscode.commands.executeCommand('hashls.undoHunk', { uri: doc.uri.toString(), hunk: 7 });
  await fake.vscode.commands.executeCommand('hashls.undoFile');
  const reviewSent = sent.filter((x) => x[0] === 'review' && x[1].action !== 'list').map((x) => x[1]);
  assert.deepEqual(reviewSent, [
    { action: 'keep', uri: doc.uri.toString(), hunk: 8 },
    { action: 'undo', uri: doc.uri.toString(), hunk: 7 },
    { action: 'undo', uri: doc.uri.toString() },
  ]);
  ed.selection = new fake.vscode.Selection(0, 0, 0, 0);
  const at = await fake.vscode.commands.executeCommand('hashls.nextHunk');
  assert.equal(at.hunk.id, 7);
  assert.equal(fake.vscode.window.activeTextEditor.selection.active.line, 2);
  // Undo the turn: the files changed since are named, and restored when asked.
  fake.state.warningAnswer = 'Restore Them Too';
  await fake.vscode.commands.executeCommand('hashls.undoTurn');
  assert.deepEqual(sent.filter((x) => x[0] === 'revert').map((x) => x[1]), [{ turn: 't1' }, { turn: 't1', force: true }]);
  assert.match(fake.state.messages.find((m) => m.level === 'warning').text, /left alone \(changed since\): b\.go/);
  // Reviewed: no count, no marks.
  client.notifications.get('hashls/review')({ uri: doc.uri.toString(), path: 'a.go', version: 3, total: 0, hunks: [] });
  assert.ok(!status.shown);
  assert.deepEqual([...ed.decorations.values()].map((d) => d.length), [0, 0]);
  // A definition in a hashline result opens the row's line.
  const res = new fake.TextDocument(fake.vscode.Uri.from({ scheme: 'hashls', path: '/read/1' }), '¶a.go#1234\n1:package a\n5:func b() {}\n', 'hashline');
  const loc = fake.state.definitionProviders.at(-1).provider.provideDefinition(res, new fake.vscode.Position(2, 1));
  assert.equal(loc.uri.path, '/ws/a.go');
  assert.equal(loc.range.start.line, 4);
  await ext.deactivate();
});
