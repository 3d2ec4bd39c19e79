// The review of other callers' changes in the editor: every hunk an agent
// (or another hashls process) changed is marked in its file until the
// person keeps or undoes it. The server tracks the hunks and sends them
// (hashls/review, core.ts's ReviewStore keeps them); this file shows them:
// added lines with a background and a gutter bar, removed lines as a note
// at their place (the hover has the whole diff), Keep / Undo code lenses per
// hunk and per file, a status bar count, next/previous hunk, and the keep
// and undo commands per hunk, file and turn. Undo is an ordinary change of
// the buffer (in its undo history), made through the server's commit path
// and audited as the person's.
import * as vscode from 'vscode';
import { HunkAt, ReviewFile, ReviewHunk, ReviewStore, errorText, hunkDiff, hunkLast, hunkSummary, hunkWho, removedMarker } from './core';

/** What the review needs from the extension. */
export interface ReviewDeps {
  reviews: ReviewStore;
  /** request runs a server command on the server of root (a folder URI; undefined: the first). */
  request(root: string | undefined, command: string, args: unknown): Promise<unknown>;
  /** rootOf is the folder key of the server serving uri. */
  rootOf(uri: vscode.Uri): string | undefined;
  /** selectedTurn is the turn of the entry selected in the Changes view, if any. */
  selectedTurn(): string | undefined;
  output: vscode.OutputChannel;
}

/** args of the hunk commands (from a code lens), else the cursor's hunk. */
interface HunkArg {
  uri?: string;
  hunk?: number;
  turn?: string;
}

