// The hashls VS Code extension in a real VS Code: code-server 4.100.3 (VS
// Code 1.100.3) in headless Chromium, driven through the command palette
// with playwright-core. Run it with run.sh (which builds the bundled,
// platform-specific .vsix carrying the hashls binary and sets HASHLS_BIN,
// HASHLS_VSIX, HASHLS_VSCODE_E2E_WORK).
//
// Autosave is off (the "disk untouched" checks would race it). It installs
// the .vsix (no hashls.path: the extension must start the binary it
// carries), opens a Go file, then: Hashls: Read (prompt → hashls:
// document), Select Block (the status bar shows a selection), Copy Block
// Anchor (the clipboard holds ¶main.go#TAG + replace block N:), a code
// action, Outline, Edit (edit document → the open buffer changes through
// workspace/applyEdit, the disk does not; Undo takes it back), a failing
// edit (error notification), the Changes view lists the runs; then a
// `hashls tool edit` subprocess (the CLI) changes util.go: the Changes view
// lists it (transport cli), its side-by-side diff shows both texts, and
// Revert Change restores the file on disk. It saves a screenshot.
//
// Then the review of an agent's changes (issue 30): none of the
// extension's keybindings is one of VS Code's defaults; an MCP client
// (`hashls mcp`, named vscode-e2e-agent, forwarding to the editor's server
// as the root's hub) edits the open review.go in three hunks: they are
// marked (added lines, a note where lines were removed, Keep/Undo code
// lenses, "3 to review" in the status bar; screenshot review.png); one is
// kept (ctrl+alt+h k), one undone (ctrl+alt+h u: the buffer gets the old
// line back), the rest kept; a 2-file turn is marked and undone as a turn
// (Undo This Turn); the audit rows name the agent and its turns, and the
// person's undo and revert; after typing and another agent edit, Ctrl+Z
// undoes the agent's edit alone. The line under the cursor of the
// outline opens in its file (ctrl+alt+h o).
import { chromium } from 'playwright-core';
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const BIN = process.env.HASHLS_BIN;
const VSIX = process.env.HASHLS_VSIX;
const WORK = process.env.HASHLS_VSCODE_E2E_WORK || path.join(here, '.work');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const SHOT = process.env.HASHLS_VSCODE_E2E_SCREENSHOT || path.join(here, 'panel.png');
const REVIEW_SHOT = process.env.HASHLS_VSCODE_E2E_REVIEW_SCREENSHOT || path.join(here, 'review.png');
const codeServer = path.join(here, 'node_modules', '.bin', 'code-server');

if (!BIN || !VSIX) {
  console.error('HASHLS_BIN and HASHLS_VSIX must be set (use run.sh)');
  process.exit(2);
}

const t0 = Date.now();
const lap = (what) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1)}s] ${what}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// SLOW scales every wait (HASHLS_VSCODE_E2E_SLOW, default 3): on a busy
// machine the workbench takes minutes to start; a wait only costs time when
// something is wrong.
const SLOW = Number(process.env.HASHLS_VSCODE_E2E_SLOW) > 0 ? Number(process.env.HASHLS_VSCODE_E2E_SLOW) : 3;

async function until(what, f, ms = 30000, every = 200) {
  ms *= SLOW;
  const start = Date.now();
  let last;
  for (;;) {
    try {
      const v = await f();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() - start > ms) {
      throw new Error(`timed out after ${ms} ms waiting for ${what}${last ? `: ${last.message}` : ''}`);
    }
    await sleep(every);
  }
}

