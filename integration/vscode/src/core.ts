// The extension's logic without the vscode API: the agent panel's model
// (hashls/activity entries), the texts it shows, and the executeCommand
// middleware that turns server command results into editor actions through
// a small Host interface. extension.ts implements Host with vscode; the
// tests implement it with plain objects and drive this file against fakes
// and against the real server.

/** An LSP position (0-based line, UTF-16 character). */
export interface LspPosition {
  line: number;
  character: number;
}

/** An LSP range. */
export interface LspRange {
  start: LspPosition;
  end: LspPosition;
}

// ---------------------------------------------------------------------------
// Agent panel model

/** One hashls/activity notification, normalized. */
export interface ActivityEntry {
  seq: number;
  /** Local wall-clock time it arrived, HH:MM:SS. */
  time: string;
  tool: string;
  paths: string[];
  /** "ok" or "error" (anything else the server sends is kept as is). */
  outcome: string;
  errorKind?: string;
  message?: string;
  auditIds: number[];
  diff: string;
  durationMs?: number;
  /** Who made the change: "lsp" (this server's own runs), "cli", "mcp", "hub", "recovery". */
  transport: string;
  /** The run's time, RFC 3339 (the server's or the audit log's, else when it arrived). */
  iso: string;
  /** True when the entry came from another process (seen in the store) or from history. */
  external: boolean;
  /** The workspace folder (URI string) whose server reported it; undefined with one folder. */
  root?: string;
  /** Who asked for the run: an MCP client's name, the CLI's HASHLS_AGENT (undefined: the person, or unnamed). */
  agent?: string;
  /** The agent turn its changes belong to (hashls.revert {turn} undoes it). */
  turn?: string;
  /** The tool only reads (read, search, find, ...): hidden unless the filter asks for reads. */
  readOnly: boolean;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function pad2(n: number): string {
  return n < 10 ? '0' + n : String(n);
}

/** clock formats a date as local HH:MM:SS. */
export function clock(d: Date): string {
  return `${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`;
}

/**
 * normalizeActivity turns hashls/activity params (untrusted JSON) into an
 * entry; it returns undefined for anything that is not an object.
 */
export function normalizeActivity(params: unknown, seq: number, now: Date): ActivityEntry | undefined {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    return undefined;
  }
  const p = params as Record<string, unknown>;
  const paths = Array.isArray(p.paths) ? p.paths.filter((x): x is string => typeof x === 'string') : [];
  const auditIds = Array.isArray(p.auditIds)
    ? p.auditIds.filter((x): x is number => typeof x === 'number' && Number.isFinite(x))
    : [];
  const d = p.durationMs;
  const iso = str(p.time);
  const at = iso !== undefined && !Number.isNaN(Date.parse(iso)) ? new Date(iso) : now;
  return {
    seq,
    time: clock(at),
    tool: str(p.tool) ?? '?',
    paths,
    outcome: str(p.outcome) ?? '?',
    errorKind: str(p.errorKind),
    message: str(p.message),
    auditIds,
    diff: typeof p.diff === 'string' ? p.diff : '',
    durationMs: typeof d === 'number' && Number.isFinite(d) && d >= 0 ? d : undefined,
    transport: str(p.transport) ?? 'lsp',
    iso: at.toISOString(),
    external: p.external === true,
    agent: str(p.agent),
    turn: str(p.turn),
    readOnly: p.readOnly === true,
  };
}

/**
 * auditRowActivity turns one hashls.audit row ({id, tool, path, time,
 * transport}) into activity params: one change, outcome ok, no diff (the
 * panel fetches before/after with hashls.audit {id}). undefined for a
 * malformed row.
 */
export function auditRowActivity(row: unknown): Record<string, unknown> | undefined {
  const r = row as { id?: unknown; tool?: unknown; path?: unknown; time?: unknown; transport?: unknown; agent?: unknown; turn?: unknown } | null;
  if (typeof r !== 'object' || r === null || typeof r.id !== 'number' || !Number.isInteger(r.id)) {
    return undefined;
  }
  return {
    tool: r.tool,
    paths: typeof r.path === 'string' ? [r.path] : [],
    outcome: 'ok',
    auditIds: [r.id],
    time: r.time,
    transport: r.transport,
    agent: r.agent,
    turn: r.turn,
    external: true,
  };
}

/** auditEntries is details.entries of a hashls.audit result ([] for anything else). */
export function auditEntries(res: unknown): unknown[] {
  const d = (res as { details?: { entries?: unknown } } | null)?.details;
  return d && Array.isArray(d.entries) ? d.entries : [];
}

/**
 * ChangeFilter narrows the panel: substrings of a path, exact tool,
 * transport and agent. Runs that only read (read, search, find, ...) are
 * hidden unless reads is set or the tool filter names their tool.
 */
export interface ChangeFilter {
  path?: string;
  tool?: string;
  transport?: string;
  agent?: string;
  reads?: boolean;
}

/** matchesFilter says whether an entry passes every set field of f. */
export function matchesFilter(e: ActivityEntry, f: ChangeFilter): boolean {
  if (e.readOnly && !f.reads && f.tool !== e.tool) {
    return false;
  }
  if (f.tool && e.tool !== f.tool) {
    return false;
  }
  if (f.agent && (e.agent ?? '') !== f.agent) {
    return false;
  }
  if (f.transport && e.transport !== f.transport) {
    return false;
  }
  if (f.path) {
    const want = f.path.toLowerCase();
    if (!e.paths.some((p) => p.toLowerCase().includes(want))) {
      return false;
    }
  }
  return true;
}

/** filterText describes a filter for the view's title ("" when none is set). */
export function filterText(f: ChangeFilter): string {
  const parts: string[] = [];
  if (f.path) {
    parts.push(`path ~ ${f.path}`);
  }
  if (f.tool) {
    parts.push(`tool ${f.tool}`);
  }
  if (f.transport) {
    parts.push(`via ${f.transport}`);
  }
  if (f.agent) {
    parts.push(`by ${f.agent}`);
  }
  if (f.reads) {
    parts.push('with reads');
  }
  return parts.join(', ');
}

