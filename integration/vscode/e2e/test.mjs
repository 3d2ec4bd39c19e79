// The hashls VS Code extension in a real VS Code: code-server 4.100.3 (VS
// Code 1.100.3) in headless Chromium, driven through the command palette
// with playwright-core. Run it with run.sh (which builds the .vsix and sets
// HASHLS_BIN, HASHLS_VSIX, HASHLS_VSCODE_E2E_WORK).
//
// It opens a Go file, then: Hashls: Read (prompt → hashls: document),
// Select Block (the status bar shows a selection), Copy Block Anchor (the
// clipboard holds ¶main.go#TAG + replace block N:), Edit (edit document →
// the open buffer changes through workspace/applyEdit, the disk does not), a
// failing edit (error notification), then checks the "Hashls Agent" view
// lists the runs, opens an entry's diff and saves a screenshot.
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

async function until(what, f, ms = 30000, every = 200) {
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
      'hashls.path': BIN,
      'hashls.stateDir': dirs.state,
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
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`);
  await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
  await page.waitForSelector('.explorer-folders-view', { timeout: 60000 });
  lap('workbench loaded');

  const activeText = async () => {
    const t = await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().innerText({ timeout: 2000 });
    return t.replace(/\u00a0/g, ' ');
  };
  const toasts = async () => (await page.locator('.notifications-toasts .notification-toast').allInnerTexts()).join('\n');
  const clearToasts = () => page.keyboard.press('Escape');

  // runCommand runs a palette command by its full title, retrying until the
  // command is listed (the extension registers server commands once started).
  async function runCommand(title) {
    await until(`palette entry "${title}"`, async () => {
      await page.keyboard.press('Escape');
      await page.keyboard.press('F1');
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ state: 'visible', timeout: 3000 });
      await input.fill('>' + title);
      const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
      try {
        await row.waitFor({ state: 'visible', timeout: 1500 });
      } catch {
        return false;
      }
      const label = (await row.getAttribute('aria-label')) || '';
      if (!label.startsWith(title)) return false;
      await row.click();
      return true;
    }, 40000, 500);
  }
  async function answerPrompt(text) {
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 10000 });
    await input.fill(text);
    await page.keyboard.press('Enter');
  }
  async function focusMain() {
    const tab = page.locator('.tab', { hasText: 'main.go' }).first();
    await tab.click();
    await until('main.go active', async () => (await activeText()).includes('package main'), 10000);
  }
  async function gotoLine(n) {
    await page.keyboard.press('Control+g');
    await answerPrompt(':' + n);
  }

  // Open main.go.
  await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'main.go' }).first().click();
  await until('main.go open', async () => (await activeText()).includes('package main'), 20000);
  lap('main.go open');

  // The agent view is there once the extension activated.
  const agentPane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: /hashls agent/i }) });
  await agentPane.first().waitFor({ state: 'visible', timeout: 60000 });
  lap('extension active (Hashls Agent view shown)');

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

  // The agent view lists the runs, newest first (Show Agent Activity
  // expands and focuses it; the folder section is collapsed to give it room).
  await runCommand('Hashls: Show Agent Activity');
  try {
    const folders = page.locator('.pane-header[aria-expanded="true"]', { hasText: /^\s*ws\s*$/i }).first();
    await folders.click({ timeout: 3000 });
  } catch {
    // leave the folder section open
  }
  const rows = agentPane.first().locator('.monaco-list-row');
  const texts = await until('activity rows', async () => {
    const all = await rows.allInnerTexts();
    const joined = all.join('\n');
    return all.length >= 4 && /edit\s+error \(/.test(joined) && /edit\s+ok/.test(joined) && /read\s+ok/.test(joined) && all;
  });
  lap(`Hashls Agent view: ${texts.length} entries`);
  for (const t of texts) console.log('    ' + t.replace(/\s*\n\s*/g, '  '));

  // Selecting the successful edit opens its diff.
  await agentPane.first().locator('.monaco-list-row', { hasText: /edit\s+ok/ }).first().click();
  await until('diff document', async () => {
    const t = await activeText();
    return t.includes('+const greeting = "edited"') && t.includes('-const greeting = "hello"');
  });
  const tabTitle = await page.locator('.editor-group-container.active .tab.active').innerText();
  if (!/\.diff/.test(tabTitle)) throw new Error(`diff tab title: ${tabTitle}`);
  const lang = await page.locator('#status\\.editor\\.mode').innerText();
  if (!/diff/i.test(lang)) throw new Error(`diff document language: ${lang}`);
  lap(`activity entry → ${tabTitle.trim()} (language ${lang.trim()})`);

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