// Scratch dirs and the workspace.
const dirs = {};
for (const d of ['ws', 'user', 'exts', 'config', 'data', 'state', 'chrome']) {
  dirs[d] = path.join(WORK, d);
  fs.rmSync(dirs[d], { recursive: true, force: true });
  fs.mkdirSync(dirs[d], { recursive: true });
}
const ws = fs.realpathSync(dirs.ws);
const mainGo = 'package main\n\nfunc main() {\n\tprintln(greeting, helper())\n}\n\nconst greeting = "hello"\n\nfunc helper() int {\n\treturn 1\n}\n';
fs.writeFileSync(path.join(ws, 'main.go'), mainGo);
fs.writeFileSync(path.join(ws, 'util.go'), 'package main\n\nfunc util() {}\n');
fs.mkdirSync(path.join(dirs.user, 'User'), { recursive: true });
fs.writeFileSync(
  path.join(dirs.user, 'User', 'settings.json'),
  JSON.stringify(
    {
      // No hashls.path: the binary the .vsix carries.
      'hashls.stateDir': dirs.state,
      'files.autoSave': 'off',
      // Side by side even in a narrow editor group.
      'diffEditor.useInlineViewWhenSpaceIsLimited': false,
      'workbench.editor.enablePreview': false,
      'workbench.startupEditor': 'none',
      'workbench.tips.enabled': false,
      'workbench.enableExperiments': false,
      'extensions.ignoreRecommendations': true,
      'security.workspace.trust.enabled': false,
      'telemetry.telemetryLevel': 'off',
      'git.enabled': false,
      'editor.minimap.enabled': false,
      'window.commandCenter': false,
      'chat.commandCenter.enabled': false,
      'workbench.colorTheme': 'Default Dark Modern',
    },
    null,
    2,
  ),
);
const env = { ...process.env, XDG_CONFIG_HOME: dirs.config, XDG_DATA_HOME: dirs.data, HASHLS_STATE_DIR: dirs.state };

// mcpClient starts `hashls mcp` on the workspace (an MCP client over stdio,
// named name) and returns call(tool, args, meta) → the typed result (the
// result's _meta["hashls/result"]), and stop().
async function mcpClient(name) {
  const child = spawn(BIN, ['--root', ws, 'mcp'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const waiting = new Map();
  let buf = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d) => {
    buf += d;
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      let msg;
      try {
        msg = JSON.parse(line);
      } catch {
        continue;
      }
      const w = waiting.get(msg.id);
      if (w) {
        waiting.delete(msg.id);
        w(msg);
      }
    }
  });
  child.stderr.on('data', (d) => process.stderr.write(`[hashls mcp] ${d}`));
  let id = 0;
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const my = ++id;
      const timer = setTimeout(() => reject(new Error(`no MCP answer to ${method}`)), 30000 * SLOW);
      waiting.set(my, (msg) => {
        clearTimeout(timer);
        if (msg.error) reject(new Error(`MCP ${method}: ${JSON.stringify(msg.error)}`));
        else resolve(msg.result);
      });
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: my, method, params }) + '\n');
    });
  await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name, version: '1.0' } });
  child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
  return {
    async call(tool, args, meta) {
      const res = await request('tools/call', { name: tool, arguments: args, ...(meta ? { _meta: meta } : {}) });
      if (res.isError) throw new Error(`MCP ${tool}: ${JSON.stringify(res.content)}`);
      const typed = res._meta?.['hashls/result'];
      if (!typed) throw new Error(`MCP ${tool}: no typed result in _meta["hashls/result"]: ${JSON.stringify(res)}`);
      return typed;
    },
    stop() {
      child.kill();
    },
  };
}