/**
 * ActivityLog keeps the newest entries first, at most max of them. Entries
 * come live (add: hashls/activity) and from the audit log (addHistory); an
 * audit id is listed once, whichever came first. unseen counts live changes
 * since markSeen (the view's badge); filter narrows visible().
 */
export class ActivityLog {
  private list: ActivityEntry[] = [];
  private seq = 0;
  private listeners = new Set<() => void>();
  private ids = new Set<string>();
  private filterValue: ChangeFilter = {};
  private unseenCount = 0;

  constructor(private max = 200) {}

  /** entries, newest first. */
  get entries(): readonly ActivityEntry[] {
    return this.list;
  }

  /** visible is the entries that pass the filter, newest first. */
  visible(): ActivityEntry[] {
    return this.list.filter((e) => matchesFilter(e, this.filterValue));
  }

  get filter(): ChangeFilter {
    return { ...this.filterValue };
  }

  setFilter(f: ChangeFilter): void {
    const clean: ChangeFilter = {};
    for (const k of ['path', 'tool', 'transport', 'agent'] as const) {
      const v = f[k]?.trim();
      if (v) {
        clean[k] = v;
      }
    }
    if (f.reads) {
      clean.reads = true;
    }
    this.filterValue = clean;
    this.changed();
  }

  /** unseen is how many live changes arrived since markSeen. */
  get unseen(): number {
    return this.unseenCount;
  }

  markSeen(): void {
    if (this.unseenCount !== 0) {
      this.unseenCount = 0;
      this.changed();
    }
  }

  /** values lists the distinct values of a field, sorted (the filter's choices). */
  values(field: 'tool' | 'transport' | 'agent'): string[] {
    return [...new Set(this.list.map((e) => e[field]).filter((v): v is string => !!v))].sort();
  }

  /**
   * add records one notification; it returns the entry (undefined when params
   * are not an object or all its audit ids are listed already).
   */
  add(params: unknown, now: Date = new Date(), root?: string): ActivityEntry | undefined {
    const e = this.insert(params, now, root);
    if (!e) {
      return undefined;
    }
    if (e.auditIds.length > 0) {
      this.unseenCount++;
    }
    this.trim();
    this.changed();
    return e;
  }

  /**
   * addHistory records audit rows (details.entries of hashls.audit) not
   * listed yet, in time order; it returns how many it added.
   */
  addHistory(rows: readonly unknown[], root?: string, now: Date = new Date()): number {
    let n = 0;
    for (const row of [...rows].reverse()) {
      if (this.insert(auditRowActivity(row), now, root)) {
        n++;
      }
    }
    if (n > 0) {
      this.list.sort((a, b) => order(b) - order(a) || b.seq - a.seq);
      this.trim();
      this.changed();
    }
    return n;
  }

  /** maxAuditId is the newest audit id listed for root (0: none). */
  maxAuditId(root?: string): number {
    let max = 0;
    for (const e of this.list) {
      if (e.root === root) {
        for (const id of e.auditIds) {
          max = Math.max(max, id);
        }
      }
    }
    return max;
  }

  get(seq: number): ActivityEntry | undefined {
    return this.list.find((e) => e.seq === seq);
  }

  clear(): void {
    this.list = [];
    this.ids.clear();
    this.unseenCount = 0;
    this.changed();
  }

  setMax(max: number): void {
    this.max = Number.isFinite(max) && max >= 1 ? Math.floor(max) : 200;
    if (this.trim()) {
      this.changed();
    }
  }

