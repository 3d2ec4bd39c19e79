// End-to-end test: the official TypeScript SDK's MCP client spawns the built
// binary (`hashls --root DIR mcp`) over stdio, the way Claude Code, Codex and
// Gemini CLI start a stdio server, and lists tools, reads, edits and sees
// the stale refusal.
//
//   HASHLS_BIN=/path/to/hashls node --test stdio.test.mjs
//
// HASHLS_STATE_DIR is passed through (a temp dir by default).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const BIN = process.env.HASHLS_BIN;

test('hashls mcp over stdio with the TypeScript SDK client', { skip: !BIN && 'HASHLS_BIN is not set', timeout: 60_000 }, async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hashls-mcp-e2e-'));
  const state = process.env.HASHLS_STATE_DIR || fs.mkdtempSync(path.join(os.tmpdir(), 'hashls-mcp-state-'));
  fs.writeFileSync(path.join(root, 'a.go'), 'package a\n\nfunc A() int {\n\treturn 1\n}\n');
  let stderr = '';
  const transport = new StdioClientTransport({
    command: BIN,
    args: ['--root', root, 'mcp'],
    env: { ...process.env, HASHLS_STATE_DIR: state },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (b) => { stderr += b; });
  const client = new Client({ name: 'hashls-e2e', version: '1.0.0' });
  await client.connect(transport);
  try {
    assert.equal(client.getServerVersion()?.name, 'hashls');
    assert.match(client.getInstructions() ?? '', /¶PATH#TAG/);

    // tools/list: the default toolsets (hashline, history), each tool with
    // its schema and annotations and no outputSchema (which would oblige
    // structuredContent, shown to models instead of the text).
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    assert.deepEqual(Object.keys(byName).sort(), ['audit', 'edit', 'find', 'read', 'restore', 'revert', 'search', 'trash', 'write']);
    for (const t of tools) {
      assert.equal(t.inputSchema.type, 'object');
      assert.equal(t.outputSchema, undefined, `tool ${t.name} declares no outputSchema`);
    }
    assert.equal(byName.read.annotations.readOnlyHint, true);
    assert.equal(byName.edit.annotations.readOnlyHint, false);
    assert.equal(byName.edit.annotations.destructiveHint, true);
    assert.deepEqual(byName.edit.inputSchema.required, ['input']);
    assert.match(byName.edit.description, /replace N\.\.M:/);

    // read: ¶PATH#TAG + rows as text, no structuredContent; the typed
    // result in _meta["hashls/result"].
    const read = await client.callTool({ name: 'read', arguments: { path: 'a.go:1-5' } });
    assert.ok(!read.isError, JSON.stringify(read));
    const text = read.content[0].text;
    const m = /^¶a\.go#([0-9A-F]{4})\n/.exec(text);
    assert.ok(m, `read output starts with ¶a.go#TAG: ${text}`);
    const tag = m[1];
    assert.equal(read.structuredContent, undefined);
    assert.equal(read._meta['hashls/result'].details.tag, tag);
    assert.match(read._meta['hashls/result'].details.sha256, /^[0-9a-f]{64}$/);

    // edit with that tag.
    const edit = await client.callTool({ name: 'edit', arguments: { input: `¶a.go#${tag}\nreplace 4..4:\n+\treturn 2` } });
    assert.ok(!edit.isError, JSON.stringify(edit));
    assert.equal(fs.readFileSync(path.join(root, 'a.go'), 'utf8'), 'package a\n\nfunc A() int {\n\treturn 2\n}\n');
    const [change] = edit._meta['hashls/result'].changes;
    assert.equal(change.path, 'a.go');
    assert.equal(change.op, 'update');
    assert.equal(change.oldTag, tag);
    assert.match(change.newTag, /^[0-9A-F]{4}$/);
    assert.ok(change.auditId > 0);
    assert.ok(change.trashIds.length === 1);

    // The file changes behind the agent's back; an edit with the tag it
    // holds now is refused as stale (isError, kind stale), nothing written.
    fs.writeFileSync(path.join(root, 'a.go'), 'package a\n\nfunc A() int {\n\treturn 3\n}\n');
    const stale = await client.callTool({ name: 'edit', arguments: { input: `¶a.go#${change.newTag}\nreplace 4..4:\n+\treturn 4` } });
    assert.equal(stale.isError, true, JSON.stringify(stale));
    assert.equal(stale._meta['hashls/error'].kind, 'stale_file');
    assert.match(stale._meta['hashls/error'].suggestedAction, /Re-read the file/);
    assert.match(stale.content[0].text, /error kind: stale_file/);
    assert.equal(fs.readFileSync(path.join(root, 'a.go'), 'utf8'), 'package a\n\nfunc A() int {\n\treturn 3\n}\n');

    // Bad arguments are a tool error the model can read, not a protocol error.
    const bad = await client.callTool({ name: 'read', arguments: { path: 'a.go', nope: true } });
    assert.equal(bad.isError, true);
    assert.equal(bad._meta['hashls/error'].kind, 'invalid_argument');
    assert.doesNotMatch(bad.content[0].text, /hashls tool/, 'an MCP model is not sent to a command line');

    // The audit log records the edit with transport mcp.
    const audit = await client.callTool({ name: 'audit', arguments: {} });
    assert.equal(audit._meta['hashls/result'].details.entries[0].transport, 'mcp');
  } finally {
    await client.close();
  }
  assert.doesNotMatch(stderr, /panic|internal error/i, stderr);
});