let server;
let browser;
let failed = false;
try {
  execFileSync(codeServer, ['--user-data-dir', dirs.user, '--extensions-dir', dirs.exts, '--install-extension', VSIX], { env, stdio: 'pipe' });
  lap('extension installed');

  const port = await freePort();
  const log = fs.openSync(path.join(WORK, 'code-server.log'), 'w');
  server = spawn(
    codeServer,
    ['--bind-addr', `127.0.0.1:${port}`, '--auth', 'none', '--user-data-dir', dirs.user, '--extensions-dir', dirs.exts,
      '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', '--disable-getting-started-override', ws],
    { env, detached: true, stdio: ['ignore', log, log] },
  );
  await until('code-server /healthz', async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok, 60000);
  lap('code-server up');

  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const context = await browser.newContext({ viewport: { width: 1500, height: 860 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: `http://127.0.0.1:${port}` });
  const page = await context.newPage();
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`, { waitUntil: 'domcontentloaded', timeout: 60000 * SLOW });
  await page.waitForSelector('.monaco-workbench', { timeout: 60000 * SLOW });
  await page.waitForSelector('.explorer-folders-view', { timeout: 60000 * SLOW });
  lap('workbench loaded');

  const activeText = async () => {
    const t = await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().innerText({ timeout: 2000 });
    return t.replace(/\u00a0/g, ' ');
  };
  const toasts = async () => (await page.locator('.notifications-toasts .notification-toast').allInnerTexts()).join('\n');
  const clearToasts = () => page.keyboard.press('Escape');

  // runCommand runs a palette command by its full title, retrying until the
  // command is listed (the extension registers its commands on activation).
  // It picks with the keyboard: the row is focused (arrow keys), then Enter,
  // so a tooltip over the list cannot take the click.
  const esc = (t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  async function runCommand(title) {
    const want = new RegExp(`^${esc(title)}(,|$)`);
    await until(`palette entry "${title}"`, async () => {
      await page.keyboard.press('Escape');
      await page.keyboard.press('F1');
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ state: 'visible', timeout: 3000 });
      await input.fill('>' + title);
      const rows = page.locator('.quick-input-list .monaco-list-row');
      try {
        await rows.filter({ hasText: title }).first().waitFor({ state: 'visible', timeout: 1500 });
      } catch {
        return false;
      }
      for (let i = 0; i < 12; i++) {
        const focused = page.locator('.quick-input-list .monaco-list-row.focused').first();
        const label = (await focused.getAttribute('aria-label', { timeout: 1000 }).catch(() => '')) || '';
        if (want.test(label)) {
          await page.keyboard.press('Enter');
          await input.waitFor({ state: 'hidden', timeout: 3000 }).catch(() => {});
          return true;
        }
        await page.keyboard.press('ArrowDown');
        await sleep(50);
      }
      return false;
    }, 40000, 500);
  }
  async function answerPrompt(text) {
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 10000 * SLOW });
    await input.fill(text);
    await page.keyboard.press('Enter');
  }
  async function focusMain() {
    const tab = page.locator('.tab', { hasText: 'main.go' }).first();
    await tab.click();
    await until('main.go active', async () => (await activeText()).includes('package main'), 10000);
  }
  // openFile opens a workspace file with Quick Open.
  async function openFile(name) {
    await until(`${name} open`, async () => {
      await page.keyboard.press('Escape');
      await page.keyboard.press('Control+p');
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ state: 'visible', timeout: 3000 });
      await input.fill(name);
      await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor({ state: 'visible', timeout: 3000 });
      await page.keyboard.press('Enter');
      await sleep(300);
      const tab = await page.locator('.editor-group-container.active .tab.active').innerText().catch(() => '');
      return tab.includes(name);
    }, 30000, 500);
  }
  // serverHas returns once the server has the active document open (its
  // didOpen handled): Select Block on line 3 needs the server's copy.
  async function serverHas(name) {
    await until(`the server to have ${name} open`, async () => {
      await clearToasts();
      await gotoLine(3);
      await runCommand('Hashls: Select Block');
      try {
        await until('a selection', async () => /selected/.test(await page.locator('#status\\.editor\\.selection').innerText()), 2000);
      } catch {
        return false;
      }
      return true;
    }, 30000, 200);
    await page.keyboard.press('Escape');
    await clearToasts();
  }
  async function focusFile(name) {
    await page.locator('.tab', { hasText: name }).first().click();
    await until(`${name} active`, async () => (await page.locator('.editor-group-container.active .tab.active').innerText()).includes(name), 10000);
  }

  // checkKeybindings: none of the extension's keys is a key VS Code binds
  // by default (the default keybindings, copied from their JSON document).
  async function checkKeybindings() {
    const ours = JSON.parse(fs.readFileSync(path.join(here, '..', 'package.json'), 'utf8')).contributes.keybindings.map((k) => k.key);
    await runCommand('Preferences: Open Default Keyboard Shortcuts (JSON)');
    await until('the default keybindings', async () => /"key":/.test(await activeText()), 30000);
    await page.keyboard.press('Control+a');
    await page.keyboard.press('Control+c');
    const text = await until('the copied keybindings', async () => {
      const t = await page.evaluate(() => navigator.clipboard.readText());
      return t.length > 10000 && t;
    }, 15000);
    // (the list holds the extensions' keybindings too: ours are left out)
    const defaults = new Set([...text.matchAll(/"key":\s*"([^"]+)",\s*"command":\s*"([^"]+)"/g)].filter((m) => !/^-?hashls\./.test(m[2])).map((m) => m[1]));
    const firstChords = new Set([...defaults].map((k) => k.split(' ')[0]));
    for (const k of ours) {
      if (defaults.has(k) || firstChords.has(k.split(' ')[0])) throw new Error(`keybinding ${k} collides with a default VS Code keybinding`);
    }
    await runCommand('View: Close Editor');
    lap(`keybindings: ${ours.length} keys under ctrl+alt+h, none among VS Code's ${defaults.size} default keys`);
  }

  // gotoLine moves the cursor to line n with Go to Line, and checks it
  // there (the status bar): the prompt is opened again when it closed
  // before it was filled (a notification taking the focus as it opened).
  async function gotoLine(n) {
    await until(`the cursor on line ${n}`, async () => {
      await page.keyboard.press('Escape');
      await page.keyboard.press('Control+g');
      const input = page.locator('.quick-input-widget input');
      try {
        await input.waitFor({ state: 'visible', timeout: 3000 });
        await input.fill(':' + n, { timeout: 3000 });
      } catch {
        return false;
      }
      await page.keyboard.press('Enter');
      await input.waitFor({ state: 'hidden', timeout: 3000 }).catch(() => {});
      const at = await page.locator('#status\\.editor\\.selection').innerText().catch(() => '');
      return new RegExp(`^Ln ${n},`).test(at);
    }, 30000, 300);
  }

  // Open main.go.
  await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'main.go' }).first().click();
  await until('main.go open', async () => (await activeText()).includes('package main'), 20000);
  lap('main.go open');

  // The extension activated: its activity-bar container is there, and the
  // server it started is the binary the .vsix carries.
  await page.locator('.part.activitybar .action-item a[aria-label^="Hashls"]').first().waitFor({ state: 'visible', timeout: 60000 * SLOW });
  const started = await until('the bundled hashls running', async () => {
    for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      let cmd = '';
      try {
        cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
      } catch {
        continue;
      }
      if (cmd.startsWith(dirs.exts) && /\/bin\/hashls serve --stdio/.test(cmd)) return cmd.trim();
    }
    return false;
  }, 30000);
  lap(`extension active: started ${started.replace(dirs.exts, '<extensions>')}`);

  // Read: the prompt is prefilled with the file; ask for lines 1-7.
  await runCommand('Hashls: Read');
  await answerPrompt('main.go:1-7');
  const readText = await until('read result', async () => {
    const t = await activeText();
    return /¶main\.go#[0-9A-F]{4}/.test(t) && t;
  });
  if (!readText.includes('7:const greeting = "hello"')) throw new Error(`read result: ${readText}`);
  lap('Hashls: Read → hashls: document');

  // Select Block on func helper (line 9).
  await focusMain();
  await gotoLine(9);
  await runCommand('Hashls: Select Block');
  const status = await until('a selection in the status bar', async () => {
    const t = await page.locator('#status\\.editor\\.selection').innerText();
    return /\(\d+ selected\)/.test(t) && t;
  });
  lap(`Hashls: Select Block → status bar "${status}"`);

  // Copy Block Anchor.
  await runCommand('Hashls: Copy Block Anchor');
  const toast = await until('copied notification', async () => {
    const t = await toasts();
    return /copied ¶main\.go#[0-9A-F]{4}/.test(t) && t;
  });
  const clip = await page.evaluate(() => navigator.clipboard.readText());
  if (!/^¶main\.go#[0-9A-F]{4}\nreplace block 9:$/.test(clip)) throw new Error(`clipboard: ${JSON.stringify(clip)} (${toast})`);
  lap(`Hashls: Copy Block Anchor → clipboard ${JSON.stringify(clip)}`);
  await clearToasts();

  // A server code action (Ctrl+.) runs the extension's command with the
  // server's argument: Select block.
  await focusMain();
  await gotoLine(9);
  await until('no selection', async () => !/selected/.test(await page.locator('#status\\.editor\\.selection').innerText()), 5000);
  await until('code action menu', async () => {
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+.');
    const item = page.locator('.action-widget .monaco-list-row', { hasText: 'Select block' }).first();
    await item.waitFor({ state: 'visible', timeout: 3000 });
    // Keyboard, not the mouse: the menu's pointer block takes clicks.
    for (let i = 0; i < 8; i++) {
      const focused = await page.locator('.action-widget .monaco-list-row.focused').first().innerText().catch(() => '');
      if (focused.includes('Select block')) {
        await page.keyboard.press('Enter');
        return true;
      }
      await page.keyboard.press('ArrowDown');
    }
    return false;
  }, 20000, 500);
  const status2 = await until('a selection from the code action', async () => {
    const t = await page.locator('#status\\.editor\\.selection').innerText();
    return /\(\d+ selected\)/.test(t) && t;
  });
  lap(`code action "Select block" → status bar "${status2}"`);

  // Outline This File.
  await runCommand('Hashls: Outline This File');
  const outline = await until('outline document', async () => {
    const t = await activeText();
    return /helper/.test(t) && !/^package main/.test(t) && t;
  });
  lap(`Hashls: Outline This File → ${JSON.stringify(outline.split('\n').slice(0, 2).join(' | '))}`);
  // The line under the cursor of the outline opens in main.go.
  const outlineRow = outline.split('\n').findIndex((l) => /^7:const greeting/.test(l));
  if (outlineRow < 0) throw new Error(`outline rows: ${outline}`);
  await gotoLine(outlineRow + 1);
  await page.keyboard.press('Control+Alt+h');
  await page.keyboard.press('o');
  await until('main.go at line 7', async () => /package main/.test(await activeText()) && /^Ln 7,/.test(await page.locator('#status\\.editor\\.selection').innerText()), 15000);
  lap('Open the Line Under the Cursor (ctrl+alt+h o) in the outline → main.go line 7');

  // Edit: the edit document gets a fresh header; write an op; apply.
  await focusMain();
  await runCommand('Hashls: Edit');
  await until('edit document', async () => /^¶main\.go#[0-9A-F]{4}\s*$/.test((await activeText()).trim()));
  await page.keyboard.press('Control+End');
  await page.keyboard.insertText('replace 7:\n+const greeting = "edited"\n');
  await runCommand('Hashls: Edit');
  await until('edited notification', async () => /hashls: /.test(await toasts()));
  await focusMain();
  await until('main.go buffer edited', async () => (await activeText()).includes('const greeting = "edited"'));
  if (fs.readFileSync(path.join(ws, 'main.go'), 'utf8') !== mainGo) throw new Error('the disk changed: the edit should land in the buffer');
  lap('Hashls: Edit → buffer edited via workspace/applyEdit (disk untouched)');
  await clearToasts();
  // It is in the editor's undo history: Undo takes it back, Redo again.
  await focusMain();
  await page.keyboard.press('Control+z');
  await until('edit undone', async () => {
    const t = await activeText();
    return t.includes('const greeting = "hello"') && !t.includes('"edited"');
  }, 10000);
  await page.keyboard.press('Control+Shift+z');
  await until('edit redone', async () => (await activeText()).includes('const greeting = "edited"'), 10000);
  if (fs.readFileSync(path.join(ws, 'main.go'), 'utf8') !== mainGo) throw new Error('the disk changed after undo/redo (autosave?)');
  lap('Undo / Redo of the edit in main.go (disk still untouched)');

  // A failing edit: a tag that names no snapshot.
  await runCommand('Hashls: Edit');
  await until('edit document', async () => /^¶main\.go#/.test((await activeText()).trim()));
  await page.keyboard.press('Control+a');
  await page.keyboard.insertText('¶main.go#0000\ndelete 1\n');
  await runCommand('Hashls: Edit');
  const errToast = await until('error notification', async () => {
    const t = await toasts();
    return /hashls edit: .*\[[a-z_]+\]/.test(t) && t;
  });
  lap(`failing edit → ${errToast.split('\n').find((l) => l.includes('hashls edit'))}`);
  await runCommand('View: Revert and Close Editor');
  await clearToasts();

  // The Changes view (its own activity-bar container) lists the runs,
  // newest first.
  await runCommand('Hashls: Show Changes');
  const sidebar = page.locator('.part.sidebar');
  const rows = sidebar.locator('.monaco-list-row');
  const texts = await until('change rows', async () => {
    const all = await rows.allInnerTexts();
    const joined = all.join('\n');
    return all.length >= 2 && /edit\s+error \(/.test(joined) && /edit\s+ok/.test(joined) && !/read\s+ok/.test(joined) && all;
  });
  lap(`Changes view: ${texts.length} entries (reads hidden)`);

  // A change from another process: `hashls tool edit` on util.go.
  const utilGo = fs.readFileSync(path.join(ws, 'util.go'), 'utf8');
  const cli = (...args) => execFileSync(BIN, ['--json', 'tool', ...args], { cwd: ws, env, encoding: 'utf8' });
  const tag = JSON.parse(cli('read', JSON.stringify({ path: 'util.go' }))).shown[0].tag;
  cli('edit', JSON.stringify({ input: `¶util.go#${tag}\nreplace 3:\n+func util() { println("cli") }\n` }));
  if (!fs.readFileSync(path.join(ws, 'util.go'), 'utf8').includes('println("cli")')) throw new Error('the CLI edit did not change util.go');
  // It shows live (the server notices new audit rows) or on refresh.
  // (Its read is listed too, as a cli entry, when the call went through the
  // editor's server as the root's hub.)
  const cliRow = rows.filter({ hasText: /cli · util\.go/ }).filter({ hasText: /edit\s+ok/ }).first();
  let refreshes = 0;
  await until('the CLI change in the Changes view', async () => {
    if (await cliRow.isVisible()) return true;
    refreshes++;
    await runCommand('Hashls: Refresh Changes');
    await sleep(300);
    return false;
  }, 30000, 500);
  lap(`CLI edit of util.go → listed in the Changes view (${refreshes ? `after ${refreshes} refresh(es)` : 'live'}): ${(await cliRow.innerText()).replace(/\s*\n\s*/g, '  ')}`);

  // Its side-by-side diff: before and after from the store.
  await cliRow.click();
  const diffEditor = page.locator('.editor-group-container.active .monaco-diff-editor').first();
  await until('side-by-side diff', async () => {
    const orig = (await diffEditor.locator('.editor.original .view-lines:not(.line-delete)').first().innerText({ timeout: 1000 })).replace(/\u00a0/g, ' ');
    const mod = (await diffEditor.locator('.editor.modified .view-lines:not(.line-delete)').first().innerText({ timeout: 1000 })).replace(/\u00a0/g, ' ');
    return orig.includes('func util() {}') && mod.includes('func util() { println("cli") }');
  }, 15000);
  const diffTitle = (await page.locator('.editor-group-container.active .tab.active').innerText()).trim();
  lap(`change entry → side-by-side diff "${diffTitle}"`);

  // Revert it (the row stays selected): the file on disk is back.
  await runCommand('Hashls: Revert Change (selected in Changes, else the newest)');
  await until('util.go reverted on disk', async () => fs.readFileSync(path.join(ws, 'util.go'), 'utf8') === utilGo, 15000);
  await until('reverted notification', async () => /reverted #\d+ \(util\.go\)/.test(await toasts()), 10000);
  await until('the revert listed', async () => /revert\s+ok/.test((await rows.allInnerTexts()).join('\n')), 15000);
  lap('Hashls: Revert Change → util.go restored on disk, the revert listed');
  await clearToasts();
  for (const t of await rows.allInnerTexts()) console.log('    ' + t.replace(/\s*\n\s*/g, '  '));

  // ---- Review of an agent's changes (issue 30) ----
  // An MCP client (`hashls mcp`, whose calls the editor's server runs as
  // the root's hub) edits review.go, open in the editor, in three hunks.
  await checkKeybindings();
  const reviewGo = 'package main\n\nfunc a() {}\n\nfunc b() {}\n\nfunc c() {}\n\nfunc d() {}\n';
  fs.writeFileSync(path.join(ws, 'review.go'), reviewGo);
  fs.writeFileSync(path.join(ws, 't1.txt'), 'one\ntwo\n');
  fs.writeFileSync(path.join(ws, 't2.txt'), 'alpha\n');
  await openFile('review.go');
  await serverHas('review.go');
  const agent = await mcpClient('vscode-e2e-agent');
  const tag1 = (await agent.call('read', { path: 'review.go' })).shown[0].tag;
  const tCall = Date.now();
  await agent.call('edit', { input: `¶review.go#${tag1}\nreplace 3:\n+func a() { println(1) }\nreplace 7:\n+func c() { println(3) }\ninsert after 9:\n+\n+func e() {}\n` }, { 'hashls/turn': 'vsc-turn-1' });
  const tReturned = Date.now();
  const edited3 = 'package main\n\nfunc a() { println(1) }\n\nfunc b() {}\n\nfunc c() { println(3) }\n\nfunc d() {}\n\nfunc e() {}\n';
  await until('the agent edit in the buffer', async () => (await activeText()).includes('func e() {}'), 15000);
  if (fs.readFileSync(path.join(ws, 'review.go'), 'utf8') !== reviewGo) throw new Error('the agent edit reached the disk');
  const statusItem = page.locator('.statusbar-item', { hasText: /to review/ }).first();
  const reviewCount = async () => {
    if (!(await statusItem.isVisible().catch(() => false))) return 0;
    const m = /(\d+) to review/.exec(await statusItem.innerText());
    return m ? Number(m[1]) : 0;
  };
  await until('3 changes to review', async () => (await reviewCount()) >= 3, 15000, 20);
  const tCounted = Date.now();
  const base = (await reviewCount()) - 3;
  const lenses = page.locator('.editor-group-container.active .codelens-decoration');
  await until('Keep / Undo code lenses', async () => {
    const t = (await lenses.allInnerTexts()).join(' | ');
    return /Keep/.test(t) && /Undo/.test(t) && /vscode-e2e-agent · edit/.test(t) && t;
  }, 15000);
  // (the note is the decoration's ::after content, in the page's styles)
  const removedNote = await until('the removed-lines note', async () =>
    page.evaluate(() => {
      for (const sheet of document.styleSheets) {
        let rules;
        try {
          rules = sheet.cssRules;
        } catch {
          continue;
        }
        for (const r of rules) {
          const c = r.style && r.style.content;
          if (c && c.includes('1 line: func a() {}')) return c;
        }
      }
      return false;
    }), 15000);
  await page.mouse.move(900, 700);
  await sleep(300 * SLOW);
  await page.screenshot({ path: REVIEW_SHOT });
  lap(`measure: agent edit call ${tReturned - tCall} ms, "3 to review" in the status bar ${tCounted - tReturned} ms after it returned`);
  lap(`agent's 3-hunk edit of review.go → marked (${base + 3} to review, code lenses "${(await lenses.allInnerTexts()).slice(0, 5).join(' | ')}", note ${removedNote.trim()}); screenshot ${REVIEW_SHOT}`);

  // Keep the first hunk (ctrl+alt+h k on it), undo the second (ctrl+alt+h u),
  // keep the rest (Keep All Changes in This File).
  await focusFile('review.go');
  await gotoLine(3);
  await page.keyboard.press('Control+Alt+h');
  await page.keyboard.press('k');
  await until('2 left to review', async () => (await reviewCount()) === base + 2, 15000);
  await gotoLine(7);
  await page.keyboard.press('Control+Alt+h');
  await page.keyboard.press('u');
  const undone3 = edited3.replace('func c() { println(3) }', 'func c() {}');
  await until('the second hunk undone in the buffer', async () => (await activeText()).includes('func c() {}\n') && (await reviewCount()) === base + 1, 15000);
  await runCommand('Hashls: Keep All Changes in This File');
  await until('review.go reviewed', async () => (await reviewCount()) === base, 15000);
  if (fs.readFileSync(path.join(ws, 'review.go'), 'utf8') !== reviewGo) throw new Error('the review reached the disk');
  const bufText = (await activeText()).replace(/\s*$/, '\n');
  if (!bufText.includes('func a() { println(1) }') || !bufText.includes('func c() {}') || !bufText.includes('func e() {}')) throw new Error(`review.go after the review: ${bufText}`);
  lap('kept one hunk (ctrl+alt+h k), undid one (ctrl+alt+h u), kept the rest (Keep All Changes in This File)');

  // A 2-file turn of closed files: marked, then undone as a turn from one
  // of its files.
  await agent.call('write', { path: 't1.txt', content: 'one\nTWO\n' }, { 'hashls/turn': 'vsc-turn-2' });
  await agent.call('write', { path: 't2.txt', content: 'ALPHA\nbeta\n' }, { 'hashls/turn': 'vsc-turn-2' });
  await until('the turn to review', async () => (await reviewCount()) === base + 2, 15000);
  await openFile('t1.txt');
  await gotoLine(2);
  await runCommand('Hashls: Undo This Turn (restore every file the agent turn changed)');
  // (t1.txt is open: its buffer is restored, unsaved; t2.txt on disk)
  await until('the turn undone', async () =>
    (await activeText()).replace(/\s*$/, '\n') === 'one\ntwo\n' && fs.readFileSync(path.join(ws, 't2.txt'), 'utf8') === 'alpha\n', 15000);
  await until('nothing of the turn left to review', async () => (await reviewCount()) === base, 15000);
  await until('undone notification', async () => /undid turn vsc-turn-2/.test(await toasts()), 10000);
  await clearToasts();
  lap('2-file turn → marked, Undo This Turn restored both files (the open one in its buffer)');

  // The audit rows: the agent's edit and writes with its name and turns,
  // the person's undo of a hunk and the turn's revert.
  const audit = JSON.parse(cli('audit', JSON.stringify({ limit: 20 }))).details.entries.reverse()
    .filter((r) => ['review.go', 't1.txt', 't2.txt'].includes(r.path))
    .map((r) => [r.tool, r.path, r.transport, r.agent || '-', r.turn || '-'].join(' '));
  const wantAudit = [
    'edit review.go mcp vscode-e2e-agent vsc-turn-1',
    'review review.go lsp - -',
    'write t1.txt mcp vscode-e2e-agent vsc-turn-2',
    'write t2.txt mcp vscode-e2e-agent vsc-turn-2',
    'revert t1.txt lsp - -',
    'revert t2.txt lsp - -',
  ];
  if (JSON.stringify(audit) !== JSON.stringify(wantAudit)) throw new Error(`audit rows:\n${audit.join('\n')}`);
  lap('audit rows as they should be');

  // The agent's edit is an undo step of its own: typing, then the agent's
  // change, then Ctrl+Z takes back the agent's change only.
  await focusFile('review.go');
  await page.keyboard.press('Control+End');
  await page.keyboard.insertText('// typed by the person\n');
  await until('the typing', async () => (await activeText()).includes('// typed by the person'), 5000);
  // The typing reaches the server in didChange notifications of its own
  // pace: an edit that lands while one is in flight is refused as stale
  // (nothing written), and the agent reads again and retries, as told.
  await until('the second agent edit accepted', async () => {
    const tag2 = (await agent.call('read', { path: 'review.go' })).shown[0].tag;
    try {
      await agent.call('edit', { input: `¶review.go#${tag2}\nreplace 5:\n+func b() { println(2) }\n` });
    } catch (err) {
      if (/stale_file/.test(err.message)) return false;
      throw err;
    }
    return true;
  }, 15000, 300);
  await until('the second agent edit', async () => (await activeText()).includes('println(2)'), 15000);
  await focusFile('review.go');
  await page.keyboard.press('Control+z');
  await until('Ctrl+Z took the agent edit only', async () => {
    const t = await activeText();
    return !t.includes('println(2)') && t.includes('// typed by the person');
  }, 10000);
  lap("Ctrl+Z after typing and an agent's edit undoes the agent's edit alone");
  agent.stop();

  // Widen the side bar so the entries' descriptions show (best effort).
  try {
    const box = await page.locator('.part.sidebar').boundingBox();
    if (box) {
      const x = box.x + box.width;
      const y = box.y + box.height / 2;
      await page.mouse.move(x, y);
      await page.mouse.down();
      await page.mouse.move(x + 180, y, { steps: 8 });
      await page.mouse.up();
    }
  } catch {
    // keep the default width
  }
  await page.mouse.move(900, 500);
  await sleep(400);
  await page.screenshot({ path: SHOT });
  lap(`screenshot ${SHOT}`);
} catch (err) {
  failed = true;
  console.error('FAIL:', err && err.stack ? err.stack : err);
  try {
    const pages = browser ? browser.contexts().flatMap((c) => c.pages()) : [];
    if (pages[0]) {
      const p = path.join(WORK, 'failure.png');
      await pages[0].screenshot({ path: p });
      console.error(`screenshot of the failure: ${p}; code-server log: ${path.join(WORK, 'code-server.log')}`);
    }
  } catch {
    // no screenshot
  }
} finally {
  if (browser) await browser.close().catch(() => {});
  if (server && server.exitCode === null) {
    try {
      process.kill(-server.pid, 'SIGTERM');
    } catch {
      // gone
    }
  }
}
lap(failed ? 'FAIL' : 'PASS');
process.exit(failed ? 1 : 0);
