// The hashls VS Code extension: starts `hashls serve --stdio` with
// vscode-languageclient (one server per workspace folder), turns the
// server's commands and every agent tool into palette entries (through the
// executeCommand middleware in core.ts), shows results in read-only hashls:
// documents, and lists every change (hashls/activity, history from
// hashls.audit) in the Changes view of its own activity-bar container: open
// the location, a side-by-side diff, revert, filters, a badge for new ones.
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
  TOOL_COMMANDS,
  errorText,
  EditorState,
  Host,
  JsonSchema,
  LspRange,
  SearchMatch,
  activityDescription,
  activityDocument,
  activityLabel,
  activityPath,
  activityTooltip,
  auditEntries,
  checkToolArgs,
  createCommandHandler,
  filterText,
  firstChangedLine,
  parseAuditDetail,
  resultText,
  safeName,
  serverBinary,
  ServerChoice,
  sideText,
  toolSchemas,
  ReviewStore,
  hashlineTarget,
} from './core';
import { registerReview } from './review';
import * as fs from 'fs';

export const SCHEME = 'hashls';
export const VIEW_ID = 'hashls.activity';
export const ACTIVITY_METHOD = 'hashls/activity';
export const REVIEW_METHOD = 'hashls/review';

/** The extension's state, returned by activate for tests and other extensions. */
export interface HashlsApi {
  activity: ActivityLog;
  /** reviews holds the unreviewed hunks of every file (hashls/review). */
  reviews: ReviewStore;
  docs: DocStore;
  /** client is the first folder's client. */
  client(): LanguageClient | undefined;
  /** clients is every folder's client. */
  clients(): LanguageClient[];
  /** ready resolves when the server has started (or failed to: then false). */
  ready: Promise<boolean>;
}


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

/**
 * ActivityTree is the Changes view: one row per change or tool run, newest
 * first, narrowed by the log's filter. Rows are named by their folder when
 * more than one folder is served.
 */
