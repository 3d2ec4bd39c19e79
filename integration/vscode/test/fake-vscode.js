// A small fake of the `vscode` module and of `vscode-languageclient/node`,
// enough to run out/extension.js's activate() under node:test. install()
// makes require('vscode') (and the client) resolve to these fakes; every call
// the extension makes is recorded in `calls` for the tests to check.
'use strict';
const Module = require('node:module');
const path = require('node:path');
const { URL, pathToFileURL, fileURLToPath } = require('node:url');

const calls = [];
const record = (name, ...args) => calls.push({ name, args });

class EventEmitter {
  constructor() {
    this.listeners = [];
    this.event = (l) => {
      this.listeners.push(l);
      return { dispose: () => (this.listeners = this.listeners.filter((x) => x !== l)) };
    };
  }
  fire(v) {
    for (const l of this.listeners) l(v);
  }
  dispose() {}
}

class Uri {
  constructor(scheme, authority, p, query, fragment) {
    this.scheme = scheme;
    this.authority = authority || '';
    this.path = p || '/';
    this.query = query || '';
    this.fragment = fragment || '';
  }
  static parse(s) {
    const u = new URL(s);
    return new Uri(u.protocol.replace(/:$/, ''), u.host, decodeURIComponent(u.pathname), u.search.replace(/^\?/, ''), u.hash.replace(/^#/, ''));
  }
  static file(p) {
    return new Uri('file', '', p);
  }
  static joinPath(base, ...segs) {
    return new Uri(base.scheme, base.authority, path.posix.join(base.path, ...segs), base.query, base.fragment);
  }
  static from(c) {
    return new Uri(c.scheme, c.authority, c.path, c.query, c.fragment);
  }
  get fsPath() {
    return this.path;
  }
  toString() {
    if (this.scheme === 'file') return pathToFileURL(this.path).href;
    return `${this.scheme}:${this.path}`;
  }
}

class Position {
  constructor(line, character) {
    this.line = line;
    this.character = character;
  }
}
class Range {
  constructor(a, b, c, d) {
    if (typeof a === 'number') {
      this.start = new Position(a, b);
      this.end = new Position(c, d);
    } else {
      this.start = a;
      this.end = b;
    }
  }
  get isEmpty() {
    return this.start.line === this.end.line && this.start.character === this.end.character;
  }
}
class Selection extends Range {
  get active() {
    return this.end;
  }
  get anchor() {
    return this.start;
  }
}

class TextDocument {
  constructor(uri, text, languageId) {
    this.uri = uri;
    this.text = text;
    this.languageId = languageId || 'plaintext';
  }
  getText() {
    return this.text;
  }
  get lineCount() {
    return this.text.split('\n').length;
  }
  lineAt(i) {
    const l = this.text.split('\n')[i] ?? '';
    return { text: l, range: new Range(i, 0, i, l.length) };
  }
}

class TextEditor {
  constructor(document, viewColumn) {
    this.document = document;
    this.viewColumn = viewColumn || 1;
    this.selection = new Selection(0, 0, 0, 0);
    this.decorations = new Map();
  }
  setDecorations(type, ranges) {
    this.decorations.set(type.key, ranges);
  }
  revealRange(r) {
    record('revealRange', r);
  }
}

const state = {
  config: {},
  commands: new Map(),
  providers: new Map(),
  treeViews: new Map(),
  views: new Map(),
  inputs: [],
  picks: [],
  clipboard: '',
  messages: [],
  decoTypes: 0,
  statusItems: [],
  codeLensProviders: [],
  definitionProviders: [],
  contexts: new Map(),
  opened: [],
  folder: { uri: Uri.file('/ws'), name: 'ws', index: 0 },
};

const window = {
  activeTextEditor: undefined,
  visibleTextEditors: [],
  createOutputChannel: (name) => ({ name, appendLine: (l) => record('output', l), dispose() {} }),
  createTreeView: (id, opts) => {
    state.treeViews.set(id, opts);
    const visibility = new EventEmitter();
    const view = {
      visible: false,
      selection: [],
      badge: undefined,
      description: undefined,
      onDidChangeVisibility: visibility.event,
      show(v) {
        view.visible = v;
        visibility.fire({ visible: v });
      },
      dispose() {},
    };
    state.views.set(id, view);
    return view;
  },
  // showQuickPick answers from state.picks: a label to pick, a function of
  // the items, or nothing (cancelled).
  showQuickPick: async (items, opts) => {
    const list = await items;
    record('showQuickPick', list, opts);
    const want = state.picks.shift();
    if (want === undefined) return undefined;
    if (typeof want === 'function') return want(list);
    return list.find((i) => (typeof i === 'string' ? i : i.label) === want);
  },
  showInformationMessage: async (m, ...items) => {
    state.messages.push({ level: 'info', text: m, items });
    return undefined;
  },
  showErrorMessage: async (m, ...items) => {
    state.messages.push({ level: 'error', text: m, items });
    return undefined;
  },
  showWarningMessage: async (m, ...items) => {
    state.messages.push({ level: 'warning', text: m, items });
    return state.warningAnswer;
  },
  // Decorations set per editor, by decoration type key.
  createTextEditorDecorationType: (opts) => ({ key: `deco${++state.decoTypes}`, opts, dispose() {} }),
  createStatusBarItem: () => {
    const item = { text: '', tooltip: '', command: undefined, shown: false, show() { item.shown = true; }, hide() { item.shown = false; }, dispose() {} };
    state.statusItems.push(item);
    return item;
  },
  onDidChangeVisibleTextEditors: () => ({ dispose() {} }),
  showInputBox: async (o) => {
    record('showInputBox', o);
    const v = state.inputs.shift();
    // Like VS Code, an input that validateInput refuses is not accepted.
    if (v !== undefined && o && o.validateInput) {
      const msg = await o.validateInput(v);
      if (msg) {
        record('inputRefused', msg);
        return undefined;
      }
    }
    return v;
  },
  showTextDocument: async (docOrUri, opts) => {
    const doc = docOrUri instanceof Uri ? await workspace.openTextDocument(docOrUri) : docOrUri;
    const ed = new TextEditor(doc, typeof opts === 'number' ? opts : 1);
    window.activeTextEditor = ed;
    window.visibleTextEditors = [...window.visibleTextEditors.filter((e) => e.document !== doc), ed];
    state.opened.push(doc);
    return ed;
  },
};

const workspace = {
  get workspaceFolders() {
    if (state.folders) return state.folders;
    return state.folder ? [state.folder] : undefined;
  },
  getWorkspaceFolder: (uri) =>
    (workspace.workspaceFolders || []).find((f) => uri.scheme === 'file' && uri.path.startsWith(f.uri.path + '/')),
  asRelativePath: (uri) => {
    const p = typeof uri === 'string' ? uri : uri.path;
    return state.folder ? path.relative(state.folder.uri.path, p) : p;
  },
  getConfiguration: (section) => ({
    get: (key, def) => {
      const k = `${section}.${key}`;
      return k in state.config ? state.config[k] : def;
    },
  }),
  registerTextDocumentContentProvider: (scheme, provider) => {
    state.providers.set(scheme, provider);
    return { dispose() {} };
  },
  onDidChangeConfiguration: () => ({ dispose() {} }),
  onDidChangeWorkspaceFolders: () => ({ dispose() {} }),
  openTextDocument: async (arg) => {
    if (arg instanceof Uri) {
      const p = state.providers.get(arg.scheme);
      const text = p ? p.provideTextDocumentContent(arg) : '';
      const lang = arg.path.endsWith('.diff') ? 'diff' : 'plaintext';
      return new TextDocument(arg, text, lang);
    }
    return new TextDocument(new Uri('untitled', '', '/Untitled-1'), arg.content || '', arg.language);
  },
};

const commands = {
  registerCommand: (id, f) => {
    if (state.commands.has(id)) throw new Error(`command '${id}' already exists`);
    state.commands.set(id, f);
    return { dispose: () => state.commands.delete(id) };
  },
  executeCommand: async (id, ...args) => {
    record('executeCommand', id, ...args);
    if (id === 'setContext') {
      state.contexts.set(args[0], args[1]);
      return undefined;
    }
    const f = state.commands.get(id);
    return f ? f(...args) : undefined;
  },
};

const vscode = {
  EventEmitter,
  Uri,
  Position,
  Range,
  Selection,
  TreeItem: class {
    constructor(label, collapsibleState) {
      this.label = label;
      this.collapsibleState = collapsibleState;
    }
  },
  TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
  ThemeIcon: class {
    constructor(id, color) {
      this.id = id;
      this.color = color;
    }
  },
  ThemeColor: class {
    constructor(id) {
      this.id = id;
    }
  },
  ViewColumn: { Active: -1, Beside: -2, One: 1 },
  TextEditorRevealType: { InCenterIfOutsideViewport: 2 },
  window,
  workspace,
  commands,
  languages: {
    setTextDocumentLanguage: async (doc, lang) => {
      doc.languageId = lang;
      return doc;
    },
    registerCodeLensProvider: (selector, provider) => {
      state.codeLensProviders.push({ selector, provider });
      return { dispose() {} };
    },
    registerDefinitionProvider: (selector, provider) => {
      state.definitionProviders.push({ selector, provider });
      return { dispose() {} };
    },
  },
  CodeLens: class {
    constructor(range, command) {
      this.range = range;
      this.command = command;
    }
  },
  MarkdownString: class {
    constructor() {
      this.value = '';
    }
    appendMarkdown(t) {
      this.value += t;
      return this;
    }
    appendCodeblock(code, lang) {
      this.value += '```' + (lang || '') + '\n' + code + '\n```\n';
      return this;
    }
  },
  Location: class {
    constructor(uri, pos) {
      this.uri = uri;
      this.range = new Range(pos, pos);
    }
  },
  StatusBarAlignment: { Left: 1, Right: 2 },
  OverviewRulerLane: { Left: 1, Center: 2, Right: 4, Full: 7 },
  env: {
    clipboard: {
      writeText: async (t) => {
        state.clipboard = t;
      },
    },
  },
};

// The fake language client: records its options; commands the "server"
// advertises are registered like the real ExecuteCommandFeature does, calling
// the middleware with a `next` that answers from `serverCommands`.
const State = { Stopped: 1, Running: 2, Starting: 3 };
const ExecuteCommandRequest = { method: 'workspace/executeCommand', type: { method: 'workspace/executeCommand' } };
ExecuteCommandRequest.type = ExecuteCommandRequest;
const clients = [];
const serverCommands = new Map();
class LanguageClient {
  constructor(id, name, serverOptions, clientOptions) {
    this.id = id;
    this.name = name;
    this.serverOptions = serverOptions;
    this.clientOptions = clientOptions;
    this.notifications = new Map();
    this.disposables = [];
    this.state = State.Stopped;
    this.registered = [];
    const mw = this.clientOptions.middleware || {};
    const send = async (c, args) => serverCommands.get(c)(args);
    // Like the real ExecuteCommandFeature: registers each advertised command.
    this.executeCommandFeature = {
      register: (data) => {
        for (const cmd of data.registerOptions.commands || []) {
          this.registered.push(cmd);
          this.disposables.push(
            commands.registerCommand(cmd, (...args) => (mw.executeCommand ? mw.executeCommand(cmd, args, send) : send(cmd, args))),
          );
        }
      },
    };
    clients.push(this);
  }
  getFeature(method) {
    return method === ExecuteCommandRequest.method ? this.executeCommandFeature : undefined;
  }
  onNotification(method, handler) {
    this.notifications.set(method, handler);
    return { dispose() {} };
  }
  async sendRequest(type, params) {
    record('sendRequest', type.method, params);
    if (type.method !== ExecuteCommandRequest.method) throw new Error(`fake client: ${type.method}`);
    return serverCommands.get(params.command)(params.arguments);
  }
  async start() {
    this.state = State.Starting;
    if (state.startError) {
      this.state = State.Stopped;
      throw state.startError;
    }
    this.initializeResult = { capabilities: { executeCommandProvider: { commands: [...serverCommands.keys()] } } };
    this.executeCommandFeature.register({ id: 'cmds', registerOptions: { commands: [...serverCommands.keys()] } });
    this.state = State.Running;
  }
  async stop() {
    for (const d of this.disposables) d.dispose();
    this.disposables = [];
    this.state = State.Stopped;
  }
}
const languageclient = { LanguageClient, State, ExecuteCommandRequest, TransportKind: { stdio: 0, ipc: 1, pipe: 2, socket: 3 } };

function install() {
  const origResolve = Module._resolveFilename;
  const fakes = {
    vscode: path.join(__dirname, 'fake-vscode.js#vscode'),
    'vscode-languageclient/node': path.join(__dirname, 'fake-vscode.js#client'),
  };
  Module._resolveFilename = function (request, ...rest) {
    if (request in fakes) return fakes[request];
    return origResolve.call(this, request, ...rest);
  };
  require.cache[fakes.vscode] = { id: fakes.vscode, filename: fakes.vscode, loaded: true, exports: vscode };
  require.cache[fakes['vscode-languageclient/node']] = {
    id: fakes['vscode-languageclient/node'],
    filename: fakes['vscode-languageclient/node'],
    loaded: true,
    exports: languageclient,
  };
}

module.exports = { install, vscode, state, calls, clients, serverCommands, TextDocument, TextEditor, fileURLToPath };