  /** onChange calls listener after every change; the result unsubscribes. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private insert(params: unknown, now: Date, root: string | undefined): ActivityEntry | undefined {
    const e = normalizeActivity(params, this.seq + 1, now);
    if (!e) {
      return undefined;
    }
    e.root = root;
    const keys = e.auditIds.map((id) => `${root ?? ''}#${id}`);
    if (keys.length > 0 && keys.every((k) => this.ids.has(k))) {
      return undefined;
    }
    for (const k of keys) {
      this.ids.add(k);
    }
    this.seq = e.seq;
    this.list.unshift(e);
    return e;
  }

  private trim(): boolean {
    if (this.list.length <= this.max) {
      return false;
    }
    this.list.length = this.max;
    return true;
  }

  private changed(): void {
    for (const l of [...this.listeners]) {
      try {
        l();
      } catch {
        // a broken listener must not stop the others
      }
    }
  }
}

function order(e: ActivityEntry): number {
  return Date.parse(e.iso);
}

/** formatDuration shows milliseconds compactly: 0.4 ms, 12 ms, 1.3 s. */
export function formatDuration(ms: number | undefined): string {
  if (ms === undefined) {
    return '';
  }
  if (ms < 1) {
    return `${ms.toFixed(1)} ms`;
  }
  if (ms < 1000) {
    return `${Math.round(ms)} ms`;
  }
  return `${(ms / 1000).toFixed(1)} s`;
}

/** outcomeText is "ok", "error" or "error (stale)". */
export function outcomeText(e: ActivityEntry): string {
  return e.errorKind ? `${e.outcome} (${e.errorKind})` : e.outcome;
}

/** activityLabel is the panel row's main text: "12:03:04  edit  ok". */
export function activityLabel(e: ActivityEntry): string {
  return `${e.time}  ${e.tool}  ${outcomeText(e)}`;
}

/** activityDescription is the row's secondary text: paths, audit ids, duration. */
export function activityDescription(e: ActivityEntry): string {
  const parts: string[] = [whoText(e)];
  if (e.paths.length > 0) {
    parts.push(e.paths.length > 3 ? `${e.paths.slice(0, 3).join(', ')} +${e.paths.length - 3}` : e.paths.join(', '));
  }
  if (e.auditIds.length > 0) {
    parts.push('audit ' + e.auditIds.map((id) => '#' + id).join(' '));
  }
  if (e.durationMs !== undefined) {
    parts.push(formatDuration(e.durationMs));
  }
  return parts.join(' · ');
}

/** whoText names who made a run: "claude-code via mcp", or the transport alone. */
export function whoText(e: ActivityEntry): string {
  return e.agent ? `${e.agent} via ${e.transport}` : e.transport;
}

/** activityTooltip is every field of an entry, one per line. */
export function activityTooltip(e: ActivityEntry): string {
  const lines = [`${e.tool} — ${outcomeText(e)} at ${e.iso} via ${e.transport}${e.agent ? ` by ${e.agent}` : ''}${e.external ? ' (another process)' : ''}`];
  if (e.turn) {
    lines.push(`turn: ${e.turn} (Undo This Turn restores every file it changed)`);
  }
  if (e.durationMs !== undefined) {
    lines.push(`duration: ${formatDuration(e.durationMs)}`);
  }
  if (e.paths.length > 0) {
    lines.push(`paths: ${e.paths.join(', ')}`);
  }
  if (e.auditIds.length > 0) {
    lines.push(`audit ids: ${e.auditIds.join(', ')}`);
  }
  if (e.message) {
    lines.push(`message: ${e.message}`);
  }
  lines.push(e.auditIds.length > 0 ? 'select to open the side-by-side diff' : e.diff ? 'select to open the diff' : 'select to open the details');
  return lines.join('\n');
}

/**
 * activityDocument is the text of the virtual document an entry opens: the
 * diff when the tool changed something, else a diff-comment summary.
 */
export function activityDocument(e: ActivityEntry): string {
  if (e.diff) {
    return e.diff.endsWith('\n') ? e.diff : e.diff + '\n';
  }
  const lines = [`# hashls ${e.tool}: ${outcomeText(e)} at ${e.time}`];
  if (e.paths.length > 0) {
    lines.push(`# paths: ${e.paths.join(', ')}`);
  }
  if (e.auditIds.length > 0) {
    lines.push(`# audit ids: ${e.auditIds.join(', ')}`);
  }
  if (e.message) {
    for (const l of e.message.split('\n')) {
      lines.push('# ' + l);
    }
  }
  lines.push('# (no diff)');
  return lines.join('\n') + '\n';
}

/** activityPath is the virtual document path of an entry's diff (ends in .diff: language diff). */
export function activityPath(e: ActivityEntry): string {
  return `/activity/${e.seq}/${safeName(`${e.tool}-${e.seq}`)}.diff`;
}

/** safeName makes a label usable as one URI path segment. */
export function safeName(label: string): string {
  const s = label.replace(/[\\/]/g, '∕').replace(/[\u0000-\u001f?#%]/g, '_').trim();
  return (s === '' ? 'result' : s).slice(0, 120);
}

/**
 * firstChangedLine is the 1-based line of the new text where a unified diff's
 * first hunk starts (1 without a hunk).
 */
export function firstChangedLine(diff: string): number {
  const m = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/m.exec(diff);
  if (!m) {
    return 1;
  }
  return Math.max(1, Number(m[1]));
}

/** AuditDetail is hashls.audit {id}'s answer: one change with its texts. */
export interface AuditDetail {
  id: number;
  tool: string;
  path: string;
  transport: string;
  /** The file's text before (undefined: it did not exist, or see beforeUnavailable). */
  before?: string;
  after?: string;
  beforeUnavailable?: string;
  afterUnavailable?: string;
  diff: string;
}

/** parseAuditDetail checks a hashls.audit {id} result; it throws when it holds no such row. */
export function parseAuditDetail(res: unknown, id: number): AuditDetail {
  const d = (res as { details?: Record<string, unknown> } | null)?.details;
  const row = auditEntries(res).find((r) => (r as { id?: unknown })?.id === id) as Record<string, unknown> | undefined;
  if (!d || !row) {
    throw new Error(`hashls.audit {"id": ${id}} returned no row ${id}; this server may not keep changes' texts (update hashls)`);
  }
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return {
    id,
    tool: text(row.tool) ?? '?',
    path: text(row.path) ?? '',
    transport: text(row.transport) ?? '',
    before: text(d.before),
    after: text(d.after),
    beforeUnavailable: text(d.beforeUnavailable),
    afterUnavailable: text(d.afterUnavailable),
    diff: text(d.diff) ?? '',
  };
}

/** sideText is what one side of a change's diff shows. */
export function sideText(text: string | undefined, unavailable: string | undefined): string {
  if (text !== undefined) {
    return text;
  }
  return unavailable ? `(${unavailable})\n` : '';
}

/** SearchMatch is one match row of a search result. */
export interface SearchMatch {
  path: string;
  /** 1-based line. */
  line: number;
  text: string;
}

/**
 * searchMatches lists details.matches of a hashls.search_files result (the
 * matching lines as data, in output order; [] for anything else).
 */
export function searchMatches(res: unknown): SearchMatch[] {
  const m = (res as { details?: { matches?: unknown } } | null)?.details?.matches;
  if (!Array.isArray(m)) {
    return [];
  }
  return m
    .filter((x): x is SearchMatch => !!x && typeof x.path === 'string' && typeof x.line === 'number' && typeof x.text === 'string')
    .map(({ path, line, text }) => ({ path, line, text }));
}

// ---------------------------------------------------------------------------
// Tool arguments: a small JSON Schema check (the subset the tools' schemas use)

/** JsonSchema is the part of JSON Schema the tools' argument schemas use. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
}

/**
 * toolSchemas maps each tool's name to its argument schema from a
 * hashls.toolSchemas result ({tools: [{name, description, inputSchema}]});
 * anything else gives an empty map.
 */
export function toolSchemas(res: unknown): Map<string, JsonSchema> {
  const out = new Map<string, JsonSchema>();
  const tools = (res as { tools?: unknown } | null)?.tools;
  if (Array.isArray(tools)) {
    for (const t of tools) {
      if (t && typeof t.name === 'string' && t.inputSchema && typeof t.inputSchema === 'object') {
        out.set(t.name, t.inputSchema as JsonSchema);
      }
    }
  }
  return out;
}

function typeOf(v: unknown): string {
  if (v === null) {
    return 'null';
  }
  if (Array.isArray(v)) {
    return 'array';
  }
  return typeof v;
}

function typeOk(v: unknown, t: string): boolean {
  switch (t) {
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    default:
      return typeOf(v) === t;
  }
}

/**
 * schemaErrors checks value against schema and returns what is wrong, one
 * message per problem with its JSON path ([] when it is valid). Keywords
 * outside the subset are ignored: the server checks arguments again.
 */
export function schemaErrors(schema: JsonSchema | undefined, value: unknown, at = '$'): string[] {
  if (!schema || typeof schema !== 'object') {
    return [];
  }
  const errs: string[] = [];
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((t) => typeOk(value, t))) {
      return [`${at}: must be ${types.join(' or ')}, not ${typeOf(value)}`];
    }
  }
  if (schema.enum && !schema.enum.some((x) => JSON.stringify(x) === JSON.stringify(value))) {
    errs.push(`${at}: must be one of ${schema.enum.map((x) => JSON.stringify(x)).join(', ')}`);
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) {
      errs.push(`${at}: must be at least ${schema.minimum}`);
    }
    if (schema.maximum !== undefined && value > schema.maximum) {
      errs.push(`${at}: must be at most ${schema.maximum}`);
    }
  }
  for (const [kw, list] of [['oneOf', schema.oneOf], ['anyOf', schema.anyOf]] as const) {
    if (list && !list.some((s) => schemaErrors(s, value, at).length === 0)) {
      errs.push(`${at}: matches none of the ${kw} choices`);
    }
  }
  if (typeOf(value) === 'object') {
    const obj = value as Record<string, unknown>;
    for (const k of schema.required ?? []) {
      if (!(k in obj)) {
        errs.push(`${at}: missing required "${k}"`);
      }
    }
    const props = schema.properties ?? {};
    for (const [k, v] of Object.entries(obj)) {
      if (k in props) {
        errs.push(...schemaErrors(props[k], v, `${at}.${k}`));
      } else if (schema.additionalProperties === false) {
        const known = Object.keys(props);
        errs.push(`${at}: unknown argument "${k}"` + (known.length ? ` (known: ${known.join(', ')})` : ''));
      } else if (typeof schema.additionalProperties === 'object') {
        errs.push(...schemaErrors(schema.additionalProperties, v, `${at}.${k}`));
      }
    }
  }
  if (Array.isArray(value) && schema.items) {
    value.forEach((v, i) => errs.push(...schemaErrors(schema.items, v, `${at}[${i}]`)));
  }
  return errs;
}

