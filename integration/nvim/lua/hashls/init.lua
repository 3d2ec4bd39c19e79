-- hashls.nvim: the Neovim client of the hashls language server.
--
-- require('hashls').setup{ cmd = {'hashls', 'serve', '--stdio'}, root_dir = ... }
-- starts (or reuses) one hashls client per root, attaches file buffers under
-- that root, and defines :HashlsRead, :HashlsEdit, :HashlsSearch,
-- :HashlsOutline, :HashlsSelectBlock, :HashlsAnchor, :Hashls and :HashlsPanel.
-- :help hashls (doc/hashls.txt) describes them; :checkhealth hashls
-- (health.lua) names the server binary, its version and its store.
--
-- Works on Neovim 0.7.2 (vim.lsp.start_client + buf_attach_client) and newer
-- (vim.lsp.start). Every agent tool is the server command hashls.<tool>
-- ({text, details} results); edits to open buffers arrive as
-- workspace/applyEdit and land in the buffer (and its undo history), not on
-- disk. The agent panel lists the store's audit history (hashls.audit) and
-- the live hashls/activity notifications, with filters, the location, a
-- before/after diff (diffthis) and a revert (hashls.revert) per entry.
--
-- Every command the user types sends its request asynchronously: nothing
-- waits on the server in the UI. Only the Lua API's synchronous form
-- (exec without a callback) waits, at most timeout_ms.

local M = {}

local api = vim.api
local uv = vim.uv or vim.loop

-- Client methods: called with ':' since 0.11 (the '.' form is deprecated
-- there), with '.' before.
local colon = vim.fn.has('nvim-0.11') == 1
local function call(c, method, ...)
  if colon then
    return c[method](c, ...)
  end
  return c[method](...)
end

-- Tools whose success may have changed files on disk.
local mutating = { edit = true, write = true, apply_patch = true, revert = true, restore = true, delete_file = true,
  write_file = true, edit_file = true, move_file = true, create_file = true, restore_file = true, lsp_edit = true }

M.config = {
  cmd = { 'hashls', 'serve', '--stdio' }, -- or a string: the binary (serve --stdio added)
  root_dir = nil, -- string, or function(bufnr) -> string; default: nearest .git/go.mod, else cwd
  init_options = {}, -- hashls settings: progress, activity, logLevel, applyEditTimeoutMs, stateDir, diagnosticsMs, formatOnWrite
  autostart = true, -- attach every file buffer under the root
  debounce_text_changes = 50,
  timeout_ms = 10000, -- the longest any request waits (the sync Lua API, initialization)
  panel_width = 80,
  max_activity = 500, -- panel entries kept
  history = 50, -- audit rows the panel loads when it opens (and per 'm')
  search_pages = 10, -- :HashlsSearch fetches at most this many pages (20 files each)
  register = nil, -- :HashlsAnchor default register; nil: '+' when a clipboard exists, else '"'
  on_attach = nil,
  on_exit = nil,
  -- Review of agents' changes: buffer-local keys set while a buffer has
  -- changes to review (false: none). Commands: :HashlsReview.
  review_keys = { next = ']r', prev = '[r', keep = 'co', undo = 'cu', keep_file = 'cO', undo_file = 'cU' },
}

-- state
M.activity = {} -- panel entries (history and live), in arrival order; see new_entry
M.last = {} -- last results by tool/command name
M.tags = {} -- root -> path (relative to that root) -> tag of the last read/edit/write
M.exit = nil -- {code, signal} of the last server exit
local clients = {} -- root -> client id
local pending = {} -- client id -> callbacks waiting for its initialize reply
local seq = 0
local by_audit = {} -- root .. '#' .. audit id -> panel entry
local history = {} -- root -> {loaded, newest, oldest}: audit ids the panel has seen
local panel = { buf = nil, selected = nil, lines = {}, filter = {}, status = nil, history_error = nil }
local edit_buf = nil

-- notify shows one message. Tabs become spaces (Neovim would show ^I); a
-- long error shows its first line, and :HashlsError shows all of it (a
-- multi-line message would stop on "Press ENTER").
local function notify(msg, level)
  msg = tostring(msg):gsub('\t', '    ')
  if msg:find('\n', 1, true) then
    M.last_error = msg
    msg = msg:match('^[^\n]*') .. '  (:HashlsError shows all)'
  end
  vim.notify('hashls: ' .. msg, level or vim.log.levels.INFO)
end

local function is_dir(p)
  local st = p and uv.fs_stat(p)
  return st ~= nil and st.type == 'directory'
end

local function realpath(p)
  return uv.fs_realpath(p) or p
end

local function buf_path(bufnr)
  local name = api.nvim_buf_get_name(bufnr)
  if name == '' or name:match('^%a[%w+.-]*://') then
    return nil
  end
  return vim.fn.fnamemodify(name, ':p')
end

-- root_for finds the workspace root for a buffer.
local function root_for(bufnr)
  local r = M.config.root_dir
  if type(r) == 'function' then
    r = r(bufnr)
  end
  if type(r) == 'string' and r ~= '' then
    local dir = vim.fn.fnamemodify(r, ':p'):gsub('(.)/$', '%1')
    return realpath(dir)
  end
  local file = buf_path(bufnr or 0)
  local dir = file and vim.fn.fnamemodify(file, ':h') or vim.fn.getcwd()
  for _, marker in ipairs({ '.git', 'go.mod' }) do
    local found = vim.fn.finddir(marker, dir .. ';')
    if found == '' then
      found = vim.fn.findfile(marker, dir .. ';')
    end
    if found ~= '' then
      return realpath(vim.fn.fnamemodify(found, ':p'):gsub('/$', ''):match('^(.*)/[^/]*$'))
    end
  end
  return realpath(vim.fn.getcwd())
end