export function registerReview(context: vscode.ExtensionContext, d: ReviewDeps): void {
  const { reviews } = d;
  const added = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor('diffEditor.insertedLineBackground'),
    borderColor: new vscode.ThemeColor('editorGutter.addedBackground'),
    borderStyle: 'solid',
    borderWidth: '0 0 0 3px',
    overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.addedForeground'),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  const removed = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    borderColor: new vscode.ThemeColor('editorGutter.deletedBackground'),
    borderStyle: 'solid',
    borderWidth: '0 0 0 3px',
    overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.deletedForeground'),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  const status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 100);
  status.name = 'hashls review';
  status.command = 'hashls.nextHunk';
  const lensChanged = new vscode.EventEmitter<void>();

  const hover = (doc: vscode.TextDocument, h: ReviewHunk): vscode.MarkdownString => {
    const addedText: string[] = [];
    for (let l = h.line; l < h.line + h.added && l < doc.lineCount; l++) {
      addedText.push(doc.lineAt(l).text);
    }
    const md = new vscode.MarkdownString();
    md.appendMarkdown(`**hashls review**: ${hunkSummary(h)}${h.turns.length ? ` (turn ${h.turns.join(', ')})` : ''}\n\n`);
    md.appendCodeblock(hunkDiff(h, addedText), 'diff');
    return md;
  };

  const render = (ed: vscode.TextEditor): void => {
    const f = reviews.get(ed.document.uri.toString());
    const adds: vscode.DecorationOptions[] = [];
    const dels: vscode.DecorationOptions[] = [];
    const last = Math.max(ed.document.lineCount - 1, 0);
    for (const h of f?.hunks ?? []) {
      const msg = hover(ed.document, h);
      if (h.added > 0) {
        const a = Math.min(h.line, last);
        const b = Math.min(h.line + h.added - 1, last);
        adds.push({ range: new vscode.Range(a, 0, b, 0), hoverMessage: msg });
      }
      if (h.removedLines > 0) {
        // The removed lines stood before h.line: the note goes on the
        // first line put in their place, else on the line after them.
        const at = Math.min(h.line, last);
        dels.push({
          range: new vscode.Range(at, 0, at, 0),
          hoverMessage: msg,
          renderOptions: {
            after: {
              contentText: '  ' + removedMarker(h),
              color: new vscode.ThemeColor('editorError.foreground'),
              fontStyle: 'italic',
            },
          },
        });
      }
    }
    ed.setDecorations(added, adds);
    ed.setDecorations(removed, dels);
  };
  const renderAll = (): void => {
    for (const ed of vscode.window.visibleTextEditors) {
      if (ed.document.uri.scheme === 'file') {
        render(ed);
      }
    }
    const n = reviews.total;
    if (n > 0) {
      const files = reviews.files().length;
      status.text = `$(diff) ${n} to review`;
      status.tooltip = `hashls: ${n} unreviewed change${n === 1 ? '' : 's'} by agents in ${files} file${files === 1 ? '' : 's'}: click for the next (Keep or Undo each)`;
      status.show();
    } else {
      status.hide();
    }
    void vscode.commands.executeCommand('setContext', 'hashls.reviewing', n > 0);
    lensChanged.fire();
  };

  const lenses: vscode.CodeLensProvider = {
    onDidChangeCodeLenses: lensChanged.event,
    provideCodeLenses(doc) {
      const f = reviews.get(doc.uri.toString());
      if (!f) {
        return [];
      }
      const out: vscode.CodeLens[] = [];
      const uri = doc.uri.toString();
      f.hunks.forEach((h, i) => {
        const r = new vscode.Range(Math.min(h.line, Math.max(doc.lineCount - 1, 0)), 0, Math.min(h.line, Math.max(doc.lineCount - 1, 0)), 0);
        out.push(new vscode.CodeLens(r, { title: '$(check) Keep', command: 'hashls.keepHunk', arguments: [{ uri, hunk: h.id }], tooltip: 'Keep this change (it stays as it is)' }));
        out.push(new vscode.CodeLens(r, { title: '$(discard) Undo', command: 'hashls.undoHunk', arguments: [{ uri, hunk: h.id }], tooltip: 'Put back the lines this change replaced (an ordinary edit: Ctrl+Z takes it back)' }));
        if (i === 0 && f.hunks.length > 1) {
          out.push(new vscode.CodeLens(r, { title: `Keep all ${f.hunks.length}`, command: 'hashls.keepFile', arguments: [{ uri }] }));
          out.push(new vscode.CodeLens(r, { title: 'Undo all', command: 'hashls.undoFile', arguments: [{ uri }] }));
        }
        out.push(new vscode.CodeLens(r, { title: `${hunkWho(h)}${f.hunks.length > 1 ? ` (${i + 1}/${f.hunks.length})` : ''}`, command: '' }));
      });
      return out;
    },
  };

  const editorFor = (uri: string): vscode.TextEditor | undefined => vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri);

  /** target resolves a command's hunk: its arguments, else the cursor's. */
  const target = (arg: unknown): { f: ReviewFile; h?: ReviewHunk } | undefined => {
    const a = (arg ?? {}) as HunkArg;
    let uri = typeof a.uri === 'string' ? a.uri : undefined;
    let line = 0;
    const ed = vscode.window.activeTextEditor;
    if (!uri && ed) {
      uri = ed.document.uri.toString();
      line = ed.selection.active.line;
    }
    const f = uri ? reviews.get(uri) : undefined;
    if (!f) {
      return undefined;
    }
    if (typeof a.hunk === 'number') {
      return { f, h: f.hunks.find((h) => h.id === a.hunk) };
    }
    return { f, h: uri ? reviews.hunkAt(uri, line) : undefined };
  };
  const none = () => void vscode.window.showInformationMessage('hashls: no change to review here (the status bar counts them; Hashls: Next Change to Review goes to one)');

  const rootFor = (f: ReviewFile): string | undefined => f.root ?? d.rootOf(vscode.Uri.parse(f.uri));
  const run = async (what: string, f: () => Promise<unknown>): Promise<unknown> => {
    try {
      return await f();
    } catch (err) {
      const next = (err as { data?: { suggestedAction?: unknown } })?.data?.suggestedAction;
      void vscode.window.showErrorMessage(`hashls ${what}: ${errorText(err)}` + (typeof next === 'string' && next ? ` — ${next}` : ''));
      return undefined;
    }
  };
  const refresh = async (root?: string): Promise<void> => {
    try {
      reviews.replaceAll(await d.request(root, 'hashls.review', { action: 'list' }), root);
    } catch (err) {
      d.output.appendLine(`hashls: could not list the review: ${errorText(err)}`);
    }
  };

  const keepOrUndo = (action: 'keep' | 'undo', scope: 'hunk' | 'file') => async (arg?: unknown) => {
    const t = target(arg);
    if (!t || (scope === 'hunk' && !t.h)) {
      return none();
    }
    const args: Record<string, unknown> = { action, uri: t.f.uri };
    if (scope === 'hunk' && t.h) {
      args.hunk = t.h.id;
    }
    return run(`${action} ${scope === 'hunk' ? 'change' : 'all changes of ' + t.f.path}`, () => d.request(rootFor(t.f), 'hashls.review', args));
  };

  /** turnOf is a command's turn: its argument, the cursor's hunk's, the selected Changes entry's, else one picked. */
  const turnOf = async (arg: unknown): Promise<{ turn: string; root?: string } | undefined> => {
    const a = (arg ?? {}) as HunkArg & { root?: string };
    if (typeof a.turn === 'string' && a.turn) {
      return { turn: a.turn, root: a.root };
    }
    const t = target(arg);
    if (t?.h?.turns.length) {
      return { turn: t.h.turns[t.h.turns.length - 1], root: rootFor(t.f) };
    }
    const sel = d.selectedTurn();
    if (sel) {
      return { turn: sel };
    }
    const turns = reviews.turns();
    if (!turns.length) {
      return undefined;
    }
    const pick = await vscode.window.showQuickPick(
      turns.map((x) => ({ label: x.agents.join(', ') || x.turn, description: `${x.hunks} change${x.hunks === 1 ? '' : 's'} in ${x.files} file${x.files === 1 ? '' : 's'} · turn ${x.turn}`, turn: x.turn })),
      { title: 'hashls: which agent turn?' },
    );
    return pick ? { turn: pick.turn } : undefined;
  };

  const undoTurn = async (arg?: unknown): Promise<unknown> => {
    const t = await turnOf(arg);
    if (!t) {
      return none();
    }
    const revert = (force: boolean) => d.request(t.root, 'hashls.revert', force ? { turn: t.turn, force: true } : { turn: t.turn });
    return run('undo turn', async () => {
      const res = (await revert(false)) as { text?: string; details?: { restored?: string[]; skipped?: { path: string; why: string }[] } };
      const restored = res?.details?.restored ?? [];
      const skipped = res?.details?.skipped ?? [];
      if (skipped.length) {
        const pick = await vscode.window.showWarningMessage(
          `hashls: undid turn ${t.turn} in ${restored.join(', ') || 'no file'}; left alone (changed since): ${skipped.map((s) => `${s.path} (${s.why})`).join('; ')}`,
          'Restore Them Too',
        );
        if (pick) {
          return revert(true);
        }
      } else {
        void vscode.window.showInformationMessage(`hashls: undid turn ${t.turn}: ${restored.join(', ')} restored`);
      }
      return res;
    });
  };

  const go = async (dir: 1 | -1): Promise<HunkAt | undefined> => {
    const ed = vscode.window.activeTextEditor;
    const at = reviews.next(ed?.document.uri.toString(), ed ? ed.selection.active.line : 0, dir);
    if (!at) {
      none();
      return undefined;
    }
    const pos = new vscode.Position(at.hunk.line, 0);
    const uri = vscode.Uri.parse(at.file.uri);
    const existing = editorFor(uri.toString());
    const e2 = existing && existing === ed ? existing : await vscode.window.showTextDocument(uri, { preview: false, viewColumn: existing?.viewColumn });
    e2.selection = new vscode.Selection(pos, pos);
    e2.revealRange(new vscode.Range(pos, new vscode.Position(hunkLast(at.hunk), 0)), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    return at;
  };

  context.subscriptions.push(
    added,
    removed,
    status,
    lensChanged,
    vscode.languages.registerCodeLensProvider({ scheme: 'file' }, lenses),
    vscode.window.onDidChangeVisibleTextEditors(() => renderAll()),
    { dispose: reviews.onChange(renderAll) },
    vscode.commands.registerCommand('hashls.keepHunk', keepOrUndo('keep', 'hunk')),
    vscode.commands.registerCommand('hashls.undoHunk', keepOrUndo('undo', 'hunk')),
    vscode.commands.registerCommand('hashls.keepFile', keepOrUndo('keep', 'file')),
    vscode.commands.registerCommand('hashls.undoFile', keepOrUndo('undo', 'file')),
    vscode.commands.registerCommand('hashls.keepTurn', async (arg?: unknown) => {
      const t = await turnOf(arg);
      return t ? run('keep turn', () => d.request(t.root, 'hashls.review', { action: 'keep', turn: t.turn })) : none();
    }),
    vscode.commands.registerCommand('hashls.undoTurn', undoTurn),
    vscode.commands.registerCommand('hashls.keepAllChanges', async () => {
      const roots = new Set(reviews.files().map((f) => f.root));
      for (const r of roots) {
        await run('keep all', () => d.request(r, 'hashls.review', { action: 'keep' }));
      }
    }),
    vscode.commands.registerCommand('hashls.nextHunk', () => go(1)),
    vscode.commands.registerCommand('hashls.previousHunk', () => go(-1)),
    vscode.commands.registerCommand('hashls.refreshReview', async (root?: string) => refresh(typeof root === 'string' ? root : undefined)),
  );
  renderAll();
}