/**
 * checkToolArgs parses console input (a JSON object) and checks it against
 * the tool's schema: the parsed arguments, or the first problem as a message.
 */
export function checkToolArgs(input: string, schema: JsonSchema | undefined): { args?: Record<string, unknown>; error?: string } {
  let v: unknown;
  try {
    v = JSON.parse(input.trim() === '' ? '{}' : input);
  } catch (err) {
    return { error: `not JSON: ${(err as Error).message}` };
  }
  if (typeOf(v) !== 'object') {
    return { error: `the arguments must be one JSON object ({...}), not ${typeOf(v)}` };
  }
  const errs = schemaErrors(schema, v);
  if (errs.length > 0) {
    return { error: errs.length > 1 ? `${errs[0]} (+${errs.length - 1} more)` : errs[0] };
  }
  return { args: v as Record<string, unknown> };
}

// ---------------------------------------------------------------------------
// Virtual documents (the hashls: scheme)

/** DocStore holds the text of hashls: virtual documents by path. */
export class DocStore {
  private docs = new Map<string, string>();
  private seq = 0;
  private max: number;

  constructor(max = 100) {
    this.max = max;
  }

  /** put stores a result under /<kind>/<n>/<label> and returns that path. */
  put(kind: string, label: string, text: string): string {
    this.seq++;
    const path = `/${safeName(kind)}/${this.seq}/${safeName(label)}`;
    this.set(path, text);
    return path;
  }

  set(path: string, text: string): void {
    this.docs.delete(path);
    this.docs.set(path, text);
    while (this.docs.size > this.max) {
      const oldest = this.docs.keys().next().value as string;
      this.docs.delete(oldest);
    }
  }

  get(path: string): string | undefined {
    return this.docs.get(path);
  }
}

// ---------------------------------------------------------------------------
// Results and errors

/** errorText is a server error as one line: its message plus [kind]. */
export function errorText(err: unknown): string {
  if (err instanceof Error || (typeof err === 'object' && err !== null)) {
    const e = err as { message?: unknown; data?: unknown };
    const msg = typeof e.message === 'string' && e.message !== '' ? e.message : String(err);
    const data = e.data as { kind?: unknown } | undefined;
    const kind = data && typeof data === 'object' && typeof data.kind === 'string' ? data.kind : undefined;
    return kind ? `${msg} [${kind}]` : msg;
  }
  return String(err);
}

/** resultText is the text of a {text, details} result (JSON for anything else). */
export function resultText(res: unknown): string {
  if (typeof res === 'object' && res !== null && typeof (res as { text?: unknown }).text === 'string') {
    return (res as { text: string }).text;
  }
  if (res === undefined || res === null) {
    return '';
  }
  return JSON.stringify(res, null, 2);
}

function isPos(p: unknown): p is LspPosition {
  const q = p as LspPosition;
  return typeof q === 'object' && q !== null && Number.isInteger(q.line) && Number.isInteger(q.character) && q.line >= 0 && q.character >= 0;
}

function isRange(r: unknown): r is LspRange {
  const q = r as LspRange;
  return typeof q === 'object' && q !== null && isPos(q.start) && isPos(q.end);
}

/** SelectResult is hashls.selectBlock's result. */
export interface SelectResult {
  uri: string;
  range: LspRange;
  startLine: number;
  endLine: number;
}