class ActivityTree implements vscode.TreeDataProvider<ActivityEntry> {
  private emitter = new vscode.EventEmitter<ActivityEntry | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  constructor(private log: ActivityLog, private folderName: (root: string | undefined) => string | undefined) {
    log.onChange(() => this.emitter.fire(undefined));
  }
  getChildren(element?: ActivityEntry): ActivityEntry[] {
    return element ? [] : this.log.visible();
  }
  getTreeItem(e: ActivityEntry): vscode.TreeItem {
    const item = new vscode.TreeItem(activityLabel(e), vscode.TreeItemCollapsibleState.None);
    item.id = String(e.seq);
    const name = this.folderName(e.root);
    item.description = (name ? `${name} · ` : '') + activityDescription(e);
    item.tooltip = activityTooltip(e);
    item.iconPath =
      e.outcome === 'ok'
        ? new vscode.ThemeIcon(e.diff || e.auditIds.length > 0 ? 'diff' : 'check', new vscode.ThemeColor('testing.iconPassed'))
        : new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed'));
    item.contextValue = e.auditIds.length > 0 ? (e.turn ? 'hashlsChangeTurn' : 'hashlsChange') : e.diff ? 'hashlsActivityDiff' : 'hashlsActivity';
    item.command = { command: 'hashls.openChange', title: 'Open diff', arguments: [e.seq] };
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
    diagnosticsMs: c.get<number>('diagnosticsMs', 0),
    formatOnWrite: c.get<boolean>('formatOnWrite', false),
    review: c.get<boolean>('review', true),
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

function makeHost(docs: DocStore, provider: ContentProvider, schemaOf: (tool: string) => Promise<JsonSchema | undefined>): Host {
  let editDoc: vscode.TextDocument | undefined;
  const lastArgs = new Map<string, string>();
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
    async pickSearchMatch(pattern, matches) {
      const folder = activeFolder();
      type Item = vscode.QuickPickItem & { match: SearchMatch };
      const items: Item[] = matches.map((m) => ({ label: `${m.path}:${m.line}`, description: m.text.trim(), match: m }));
      const pick = await vscode.window.showQuickPick(items, {
        title: `hashls search: ${pattern} (${matches.length} match${matches.length === 1 ? '' : 'es'})`,
        matchOnDescription: true,
        ignoreFocusOut: true,
      });
      if (pick && folder) {
        await openAt(vscode.Uri.joinPath(folder.uri, pick.match.path), pick.match.line);
      }
    },
    async toolArgs(tool) {
      const schema = await schemaOf(tool);
      const input = await vscode.window.showInputBox({
        title: `hashls ${tool}: arguments (JSON)`,
        prompt: schema ? `Checked against the ${tool} schema: ${schemaSummary(schema)}` : `No schema found for ${tool}; the server checks the arguments`,
        value: lastArgs.get(tool) ?? '{}',
        ignoreFocusOut: true,
        validateInput: (v) => checkToolArgs(v, schema).error,
      });
      if (input === undefined) {
        return undefined;
      }
      lastArgs.set(tool, input);
      return checkToolArgs(input, schema).args;
    },
  };
}

/** schemaSummary lists a schema's arguments, required ones marked with *. */
function schemaSummary(schema: JsonSchema): string {
  const req = new Set(schema.required ?? []);
  const props = Object.keys(schema.properties ?? {}).map((k) => (req.has(k) ? k + '*' : k));
  return props.length ? props.join(', ') : '(no arguments)';
}

/** docLines is a document's lines. */
function docLines(doc: vscode.TextDocument): string[] {
  const out: string[] = [];
  for (let i = 0; i < doc.lineCount; i++) {
    out.push(doc.lineAt(i).text);
  }
  return out;
}

/** targetUri is the file a hashline result names, in the active folder. */
function targetUri(doc: vscode.TextDocument, rel: string): vscode.Uri | undefined {
  if (/^([a-zA-Z]:)?[\\/]/.test(rel)) {
    return vscode.Uri.file(rel);
  }
  const folder = activeFolder();
  return folder ? vscode.Uri.joinPath(folder.uri, rel) : undefined;
}

/**
 * openHashlineLine opens the file line under the cursor of a hashline
 * result (a read, search or outline document): its row's line under the
 * nearest ¶PATH#TAG header.
 */
async function openHashlineLine(): Promise<void> {
  const ed = vscode.window.activeTextEditor;
  const t = ed ? hashlineTarget(docLines(ed.document), ed.selection.active.line) : undefined;
  const uri = ed && t ? targetUri(ed.document, t.path) : undefined;
  if (!ed || !t || !uri) {
    void vscode.window.showInformationMessage('hashls: put the cursor on a row (N:TEXT) or a ¶PATH#TAG header of a read, search or outline result');
    return;
  }
  await openAt(uri, t.line);
}

/** activeFolder is the workspace folder of the active editor, else the first one. */
function activeFolder(): vscode.WorkspaceFolder | undefined {
  const ed = vscode.window.activeTextEditor;
  const f = ed ? vscode.workspace.getWorkspaceFolder(ed.document.uri) : undefined;
  return f ?? vscode.workspace.workspaceFolders?.[0];
}

/** openAt opens a file with the cursor on a 1-based line. */
async function openAt(uri: vscode.Uri, line: number): Promise<void> {
  const pos = new vscode.Position(Math.max(0, line - 1), 0);
  await vscode.window.showTextDocument(uri, { selection: new vscode.Range(pos, pos), preview: false });
}

/**
 * ownCommands keeps the client from registering the commands the extension
 * registers itself (they must exist before a server has started, VS Code
 * refuses a second registration of one id, and with several folders each
 * folder's server advertises the same ids); the first folder's client
 * registers any other server command, the others none.
 */
function ownCommands(c: LanguageClient, own: ReadonlySet<string>, registerRest: boolean): void {
  const feature = c.getFeature(ExecuteCommandRequest.method) as unknown as {
    register?: (data: { id: string; registerOptions: { commands?: string[] } }) => void;
  };
  const register = feature?.register;
  if (typeof register !== 'function') {
    return;
  }
  feature.register = (data) => {
    const commands = registerRest ? (data.registerOptions.commands ?? []).filter((cmd) => !own.has(cmd)) : [];
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

/** Served is one folder's server. */
interface Served {
  key: string;
  folder?: vscode.WorkspaceFolder;
  client: LanguageClient;
  choice: ServerChoice;
  ready: Promise<boolean>;
}

/** served holds the running servers by folder key (the folder URI; "" without a folder). */
const served = new Map<string, Served>();

const EDITOR_COMMANDS = ['hashls.selectBlock', 'hashls.copyBlockAnchor', 'hashls.outline', 'hashls.toolSchemas'];
const OWN = new Set<string>([...PALETTE_COMMANDS, ...TOOL_COMMANDS]);

function folderKey(f: vscode.WorkspaceFolder | undefined): string {
  return f ? f.uri.toString() : '';
}

function createClient(
  folder: vscode.WorkspaceFolder | undefined,
  multi: boolean,
  first: boolean,
  handler: ReturnType<typeof createCommandHandler>,
  output: vscode.OutputChannel,
  extensionPath: string | undefined,
): { client: LanguageClient; choice: ServerChoice } {
  const choice = serverBinary(config().get<string>('path', ''), extensionPath, process.platform, (p) => fs.existsSync(p));
  if (choice.source === 'bundled') {
    ensureExecutable(choice.command);
  }
  output.appendLine(`hashls: ${choice.describe}` + (folder && multi ? ` for ${folder.name}` : ''));
  const serverOptions: ServerOptions = {
    command: choice.command,
    args: ['serve'], // the stdio transport appends --stdio
    transport: TransportKind.stdio,
    options: folder ? { cwd: folder.uri.fsPath } : undefined,
  };
  // One folder: every file document (the server refuses paths outside its
  // root). Several: each server gets its folder's documents.
  const documentSelector = multi && folder ? [{ scheme: 'file', pattern: `${folder.uri.fsPath.replace(/\\/g, '/')}/**` }] : [{ scheme: 'file' }];
  const clientOptions: LanguageClientOptions = {
    documentSelector,
    workspaceFolder: folder,
    initializationOptions: serverSettings(),
    synchronize: { configurationSection: 'hashls' },
    outputChannel: output,
    middleware: {
      executeCommand: (cmd, args, next) => handler(cmd, args, (c, a) => next(c, a) as Promise<unknown>),
    },
  };
  const c = new LanguageClient(multi && folder ? `hashls-${folder.index}` : 'hashls', multi && folder ? `hashls (${folder.name})` : 'hashls', serverOptions, clientOptions);
  ownCommands(c, OWN, first);
  return { client: c, choice };
}

export function activate(context: vscode.ExtensionContext): HashlsApi {
  const output = vscode.window.createOutputChannel('hashls');
  const activity = new ActivityLog(config().get<number>('maxActivity', 200));
  const reviews = new ReviewStore((u) => {
    try {
      return vscode.Uri.parse(u).toString();
    } catch {
      return u;
    }
  });
  const docs = new DocStore(300);
  const provider = new ContentProvider(docs);
  // schemaOf asks the server (hashls.toolSchemas) once per folder, so the
  // schema always matches the binary it runs; restart forgets them.
  const schemas = new Map<string, Promise<Map<string, JsonSchema>>>();
  const schemaOf = async (tool: string): Promise<JsonSchema | undefined> => {
    const s = servedFor();
    if (!s) {
      return undefined;
    }
    let p = schemas.get(s.key);
    if (!p) {
      p = request(s.key, 'hashls.toolSchemas', {}).then(toolSchemas);
      schemas.set(s.key, p);
      p.catch(() => schemas.delete(s.key));
    }
    try {
      return (await p).get(tool);
    } catch (err) {
      output.appendLine(`hashls: could not list the tools' schemas: ${errorText(err)}`);
      return undefined;
    }
  };
  const host = makeHost(docs, provider, schemaOf);
  const handler = createCommandHandler(host);
  const folderName = (root: string | undefined) => (served.size > 1 ? served.get(root ?? '')?.folder?.name : undefined);
  const tree = new ActivityTree(activity, folderName);
  const view = vscode.window.createTreeView(VIEW_ID, { treeDataProvider: tree, showCollapseAll: false });

  // The badge counts the changes left to review, else those that arrived
  // while the view was hidden.
  const updateView = () => {
    if (view.visible && activity.unseen > 0) {
      activity.markSeen();
      return;
    }
    const r = reviews.total;
    const n = activity.unseen;
    view.badge =
      r > 0
        ? { value: r, tooltip: `${r} change${r === 1 ? '' : 's'} to review (Keep or Undo each)` }
        : n > 0
          ? { value: n, tooltip: `${n} new change${n === 1 ? '' : 's'}` }
          : undefined;
    const f = filterText(activity.filter);
    view.description = [r > 0 ? `${r} to review` : '', f ? `filtered: ${f}` : ''].filter(Boolean).join(' · ') || undefined;
  };
  activity.onChange(updateView);
  reviews.onChange(updateView);

  /** clientFor picks the server of a URI's folder (args or the active editor), else the first. */
  const servedFor = (uri?: string): Served | undefined => {
    let f: vscode.WorkspaceFolder | undefined;
    if (uri) {
      try {
        f = vscode.workspace.getWorkspaceFolder(vscode.Uri.parse(uri));
      } catch {
        f = undefined;
      }
    } else {
      f = activeFolder();
    }
    return served.get(folderKey(f)) ?? served.values().next().value;
  };
  const running = async (s: Served | undefined): Promise<LanguageClient | undefined> => {
    if (!s) {
      return undefined;
    }
    await s.ready;
    return s.client.state === State.Running ? s.client : undefined;
  };
  const request = async (root: string | undefined, command: string, args: unknown): Promise<unknown> => {
    const c = await running(served.get(root ?? '') ?? served.values().next().value);
    if (!c) {
      throw new Error('the server is not running; see the hashls output');
    }
    return c.sendRequest(ExecuteCommandRequest.type, { command, arguments: [args] });
  };

  const loadHistory = async (): Promise<void> => {
    const limit = Math.min(200, Math.max(1, Math.floor(config().get<number>('maxActivity', 200))));
    await Promise.all(
      [...served.values()].map(async (s) => {
        try {
          activity.addHistory(auditEntries(await request(s.key, 'hashls.audit', { limit })), s.key);
        } catch (err) {
          output.appendLine(`hashls: could not load the change history: ${errorText(err)}`);
        }
      }),
    );
  };

  const entryOf = (arg: unknown): ActivityEntry | undefined => {
    if (typeof arg === 'number') {
      return activity.get(arg);
    }
    if (arg && typeof arg === 'object' && typeof (arg as ActivityEntry).seq === 'number') {
      return activity.get((arg as ActivityEntry).seq);
    }
    // From the palette: the entry selected in the view, else the newest.
    return view.selection[0] ?? activity.visible()[0];
  };
  const pickId = async (e: ActivityEntry): Promise<number | undefined> => {
    if (e.auditIds.length <= 1) {
      return e.auditIds[0];
    }
    const pick = await vscode.window.showQuickPick(
      e.auditIds.map((id, i) => ({ label: `#${id}`, description: e.paths[i] ?? '', id })),
      { title: `hashls ${e.tool}: which change?` },
    );
    return pick?.id;
  };

  const openUnified = async (e: ActivityEntry) => {
    const path = activityPath(e);
    docs.set(path, activityDocument(e));
    const uri = vscode.Uri.from({ scheme: SCHEME, path });
    provider.changed(uri);
    let doc = await vscode.workspace.openTextDocument(uri);
    if (doc.languageId !== 'diff') {
      doc = await vscode.languages.setTextDocumentLanguage(doc, 'diff');
    }
    await vscode.window.showTextDocument(doc, { preview: true });
  };
  // openSideBySide shows one change as vscode.diff over read-only documents
  // of the file before and after it (hashls.audit {id}).
  const openSideBySide = async (e: ActivityEntry, id: number): Promise<void> => {
    const d = parseAuditDetail(await request(e.root, 'hashls.audit', { id }), id);
    const name = safeName(d.path.replace(/^.*[\\/]/, '') || 'file');
    const left = `/audit/${id}/before/${name}`;
    const right = `/audit/${id}/after/${name}`;
    docs.set(left, sideText(d.before, d.beforeUnavailable));
    docs.set(right, sideText(d.after, d.afterUnavailable));
    const l = vscode.Uri.from({ scheme: SCHEME, path: left });
    const r = vscode.Uri.from({ scheme: SCHEME, path: right });
    provider.changed(l);
    provider.changed(r);
    await vscode.commands.executeCommand('vscode.diff', l, r, `${d.path} (#${id} ${d.tool}${d.transport ? ' via ' + d.transport : ''})`, { preview: true });
  };

  const registerRun = (id: string) =>
    vscode.commands.registerCommand(id, async (...args: unknown[]) => {
      const a = args[0] as { uri?: unknown } | undefined;
      const s = servedFor(a && typeof a.uri === 'string' ? a.uri : undefined);
      const c = await running(s);
      if (!c) {
        void vscode.window.showErrorMessage(`hashls: the server is not running (${id}); see the hashls output`);
        return undefined;
      }
      return handler(id, args, (command, a2) => c.sendRequest(ExecuteCommandRequest.type, { command, arguments: a2 }));
    });

  context.subscriptions.push(
    output,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, provider),
    view,
    view.onDidChangeVisibility(() => {
      if (view.visible) {
        activity.markSeen();
        void loadHistory();
      }
    }),
    // The palette commands and every tool (also the targets of the server's
    // code actions): they wait for the server, then run the same handler as
    // the middleware.
    ...[...OWN].map(registerRun),
    vscode.commands.registerCommand('hashls.openChange', async (arg?: unknown) => {
      const e = entryOf(arg);
      if (!e) {
        void vscode.window.showInformationMessage('hashls: no changes yet');
        return;
      }
      if (e.auditIds.length === 0) {
        return openUnified(e);
      }
      const id = await pickId(e);
      if (id === undefined) {
        return;
      }
      try {
        await openSideBySide(e, id);
      } catch (err) {
        // A server without change texts: the run's unified diff if it sent one.
        output.appendLine(`hashls: side-by-side diff of #${id}: ${errorText(err)}`);
        if (e.diff) {
          return openUnified(e);
        }
        void vscode.window.showErrorMessage(`hashls: cannot show change #${id}: ${errorText(err)}`);
      }
    }),
    vscode.commands.registerCommand('hashls.openActivityDiff', async (arg?: unknown) => {
      const e = entryOf(arg);
      if (!e) {
        void vscode.window.showInformationMessage('hashls: no changes yet');
        return;
      }
      await openUnified(e);
    }),
    vscode.commands.registerCommand('hashls.openChangeLocation', async (arg?: unknown) => {
      const e = entryOf(arg);
      const rel = e?.paths[0];
      if (!e || !rel) {
        void vscode.window.showInformationMessage('hashls: this entry names no file');
        return;
      }
      const folder = served.get(e.root ?? '')?.folder ?? vscode.workspace.workspaceFolders?.[0];
      if (!folder) {
        void vscode.window.showErrorMessage('hashls: no workspace folder to open the file in');
        return;
      }
      await openAt(vscode.Uri.joinPath(folder.uri, rel), firstChangedLine(e.diff));
    }),
    vscode.commands.registerCommand('hashls.revertChange', async (arg?: unknown) => {
      const e = entryOf(arg);
      if (!e || e.auditIds.length === 0) {
        void vscode.window.showInformationMessage('hashls: this entry changed no file');
        return undefined;
      }
      // The run's changes, newest first: each puts its file back.
      const done: number[] = [];
      for (const id of [...e.auditIds].sort((a, b) => b - a)) {
        try {
          await request(e.root, 'hashls.revert', { id });
          done.push(id);
        } catch (err) {
          const next = (err as { data?: { suggestedAction?: unknown } })?.data?.suggestedAction;
          void vscode.window.showErrorMessage(
            `hashls: revert of change #${id} (${e.paths.join(', ')}) refused: ${errorText(err)}` + (typeof next === 'string' && next ? ` — ${next}` : ''),
          );
          return done;
        }
      }
      void vscode.window.showInformationMessage(`hashls: reverted ${done.map((id) => '#' + id).join(' ')} (${e.paths.join(', ')})`);
      await loadHistory();
      return done;
    }),
    vscode.commands.registerCommand('hashls.refreshChanges', () => loadHistory()),
    vscode.commands.registerCommand('hashls.filterChanges', async () => {
      type Item = vscode.QuickPickItem & { apply: () => Promise<void> | void };
      const f = activity.filter;
      const items: Item[] = [
        {
          label: '$(filter) Path contains…',
          description: f.path,
          apply: async () => {
            const v = await vscode.window.showInputBox({ title: 'hashls changes: path contains', value: f.path ?? '' });
            if (v !== undefined) {
              activity.setFilter({ ...f, path: v });
            }
          },
        },
        ...activity.values('tool').map((t) => ({ label: `tool: ${t}`, picked: f.tool === t, apply: () => activity.setFilter({ ...f, tool: t }) })),
        ...activity.values('transport').map((t) => ({ label: `transport: ${t}`, picked: f.transport === t, apply: () => activity.setFilter({ ...f, transport: t }) })),
        ...activity.values('agent').map((a) => ({ label: `agent: ${a}`, picked: f.agent === a, apply: () => activity.setFilter({ ...f, agent: a }) })),
        {
          label: f.reads ? '$(eye-closed) Hide reads and searches' : '$(eye) Show reads and searches',
          apply: () => activity.setFilter({ ...f, reads: !f.reads }),
        },
        { label: '$(clear-all) Clear filters', apply: () => activity.setFilter({}) },
      ];
      const pick = await vscode.window.showQuickPick(items, { title: `hashls changes: filter${filterText(f) ? ' (now: ' + filterText(f) + ')' : ''}` });
      await pick?.apply();
    }),
    vscode.commands.registerCommand('hashls.clearFilter', () => activity.setFilter({})),
    vscode.commands.registerCommand('hashls.console', async () => {
      const s = servedFor();
      const c = await running(s);
      if (!c || !s) {
        void vscode.window.showErrorMessage('hashls: the server is not running; see the hashls output');
        return undefined;
      }
      const advertised = c.initializeResult?.capabilities.executeCommandProvider?.commands ?? [...OWN];
      const tools = advertised.filter((x) => x.startsWith('hashls.') && !EDITOR_COMMANDS.includes(x)).map((x) => x.slice('hashls.'.length));
      const tool = await vscode.window.showQuickPick(tools.sort(), { title: 'hashls console: tool to run' });
      if (!tool) {
        return undefined;
      }
      const args = await host.toolArgs(tool);
      if (!args) {
        return undefined;
      }
      try {
        const res = await c.sendRequest(ExecuteCommandRequest.type, { command: 'hashls.' + tool, arguments: [args] });
        await host.showResult(tool, `${tool} ${JSON.stringify(args)}`.slice(0, 100), resultText(res));
        return res;
      } catch (err) {
        host.error(`hashls ${tool}: ${errorText(err)}`);
        return undefined;
      }
    }),
    vscode.commands.registerCommand('hashls.clearActivity', () => activity.clear()),
    vscode.commands.registerCommand('hashls.openLine', () => openHashlineLine()),
    vscode.languages.registerDefinitionProvider({ language: 'hashline' }, {
      provideDefinition(doc, pos) {
        const t = hashlineTarget(docLines(doc), pos.line);
        const uri = t && targetUri(doc, t.path);
        return uri ? new vscode.Location(uri, new vscode.Position(t.line - 1, 0)) : undefined;
      },
    }),
    vscode.commands.registerCommand('hashls.showActivity', () => vscode.commands.executeCommand(`${VIEW_ID}.focus`)),
    vscode.commands.registerCommand('hashls.restart', async () => {
      schemas.clear();
      for (const k of served.keys()) {
        reviews.clear(k);
      }
      await stopAll();
      await startAll();
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
    vscode.workspace.onDidChangeWorkspaceFolders(() => {
      // Folder sets change rarely: start one server per folder again.
      void stopAll().then(startAll);
    }),
    { dispose: () => void stopAll() },
  );

  async function startOne(folder: vscode.WorkspaceFolder | undefined, multi: boolean, first: boolean): Promise<boolean> {
    const { client: c, choice } = createClient(folder, multi, first, handler, output, context.extensionPath);
    const key = folderKey(folder);
    c.onNotification(REVIEW_METHOD, (params: unknown) => {
      reviews.update(params, key);
    });
    c.onNotification(ACTIVITY_METHOD, (params: unknown) => {
      // The view's own history loads (hashls.audit) are not news.
      if ((params as { tool?: unknown } | null)?.tool === 'audit') {
        return;
      }
      activity.add(params, new Date(), key);
    });
    let resolveReady: (ok: boolean) => void = () => undefined;
    const s: Served = { key, folder, client: c, choice, ready: new Promise((r) => (resolveReady = r)) };
    served.set(key, s);
    try {
      await c.start();
      resolveReady(true);
      void vscode.commands.executeCommand('hashls.refreshReview', key);
      return true;
    } catch (err) {
      resolveReady(false);
      output.appendLine(`hashls: could not start ${choice.command}: ${errorText(err)}`);
      void vscode.window
        .showErrorMessage(`hashls: could not start "${choice.command} serve --stdio" (set hashls.path to the hashls binary): ${errorText(err)}`, 'Open Settings')
        .then((pick) => (pick ? vscode.commands.executeCommand('workbench.action.openSettings', 'hashls.path') : undefined));
      return false;
    }
  }

  async function startAll(): Promise<boolean> {
    const folders = vscode.workspace.workspaceFolders ?? [];
    const list = folders.length > 0 ? [...folders] : [undefined];
    const oks = await Promise.all(list.map((f, i) => startOne(f, folders.length > 1, i === 0)));
    if (oks.some((x) => x)) {
      await loadHistory();
    }
    return oks.every((x) => x);
  }

  registerReview(context, {
    reviews,
    request,
    rootOf: (uri) => servedFor(uri.toString())?.key,
    selectedTurn: () => view.selection[0]?.turn,
    output,
  });

  const ready = startAll();
  return {
    activity,
    reviews,
    docs,
    client: () => served.values().next().value?.client,
    clients: () => [...served.values()].map((s) => s.client),
    ready,
  };
}

async function stopAll(): Promise<void> {
  const all = [...served.values()];
  served.clear();
  await Promise.all(
    all.map(async (s) => {
      try {
        await s.client.stop(5000);
      } catch {
        // already stopped or never started
      }
    }),
  );
}

export function deactivate(): Promise<void> {
  return stopAll();
}
