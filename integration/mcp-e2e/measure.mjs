// What a model receives from `hashls mcp`, measured with the official
// TypeScript SDK client over stdio (run by `go test ./integration -run
// MCPFigures`, which CI runs; prints the figures):
//
//   1. the tool list: per toolset, the bytes of every tool's name,
//      description and inputSchema as JSON (what a client puts in the
//      model's context on every turn), and the instructions;
//   2. a recorded 35-call session (session/calls.json on a copy of
//      session/project) under the rule "structuredContent if present, else
//      the text" (Codex's, codex-rs/protocol/src/models.rs): the bytes the
//      model receives next to the bytes of the results' text.
//
//   HASHLS_BIN=/path/to/hashls node measure.mjs
//
// It fails (exit 1) when the default toolsets' definitions exceed 8 KiB,
// every tool's 16 KiB, or the session's received bytes 1.05x its text, or
// when a call does not end as recorded.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const BIN = process.env.HASHLS_BIN;
if (!BIN) {
  console.error('measure.mjs: set HASHLS_BIN to the hashls binary');
  process.exit(2);
}
const here = path.dirname(fileURLToPath(import.meta.url));
const bytes = (s) => Buffer.byteLength(s, 'utf8');
const failures = [];
const check = (ok, what) => { if (!ok) failures.push(what); };

async function connect(root, state, toolsets) {
  const env = { ...process.env, HASHLS_STATE_DIR: state, HASHLS_NO_HUB: '1' };
  delete env.HASHLS_TOOLSETS;
  if (toolsets) env.HASHLS_TOOLSETS = toolsets;
  const transport = new StdioClientTransport({ command: BIN, args: ['--root', root, 'mcp'], env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (b) => { stderr += b; });
  const client = new Client({ name: 'hashls-measure', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

// 1. The tool list per toolset ("" is the default).
const state = fs.mkdtempSync(path.join(os.tmpdir(), 'hashls-measure-state-'));
const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'hashls-measure-root-'));
const lists = {};
console.log('tool list: name + description + inputSchema as JSON, UTF-8 bytes');
for (const toolsets of ['', 'hashline', 'history', 'stale-file', 'patch', 'lsp', 'all']) {
  const { client } = await connect(empty, state, toolsets);
  const { tools } = await client.listTools();
  const total = tools.reduce((n, t) => n + bytes(JSON.stringify({ name: t.name, description: t.description, inputSchema: t.inputSchema })), 0);
  const instructions = bytes(client.getInstructions() ?? '');
  const name = toolsets || 'default (hashline,history)';
  lists[toolsets || 'default'] = total;
  console.log(`  ${name.padEnd(28)} ${String(tools.length).padStart(2)} tools  ${String(total).padStart(6)} B  (instructions ${instructions} B)`);
  const withSchema = tools.filter((t) => t.outputSchema !== undefined).map((t) => t.name);
  check(withSchema.length === 0, `${name}: ${withSchema.length} tools declare an outputSchema (${withSchema.join(', ')})`);
  await client.close();
}
check(lists.default <= 8192, `the default toolsets' definitions are ${lists.default} B, over 8 KiB`);
check(lists.all <= 16384, `every tool's definitions are ${lists.all} B, over 16 KiB`);

// 2. The recorded session, on a fresh copy of the project.
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hashls-measure-session-'));
fs.cpSync(path.join(here, 'session', 'project'), root, { recursive: true });
const calls = JSON.parse(fs.readFileSync(path.join(here, 'session', 'calls.json'), 'utf8'));
const { client, stderr } = await connect(root, fs.mkdtempSync(path.join(os.tmpdir(), 'hashls-measure-state-')), 'all');

// What a model would copy from earlier results: the latest (and first)
// ¶PATH#TAG and sha256 of each file, trash entries and audit rows, all
// read from the text.
const tags = {}, tags0 = {}, shas = {}, shas0 = {};
let trashRows = [], auditRows = [];
function learn(tool, text) {
  for (const m of text.matchAll(/¶([^\s#]+)#([0-9A-F]{4})/g)) { tags[m[1]] = m[2]; tags0[m[1]] ??= m[2]; }
  for (const m of text.matchAll(/^(\S+) \(?sha256 ([0-9a-f]{64})/gm)) { shas[m[1]] = m[2]; shas0[m[1]] ??= m[2]; }
  if (tool === 'trash') trashRows = [...text.matchAll(/^#(\d+)\s+(\S+)/gm)].map((m) => ({ id: Number(m[1]), path: m[2] }));
  if (tool === 'audit') auditRows = [...text.matchAll(/^#(\d+)\s+\S+ \S+\s+(\S+)\s+(\S+)/gm)].map((m) => ({ id: Number(m[1]), tool: m[2], path: m[3] }));
}
function fill(v) {
  if (typeof v === 'string') {
    const whole = /^\{\{(trash|audit):([^}]*)\}\}$/.exec(v);
    if (whole) {
      const [, kind, what] = whole;
      const row = kind === 'trash'
        ? trashRows.find((r) => r.path === what)
        : auditRows.find((r) => `${r.tool}:${r.path}` === what);
      if (!row) throw new Error(`no ${kind} row for ${what} in the results so far`);
      return row.id;
    }
    return v.replace(/\{\{(tag0|tag|sha0|sha):([^}]*)\}\}/g, (_, k, p) => {
      const got = { tag: tags, tag0: tags0, sha: shas, sha0: shas0 }[k][p];
      if (!got) throw new Error(`no ${k} for ${p} in the results so far`);
      return got;
    });
  }
  if (Array.isArray(v)) return v.map(fill);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, e]) => [k, fill(e)]));
  return v;
}

let textBytes = 0, received = 0, rowsAsRows = 0;
console.log(`session: ${calls.length} calls (session/calls.json), received = structuredContent if present, else the text`);
for (const [i, call] of calls.entries()) {
  const res = await client.callTool({ name: call.tool, arguments: fill(call.arguments) });
  const text = (res.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('');
  const t = bytes(text);
  const r = res.structuredContent !== undefined ? bytes(JSON.stringify(res.structuredContent)) : t;
  textBytes += t;
  received += r;
  const want = call.expect ?? 'ok';
  const got = res.isError ? (res._meta?.['hashls/error']?.kind ?? (/error kind: (\w+)/.exec(text)?.[1] ?? 'error')) : 'ok';
  check(got === want, `call ${i + 1} (${call.tool}) ended ${got}, recorded ${want}: ${text.slice(0, 300)}`);
  if (/^\d+:/m.test(text)) rowsAsRows++;
  learn(call.tool, text);
  console.log(`  ${String(i + 1).padStart(2)} ${call.tool.padEnd(14)} ${got.padEnd(13)} text ${String(t).padStart(6)} B  received ${String(r).padStart(6)} B`);
}
await client.close();
const ratio = received / textBytes;
console.log(`session total: text ${textBytes} B, received ${received} B, ratio ${ratio.toFixed(3)}; ${rowsAsRows} results carry N:TEXT rows as lines`);
check(ratio <= 1.05, `the session's received bytes are ${ratio.toFixed(3)}x its text, over 1.05x`);
check(rowsAsRows > 0, 'no result carried N:TEXT rows as lines');
check(!/panic|internal error/i.test(stderr()), `hashls stderr: ${stderr()}`);
fs.rmSync(root, { recursive: true, force: true });

if (failures.length) {
  console.error(`FAIL:\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
console.log('PASS');