/** parseSelectResult checks a hashls.selectBlock result; it throws on a malformed one. */
export function parseSelectResult(res: unknown, fallbackUri: string): SelectResult {
  const r = res as Partial<SelectResult> | null;
  if (typeof r !== 'object' || r === null || !isRange(r.range)) {
    throw new Error(`hashls.selectBlock returned no range: ${JSON.stringify(res)}`);
  }
  return {
    uri: typeof r.uri === 'string' && r.uri !== '' ? r.uri : fallbackUri,
    range: r.range,
    startLine: Number.isInteger(r.startLine) ? (r.startLine as number) : r.range.start.line + 1,
    endLine: Number.isInteger(r.endLine) ? (r.endLine as number) : r.range.end.line + 1,
  };
}

/** AnchorResult is hashls.copyBlockAnchor's result. */
export interface AnchorResult {
  text: string;
  anchor: string;
  tag: string;
  path: string;
  startLine: number;
  endLine: number;
  range?: LspRange;
}

/** parseAnchorResult checks a hashls.copyBlockAnchor result; it throws on a malformed one. */
export function parseAnchorResult(res: unknown): AnchorResult {
  const r = res as Partial<AnchorResult> | null;
  if (typeof r !== 'object' || r === null || typeof r.text !== 'string' || r.text === '') {
    throw new Error(`hashls.copyBlockAnchor returned no anchor text: ${JSON.stringify(res)}`);
  }
  if (typeof r.anchor !== 'string' || typeof r.tag !== 'string' || typeof r.path !== 'string') {
    throw new Error(`hashls.copyBlockAnchor returned no anchor, tag or path: ${JSON.stringify(res)}`);
  }
  return {
    text: r.text,
    anchor: r.anchor,
    tag: r.tag,
    path: r.path,
    startLine: Number.isInteger(r.startLine) ? (r.startLine as number) : 0,
    endLine: Number.isInteger(r.endLine) ? (r.endLine as number) : 0,
    range: isRange(r.range) ? r.range : undefined,
  };
}

/** tagOf is the tag a read result shows its file under (the typed `shown` list). */
export function tagOf(res: unknown): string | undefined {
  const shown = (res as { shown?: unknown } | null)?.shown;
  if (Array.isArray(shown) && shown.length > 0 && typeof shown[0]?.tag === 'string' && shown[0].tag !== '') {
    return shown[0].tag;
  }
  return undefined;
}

/** firstLine is the first line of a text. */
export function firstLine(text: string): string {
  const i = text.indexOf('\n');
  return i < 0 ? text : text.slice(0, i);
}

// ---------------------------------------------------------------------------
// Review: other callers' changes, hunk by hunk (hashls/review)

/** One unreviewed hunk (the server's ReviewHunk). */
export interface ReviewHunk {
  id: number;
  /** 0-based first line of the text the change put in (for a pure deletion: the line the removed lines stood before). */
  line: number;
  /** How many lines the change put in, from line on. */
  added: number;
  /** The text the change removed (whole lines with their breaks). */
  removed: string;
  removedLines: number;
  removedCut: boolean;
  /** Who made it: agent names, else transports. */
  agents: string[];
  turns: string[];
  tools: string[];
}

/** One file's unreviewed hunks (hashls/review params). */
export interface ReviewFile {
  uri: string;
  path: string;
  /** The open document's version the lines refer to (undefined: the file on disk's). */
  version?: number;
  hunks: ReviewHunk[];
  /** The server's count of unreviewed hunks in every file. */
  total: number;
  /** The workspace folder (URI string) whose server sent it. */
  root?: string;
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function count(v: unknown): number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : 0;
}

/** normalizeReview checks hashls/review params (untrusted JSON); undefined for anything malformed. */
export function normalizeReview(params: unknown): ReviewFile | undefined {
  const p = params as Record<string, unknown> | null;
  if (typeof p !== 'object' || p === null || typeof p.uri !== 'string' || !Array.isArray(p.hunks)) {
    return undefined;
  }
  const hunks: ReviewHunk[] = [];
  for (const h of p.hunks as Record<string, unknown>[]) {
    if (typeof h !== 'object' || h === null || typeof h.id !== 'number') {
      continue;
    }
    hunks.push({
      id: h.id,
      line: count(h.line),
      added: count(h.added),
      removed: typeof h.removed === 'string' ? h.removed : '',
      removedLines: count(h.removedLines),
      removedCut: h.removedCut === true,
      agents: strings(h.agents),
      turns: strings(h.turns),
      tools: strings(h.tools),
    });
  }
  hunks.sort((a, b) => a.line - b.line || a.added - b.added);
  return {
    uri: p.uri,
    path: typeof p.path === 'string' ? p.path : '',
    version: typeof p.version === 'number' ? p.version : undefined,
    hunks,
    total: count(p.total),
  };
}

/** splitLines splits a text into its lines (without breaks; no empty last line for a final break). */
export function splitLines(text: string): string[] {
  if (text === '') {
    return [];
  }
  const lines = text.split(/\r\n|\r|\n/);
  if (lines[lines.length - 1] === '') {
    lines.pop();
  }
  return lines;
}

/** hunkLast is the last line a hunk covers in the current text (its first line for a pure deletion). */
export function hunkLast(h: ReviewHunk): number {
  return h.line + Math.max(h.added, 1) - 1;
}

/** hunkWho names who made a hunk and with which tools: "claude-code · edit". */
export function hunkWho(h: ReviewHunk): string {
  const who = h.agents.length ? h.agents.join(', ') : 'another process';
  return h.tools.length ? `${who} · ${h.tools.join(', ')}` : who;
}

/** hunkSummary describes a hunk in a line: "+2 −1 lines by claude-code · edit". */
export function hunkSummary(h: ReviewHunk): string {
  const parts: string[] = [];
  if (h.added) {
    parts.push(`+${h.added}`);
  }
  if (h.removedLines) {
    parts.push(`−${h.removedLines}`);
  }
  return `${parts.join(' ')} line${h.added + h.removedLines === 1 ? '' : 's'} by ${hunkWho(h)}`;
}