-- rel returns path relative to root (paths outside it stay absolute).
local function rel(root, path)
  path = realpath(path)
  if path:sub(1, #root + 1) == root .. '/' then
    return path:sub(#root + 2)
  end
  return path
end

-- tag returns the tag last remembered for path under root.
function M.tag(root, path)
  return M.tags[root] and M.tags[root][path]
end

local function set_tag(root, path, tag)
  if type(root) ~= 'string' then
    return
  end
  M.tags[root] = M.tags[root] or {}
  M.tags[root][path] = tag
end

-- binary resolves the server binary: the cmd of setup{} (an absolute path
-- or a name), a bare name through PATH. It returns the executable's path,
-- where it came from, and an error text when it is not found.
function M.binary()
  local cmd = M.config.cmd or { 'hashls', 'serve', '--stdio' }
  local bin = cmd[1]
  local source = (bin == 'hashls') and 'hashls on PATH' or 'the cmd of setup{}'
  local exe = vim.fn.exepath(bin)
  if exe == '' then
    return nil, source, string.format('%s (%s) is not found or not executable; install hashls (go install '
      .. 'github.com/hashls/hashls@latest) or name it: setup{ cmd = { "/abs/path/hashls", "serve", "--stdio" } }', bin,
      source)
  end
  return exe, source
end

-- Panel entries -------------------------------------------------------------

-- utc_offset is the local time zone's offset from UTC in seconds.
local function utc_offset(t)
  local u = os.date('!*t', t)
  u.isdst = false
  local l = os.date('*t', t)
  l.isdst = false
  return os.difftime(os.time(l), os.time(u))
end

-- parse_time turns an RFC 3339 timestamp into seconds since the epoch.
local function parse_time(s)
  if type(s) ~= 'string' then
    return nil
  end
  local Y, Mo, D, h, mi, sec, frac, tz = s:match('^(%d+)-(%d+)-(%d+)[Tt ](%d+):(%d+):(%d+)(%.?%d*)(.*)$')
  if not Y then
    return nil
  end
  local off = 0
  if tz ~= 'Z' and tz ~= 'z' and tz ~= '' then
    local sign, oh, om = tz:match('^([+-])(%d%d):?(%d%d)$')
    if not sign then
      return nil
    end
    off = (tonumber(oh) * 3600 + tonumber(om) * 60) * (sign == '-' and -1 or 1)
  end
  local t = os.time({ year = tonumber(Y), month = tonumber(Mo), day = tonumber(D), hour = tonumber(h),
    min = tonumber(mi), sec = tonumber(sec), isdst = false })
  if not t then
    return nil
  end
  -- os.time read the fields as local time.
  t = t + utc_offset(t) - off
  return t + (tonumber('0' .. frac) or 0)
end

local function show_time(epoch)
  local t = math.floor(epoch)
  if os.date('%Y-%m-%d', t) == os.date('%Y-%m-%d') then
    return os.date('%H:%M:%S', t)
  end
  return os.date('%m-%d %H:%M', t)
end

local function str(v)
  return type(v) == 'string' and v or nil
end

local function list(v)
  local out = {}
  for _, x in ipairs(type(v) == 'table' and v or {}) do
    if type(x) == 'string' or type(x) == 'number' then
      table.insert(out, x)
    end
  end
  return out
end

-- new_entry makes a panel entry: {seq, root, epoch, time, tool, transport,
-- paths, outcome, errorKind, message, auditIds, diff, durationMs, external,
-- history (true: loaded from hashls.audit), note}.
local function new_entry(root, fields)
  seq = seq + 1
  local epoch = fields.epoch
  if not epoch then
    local sec, usec = uv.gettimeofday()
    epoch = sec and (sec + usec / 1e6) or os.time()
  end
  return vim.tbl_extend('force', {
    seq = seq,
    root = root,
    epoch = epoch,
    time = show_time(epoch),
    paths = {},
    auditIds = {},
    diff = '',
    outcome = 'ok',
    audit = {}, -- audit id -> details of hashls.audit {id}
  }, fields)
end

local function remove_entry(e)
  for i, x in ipairs(M.activity) do
    if x == e then
      table.remove(M.activity, i)
      return
    end
  end
end

local function trim_entries()
  while #M.activity > M.config.max_activity do
    local e = table.remove(M.activity, 1)
    for _, id in ipairs(e.auditIds) do
      if by_audit[e.root .. '#' .. id] == e then
        by_audit[e.root .. '#' .. id] = nil
      end
    end
  end
end

local schedule_render
local unknown_argument

-- record stores one hashls/activity notification from root's server. An
-- entry for the same audit rows (loaded from history, or the same run seen
-- twice) is replaced by it.
local function record(params, root)
  if type(params) ~= 'table' or params.tool == 'audit' then
    -- (audit only lists the log: the panel's own history loads are not news)
    return
  end
  local e = new_entry(root, {
    epoch = parse_time(params.time),
    tool = str(params.tool) or '?',
    agent = str(params.agent),
    turn = str(params.turn),
    readOnly = params.readOnly == true,
    transport = str(params.transport) or (params.external and '?' or 'lsp'),
    external = params.external == true,
    live = true,
    transportReported = type(params.transport) == 'string', -- servers before the panel contract send none
    paths = list(params.paths),
    outcome = str(params.outcome) or '?',
    errorKind = str(params.errorKind),
    message = str(params.message),
    auditIds = list(params.auditIds),
    diff = str(params.diff) or '',
    durationMs = type(params.durationMs) == 'number' and params.durationMs or nil,
  })
  for _, id in ipairs(e.auditIds) do
    local k = root .. '#' .. id
    local old = by_audit[k]
    if old and old ~= e then
      if not old.history and old.diff ~= '' and e.diff == '' then
        -- The same run reported twice (its own server, then the store):
        -- keep the first report, with its diff.
        return
      end
      remove_entry(old)
      for _, oid in ipairs(old.auditIds) do
        if by_audit[root .. '#' .. oid] == old then
          by_audit[root .. '#' .. oid] = nil
        end
      end
      if panel.selected == old.seq then
        panel.selected = e.seq
      end
    end
    by_audit[k] = e
    local h = history[root]
    if h and type(id) == 'number' and (not h.newest or id > h.newest) then
      h.newest = id
    end
  end
  table.insert(M.activity, e)
  trim_entries()
  vim.schedule(function()
    schedule_render()
    if e.outcome == 'ok' and mutating[e.tool] then
      -- Reload unmodified buffers of files a tool wrote on disk (open
      -- buffers were edited in place through workspace/applyEdit).
      pcall(vim.cmd, 'silent! checktime')
    end
  end)
end

-- add_history adds hashls.audit rows of root not yet in the panel.
local function add_history(root, rows)
  local h = history[root] or {}
  history[root] = h
  local added = 0
  for _, r in ipairs(type(rows) == 'table' and rows or {}) do
    if type(r) == 'table' and type(r.id) == 'number' then
      if not h.newest or r.id > h.newest then
        h.newest = r.id
      end
      if not h.oldest or r.id < h.oldest then
        h.oldest = r.id
      end
      local k = root .. '#' .. r.id
      if not by_audit[k] then
        local e = new_entry(root, {
          epoch = parse_time(r.time),
          tool = str(r.tool) or '?',
          agent = str(r.agent),
          turn = str(r.turn),
          transport = str(r.transport) or '?',
          paths = { str(r.path) or '?' },
          auditIds = { r.id },
          note = str(r.note),
          history = true,
        })
        by_audit[k] = e
        table.insert(M.activity, e)
        added = added + 1
      end
    end
  end
  trim_entries()
  return added
end

-- Review ---------------------------------------------------------------------
--
-- The server marks the changes that did not come from this editor (an
-- agent over MCP or the CLI, another hashls process) hunk by hunk and sends
-- them (hashls/review) until the person keeps or undoes each one. Here they
-- are drawn (added lines highlighted, removed lines as virtual lines above
-- their place, who made them at the end of the first line, a sign), counted
-- (M.statusline(), the panel's header), walked (]r / [r) and kept or undone
-- (co / cu, cO / cU for the whole file; :HashlsReview). An undo is an
-- ordinary change of the buffer (u takes it back), made through the
-- server's commit path and audited as the person's.

-- files: file path -> hashls/review params (+root); totals: root -> count;
-- drawn: buffer -> what review_render drew (lines highlighted, removed
-- lines shown, labels), as Neovim 0.7 does not report extmark details.
local review = { files = {}, totals = {}, drawn = {} }
M.review = review
local rns = api.nvim_create_namespace('hashls_review')

local function uri_path(uri)
  local ok, p = pcall(vim.uri_to_fname, uri)
  return ok and realpath(p) or uri
end

-- review_total is how many changes are left to review, in every root.
function M.review_total()
  local n = 0
  for _, v in pairs(review.totals) do
    n = n + v
  end
  return n
end

-- statusline is a statusline item: "hashls: N to review", or ''.
function M.statusline()
  local n = M.review_total()
  return n > 0 and string.format('hashls: %d to review', n) or ''
end

local function split_removed(text)
  local out = {}
  for l in ((text or '') .. '\n'):gmatch('([^\n]*)\n') do
    table.insert(out, (l:gsub('\r$', '')))
  end
  if out[#out] == '' then
    table.remove(out)
  end
  return out
end

local function hunk_who(h)
  local who = #(h.agents or {}) > 0 and table.concat(h.agents, ', ') or 'another process'
  if #(h.tools or {}) > 0 then
    who = who .. ' · ' .. table.concat(h.tools, ', ')
  end
  return who
end

local function set_extmark(buf, row, col, opts)
  local ok = pcall(api.nvim_buf_set_extmark, buf, rns, row, col, opts)
  if not ok and opts.line_hl_group then
    -- (older Neovims: a highlight to the end of the line instead)
    local hl = opts.line_hl_group
    opts.line_hl_group = nil
    opts.hl_group, opts.hl_eol, opts.end_row, opts.end_col = hl, true, row + 1, 0
    pcall(api.nvim_buf_set_extmark, buf, rns, row, col, opts)
  end
end

local review_keymaps

-- review_render draws a buffer's hunks.
local function review_render(buf)
  if not api.nvim_buf_is_loaded(buf) then
    return
  end
  api.nvim_buf_clear_namespace(buf, rns, 0, -1)
  local f = review.files[realpath(api.nvim_buf_get_name(buf))]
  local hunks = f and f.hunks or {}
  review_keymaps(buf, #hunks > 0)
  local last = api.nvim_buf_line_count(buf) - 1
  local keys = M.config.review_keys
  local hint = type(keys) == 'table' and string.format('  %s keep  %s undo', keys.keep or '', keys.undo or '') or ''
  local drawn = { added = {}, removed = {}, labels = {} }
  review.drawn[buf] = drawn
  for i, h in ipairs(hunks) do
    local first = math.min(h.line, last)
    for l = h.line, math.min(h.line + h.added - 1, last) do
      set_extmark(buf, l, 0, { line_hl_group = 'DiffAdd', sign_text = '+', sign_hl_group = 'DiffAdd', priority = 200 })
      table.insert(drawn.added, l + 1)
    end
    local label = string.format('hashls %d/%d: %s%s', i, #hunks, hunk_who(h), hint)
    if h.removedLines > 0 then
      local virt = {}
      for _, l in ipairs(split_removed(h.removed)) do
        local text = '- ' .. l:gsub('\t', '    ')
        table.insert(virt, { { text, 'DiffDelete' } })
        table.insert(drawn.removed, text)
      end
      if h.removedCut then
        table.insert(virt, { { '- …', 'DiffDelete' } })
      end
      -- Above the line now in their place, or below the last line.
      local above = h.line <= last
      set_extmark(buf, above and h.line or last, 0, { virt_lines = virt, virt_lines_above = above, priority = 200 })
      if h.added == 0 then
        set_extmark(buf, first, 0, { sign_text = '-', sign_hl_group = 'DiffDelete', priority = 200 })
      end
    end
    set_extmark(buf, first, 0, { virt_text = { { label, 'Comment' } }, virt_text_pos = 'eol', priority = 200 })
    table.insert(drawn.labels, label)
  end
end

local function review_render_file(path)
  local buf = vim.fn.bufnr(path)
  if buf ~= -1 then
    review_render(buf)
  end
end

-- review_update takes one hashls/review notification from root's server.
local function review_update(params, root)
  if type(params) ~= 'table' or type(params.uri) ~= 'string' or type(params.hunks) ~= 'table' then
    return
  end
  local path = uri_path(params.uri)
  local old = review.files[path]
  if #params.hunks > 0 then
    table.sort(params.hunks, function(a, b)
      return a.line < b.line or a.line == b.line and a.added < b.added
    end)
    params.root = root
    review.files[path] = params
  else
    review.files[path] = nil
  end
  review.totals[root] = type(params.total) == 'number' and params.total or 0
  vim.schedule(function()
    review_render_file(path)
    if old or #params.hunks > 0 then
      pcall(vim.cmd, 'doautocmd <nomodeline> User HashlsReview')
      if schedule_render then
        schedule_render()
      end
    end
  end)
end

-- review_list replaces root's review from hashls.review {action: "list"}.
local function review_list(root, on_done)
  M.exec_root(root, 'hashls.review', { action = 'list' }, function(err, res)
    if not err and type(res) == 'table' then
      for p, f in pairs(review.files) do
        if f.root == root then
          review.files[p] = nil
          review_render_file(p)
        end
      end
      for _, f in ipairs(type(res.files) == 'table' and res.files or {}) do
        f.total = res.total
        review_update(f, root)
      end
      review.totals[root] = type(res.total) == 'number' and res.total or 0
    end
    if on_done then
      on_done(err, res)
    end
  end)
end
M.review_list = review_list

-- review_files lists the files with hunks, by path.
function M.review_files()
  local out = {}
  for p, f in pairs(review.files) do
    table.insert(out, { path = p, file = f })
  end
  table.sort(out, function(a, b)
    return a.path < b.path
  end)
  return out
end

-- hunk_at is the hunk of buf at (or nearest to) 1-based line.
function M.hunk_at(buf, line)
  buf = (buf == nil or buf == 0) and api.nvim_get_current_buf() or buf
  line = (line or api.nvim_win_get_cursor(0)[1]) - 1
  local f = review.files[realpath(api.nvim_buf_get_name(buf))]
  local best, dist
  for _, h in ipairs(f and f.hunks or {}) do
    local last = h.line + math.max(h.added, 1) - 1
    local d = line < h.line and h.line - line or (line > last and line - last or 0)
    if not dist or d < dist then
      best, dist = h, d
    end
  end
  return best, f
end

-- review_next moves to the next (dir 1) or previous (dir -1) change to
-- review, on through the other files and around.
function M.review_next(dir)
  dir = dir or 1
  local files = M.review_files()
  if #files == 0 then
    notify('no change to review')
    return
  end
  local cur = realpath(vim.fn.expand('%:p'))
  local line = api.nvim_win_get_cursor(0)[1] - 1
  local i
  for k, f in ipairs(files) do
    if f.path == cur then
      i = k
      local hs = f.file.hunks
      if dir > 0 then
        for _, h in ipairs(hs) do
          if h.line > line then
            return M.review_goto(f.path, h)
          end
        end
      else
        for k2 = #hs, 1, -1 do
          if hs[k2].line + math.max(hs[k2].added, 1) - 1 < line then
            return M.review_goto(f.path, hs[k2])
          end
        end
      end
    end
  end
  if not i then
    i = dir > 0 and 0 or 1
    for k, f in ipairs(files) do
      if f.path > cur then
        i = dir > 0 and k - 1 or k
        break
      elseif k == #files then
        i = dir > 0 and #files or #files + 1
      end
    end
  end
  local n = #files
  local f = files[((i - 1 + dir) % n + n) % n + 1]
  local hs = f.file.hunks
  return M.review_goto(f.path, dir > 0 and hs[1] or hs[#hs])
end

function M.review_goto(path, h)
  if realpath(vim.fn.expand('%:p')) ~= path then
    vim.cmd('edit ' .. vim.fn.fnameescape(path))
  end
  local last = api.nvim_buf_line_count(0)
  api.nvim_win_set_cursor(0, { math.min(h.line + 1, last), 0 })
  return h
end

-- review_do runs hashls.review for the hunk (or the whole file when scope
-- is 'file') at the cursor of buf; on_done(err, result).
function M.review_do(action, scope, buf, line, on_done)
  buf = (buf == nil or buf == 0) and api.nvim_get_current_buf() or buf
  local h, f = M.hunk_at(buf, line)
  if not f then
    notify('no change to review in this buffer')
    return on_done and on_done('nothing to review')
  end
  local arg = { action = action, uri = f.uri }
  if scope ~= 'file' then
    arg.hunk = h.id
  end
  M.exec_root(f.root, 'hashls.review', arg, function(err, res)
    if err then
      notify(action .. ': ' .. M.errtext(err), vim.log.levels.ERROR)
    end
    if on_done then
      on_done(err, res)
    end
  end)
end

-- review_turn keeps or undoes an agent turn: turn (default: the turn of the
-- hunk at the cursor). Undo restores every file the turn changed (revert
-- {turn}); the files changed since are named and left alone unless
-- opts.force. on_done(err, result).
function M.review_turn(action, turn, root, opts, on_done)
  opts = opts or {}
  if not turn then
    local h, f = M.hunk_at(0)
    turn = h and h.turns and h.turns[#h.turns]
    root = root or (f and f.root)
  end
  if not turn then
    notify('no agent turn here: name one (the panel shows them)', vim.log.levels.WARN)
    return on_done and on_done('no turn')
  end
  root = root or M.roots()[1]
  local done = function(err, res)
    if err then
      notify(action .. ' turn: ' .. M.errtext(err), vim.log.levels.ERROR)
    elseif action == 'undo' then
      local d = type(res) == 'table' and type(res.details) == 'table' and res.details or {}
      local skipped = {}
      for _, s in ipairs(type(d.skipped) == 'table' and d.skipped or {}) do
        table.insert(skipped, tostring(s.path) .. ' (' .. tostring(s.why) .. ')')
      end
      notify(string.format('undid turn %s: restored %s%s', turn, table.concat(d.restored or {}, ', '),
        #skipped > 0 and ('; left alone, changed since: ' .. table.concat(skipped, '; ') .. ' (:HashlsReview undo turn! restores them too)') or ''),
        #skipped > 0 and vim.log.levels.WARN or nil)
      pcall(vim.cmd, 'silent! checktime')
    end
    if on_done then
      on_done(err, res)
    end
  end
  if action == 'keep' then
    return M.exec_root(root, 'hashls.review', { action = 'keep', turn = turn }, done)
  end
  M.exec_root(root, 'hashls.revert', opts.force and { turn = turn, force = true } or { turn = turn }, done)
end

review_keymaps = function(buf, on)
  local keys = M.config.review_keys
  if type(keys) ~= 'table' then
    return
  end
  local ok, had = pcall(api.nvim_buf_get_var, buf, 'hashls_review_keys')
  had = ok and had
  if on == had then
    return
  end
  local maps = {
    { keys.next, function() M.review_next(1) end, 'hashls: next change to review' },
    { keys.prev, function() M.review_next(-1) end, 'hashls: previous change to review' },
    { keys.keep, function() M.review_do('keep', 'hunk') end, 'hashls: keep this change' },
    { keys.undo, function() M.review_do('undo', 'hunk') end, 'hashls: undo this change' },
    { keys.keep_file, function() M.review_do('keep', 'file') end, 'hashls: keep every change of this file' },
    { keys.undo_file, function() M.review_do('undo', 'file') end, 'hashls: undo every change of this file' },
  }
  for _, m in ipairs(maps) do
    if type(m[1]) == 'string' and m[1] ~= '' then
      if on then
        api.nvim_buf_set_keymap(buf, 'n', m[1], '', { noremap = true, nowait = true, callback = m[2], desc = m[3] })
      else
        pcall(api.nvim_buf_del_keymap, buf, 'n', m[1])
      end
    end
  end
  api.nvim_buf_set_var(buf, 'hashls_review_keys', on)
end

-- An edit from the server (workspace/applyEdit) is its own undo step: the
-- undo sequence is broken before and after it, so an agent's change that
-- arrives while the person types in insert mode never joins their insert
-- (u undoes one or the other, never both).
local function apply_edit(err, result, ctx, config)
  local function break_undo()
    pcall(function()
      vim.o.undolevels = vim.o.undolevels
    end)
  end
  break_undo()
  local r1, r2 = vim.lsp.handlers['workspace/applyEdit'](err, result, ctx, config)
  break_undo()
  return r1, r2
end

local handlers = {
  -- Handler signature (err, result, ctx, config) since Neovim 0.5.1.
  ['hashls/activity'] = function(_, result, ctx)
    local c = ctx and vim.lsp.get_client_by_id(ctx.client_id)
    record(result, c and c.config.root_dir or '?')
  end,
  ['hashls/review'] = function(_, result, ctx)
    local c = ctx and vim.lsp.get_client_by_id(ctx.client_id)
    review_update(result, c and c.config.root_dir or '?')
  end,
  ['workspace/applyEdit'] = apply_edit,
}

local function fail_pending(id, msg)
  local q = pending[id]
  pending[id] = nil
  for _, fn in ipairs(q or {}) do
    fn(nil, msg)
  end
end

local function client_config(root, exe)
  local cfg = M.config
  local cmd = vim.deepcopy(cfg.cmd)
  cmd[1] = exe
  return {
    name = 'hashls',
    cmd = cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    init_options = cfg.init_options,
    handlers = handlers,
    flags = { debounce_text_changes = cfg.debounce_text_changes },
    on_attach = cfg.on_attach,
    on_init = function(client)
      local q = pending[client.id]
      pending[client.id] = nil
      for _, fn in ipairs(q or {}) do
        fn(client)
      end
      if panel.buf and vim.fn.bufwinid(panel.buf) ~= -1 then
        vim.schedule(function()
          M.panel_refresh(root)
        end)
      end
      vim.schedule(function()
        review_list(root)
      end)
    end,
    on_exit = function(code, signal, client_id)
      M.exit = { code = code, signal = signal, client_id = client_id }
      review.totals[root] = nil
      for p, f in pairs(review.files) do
        if f.root == root then
          review.files[p] = nil
          vim.schedule(function()
            review_render_file(p)
          end)
        end
      end
      for r, id in pairs(clients) do
        if id == client_id then
          clients[r] = nil
        end
      end
      vim.schedule(function()
        fail_pending(client_id, string.format('hashls exited (code %s, signal %s) before it answered; see :LspInfo and the LSP log',
          tostring(code), tostring(signal)))
      end)
      if cfg.on_exit then
        pcall(cfg.on_exit, code, signal, client_id)
      end
    end,
  }
end

-- start starts (or reuses) the client for the buffer's root and attaches the
-- buffer to it. It returns the client id, or nil and an error.
function M.start(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and api.nvim_get_current_buf() or bufnr
  local file = buf_path(bufnr)
  if not file then
    -- Scratch buffers (hashls://edit, the panel, ...) use a running client.
    for _, id in pairs(clients) do
      if vim.lsp.get_client_by_id(id) then
        return id
      end
    end
  end
  local root = root_for(bufnr)
  if not is_dir(root) then
    return nil, 'root ' .. tostring(root) .. ' is not a directory'
  end
  local id = clients[root]
  if id and not vim.lsp.get_client_by_id(id) then
    id = nil
  end
  if not id then
    local exe, _, berr = M.binary()
    if not exe then
      return nil, berr
    end
    local cfg = client_config(root, exe)
    if vim.lsp.start and (file or not vim.lsp.start_client) then
      -- 0.8+: starts (or reuses) the client and attaches a file buffer
      -- (attach=false is understood from 0.11, when start_client is gone).
      id = vim.lsp.start(cfg, { bufnr = bufnr, attach = file ~= nil })
    else
      id = vim.lsp.start_client(cfg)
    end
    if not id then
      return nil, 'could not start ' .. table.concat(cfg.cmd, ' ')
    end
    clients[root] = id
  end
  if file and not vim.lsp.buf_is_attached(bufnr, id) then
    vim.lsp.buf_attach_client(bufnr, id)
  end
  return id
end

-- with_client calls fn(client, root) once the client for target ({bufnr=N}
-- or {root=DIR}) has answered initialize, or fail(err); it never waits.
local function with_client(target, fn, fail)
  local id, err
  if target.root then
    id = clients[target.root]
    if not id then
      err = 'no hashls client runs for ' .. target.root .. ' (open a file under it)'
    end
  else
    id, err = M.start(target.bufnr or 0)
  end
  local c = id and vim.lsp.get_client_by_id(id)
  if not c then
    return fail(err or ('the hashls client ' .. tostring(id) .. ' is not running'))
  end
  if c.initialized then
    return fn(c, c.config.root_dir)
  end
  local done = false
  pending[id] = pending[id] or {}
  table.insert(pending[id], function(cc, e)
    if done then
      return
    end
    done = true
    if cc then
      fn(cc, cc.config.root_dir)
    else
      fail(e)
    end
  end)
  vim.defer_fn(function()
    if not done then
      done = true
      fail('hashls did not finish initializing in ' .. M.config.timeout_ms .. ' ms (see :LspInfo and the LSP log)')
    end
  end, M.config.timeout_ms)
end

-- client returns the hashls client for a buffer (starting it if needed) and
-- the workspace root, waiting (at most timeout_ms) for its initialize
-- reply. The plugin's commands use with_client; this is for the sync API.
function M.client(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and api.nvim_get_current_buf() or bufnr
  local id, err = M.start(bufnr)
  if not id then
    return nil, nil, err
  end
  local c = vim.lsp.get_client_by_id(id)
  if not c then
    return nil, nil, 'the hashls client ' .. id .. ' is not running'
  end
  if not c.initialized then
    -- Requests before the initialize reply would break the protocol.
    vim.wait(M.config.timeout_ms, function()
      return c.initialized or call(c, 'is_stopped')
    end, 5)
    if not c.initialized then
      return nil, nil, 'hashls did not finish initializing (see :LspInfo and the LSP log)'
    end
  end
  return c, c.config.root_dir
end

-- commands lists the commands the hashls client of root (default: any)
-- advertises.
function M.commands(root)
  for r, id in pairs(clients) do
    local c = vim.lsp.get_client_by_id(id)
    local p = c and c.server_capabilities and c.server_capabilities.executeCommandProvider
    if (root == nil or r == root) and type(p) == 'table' and type(p.commands) == 'table' then
      return p.commands
    end
  end
  return {}
end

-- remember keeps the tags a result names in its typed fields (the files it
-- showed and the files it changed), under the root whose server ran it.
local function remember(result, root)
  if type(result) ~= 'table' then
    return
  end
  for _, f in ipairs(type(result.shown) == 'table' and result.shown or {}) do
    if type(f) == 'table' and type(f.path) == 'string' and type(f.tag) == 'string' then
      set_tag(root, f.path, f.tag)
    end
  end
  for _, c in ipairs(type(result.changes) == 'table' and result.changes or {}) do
    if type(c) == 'table' and type(c.path) == 'string' and type(c.newTag) == 'string' and c.newTag ~= '' then
      set_tag(root, c.path, c.newTag)
    end
  end
end

-- errtext renders a JSON-RPC error: its message, kind and the server's
-- suggested next step.
local function errtext(err)
  if type(err) ~= 'table' then
    return tostring(err)
  end
  local data = type(err.data) == 'table' and err.data or {}
  local s = (err.message or vim.inspect(err)) .. (type(data.kind) == 'string' and (' [' .. data.kind .. ']') or '')
  if type(data.suggestedAction) == 'string' and data.suggestedAction ~= '' and not s:find(data.suggestedAction, 1, true) then
    s = s .. ' — ' .. data.suggestedAction
  end
  return s
end
M.errtext = errtext

local function errkind(err)
  return type(err) == 'table' and type(err.data) == 'table' and err.data.kind or nil
end

-- request runs a server command for target ({bufnr=N} or {root=DIR}) and
-- calls on_done(err, result, root) from the main loop.
local function request(target, command, arg, on_done)
  with_client(target, function(c, root)
    local params = { command = command, arguments = { arg } }
    local name = command:gsub('^hashls%.', '')
    local ok = call(c, 'request', 'workspace/executeCommand', params, function(err, result)
      if not err then
        M.last[name] = result
        remember(result, root)
      end
      on_done(err, result, root)
    end, target.bufnr)
    if not ok then
      on_done('hashls (client ' .. c.id .. ') is not running', nil, root)
    end
  end, function(err)
    on_done(err, nil, target.root)
  end)
end

-- exec runs a server command. With on_done(err, result) it is asynchronous
-- (the plugin's commands all are); without, it waits (at most timeout_ms)
-- and returns result, err.
function M.exec(command, arg, on_done, bufnr)
  if on_done then
    request({ bufnr = bufnr }, command, arg, on_done)
    return
  end
  local c, root, cerr = M.client(bufnr)
  if not c then
    return nil, cerr
  end
  local params = { command = command, arguments = { arg } }
  local name = command:gsub('^hashls%.', '')
  -- No bufnr: the client flushes pending didChange of every buffer first
  -- (a tool may read any open file).
  local resp, rerr = call(c, 'request_sync', 'workspace/executeCommand', params, M.config.timeout_ms)
  if not resp then
    return nil, rerr or 'no answer from hashls'
  end
  if resp.err then
    return nil, resp.err
  end
  M.last[name] = resp.result
  remember(resp.result, root)
  return resp.result
end

-- exec_root is exec for the client of a root (async only).
function M.exec_root(root, command, arg, on_done)
  request({ root = root }, command, arg, on_done)
end

local function split_text(text)
  local lines = vim.split(text or '', '\n', { plain = true })
  if #lines > 1 and lines[#lines] == '' then
    table.remove(lines)
  end
  return lines
end

-- hashline_target is the file line a row of a hashline result names: the
-- row at 1-based lnum ("N:", "A-B:", " N:", "*N:") under the nearest
-- ¶PATH#TAG or [PATH#TAG] header above it (the header names line 1).
function M.hashline_target(lines, lnum)
  local function header(l)
    return l and (l:match('^¶(.+)#%x%x%x%x%s*$') or l:match('^%[(.+)#%x%x%x%x%]%s*$'))
  end
  local h = header(lines[lnum])
  if h then
    return h, 1
  end
  local n = lines[lnum] and lines[lnum]:match('^[ *>]?(%d+)%-?%d*:')
  if not n then
    return nil
  end
  for k = lnum - 1, 1, -1 do
    local p = header(lines[k])
    if p then
      return p, math.max(1, tonumber(n))
    end
  end
  return nil
end

-- open_line opens the file line under the cursor of a read, search or
-- outline buffer, in a window for files.
function M.open_line()
  local buf = api.nvim_get_current_buf()
  local lnum = api.nvim_win_get_cursor(0)[1]
  local path, line = M.hashline_target(api.nvim_buf_get_lines(buf, 0, lnum, false), lnum)
  if not path then
    notify('put the cursor on a row (N:TEXT) or a ¶PATH#TAG header', vim.log.levels.WARN)
    return
  end
  local ok, root = pcall(api.nvim_buf_get_var, buf, 'hashls_root')
  local file = path:sub(1, 1) == '/' and path or ((ok and root or vim.fn.getcwd()) .. '/' .. path)
  local win = M.target_window()
  api.nvim_set_current_win(win)
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  api.nvim_win_set_cursor(0, { math.min(line, api.nvim_buf_line_count(0)), 0 })
end

-- scratch shows lines in a named scratch buffer (reused), in a split.
local function scratch(name, text, ft, root)
  local bufname = 'hashls://' .. name
  local buf = vim.fn.bufnr('^' .. vim.pesc(bufname) .. '$')
  if buf == -1 then
    buf = api.nvim_create_buf(false, true)
    api.nvim_buf_set_name(buf, bufname)
    api.nvim_buf_set_option(buf, 'bufhidden', 'hide')
  end
  api.nvim_buf_set_option(buf, 'modifiable', true)
  api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(text or '', '\n', { plain = true }))
  api.nvim_buf_set_option(buf, 'modifiable', false)
  if ft then
    api.nvim_buf_set_option(buf, 'filetype', ft)
  end
  if root then
    api.nvim_buf_set_var(buf, 'hashls_root', root)
  end
  if not ft then
    -- Hashline results: <CR> (or gf) opens the line under the cursor.
    for _, lhs in ipairs({ '<CR>', 'gf' }) do
      api.nvim_buf_set_keymap(buf, 'n', lhs, '', { noremap = true, nowait = true, callback = M.open_line,
        desc = 'hashls: open the line under the cursor' })
    end
  end
  local win = vim.fn.bufwinid(buf)
  if win == -1 then
    vim.cmd('botright split')
    api.nvim_win_set_buf(0, buf)
  else
    api.nvim_set_current_win(win)
  end
  return buf
end

local function show_result(name)
  return function(err, result, root)
    if err then
      notify(name .. ': ' .. errtext(err), vim.log.levels.ERROR)
      return
    end
    scratch(name, type(result) == 'table' and result.text or vim.inspect(result), nil, root)
  end
end

local function cur_rel(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and api.nvim_get_current_buf() or bufnr
  local p = buf_path(bufnr)
  if not p then
    return nil
  end
  return rel(root_for(bufnr), p)
end

-- read runs hashls.read (path defaults to the current file; a selector like
-- :10-20 may follow the path).
function M.read(path, on_done)
  path = (path and path ~= '') and path or cur_rel(0)
  if not path then
    notify('read: name a path (the current buffer has no file)', vim.log.levels.ERROR)
    return
  end
  return M.exec('hashls.read', { path = path }, on_done)
end

-- edit runs hashls.edit with hashline input.
function M.edit(input, on_done)
  return M.exec('hashls.edit', { input = input }, on_done)
end

-- search runs hashls.search over paths (default: the whole root).
function M.search(pattern, paths, on_done)
  return M.exec('hashls.search', { pattern = pattern, paths = paths or '.' }, on_done)
end

-- search_qf runs a regex search (Go RE2) over the root of the current
-- buffer and puts every matching line in the quickfix list (paging through
-- at most search_pages pages), then opens it. on_done(err, items) is called
-- at the end.
function M.search_qf(pattern, opts, on_done)
  opts = opts or {}
  local bufnr = api.nvim_get_current_buf()
  local title = 'hashls search: ' .. pattern
  local total, pages = 0, 0
  local function finish(err, details)
    if err then
      notify('search: ' .. errtext(err), vim.log.levels.ERROR)
    else
      local more = ''
      if details and type(details.nextSkip) == 'number' and details.nextSkip > 0 then
        more = string.format(' (first %d pages; narrow the pattern for the rest)', pages)
      end
      vim.fn.setqflist({}, 'a', { title = title .. string.format('  [%d lines]', total) .. more })
      if total == 0 then
        notify('search: no matches for ' .. pattern)
      elseif opts.open ~= false then
        vim.cmd('botright copen')
      end
    end
    if on_done then
      on_done(err, vim.fn.getqflist())
    end
  end
  local function page(skip)
    local arg = { pattern = pattern, mode = 'regex', caseSensitive = not opts.ignorecase }
    if skip > 0 then
      arg.skip = skip
    end
    request({ bufnr = bufnr }, 'hashls.search_files', arg, function(err, result, root)
      if err then
        return finish(err)
      end
      local d = type(result) == 'table' and type(result.details) == 'table' and result.details or {}
      local items = {}
      for _, m in ipairs(type(d.matches) == 'table' and d.matches or {}) do
        if type(m) == 'table' and type(m.path) == 'string' and type(m.line) == 'number' then
          local file = m.path:sub(1, 1) == '/' and m.path or (root .. '/' .. m.path)
          table.insert(items, { filename = file, lnum = m.line, text = str(m.text) or '' })
        end
      end
      total = total + #items
      pages = pages + 1
      vim.fn.setqflist({}, skip == 0 and ' ' or 'a', { title = title, items = items })
      if type(d.nextSkip) == 'number' and d.nextSkip > skip and pages < M.config.search_pages then
        return page(d.nextSkip)
      end
      finish(nil, d)
    end)
  end
  page(0)
end

-- header_for calls on_header('¶PATH#TAG') for a buffer: the tag is minted
-- over the buffer's current text (a one-line read, asynchronous), so edits
-- written against what the editor shows apply; the tag remembered for the
-- file under its root is the fallback.
local function header_for(bufnr, on_header)
  local p = cur_rel(bufnr)
  if not p then
    return on_header('¶PATH#TAG')
  end
  request({ bufnr = bufnr }, 'hashls.read', { path = p .. ':1' }, function(_, res, root)
    local shown = res and type(res.shown) == 'table' and res.shown[1]
    local tag = type(shown) == 'table' and shown.tag
    on_header('¶' .. p .. '#' .. (tag or M.tag(root or root_for(bufnr), p) or 'TAG'))
  end)
end

-- open_edit_buffer opens the scratch buffer whose text :HashlsEdit (or :w in
-- it) sends to hashls.edit; its header line is filled in when the server
-- has minted a tag over the origin buffer's text.
local function open_edit_buffer(origin)
  if not (edit_buf and api.nvim_buf_is_valid(edit_buf)) then
    edit_buf = api.nvim_create_buf(false, false)
    api.nvim_buf_set_name(edit_buf, 'hashls://edit')
    api.nvim_buf_set_option(edit_buf, 'buftype', 'acwrite')
    api.nvim_buf_set_option(edit_buf, 'bufhidden', 'hide')
    api.nvim_buf_set_option(edit_buf, 'swapfile', false)
    api.nvim_create_autocmd('BufWriteCmd', {
      buffer = edit_buf,
      callback = function()
        M.submit_edit_buffer()
      end,
    })
  end
  local buf = edit_buf
  local p = cur_rel(origin)
  local placeholder = '¶' .. (p or 'PATH') .. '#' .. ((p and M.tag(root_for(origin), p)) or 'TAG')
  api.nvim_buf_set_lines(buf, 0, -1, false, { placeholder, '' })
  api.nvim_buf_set_option(buf, 'modified', false)
  api.nvim_buf_set_var(buf, 'hashls_origin', origin)
  vim.cmd('botright split')
  api.nvim_win_set_buf(0, buf)
  api.nvim_win_set_cursor(0, { 2, 0 })
  header_for(origin, function(header)
    -- Unless the user rewrote the header meanwhile.
    if api.nvim_buf_is_valid(buf) and api.nvim_buf_get_lines(buf, 0, 1, false)[1] == placeholder then
      api.nvim_buf_set_lines(buf, 0, 1, false, { header })
    end
  end)
  return buf
end

-- submit_edit_buffer sends the edit buffer's text to hashls.edit; on success
-- the buffer is cleared and its window closed.
function M.submit_edit_buffer(on_done)
  local buf = edit_buf
  if not (buf and api.nvim_buf_is_valid(buf)) then
    return
  end
  local input = table.concat(api.nvim_buf_get_lines(buf, 0, -1, false), '\n') .. '\n'
  local ok, origin = pcall(api.nvim_buf_get_var, buf, 'hashls_origin')
  M.exec('hashls.edit', { input = input }, function(err, result)
    if err then
      notify('edit: ' .. errtext(err), vim.log.levels.ERROR)
    else
      api.nvim_buf_set_option(buf, 'modified', false)
      local win = vim.fn.bufwinid(buf)
      if win ~= -1 and #api.nvim_list_wins() > 1 then
        api.nvim_win_close(win, true)
      end
      notify((result and result.text or "edited"):match("^[^\n]*"))
    end
    if on_done then
      on_done(err, result)
    end
  end, ok and api.nvim_buf_is_valid(origin) and origin or nil)
end

-- select_block selects (linewise) the block at the cursor when the server
-- answers, if the same buffer is still current; on_done(err, result).
function M.select_block(bufnr, line, on_done)
  bufnr = (bufnr == nil or bufnr == 0) and api.nvim_get_current_buf() or bufnr
  line = line or api.nvim_win_get_cursor(0)[1]
  request({ bufnr = bufnr }, 'hashls.selectBlock', { uri = vim.uri_from_bufnr(bufnr), line = line }, function(err, res)
    if err then
      notify('select block: ' .. errtext(err), vim.log.levels.ERROR)
    elseif api.nvim_get_current_buf() == bufnr then
      M.visual_lines(res.startLine, res.endLine)
    end
    if on_done then
      on_done(err, res)
    end
  end)
end

function M.visual_lines(first, last)
  local mode = api.nvim_get_mode().mode
  if mode:match('^[vV\22]') then
    vim.cmd('normal! \27')
  end
  api.nvim_win_set_cursor(0, { first, 0 })
  vim.cmd('normal! V')
  api.nvim_win_set_cursor(0, { last, 0 })
end

local function default_register()
  if M.config.register then
    return M.config.register
  end
  if vim.fn.has('clipboard') == 1 then
    return '+'
  end
  return '"'
end

-- anchor copies the hashline anchor of the block at the cursor
-- ("¶path#TAG\nreplace block N:") into a register; on_done(err, result).
function M.anchor(reg, bufnr, line, on_done)
  bufnr = (bufnr == nil or bufnr == 0) and api.nvim_get_current_buf() or bufnr
  line = line or api.nvim_win_get_cursor(0)[1]
  reg = (reg and reg ~= '') and reg or default_register()
  request({ bufnr = bufnr }, 'hashls.copyBlockAnchor', { uri = vim.uri_from_bufnr(bufnr), line = line },
    function(err, res, root)
      if err then
        notify('anchor: ' .. errtext(err), vim.log.levels.ERROR)
      else
        if type(res.path) == 'string' and type(res.tag) == 'string' then
          set_tag(root, res.path, res.tag)
        end
        vim.fn.setreg(reg, res.text, 'l')
        notify('copied ' .. res.anchor .. ' (block ' .. res.startLine .. '–' .. res.endLine .. ') to register ' .. reg)
      end
      if on_done then
        on_done(err, res)
      end
    end)
end

-- outline shows the structural summary of the current file.
function M.outline(bufnr, on_done)
  bufnr = (bufnr == nil or bufnr == 0) and api.nvim_get_current_buf() or bufnr
  M.exec('hashls.outline', { uri = vim.uri_from_bufnr(bufnr) }, on_done or show_result('outline'), bufnr)
end

-- Agent panel ---------------------------------------------------------------

local function roots_shown()
  local seen, n = {}, 0
  for _, e in ipairs(M.activity) do
    if not seen[e.root] then
      seen[e.root] = true
      n = n + 1
    end
  end
  return n
end

-- filter_text renders the panel's filter as the f prompt takes it.
local function filter_text()
  local parts = {}
  for _, k in ipairs({ 'tool', 'transport', 'agent', 'path', 'reads' }) do
    if panel.filter[k] then
      table.insert(parts, k .. '=' .. panel.filter[k])
    end
  end
  return table.concat(parts, ' ')
end

-- set_filter parses "tool=edit,write transport=cli agent=codex path=main
-- reads=yes" (empty: no filter); tool, transport and agent are exact names
-- (comma-separated), path a plain substring of any path of the entry.
-- Runs that only read (read, search, find, ...) are hidden unless reads=yes
-- or the tool filter names their tool.
function M.set_filter(text)
  local f = {}
  for tok in (text or ''):gmatch('%S+') do
    local k, v = tok:match('^(%w+)=(.*)$')
    if not (k == 'tool' or k == 'transport' or k == 'path' or k == 'agent' or k == 'reads') or v == ''
      or k == 'reads' and v ~= 'yes' and v ~= 'no' then
      notify('panel filter: ' .. tok .. ' is not tool=NAME, transport=NAME, agent=NAME, path=TEXT or reads=yes', vim.log.levels.ERROR)
      return false
    end
    f[k] = v
  end
  if f.reads == 'no' then
    f.reads = nil
  end
  panel.filter = f
  schedule_render()
  return true
end

local function in_list(csv, v)
  for x in csv:gmatch('[^,]+') do
    if x == v then
      return true
    end
  end
  return false
end

local function visible(e)
  local f = panel.filter
  if e.readOnly and not f.reads and not (f.tool and in_list(f.tool, e.tool)) then
    return false
  end
  if f.tool and not in_list(f.tool, e.tool) then
    return false
  end
  if f.agent and not in_list(f.agent, e.agent or '') then
    return false
  end
  if f.transport and not in_list(f.transport, e.transport or '') then
    return false
  end
  if f.path then
    for _, p in ipairs(e.paths) do
      if tostring(p):find(f.path, 1, true) then
        return true
      end
    end
    return false
  end
  return true
end

-- panel_entries are the entries the panel shows, newest first.
function M.panel_entries()
  local out = {}
  for _, e in ipairs(M.activity) do
    if visible(e) then
      table.insert(out, e)
    end
  end
  table.sort(out, function(a, b)
    if a.epoch ~= b.epoch then
      return a.epoch > b.epoch
    end
    -- (a total order: epoch, root, audit id, arrival)
    if a.root ~= b.root then
      return tostring(a.root) < tostring(b.root)
    end
    local ia, ib = tonumber(a.auditIds[1]) or -1, tonumber(b.auditIds[1]) or -1
    if ia ~= ib then
      return ia > ib
    end
    return a.seq > b.seq
  end)
  return out
end

local function entry_line(e, many_roots)
  local audits = {}
  for _, id in ipairs(e.auditIds) do
    table.insert(audits, '#' .. tostring(id))
  end
  local outcome = e.outcome
  if e.errorKind then
    outcome = outcome .. '(' .. e.errorKind .. ')'
  end
  local paths = {}
  for _, p in ipairs(e.paths) do
    table.insert(paths, (many_roots and vim.fn.fnamemodify(e.root, ':t') .. ':' or '') .. tostring(p))
  end
  return string.format('%-11s %-11s %-9s %-10s %s%s%s', e.time, e.tool, e.agent or e.transport or '', outcome,
    table.concat(paths, ','), #audits > 0 and ('  audit ' .. table.concat(audits, ',')) or '',
    e.durationMs and string.format('  %.0fms', e.durationMs) or '')
end

local keys_help = '<CR> diff  o open  d split diff  x revert  U undo turn  K keep turn  f filter  F clear  R refresh  m more  q close'

-- panel_lines renders the panel: a header, one line per entry (newest
-- first), then the diff (or error, or revert refusal) of the selected entry.
function M.panel_lines()
  local lines = { 'hashls activity  ' .. keys_help }
  local ft = filter_text()
  table.insert(lines, ft ~= '' and ('filter: ' .. ft) or 'filter: none (f to set; reads hidden)')
  local n = M.review_total()
  if n > 0 then
    lines[2] = lines[2] .. string.format('   %d to review (]r in a file, :HashlsReview)', n)
  end
  for _, k in ipairs({ 'history_error', 'status' }) do
    if panel[k] then
      lines[2] = lines[2] .. '   ' .. panel[k]
    end
  end
  local entries = M.panel_entries()
  local many = roots_shown() > 1
  panel.lines = {}
  local sel = M.selected_entry()
  for _, e in ipairs(entries) do
    local mark = (sel == e) and '>' or ' '
    table.insert(lines, mark .. entry_line(e, many))
    panel.lines[#lines] = e
  end
  if #entries == 0 then
    table.insert(lines, '  (no entries' .. (ft ~= '' and ' match the filter)' or ')'))
  end
  panel.first_detail = #lines + 1
  if sel then
    table.insert(lines, string.rep('─', 20) .. ' ' .. sel.tool .. ' ' .. sel.time
      .. (sel.agent and (' by ' .. sel.agent) or '') .. (sel.turn and (' turn ' .. sel.turn) or '') .. ' ' .. string.rep('─', 20))
    local body = sel.diff
    if body == '' then
      body = sel.message or sel.diff_unavailable or (sel.loading and 'loading the diff…')
        or (#sel.auditIds > 0 and '(diff not loaded: <CR>)' or '(no diff)')
    end
    if sel.revert_error then
      body = 'revert refused: ' .. sel.revert_error .. '\n' .. body
    end
    if sel.note then
      body = '(' .. sel.note .. ')\n' .. body
    end
    for _, l in ipairs(vim.split(body, '\n', { plain = true })) do
      table.insert(lines, l)
    end
  end
  return lines
end

-- selected_entry is the entry picked with <CR> (default: the newest shown).
function M.selected_entry()
  for _, e in ipairs(M.activity) do
    if e.seq == panel.selected and visible(e) then
      return e
    end
  end
  return M.panel_entries()[1]
end

-- unknown_argument tells an error of a server older than the panel
-- contract (audit {id|since|before}) from others.
unknown_argument = function(err)
  return errkind(err) == 'invalid_argument' and type(err.message) == 'string'
    and err.message:find('unknown argument', 1, true) ~= nil
end

local ns = api.nvim_create_namespace('hashls_panel')

function M.panel_render()
  local buf = panel.buf
  if not (buf and api.nvim_buf_is_valid(buf)) then
    return
  end
  local lines = M.panel_lines()
  api.nvim_buf_set_option(buf, 'modifiable', true)
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  api.nvim_buf_set_option(buf, 'modifiable', false)
  api.nvim_buf_clear_namespace(buf, ns, 0, -1)
  api.nvim_buf_add_highlight(buf, ns, 'Title', 0, 0, -1)
  api.nvim_buf_add_highlight(buf, ns, 'Comment', 1, 0, -1)
  for lnum, e in pairs(panel.lines) do
    if e.outcome ~= 'ok' then
      api.nvim_buf_add_highlight(buf, ns, 'ErrorMsg', lnum - 1, 0, -1)
    end
  end
  for i = panel.first_detail, #lines do
    local c = lines[i]:sub(1, 1)
    local group = (c == '+' and 'DiffAdd') or (c == '-' and 'DiffDelete') or (c == '@' and 'DiffChange') or nil
    if i == panel.first_detail then
      group = 'Title'
    end
    if group then
      api.nvim_buf_add_highlight(buf, ns, group, i - 1, 0, -1)
    end
  end
end

local render_queued = false
schedule_render = function()
  if render_queued then
    return
  end
  render_queued = true
  vim.schedule(function()
    render_queued = false
    M.panel_render()
  end)
end

-- panel_refresh loads audit rows the panel has not seen, for root (default:
-- every running client's root): the newest `history` rows the first time,
-- then the rows after the newest seen. on_done(err) when all answered.
function M.panel_refresh(root, on_done)
  local roots = {}
  if root then
    roots = { root }
  else
    for r in pairs(clients) do
      table.insert(roots, r)
    end
  end
  local left = #roots
  local first_err
  local function one_done(err)
    first_err = first_err or err
    left = left - 1
    if left == 0 then
      schedule_render()
      if on_done then
        on_done(first_err)
      end
    end
  end
  if left == 0 then
    return on_done and on_done(nil)
  end
  for _, r in ipairs(roots) do
    local function load(arg)
      M.exec_root(r, 'hashls.audit', arg, function(err, result)
        if err and arg.since and unknown_argument(err) then
          -- A server before audit {since}: the newest rows, deduplicated.
          history[r].no_since = true
          return load({ limit = M.config.history })
        end
        if err then
          panel.history_error = 'history: ' .. errtext(err)
        else
          panel.history_error = nil
          add_history(r, type(result) == 'table' and type(result.details) == 'table' and result.details.entries)
          history[r].loaded = true
        end
        one_done(err)
      end)
    end
    local h = history[r]
    if h and h.loaded and h.newest and not h.no_since then
      load({ since = h.newest, limit = 200 })
    else
      load({ limit = M.config.history })
    end
  end
end

-- panel_more loads the audit rows before the oldest the panel holds.
function M.panel_more(on_done)
  local left, added = 0, 0
  for r in pairs(clients) do
    local h = history[r]
    if h and h.oldest then
      left = left + 1
      M.exec_root(r, 'hashls.audit', { before = h.oldest, limit = M.config.history }, function(err, result)
        if err then
          notify('older history: ' .. (unknown_argument(err) and 'this hashls cannot page its history (audit {before}); update the server' or errtext(err)), vim.log.levels.WARN)
        else
          added = added + add_history(r, type(result) == 'table' and type(result.details) == 'table' and result.details.entries)
        end
        left = left - 1
        if left == 0 then
          panel.status = added > 0 and string.format('%d older entries', added) or 'no older entries'
          schedule_render()
          if on_done then
            on_done(added)
          end
        end
      end)
    end
  end
  if left == 0 and on_done then
    on_done(0)
  end
end

-- audit_of fetches hashls.audit {id} for an entry's audit id (cached):
-- on_done(err, details) with details.before/after/diff when the server
-- holds them.
local function audit_of(e, id, on_done)
  if e.audit[id] then
    return on_done(nil, e.audit[id])
  end
  M.exec_root(e.root, 'hashls.audit', { id = id }, function(err, result)
    if err and unknown_argument(err) then
      return on_done('this hashls cannot show past changes (hashls.audit {id}); update the server')
    end
    if err then
      return on_done(err)
    end
    local d = type(result) == 'table' and type(result.details) == 'table' and result.details or {}
    local rows = type(d.entries) == 'table' and d.entries or {}
    if #rows ~= 1 or type(rows[1]) ~= 'table' or rows[1].id ~= id then
      -- A server before audit {id}: it listed the newest rows instead.
      return on_done('this hashls cannot show past changes (hashls.audit {id}); update the server')
    end
    e.audit[id] = d
    on_done(nil, d)
  end)
end

-- load_diff fills e.diff from the store when the entry came without one.
local function load_diff(e, on_done)
  local id = e.auditIds[1]
  if e.diff ~= '' or type(id) ~= 'number' then
    return on_done and on_done()
  end
  e.loading = true
  schedule_render()
  local diffs, left, n = {}, #e.auditIds, #e.auditIds
  for i, aid in ipairs(e.auditIds) do
    audit_of(e, aid, function(err, d)
      if err then
        e.diff_unavailable = type(err) == 'string' and err or errtext(err)
      elseif type(d.diff) == 'string' then
        diffs[i] = d.diff
      end
      left = left - 1
      if left == 0 then
        e.loading = nil
        local all = {}
        for j = 1, n do
          if diffs[j] and diffs[j] ~= '' then
            table.insert(all, diffs[j])
          end
        end
        if #all > 0 then
          e.diff = table.concat(all, '\n')
        end
        schedule_render()
        if on_done then
          on_done()
        end
      end
    end)
  end
end

-- panel_select selects the entry on panel line lnum and shows its diff.
function M.panel_select(lnum, on_done)
  local e = panel.lines[lnum]
  if not e then
    return on_done and on_done()
  end
  panel.selected = e.seq
  M.panel_render()
  load_diff(e, on_done)
end

local function entry_at_cursor()
  if not (panel.buf and api.nvim_get_current_buf() == panel.buf) then
    return M.selected_entry()
  end
  return panel.lines[api.nvim_win_get_cursor(0)[1]] or M.selected_entry()
end

-- first_changed_line is the new-file line of the first change a unified
-- diff shows for path (any path when nil), or nil.
local function first_changed_line(diff, path)
  local line, in_file = nil, path == nil
  for _, l in ipairs(vim.split(diff or '', '\n', { plain = true })) do
    if l:sub(1, 4) == '+++ ' then
      local name = l:sub(5):gsub('^b/', '')
      in_file = path == nil or name == path
      line = nil
    elseif in_file then
      local c = l:match('^@@ %-%d+,?%d* %+(%d+),?%d* @@')
      if c then
        line = tonumber(c)
      elseif line then
        local ch = l:sub(1, 1)
        if ch == '+' or ch == '-' then
          return math.max(line, 1)
        elseif ch == ' ' then
          line = line + 1
        end
      end
    end
  end
  return nil
end

-- pick lets the user choose one of items (skipped for a single one).
local function pick(items, prompt, fn)
  if #items <= 1 then
    return fn(items[1])
  end
  vim.ui.select(items, { prompt = prompt, format_item = tostring }, function(choice)
    if choice then
      fn(choice)
    end
  end)
end

-- target_window is a window for files: the last one not showing a hashls
-- buffer, else a new split left of the panel.
local function target_window()
  local function fit(w)
    local b = api.nvim_win_get_buf(w)
    return api.nvim_buf_get_option(b, 'buftype') == '' and not api.nvim_buf_get_name(b):match('^hashls://')
  end
  local nr = vim.fn.winnr('#')
  local prev = nr > 0 and vim.fn.win_getid(nr) or 0
  if prev ~= 0 and api.nvim_win_is_valid(prev) and fit(prev) then
    return prev
  end
  for _, w in ipairs(api.nvim_tabpage_list_wins(0)) do
    if fit(w) then
      return w
    end
  end
  vim.cmd('aboveleft vsplit')
  return api.nvim_get_current_win()
end
M.target_window = target_window

-- panel_open opens the entry's file at its first changed line.
function M.panel_open(e, on_done)
  e = e or entry_at_cursor()
  if not e or #e.paths == 0 then
    return on_done and on_done()
  end
  pick(e.paths, 'Open which file?', function(path)
    load_diff(e, function()
      local file = path:sub(1, 1) == '/' and path or (e.root .. '/' .. path)
      local win = target_window()
      api.nvim_set_current_win(win)
      vim.cmd('edit ' .. vim.fn.fnameescape(file))
      local line = first_changed_line(e.diff, path) or first_changed_line(e.diff) or 1
      line = math.min(line, api.nvim_buf_line_count(0))
      api.nvim_win_set_cursor(0, { line, 0 })
      if on_done then
        on_done()
      end
    end)
  end)
end

local function diff_buffer(name, lines, ft_name)
  local buf = vim.fn.bufnr('^' .. vim.pesc(name) .. '$')
  if buf == -1 then
    buf = api.nvim_create_buf(false, true)
    api.nvim_buf_set_name(buf, name)
  end
  api.nvim_buf_set_option(buf, 'bufhidden', 'wipe')
  api.nvim_buf_set_option(buf, 'modifiable', true)
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  api.nvim_buf_set_option(buf, 'modifiable', false)
  api.nvim_buf_set_option(buf, 'modified', false)
  api.nvim_buf_set_keymap(buf, 'n', 'q', '<cmd>tabclose<CR>', { noremap = true, nowait = true })
  -- Filetype from the file's name, for syntax in the diff.
  api.nvim_buf_call(buf, function()
    pcall(vim.cmd, 'silent! doautocmd filetypedetect BufRead ' .. vim.fn.fnameescape(ft_name))
  end)
  return buf
end

-- panel_diff opens the change of one of the entry's audit rows in a new tab:
-- the file before (left) and after (right), both under :diffthis; q closes
-- the tab. on_done(err, {before=buf, after=buf}).
function M.panel_diff(e, on_done)
  e = e or entry_at_cursor()
  local function done(err, r)
    if err then
      notify('diff: ' .. (type(err) == 'string' and err or errtext(err)), vim.log.levels.WARN)
    end
    if on_done then
      on_done(err, r)
    end
  end
  if not e or #e.auditIds == 0 then
    return done('this entry changed no file (no audit row)')
  end
  local items = {}
  for i, id in ipairs(e.auditIds) do
    table.insert(items, { id = id, path = e.paths[i] or e.paths[1], str = '#' .. id .. ' ' .. tostring(e.paths[i] or '') })
  end
  local pick_items = vim.tbl_map(function(x)
    return setmetatable(x, { __tostring = function(s)
      return s.str
    end })
  end, items)
  pick(pick_items, 'Diff which change?', function(it)
    audit_of(e, it.id, function(err, d)
      if err then
        if e.diff ~= '' then
          -- An older server: show the unified diff the activity carried.
          scratch('diff/' .. it.id, e.diff, 'diff')
        end
        return done(err)
      end
      local row = d.entries[1]
      local path = str(row.path) or tostring(it.path)
      local notes = {}
      for _, k in ipairs({ 'beforeUnavailable', 'afterUnavailable' }) do
        if type(d[k]) == 'string' then
          table.insert(notes, d[k])
        end
      end
      vim.cmd('tabnew')
      local scratch_buf = api.nvim_get_current_buf()
      local left = diff_buffer(string.format('hashls://audit/%d/before/%s', it.id, path), split_text(str(d.before) or ''), path)
      api.nvim_win_set_buf(0, left)
      if api.nvim_buf_is_valid(scratch_buf) and scratch_buf ~= left then
        pcall(api.nvim_buf_delete, scratch_buf, { force = true })
      end
      vim.cmd('diffthis')
      vim.cmd('rightbelow vsplit')
      local right = diff_buffer(string.format('hashls://audit/%d/after/%s', it.id, path), split_text(str(d.after) or ''), path)
      api.nvim_win_set_buf(0, right)
      vim.cmd('diffthis')
      if #notes > 0 then
        notify('diff #' .. it.id .. ': ' .. table.concat(notes, '; '), vim.log.levels.WARN)
      end
      done(nil, { before = left, after = right, id = it.id })
    end)
  end)
end

-- panel_revert reverts the entry's changes (hashls.revert per audit row,
-- newest first) after a confirmation (opts.confirm == false skips it).
-- A refusal (the file changed since, ...) is shown with the server's
-- explanation. on_done(err, results).
function M.panel_revert(e, opts, on_done)
  e = e or entry_at_cursor()
  opts = opts or {}
  local function done(err, results)
    if err then
      e.revert_error = (type(err) == 'string' and err or errtext(err)):gsub('^revert: ', '')
      notify('revert: ' .. e.revert_error, vim.log.levels.ERROR)
      panel.selected = e.seq
    end
    schedule_render()
    if on_done then
      on_done(err, results)
    end
  end
  if not e or #e.auditIds == 0 then
    return done('this entry changed no file: nothing to revert')
  end
  if not vim.tbl_contains(M.commands(e.root), 'hashls.revert') then
    return done('this hashls has no revert tool (update the server); restore from the trash with :Hashls restore {"id": N}')
  end
  local ids = vim.deepcopy(e.auditIds)
  table.sort(ids, function(a, b)
    return a > b
  end)
  local function run()
    e.revert_error = nil
    local results = {}
    local function step(i)
      if i > #ids then
        notify('reverted ' .. table.concat(e.paths, ', ') .. ' (' .. #ids .. ' change' .. (#ids > 1 and 's' or '') .. ')')
        M.panel_refresh(e.root)
        pcall(vim.cmd, 'silent! checktime')
        return done(nil, results)
      end
      M.exec_root(e.root, 'hashls.revert', { id = ids[i] }, function(err, result)
        if err then
          return done(err, results)
        end
        table.insert(results, result)
        step(i + 1)
      end)
    end
    step(1)
  end
  if opts.confirm == false then
    return run()
  end
  local what = string.format('Revert %s %s (audit %s)?', e.tool, table.concat(e.paths, ', '),
    table.concat(vim.tbl_map(function(i)
      return '#' .. i
    end, ids), ','))
  vim.ui.select({ 'Revert', 'Cancel' }, { prompt = what }, function(choice)
    if choice == 'Revert' then
      run()
    elseif on_done then
      on_done('cancelled')
    end
  end)
end

local function map(buf, lhs, fn)
  api.nvim_buf_set_keymap(buf, 'n', lhs, '', { noremap = true, nowait = true, callback = fn })
end

-- panel opens (or focuses) the agent panel on the right and loads the
-- history it has not shown yet (asynchronously).
function M.panel(on_loaded)
  local _, err = M.start(0)
  if err then
    notify('panel: ' .. err, vim.log.levels.WARN)
  end
  if not (panel.buf and api.nvim_buf_is_valid(panel.buf)) then
    local buf = api.nvim_create_buf(false, true)
    api.nvim_buf_set_name(buf, 'hashls://panel')
    api.nvim_buf_set_option(buf, 'bufhidden', 'hide')
    api.nvim_buf_set_option(buf, 'filetype', 'hashlspanel')
    map(buf, '<CR>', function()
      M.panel_select(api.nvim_win_get_cursor(0)[1])
    end)
    map(buf, 'o', function()
      M.panel_open()
    end)
    map(buf, 'd', function()
      M.panel_diff()
    end)
    map(buf, 'x', function()
      M.panel_revert()
    end)
    map(buf, 'U', function()
      local e = entry_at_cursor()
      if not (e and e.turn) then
        return notify('this entry belongs to no agent turn', vim.log.levels.WARN)
      end
      vim.ui.select({ 'Undo turn', 'Undo turn, also files changed since', 'Cancel' },
        { prompt = 'Undo turn ' .. e.turn .. (e.agent and (' of ' .. e.agent) or '') .. '?' }, function(choice)
          if choice and choice ~= 'Cancel' then
            M.review_turn('undo', e.turn, e.root, { force = choice:find('also', 1, true) ~= nil }, function()
              M.panel_refresh(e.root)
            end)
          end
        end)
    end)
    map(buf, 'K', function()
      local e = entry_at_cursor()
      if not (e and e.turn) then
        return notify('this entry belongs to no agent turn', vim.log.levels.WARN)
      end
      M.review_turn('keep', e.turn, e.root)
    end)
    map(buf, 'f', function()
      vim.ui.input({ prompt = 'filter (tool=NAME transport=NAME path=TEXT; empty clears): ', default = filter_text() },
        function(text)
          if text then
            M.set_filter(text)
          end
        end)
    end)
    map(buf, 'F', function()
      M.set_filter('')
    end)
    map(buf, 'R', function()
      M.panel_refresh()
    end)
    map(buf, 'm', function()
      M.panel_more()
    end)
    api.nvim_buf_set_keymap(buf, 'n', 'q', '<cmd>close<CR>', { noremap = true, nowait = true })
    panel.buf = buf
  end
  local win = vim.fn.bufwinid(panel.buf)
  if win == -1 then
    vim.cmd('botright vsplit')
    api.nvim_win_set_buf(0, panel.buf)
    api.nvim_win_set_width(0, M.config.panel_width)
    vim.wo.wrap = false
    vim.wo.number = false
  else
    api.nvim_set_current_win(win)
  end
  M.panel_render()
  M.panel_refresh(nil, on_loaded)
  return panel.buf
end

-- Client-side handlers for the commands the server's code actions name, so
-- picking them from vim.lsp.buf.code_action() selects, copies or shows.
local function code_action_commands()
  vim.lsp.commands['hashls.selectBlock'] = function(command, ctx)
    local a = command.arguments and command.arguments[1] or {}
    local bufnr = ctx and ctx.bufnr or 0
    M.select_block(bufnr, a.line)
  end
  vim.lsp.commands['hashls.copyBlockAnchor'] = function(command, ctx)
    local a = command.arguments and command.arguments[1] or {}
    M.anchor(nil, ctx and ctx.bufnr or 0, a.line)
  end
  vim.lsp.commands['hashls.outline'] = function(_, ctx)
    M.outline(ctx and ctx.bufnr or 0)
  end
end

local function user_commands()
  local cmd = api.nvim_create_user_command
  cmd('HashlsRead', function(o)
    local path = o.args
    if path == '' and o.range > 0 then
      local p = cur_rel(0)
      path = p and (p .. ':' .. o.line1 .. '-' .. o.line2) or ''
    end
    M.read(path, show_result('read'))
  end, {
    nargs = '?',
    range = true,
    complete = 'file',
    desc = 'hashls: read a file (default: this one, or the range) as ¶PATH#TAG + N:TEXT',
  })
  cmd('Hashls', function(o)
    local tool, json = o.args:match('^%s*(%S+)%s*(.*)$')
    local ok, arg = pcall(vim.json.decode, json ~= '' and json or '{}')
    if not ok or type(arg) ~= 'table' then
      notify('usage: :Hashls TOOL {json arguments}', vim.log.levels.ERROR)
      return
    end
    if vim.tbl_isempty(arg) then
      arg = vim.empty_dict()
    end
    tool = tool:gsub('^hashls%.', '')
    M.exec('hashls.' .. tool, arg, show_result(tool))
  end, { nargs = '+', complete = function(lead)
    local out = {}
    for _, name in ipairs(M.commands()) do
      name = name:gsub('^hashls%.', '')
      if name:sub(1, #lead) == lead then
        table.insert(out, name)
      end
    end
    return out
  end, desc = 'hashls: run any tool: :Hashls TOOL {json}' })
  cmd('HashlsEdit', function(o)
    if o.args ~= '' then
      -- One-line form: "\n" separates lines.
      local input = o.args:gsub('\\n', '\n')
      if input:sub(-1) ~= '\n' then
        input = input .. '\n'
      end
      M.edit(input, function(err, result)
        if err then
          notify('edit: ' .. errtext(err), vim.log.levels.ERROR)
        else
          notify((result.text or ""):match("^[^\n]*"))
        end
      end)
    elseif edit_buf and api.nvim_get_current_buf() == edit_buf then
      M.submit_edit_buffer()
    else
      open_edit_buffer(api.nvim_get_current_buf())
    end
  end, { nargs = '?', desc = 'hashls: edit (open the edit buffer; in it, or with text, apply)' })
  cmd('HashlsSearch', function(o)
    M.search_qf(o.args, { ignorecase = o.bang })
  end, { nargs = 1, bang = true, desc = 'hashls: search the root (Go RE2; ! ignores case) into the quickfix list' })
  cmd('HashlsOutline', function()
    M.outline(0)
  end, { desc = 'hashls: structural summary of this file' })
  cmd('HashlsSelectBlock', function()
    M.select_block(0)
  end, { range = true, desc = 'hashls: select the block at the cursor' })
  cmd('HashlsAnchor', function(o)
    M.anchor(o.args, 0)
  end, { nargs = '?', range = true, desc = 'hashls: copy the block anchor into a register' })
  cmd('HashlsReview', function(o)
    local a, b = o.args:match('^%s*(%S*)%s*(%S*)')
    if a == '' or a == 'list' then
      local items = {}
      for _, f in ipairs(M.review_files()) do
        for _, h in ipairs(f.file.hunks) do
          table.insert(items, { filename = f.path, lnum = h.line + 1,
            text = string.format('+%d -%d by %s%s', h.added, h.removedLines, hunk_who(h),
              #(h.turns or {}) > 0 and (' (turn ' .. table.concat(h.turns, ', ') .. ')') or '') })
        end
      end
      vim.fn.setqflist({}, ' ', { title = string.format('hashls review: %d to review', M.review_total()), items = items })
      if #items == 0 then
        return notify('no change to review')
      end
      return vim.cmd('botright copen')
    elseif a == 'next' or a == 'prev' then
      return M.review_next(a == 'next' and 1 or -1)
    elseif (a == 'keep' or a == 'undo') and (b == '' or b == 'hunk' or b == 'file') then
      return M.review_do(a, b == 'file' and 'file' or 'hunk')
    elseif (a == 'keep' or a == 'undo') and b == 'turn' then
      return M.review_turn(a, nil, nil, { force = o.bang })
    elseif a == 'keep' and b == 'all' then
      for _, r in ipairs(M.roots()) do
        M.exec_root(r, 'hashls.review', { action = 'keep' }, function() end)
      end
      return
    end
    notify('usage: :HashlsReview [list | next | prev | keep|undo [hunk|file|turn] | keep all]', vim.log.levels.ERROR)
  end, { nargs = '*', bang = true, complete = function(lead, line)
    local words = vim.split(line, '%s+')
    local choices = #words <= 2 and { 'list', 'next', 'prev', 'keep', 'undo' } or { 'hunk', 'file', 'turn', 'all' }
    return vim.tbl_filter(function(x)
      return x:sub(1, #lead) == lead
    end, choices)
  end, desc = 'hashls: review agents\' changes: list (quickfix), next, prev, keep/undo hunk|file|turn (! also files changed since)' })
  cmd('HashlsError', function()
    scratch('error', M.last_error or '(no error yet)', 'text')
  end, { desc = 'hashls: the whole text of the last error' })
  cmd('HashlsPanel', function(o)
    if o.args ~= '' and not M.set_filter(o.args) then
      return
    end
    M.panel()
  end, { nargs = '*', desc = 'hashls: agent panel (history + live); args: tool=NAME transport=NAME path=TEXT' })
end

local did_setup = false

function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', M.config, opts or {})
  if type(M.config.cmd) == 'string' then
    M.config.cmd = { M.config.cmd, 'serve', '--stdio' }
  end
  if not did_setup then
    user_commands()
    code_action_commands()
    did_setup = true
  end
  local group = api.nvim_create_augroup('hashls', { clear = true })
  api.nvim_create_autocmd({ 'BufWinEnter', 'BufReadPost' }, {
    group = group,
    callback = function(ev)
      if review.files[realpath(api.nvim_buf_get_name(ev.buf))] or vim.b[ev.buf].hashls_review_keys then
        review_render(ev.buf)
      end
    end,
  })
  if M.config.autostart then
    local warned = false
    local function attach(b)
      local ok, err = M.start(b)
      if not ok and not warned then
        warned = true -- once, not for every buffer
        notify(err, vim.log.levels.WARN)
      end
    end
    api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
      group = group,
      callback = function(ev)
        if buf_path(ev.buf) and api.nvim_buf_get_option(ev.buf, 'buftype') == '' then
          attach(ev.buf)
        end
      end,
    })
    for _, b in ipairs(api.nvim_list_bufs()) do
      if api.nvim_buf_is_loaded(b) and buf_path(b) and api.nvim_buf_get_option(b, 'buftype') == '' then
        attach(b)
      end
    end
  end
  return M
end

-- stop stops every hashls client (shutdown + exit).
function M.stop()
  for root, id in pairs(clients) do
    local c = vim.lsp.get_client_by_id(id)
    if c then
      call(c, 'stop')
    end
    clients[root] = nil
  end
end

-- root_dir returns the workspace root hashls uses for bufnr (:checkhealth).
M.root_dir = root_for

-- roots lists the roots with a running client.
function M.roots()
  local out = {}
  for r, id in pairs(clients) do
    if vim.lsp.get_client_by_id(id) then
      table.insert(out, r)
    end
  end
  table.sort(out)
  return out
end

return M
