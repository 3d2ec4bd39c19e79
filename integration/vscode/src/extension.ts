// The hashls VS Code extension: starts `hashls serve --stdio` with
// vscode-languageclient, turns the server's commands into palette entries
// (through the executeCommand middleware in core.ts), shows results in
// read-only hashls: documents and lists hashls/activity notifications in the
// "Hashls Agent" view, whose entries open their diffs.
import * as vscode from 'vscode';
import {
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
  TransportKind,
} from 'vscode-languageclient/node';
import {
  ActivityEntry,
  ActivityLog,
  DocStore,
  PALETTE_COMMANDS,
  errorText,
  EditorState,
  Host,
  LspRange,
  activityDescription,
  activityDocument,
  activityLabel,
  activityPath,
  activityTooltip,
  createCommandHandler,
  serverBinary,
  ServerChoice,
} from './core';
import * as fs from 'fs';

export const SCHEME = 'hashls';
export const VIEW_ID = 'hashls.activity';
export const ACTIVITY_METHOD = 'hashls/activity';

/** The extension's state, returned by activate for tests and other extensions. */
export interface HashlsApi {
  activity: ActivityLog;
  docs: DocStore;
  client(): LanguageClient | undefined;
  /** ready resolves when the server has started (or failed to: then false). */
  ready: Promise<boolean>;
}

let client: LanguageClient | undefined;
/** lastChoice is the binary the last start picked (for its error message). */
let lastChoice: ServerChoice | undefined;

class ContentProvider implements vscode.TextDocumentContentProvider {
  private emitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.emitter.event;
  constructor(private docs: DocStore) {}
  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.docs.get(uri.path) ?? '(this hashls result is no longer kept; run the command again)\n';
  }
  changed(uri: vscode.Uri): void {
    this.emitter.fire(uri);
  }
}

/** ActivityTree is the agent panel: one row per activity entry, newest first. */
class ActivityTree implements vscode.TreeDataProvider<ActivityEntry> {
  private emitter = new vscode.EventEmitter<ActivityEntry | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  constructor(private log: ActivityLog) {
    log.onChange(() => this.emitter.fire(undefined));
  }
  getChildren(element?: ActivityEntry): ActivityEntry[] {
    return element ? [] : [...this.log.entries];
  }
  getTreeItem(e: ActivityEntry): vscode.TreeItem {
    const item = new vscode.TreeItem(activityLabel(e), vscode.TreeItemCollapsibleState.None);
    item.id = String(e.seq);
    item.description = activityDescription(e);
    item.tooltip = activityTooltip(e);
    item.iconPath =
      e.outcome === 'ok'
        ? new vscode.ThemeIcon(e.diff ? 'diff' : 'check', new vscode.ThemeColor('testing.iconPassed'))
        : new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed'));
    item.contextValue = e.diff ? 'hashlsActivityDiff' : 'hashlsActivity';
    item.command = { command: 'hashls.openActivityDiff', title: 'Open diff', arguments: [e.seq] };
    return item;
  }
}

function config(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration('hashls');
}

/** serverSettings are the initializationOptions the server reads. */
function serverSettings(): Record<string, unknown> {
  const c = config();
  const s: Record<string, unknown> = {
    progress: c.get<boolean>('progress', true),
    activity: c.get<boolean>('activity', true),
    logLevel: c.get<string>('logLevel', 'warning'),
    applyEditTimeoutMs: c.get<number>('applyEditTimeoutMs', 10000),
  };
  const stateDir = c.get<string>('stateDir', '');
  if (stateDir) {
    s.stateDir = stateDir;
  }
  return s;
}

function sameDoc(a: vscode.Uri, b: string): boolean {
  const u = vscode.Uri.parse(b);
  if (a.scheme === 'file' && u.scheme === 'file') {
    return a.fsPath === u.fsPath;
  }
  return a.toString() === u.toString();
}