/** removedMarker is the short text shown where a hunk removed lines: "− 2 lines: func a() {} …". */
export function removedMarker(h: ReviewHunk): string {
  const lines = splitLines(h.removed);
  const first = (lines[0] ?? '').trim();
  const shown = first.length > 60 ? first.slice(0, 59) + '…' : first;
  return `− ${h.removedLines} line${h.removedLines === 1 ? '' : 's'}: ${shown}${h.removedLines > 1 ? ' …' : ''}`;
}

/** hunkDiff is a hunk as a small unified diff body (for hovers): removed lines with -, added with +. */
export function hunkDiff(h: ReviewHunk, addedText: readonly string[]): string {
  const out = splitLines(h.removed).map((l) => '-' + l);
  if (h.removedCut) {
    out.push('-…');
  }
  for (const l of addedText) {
    out.push('+' + l);
  }
  return out.join('\n');
}

/** A hunk with its file, as navigation returns it. */
export interface HunkAt {
  file: ReviewFile;
  hunk: ReviewHunk;
}

/**
 * ReviewStore keeps every file's unreviewed hunks (the newest hashls/review
 * of each), per folder server; total is the sum of the servers' totals.
 */
export class ReviewStore {
  private byUri = new Map<string, ReviewFile>();
  private totals = new Map<string, number>();
  private listeners = new Set<() => void>();

  /** key normalizes a URI for lookups (canonical is how the editor spells it). */
  constructor(private canonical: (uri: string) => string = (u) => u) {}

  update(params: unknown, root?: string): ReviewFile | undefined {
    const f = normalizeReview(params);
    if (!f) {
      return undefined;
    }
    f.root = root;
    const key = this.canonical(f.uri);
    if (f.hunks.length) {
      this.byUri.set(key, f);
    } else {
      this.byUri.delete(key);
    }
    this.totals.set(root ?? '', f.total);
    this.changed();
    return f;
  }

  /** replaceAll sets a folder's review from hashls.review {action: "list"}. */
  replaceAll(res: unknown, root?: string): void {
    for (const [k, f] of this.byUri) {
      if (f.root === root) {
        this.byUri.delete(k);
      }
    }
    const r = res as { files?: unknown; total?: unknown } | null;
    for (const raw of Array.isArray(r?.files) ? r.files : []) {
      const f = normalizeReview(raw);
      if (f && f.hunks.length) {
        f.root = root;
        this.byUri.set(this.canonical(f.uri), f);
      }
    }
    this.totals.set(root ?? '', count(r?.total));
    this.changed();
  }

  /** clear forgets a folder's review (its server stopped). */
  clear(root?: string): void {
    for (const [k, f] of this.byUri) {
      if (f.root === root) {
        this.byUri.delete(k);
      }
    }
    this.totals.delete(root ?? '');
    this.changed();
  }

  get(uri: string): ReviewFile | undefined {
    return this.byUri.get(this.canonical(uri));
  }

  /** files with hunks, by path. */
  files(): ReviewFile[] {
    return [...this.byUri.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  get total(): number {
    let n = 0;
    for (const v of this.totals.values()) {
      n += v;
    }
    return n;
  }

  /** hunkAt is the hunk covering a 0-based line of uri, else the nearest one in the file. */
  hunkAt(uri: string, line: number): ReviewHunk | undefined {
    const f = this.get(uri);
    if (!f) {
      return undefined;
    }
    let best: ReviewHunk | undefined;
    let dist = Infinity;
    for (const h of f.hunks) {
      const d = line < h.line ? h.line - line : line > hunkLast(h) ? line - hunkLast(h) : 0;
      if (d < dist) {
        best = h;
        dist = d;
      }
    }
    return best;
  }

  /**
   * next is the hunk after (dir 1) or before (dir -1) the 0-based line of
   * uri, going on through the other files (by path) and wrapping around.
   */
  next(uri: string | undefined, line: number, dir: 1 | -1): HunkAt | undefined {
    const files = this.files();
    if (!files.length) {
      return undefined;
    }
    const key = uri === undefined ? undefined : this.canonical(uri);
    let i = files.findIndex((f) => this.canonical(f.uri) === key);
    if (i >= 0) {
      const hs = dir > 0 ? files[i].hunks.filter((h) => h.line > line) : files[i].hunks.filter((h) => hunkLast(h) < line).reverse();
      if (hs.length) {
        return { file: files[i], hunk: hs[0] };
      }
    } else {
      i = dir > 0 ? -1 : 0;
      if (uri !== undefined) {
        // A file without hunks: the next file by path.
        const p = files.findIndex((f) => this.canonical(f.uri) > (key ?? ''));
        i = dir > 0 ? (p < 0 ? files.length : p) - 1 : p < 0 ? files.length : p;
      }
    }
    for (let k = 1; k <= files.length; k++) {
      const f = files[(((i + dir * k) % files.length) + files.length) % files.length];
      const h = dir > 0 ? f.hunks[0] : f.hunks[f.hunks.length - 1];
      if (h) {
        return { file: f, hunk: h };
      }
    }
    return undefined;
  }

  /** turns lists the turns with unreviewed hunks, with their agents and hunk counts. */
  turns(): { turn: string; agents: string[]; hunks: number; files: number }[] {
    const m = new Map<string, { turn: string; agents: string[]; hunks: number; files: Set<string> }>();
    for (const f of this.byUri.values()) {
      for (const h of f.hunks) {
        for (const t of h.turns) {
          const e = m.get(t) ?? { turn: t, agents: [], hunks: 0, files: new Set<string>() };
          e.hunks++;
          e.files.add(f.uri);
          for (const a of h.agents) {
            if (!e.agents.includes(a)) {
              e.agents.push(a);
            }
          }
          m.set(t, e);
        }
      }
    }
    return [...m.values()].map((e) => ({ turn: e.turn, agents: e.agents, hunks: e.hunks, files: e.files.size }));
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const l of [...this.listeners]) {
      try {
        l();
      } catch {
        // a broken listener must not stop the others
      }
    }
  }
}

/**
 * hashlineTarget is the file line a row of a hashline result names (read,
 * search, outline): the row at 0-based index i ("N:", "A-B:", " N:", "*N:")
 * under the nearest ¶PATH#TAG or [PATH#TAG] header above it; the header
 * itself names line 1. undefined when neither is found.
 */
export function hashlineTarget(lines: readonly string[], i: number): { path: string; line: number } | undefined {
  const header = (l: string): string | undefined => {
    const m = /^¶(.+)#[0-9A-F]{4}\s*$/.exec(l) ?? /^\[(.+)#[0-9A-F]{4}\]\s*$/.exec(l);
    return m ? m[1] : undefined;
  };
  if (i < 0 || i >= lines.length) {
    return undefined;
  }
  const here = header(lines[i]);
  if (here !== undefined) {
    return { path: here, line: 1 };
  }
  const row = /^[ *>]?(\d+)(?:-\d+)?:/.exec(lines[i]);
  if (!row) {
    return undefined;
  }
  for (let k = i - 1; k >= 0; k--) {
    const p = header(lines[k]);
    if (p !== undefined) {
      return { path: p, line: Math.max(1, Number(row[1])) };
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// Commands: the executeCommand middleware

/** EditorState is what the commands need to know about the active editor. */
export interface EditorState {
  /** The document URI as the language client sends it. */
  uri: string;
  /** Path relative to the workspace root (undefined: not a file in it). */
  relPath?: string;
  /** 1-based line of the cursor. */
  line: number;
  /** 1-based first and last line of a non-empty selection. */
  selection?: { start: number; end: number };
}

export interface PromptOptions {
  title: string;
  prompt: string;
  value?: string;
  placeHolder?: string;
}

/** Host is the editor side the commands act on. */
export interface Host {
  activeEditor(): EditorState | undefined;
  prompt(o: PromptOptions): Promise<string | undefined>;
  /** showResult opens text in a read-only hashls: document. */
  showResult(kind: string, label: string, text: string): Promise<void>;
  /** selectRange selects range in the document uri (opening it if needed). */
  selectRange(uri: string, range: LspRange): Promise<void>;
  writeClipboard(text: string): Promise<void>;
  info(msg: string): void;
  error(msg: string): void;
  /** editDocumentText is the text of the active hashline edit document, if that is the active editor. */
  editDocumentText(): string | undefined;
  openEditDocument(text: string): Promise<void>;
  closeEditDocument(): Promise<void>;
  /** pickSearchMatch lists matches in a quick pick and opens the one picked. */
  pickSearchMatch(pattern: string, matches: SearchMatch[]): Promise<void>;
  /** toolArgs asks for a tool's JSON arguments, checked against its schema (undefined: cancelled). */
  toolArgs(tool: string): Promise<Record<string, unknown> | undefined>;
}

/** Next sends workspace/executeCommand to the server. */
export type Next = (command: string, args: unknown[]) => Promise<unknown> | unknown;

/** The commands with palette entries; invoked without arguments they prompt. */
export const PALETTE_COMMANDS = [
  'hashls.read',
  'hashls.edit',
  'hashls.search',
  'hashls.find',
  'hashls.selectBlock',
  'hashls.copyBlockAnchor',
  'hashls.outline',
] as const;

/**
 * The agent tools (`hashls tool --list`) that get a palette entry of their
 * own ("Hashls Tool: NAME"): run from the palette they ask for JSON
 * arguments checked against the tool's schema (the console), with
 * arguments they pass through. read, edit, search and find are in
 * PALETTE_COMMANDS with their own prompts.
 */
export const TOOL_COMMANDS = [
  'hashls.apply_patch',
  'hashls.audit',
  'hashls.create_file',
  'hashls.delete_file',
  'hashls.edit_file',
  'hashls.glob',
  'hashls.list_directory',
  'hashls.lsp',
  'hashls.lsp_edit',
  'hashls.move_file',
  'hashls.read_file',
  'hashls.restore',
  'hashls.restore_file',
  'hashls.revert',
  'hashls.search_files',
  'hashls.trash',
  'hashls.write',
  'hashls.write_file',
] as const;

/**
 * createCommandHandler returns the executeCommand middleware. Server
 * commands run with arguments (from code actions or other extensions) pass
 * through and return the server's result, except the editor commands
 * selectBlock, copyBlockAnchor and outline, whose results are always used
 * (select, copy, show) because VS Code drops command results. Palette
 * invocations (no arguments) prompt for input and show the result.
 */
export function createCommandHandler(host: Host): (command: string, args: unknown[], next: Next) => Promise<unknown> {
  const blockArg = (args: unknown[]): { uri: string; line: number } | undefined => {
    const a = args[0] as { uri?: unknown; line?: unknown } | undefined;
    if (a && typeof a.uri === 'string' && typeof a.line === 'number') {
      return { uri: a.uri, line: a.line };
    }
    const ed = host.activeEditor();
    return ed ? { uri: ed.uri, line: ed.line } : undefined;
  };

  // ui runs an editor-facing command: failures are shown, not thrown
  // (VS Code would only say "command failed").
  const ui = async (name: string, f: () => Promise<unknown>): Promise<unknown> => {
    try {
      return await f();
    } catch (err) {
      host.error(`hashls ${name}: ${errorText(err)}`);
      return undefined;
    }
  };

  const needEditor = (what: string): EditorState => {
    const ed = host.activeEditor();
    if (!ed) {
      throw new Error(`${what} needs an open file editor`);
    }
    return ed;
  };

  return async (command, args, next) => {
    args = Array.isArray(args) ? args : [];
    const interactive = args.length === 0;
    switch (command) {
      case 'hashls.selectBlock':
        return ui('select block', async () => {
          const a = blockArg(args);
          if (!a) {
            throw new Error('select block needs an open file editor');
          }
          const res = parseSelectResult(await next(command, [a]), a.uri);
          await host.selectRange(res.uri, res.range);
          return res;
        });
      case 'hashls.copyBlockAnchor':
        return ui('copy block anchor', async () => {
          const a = blockArg(args);
          if (!a) {
            throw new Error('copy block anchor needs an open file editor');
          }
          const res = parseAnchorResult(await next(command, [a]));
          await host.writeClipboard(res.text);
          host.info(`hashls: copied ${res.anchor}` + (res.startLine ? ` (block ${res.startLine}–${res.endLine})` : ''));
          return res;
        });
      case 'hashls.outline':
        return ui('outline', async () => {
          let a = args[0] as { uri?: unknown } | undefined;
          let label = 'outline';
          if (!a || typeof a.uri !== 'string') {
            const ed = needEditor('outline');
            a = { uri: ed.uri };
            label = ed.relPath ?? label;
          } else {
            label = decodeURIComponent(String(a.uri).replace(/^.*\//, '')) || label;
          }
          const res = await next(command, [a]);
          await host.showResult('outline', label, resultText(res));
          return res;
        });
    }
    if (!interactive) {
      return next(command, args);
    }
    switch (command) {
      case 'hashls.read':
        return ui('read', async () => {
          const ed = host.activeEditor();
          let value = ed?.relPath ?? '';
          if (value && ed?.selection) {
            value += `:${ed.selection.start}-${ed.selection.end}`;
          }
          const path = await host.prompt({
            title: 'hashls: read',
            prompt: 'Path inside the workspace, optionally with a selector (:N, :A-B, :A+C, :raw)',
            value,
            placeHolder: 'src/main.go:10-40',
          });
          if (!path) {
            return undefined;
          }
          const res = await next(command, [{ path }]);
          await host.showResult('read', path, resultText(res));
          return res;
        });
      case 'hashls.search':
        return ui('search', async () => {
          const pattern = await host.prompt({
            title: 'hashls: search',
            prompt: 'Regex (Go RE2) to search the workspace for',
            placeHolder: 'func \\w+\\(',
          });
          if (!pattern) {
            return undefined;
          }
          // search_files gives the matching lines as data (search's own
          // answer is the hashline text).
          const res = await next('hashls.search_files', [{ pattern, mode: 'regex', path: '.' }]);
          const matches = searchMatches(res);
          if (matches.length === 0) {
            host.info(`hashls search: no match for ${pattern}`);
            return res;
          }
          await host.pickSearchMatch(pattern, matches);
          return res;
        });
      case 'hashls.find':
        return ui('find', async () => {
          const glob = await host.prompt({
            title: 'hashls: find',
            prompt: 'Glob, file or directory (*.go searches recursively)',
            placeHolder: '*.go',
          });
          if (!glob) {
            return undefined;
          }
          const res = await next(command, [{ paths: glob }]);
          await host.showResult('find', glob, resultText(res));
          return res;
        });
      case 'hashls.edit':
        return ui('edit', async () => {
          const text = host.editDocumentText();
          if (text !== undefined) {
            // Submit the edit document.
            const input = text.endsWith('\n') ? text : text + '\n';
            const res = await next(command, [{ input }]);
            await host.closeEditDocument();
            host.info('hashls: ' + firstLine(resultText(res) || 'edited'));
            return res;
          }
          // Open an edit document whose header's tag is minted over the
          // active buffer's current text (a one-line read).
          const ed = host.activeEditor();
          let header = '¶PATH#TAG';
          if (ed?.relPath) {
            let tag = 'TAG';
            try {
              tag = tagOf(await next('hashls.read', [{ path: ed.relPath + ':1' }])) ?? tag;
            } catch (err) {
              host.error(`hashls read ${ed.relPath}: ${errorText(err)}`);
            }
            header = `¶${ed.relPath}#${tag}`;
          }
          await host.openEditDocument(header + '\n');
          host.info('hashls: write ops (replace N..M: / +text), then run "Hashls: Edit" again to apply');
          return undefined;
        });
    }
    if ((TOOL_COMMANDS as readonly string[]).includes(command)) {
      const tool = command.slice('hashls.'.length);
      return ui(tool, async () => {
        const a = await host.toolArgs(tool);
        if (!a) {
          return undefined;
        }
        const res = await next(command, [a]);
        await host.showResult(tool, tool, resultText(res));
        return res;
      });
    }
    return next(command, args);
  };
}

/** Where the server binary came from, in the order serverBinary tries. */
export type ServerSource = 'setting' | 'bundled' | 'PATH';

export interface ServerChoice {
  command: string;
  source: ServerSource;
  /** One line for the output channel: what is started and why. */
  describe: string;
}

/**
 * serverBinary picks the hashls binary to start: the `hashls.path` setting
 * when it is set, else the binary a platform-specific .vsix carries
 * (`<extension>/bin/hashls`, `hashls.exe` on Windows) when it is there,
 * else `hashls` on PATH. exists is fs.existsSync in the extension and a fake
 * in the tests.
 */
export function serverBinary(setting: string | undefined, extensionPath: string | undefined, platform: string, exists: (p: string) => boolean): ServerChoice {
  const set = (setting ?? '').trim();
  if (set !== '') {
    return { command: set, source: 'setting', describe: `starting ${set} (from the hashls.path setting)` };
  }
  if (extensionPath) {
    const sep = platform === 'win32' ? '\\' : '/';
    const base = extensionPath.replace(/[\\/]+$/, '');
    const bundled = `${base}${sep}bin${sep}${platform === 'win32' ? 'hashls.exe' : 'hashls'}`;
    if (exists(bundled)) {
      return { command: bundled, source: 'bundled', describe: `starting ${bundled} (bundled with the extension for ${platform})` };
    }
  }
  return {
    command: 'hashls',
    source: 'PATH',
    describe: 'starting hashls from PATH (hashls.path is not set and this .vsix carries no binary for this platform)',
  };
}