function makeHost(docs: DocStore, provider: ContentProvider): Host {
  let editDoc: vscode.TextDocument | undefined;
  return {
    activeEditor(): EditorState | undefined {
      const ed = vscode.window.activeTextEditor;
      if (!ed || ed.document.uri.scheme !== 'file') {
        return undefined;
      }
      const uri = ed.document.uri;
      const folder = vscode.workspace.getWorkspaceFolder(uri);
      const st: EditorState = {
        uri: uri.toString(),
        relPath: folder ? vscode.workspace.asRelativePath(uri, false) : undefined,
        line: ed.selection.active.line + 1,
      };
      const sel = ed.selection;
      if (!sel.isEmpty) {
        let end = sel.end.line;
        if (sel.end.character === 0 && end > sel.start.line) {
          end--;
        }
        st.selection = { start: sel.start.line + 1, end: end + 1 };
      }
      return st;
    },
    async prompt(o) {
      return vscode.window.showInputBox({ title: o.title, prompt: o.prompt, value: o.value, placeHolder: o.placeHolder, ignoreFocusOut: true });
    },
    async showResult(kind, label, text) {
      const path = docs.put(kind, label, text);
      const uri = vscode.Uri.from({ scheme: SCHEME, path });
      provider.changed(uri);
      let doc = await vscode.workspace.openTextDocument(uri);
      if (doc.languageId !== 'hashline') {
        doc = await vscode.languages.setTextDocumentLanguage(doc, 'hashline');
      }
      await vscode.window.showTextDocument(doc, {
        preview: true,
        viewColumn: vscode.window.activeTextEditor ? vscode.ViewColumn.Beside : vscode.ViewColumn.Active,
      });
    },
    async selectRange(uri, range: LspRange) {
      let ed = vscode.window.visibleTextEditors.find((e) => sameDoc(e.document.uri, uri));
      if (!ed) {
        ed = await vscode.window.showTextDocument(vscode.Uri.parse(uri));
      } else if (ed !== vscode.window.activeTextEditor) {
        ed = await vscode.window.showTextDocument(ed.document, ed.viewColumn);
      }
      const sel = new vscode.Selection(range.start.line, range.start.character, range.end.line, range.end.character);
      ed.selection = sel;
      ed.revealRange(sel, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    },
    async writeClipboard(text) {
      await vscode.env.clipboard.writeText(text);
    },
    info(msg) {
      void vscode.window.showInformationMessage(msg);
    },
    error(msg) {
      void vscode.window.showErrorMessage(msg);
    },
    editDocumentText() {
      const ed = vscode.window.activeTextEditor;
      if (ed && ed.document.languageId === 'hashline' && ed.document.uri.scheme === 'untitled') {
        editDoc = ed.document;
        return ed.document.getText();
      }
      return undefined;
    },
    async openEditDocument(text) {
      editDoc = await vscode.workspace.openTextDocument({ language: 'hashline', content: text });
      const ed = await vscode.window.showTextDocument(editDoc, { viewColumn: vscode.ViewColumn.Beside, preview: false });
      const end = editDoc.lineAt(editDoc.lineCount - 1).range.end;
      ed.selection = new vscode.Selection(end, end);
    },
    async closeEditDocument() {
      const ed = vscode.window.activeTextEditor;
      if (editDoc && ed && ed.document === editDoc) {
        await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      }
      editDoc = undefined;
    },
  };
}

/**
 * ownCommands keeps the client from registering the commands the extension
 * registers itself (the palette commands must exist before the server has
 * started, and VS Code refuses a second registration of one id); it
 * registers every other server command (hashls.audit, hashls.write, ...).
 */
function ownCommands(c: LanguageClient, own: ReadonlySet<string>): void {
  const feature = c.getFeature(ExecuteCommandRequest.method) as unknown as {
    register?: (data: { id: string; registerOptions: { commands?: string[] } }) => void;
  };
  const register = feature?.register;
  if (typeof register !== 'function') {
    return;
  }
  feature.register = (data) => {
    const commands = (data.registerOptions.commands ?? []).filter((cmd) => !own.has(cmd));
    register.call(feature, { ...data, registerOptions: { ...data.registerOptions, commands } });
  };
}

/** ensureExecutable gives a bundled binary its exec bit if unpacking lost it. */
function ensureExecutable(file: string): void {
  if (process.platform === 'win32') {
    return;
  }
  try {
    const mode = fs.statSync(file).mode;
    if ((mode & 0o111) === 0) {
      fs.chmodSync(file, mode | 0o755);
    }
  } catch {
    // the start then reports the binary's problem
  }
}

function createClient(handler: ReturnType<typeof createCommandHandler>, output: vscode.OutputChannel, extensionPath: string | undefined): LanguageClient {
  const folder = vscode.workspace.workspaceFolders?.[0];
  const choice = serverBinary(config().get<string>('path', ''), extensionPath, process.platform, (p) => fs.existsSync(p));
  if (choice.source === 'bundled') {
    ensureExecutable(choice.command);
  }
  output.appendLine(`hashls: ${choice.describe}`);
  lastChoice = choice;
  const command = choice.command;
  const serverOptions: ServerOptions = {
    command,
    args: ['serve'], // the stdio transport appends --stdio
    transport: TransportKind.stdio,
    options: folder ? { cwd: folder.uri.fsPath } : undefined,
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file' }],
    workspaceFolder: folder,
    initializationOptions: serverSettings(),
    synchronize: { configurationSection: 'hashls' },
    outputChannel: output,
    middleware: {
      executeCommand: (cmd, args, next) => handler(cmd, args, (c, a) => next(c, a) as Promise<unknown>),
    },
  };
  const c = new LanguageClient('hashls', 'hashls', serverOptions, clientOptions);
  ownCommands(c, new Set<string>(PALETTE_COMMANDS));
  return c;
}

export function activate(context: vscode.ExtensionContext): HashlsApi {
  const output = vscode.window.createOutputChannel('hashls');
  const activity = new ActivityLog(config().get<number>('maxActivity', 200));
  const docs = new DocStore();
  const provider = new ContentProvider(docs);
  const host = makeHost(docs, provider);
  const handler = createCommandHandler(host);
  const tree = new ActivityTree(activity);

  context.subscriptions.push(
    output,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, provider),
    vscode.window.createTreeView(VIEW_ID, { treeDataProvider: tree, showCollapseAll: false }),
    // The palette commands (also the targets of the server's code actions):
    // they wait for the server, then run the same handler as the middleware.
    ...PALETTE_COMMANDS.map((id) =>
      vscode.commands.registerCommand(id, async (...args: unknown[]) => {
        const c = await running();
        if (!c) {
          void vscode.window.showErrorMessage(`hashls: the server is not running (${id}); see the hashls output`);
          return undefined;
        }
        return handler(id, args, (command, a) => c.sendRequest(ExecuteCommandRequest.type, { command, arguments: a }));
      }),
    ),
    vscode.commands.registerCommand('hashls.openActivityDiff', async (seq?: number) => {
      const e = typeof seq === 'number' ? activity.get(seq) : activity.entries[0];
      if (!e) {
        void vscode.window.showInformationMessage('hashls: no agent activity yet');
        return;
      }
      const path = activityPath(e);
      docs.set(path, activityDocument(e));
      const uri = vscode.Uri.from({ scheme: SCHEME, path });
      provider.changed(uri);
      let doc = await vscode.workspace.openTextDocument(uri);
      if (doc.languageId !== 'diff') {
        doc = await vscode.languages.setTextDocumentLanguage(doc, 'diff');
      }
      await vscode.window.showTextDocument(doc, { preview: true });
    }),
    vscode.commands.registerCommand('hashls.clearActivity', () => activity.clear()),
    vscode.commands.registerCommand('hashls.showActivity', () => vscode.commands.executeCommand(`${VIEW_ID}.focus`)),
    vscode.commands.registerCommand('hashls.restart', async () => {
      await stopClient();
      await startClient();
    }),
    vscode.workspace.onDidChangeConfiguration((ev) => {
      if (ev.affectsConfiguration('hashls.maxActivity')) {
        activity.setMax(config().get<number>('maxActivity', 200));
      }
      if (ev.affectsConfiguration('hashls.path') || ev.affectsConfiguration('hashls.stateDir')) {
        void vscode.window
          .showInformationMessage('hashls: restart the server to use the new setting?', 'Restart')
          .then((pick) => (pick ? vscode.commands.executeCommand('hashls.restart') : undefined));
      }
    }),
    { dispose: () => void stopClient() },
  );

  // running is the started client, after waiting for a start in progress.
  async function running(): Promise<LanguageClient | undefined> {
    await starting;
    const c = client;
    return c && c.state === State.Running ? c : undefined;
  }

  let starting: Promise<boolean> = Promise.resolve(false);
  function startClient(): Promise<boolean> {
    starting = start();
    return starting;
  }

  async function start(): Promise<boolean> {
    const c = createClient(handler, output, context.extensionPath);
    c.onNotification(ACTIVITY_METHOD, (params: unknown) => {
      activity.add(params);
    });
    client = c;
    try {
      await c.start();
      return true;
    } catch (err) {
      const path = lastChoice?.command ?? 'hashls';
      output.appendLine(`hashls: could not start ${path}: ${errorText(err)}`);
      void vscode.window
        .showErrorMessage(`hashls: could not start "${path} serve --stdio" (set hashls.path to the hashls binary): ${errorText(err)}`, 'Open Settings')
        .then((pick) => (pick ? vscode.commands.executeCommand('workbench.action.openSettings', 'hashls.path') : undefined));
      return false;
    }
  }

  const ready = startClient();
  return { activity, docs, client: () => client, ready };
}

async function stopClient(): Promise<void> {
  const c = client;
  client = undefined;
  if (c) {
    try {
      await c.stop(5000);
    } catch {
      // already stopped or never started
    }
  }
}

export function deactivate(): Promise<void> {
  return stopClient();
}
