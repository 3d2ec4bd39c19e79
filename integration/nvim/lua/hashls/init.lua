-- hashls.nvim: the Neovim client of the hashls language server.
--
-- require('hashls').setup{ cmd = {'hashls', 'serve', '--stdio'}, root_dir = ... }
-- starts (or reuses) one hashls client per root, attaches file buffers under
-- that root, and defines :HashlsRead, :HashlsEdit, :HashlsSearch,
-- :HashlsOutline, :HashlsSelectBlock, :HashlsAnchor and :HashlsPanel.
--
-- Works on Neovim 0.7.2 (vim.lsp.start_client + buf_attach_client) and newer
-- (vim.lsp.start). Every agent tool is the server command hashls.<tool>
-- ({text, details} results); edits to open buffers arrive as
-- workspace/applyEdit and land in the buffer (and its undo history), not on
-- disk; after each tool run the server sends hashls/activity, which the agent
-- panel lists.

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
local mutating = { edit = true, write = true, apply_patch = true }

M.config = {
  cmd = { 'hashls', 'serve', '--stdio' },
  root_dir = nil, -- string, or function(bufnr) -> string; default: nearest .git/go.mod, else cwd
  init_options = {}, -- hashls settings: progress, activity, logLevel, applyEditTimeoutMs, stateDir
  autostart = true, -- attach every file buffer under the root
  debounce_text_changes = 50,
  timeout_ms = 10000, -- for synchronous requests
  panel_width = 70,
  max_activity = 200,
  register = nil, -- :HashlsAnchor default register; nil: '+' when a clipboard exists, else '"'
  on_attach = nil,
  on_exit = nil,
}

-- state
M.activity = {} -- hashls/activity entries, oldest first: {time, tool, paths, outcome, errorKind, message, auditIds, diff, durationMs, seq}
M.last = {} -- last results by tool/command name
M.tags = {} -- path (relative to the root) -> tag of the last read/edit/write
M.exit = nil -- {code, signal} of the last server exit
local clients = {} -- root -> client id
local seq = 0
local panel = { buf = nil, selected = nil }
local edit_buf = nil

local function notify(msg, level)
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

-- record stores one hashls/activity notification and redraws the panel.
local function record(params)
  if type(params) ~= 'table' then
    return
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
  seq = seq + 1
  local e = {
    seq = seq,
    time = os.date('%H:%M:%S'),
    tool = str(params.tool) or '?',
    paths = list(params.paths),
    outcome = str(params.outcome) or '?',
    errorKind = str(params.errorKind),
    message = str(params.message),
    auditIds = list(params.auditIds),
    diff = str(params.diff) or '',
    durationMs = type(params.durationMs) == 'number' and params.durationMs or nil,
  }
  table.insert(M.activity, e)
  while #M.activity > M.config.max_activity do
    table.remove(M.activity, 1)
  end
  vim.schedule(function()
    M.panel_render()
    if e.outcome == 'ok' and mutating[e.tool] then
      -- Reload unmodified buffers of files the tool wrote on disk (open
      -- buffers were edited in place through workspace/applyEdit).
      pcall(vim.cmd, 'silent! checktime')
    end
  end)
end

local handlers = {
  -- Handler signature (err, result, ctx, config) since Neovim 0.5.1.
  ['hashls/activity'] = function(_, result)
    record(result)
  end,
}

local function client_config(root)
  local cfg = M.config
  return {
    name = 'hashls',
    cmd = cfg.cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    init_options = cfg.init_options,
    handlers = handlers,
    flags = { debounce_text_changes = cfg.debounce_text_changes },
    on_attach = cfg.on_attach,
    on_exit = function(code, signal, client_id)
      M.exit = { code = code, signal = signal, client_id = client_id }
      for r, id in pairs(clients) do
        if id == client_id then
          clients[r] = nil
        end
      end
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
    local cfg = client_config(root)
    if vim.lsp.start and (file or not vim.lsp.start_client) then
      -- 0.8+: starts (or reuses) the client and attaches a file buffer
      -- (attach=false is understood from 0.11, when start_client is gone).
      id = vim.lsp.start(cfg, { bufnr = bufnr, attach = file ~= nil })
    else
      id = vim.lsp.start_client(cfg)
    end
    if not id then
      return nil, 'could not start ' .. table.concat(M.config.cmd, ' ')
    end
    clients[root] = id
  end
  if file and not vim.lsp.buf_is_attached(bufnr, id) then
    vim.lsp.buf_attach_client(bufnr, id)
  end
  return id
end

-- client returns the hashls client for a buffer (starting it if needed) and
-- the workspace root.
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

-- commands lists the commands a running hashls client advertises.
function M.commands()
  for _, id in pairs(clients) do
    local c = vim.lsp.get_client_by_id(id)
    local p = c and c.server_capabilities and c.server_capabilities.executeCommandProvider
    if type(p) == 'table' and type(p.commands) == 'table' then
      return p.commands
    end
  end
  return {}
end

-- remember keeps the tags a result names in its typed fields: the files it
-- showed and the files it changed.
local function remember(result)
  if type(result) ~= 'table' then
    return
  end
  for _, f in ipairs(type(result.shown) == 'table' and result.shown or {}) do
    if type(f) == 'table' and type(f.path) == 'string' and type(f.tag) == 'string' then
      M.tags[f.path] = f.tag
    end
  end
  for _, c in ipairs(type(result.changes) == 'table' and result.changes or {}) do
    if type(c) == 'table' and type(c.path) == 'string' and type(c.newTag) == 'string' and c.newTag ~= '' then
      M.tags[c.path] = c.newTag
    end
  end
end

local function errtext(err)
  if type(err) ~= 'table' then
    return tostring(err)
  end
  local kind = type(err.data) == 'table' and err.data.kind
  return (err.message or vim.inspect(err)) .. (kind and (' [' .. kind .. ']') or '')
end

-- exec runs a server command. With on_done(err, result) it is asynchronous;
-- without, it waits (timeout_ms) and returns result, err.
function M.exec(command, arg, on_done, bufnr)
  local c, _, cerr = M.client(bufnr)
  if not c then
    if on_done then
      on_done(cerr, nil)
      return
    end
    return nil, cerr
  end
  local params = { command = command, arguments = { arg } }
  local name = command:gsub('^hashls%.', '')
  if on_done then
    call(c, 'request', 'workspace/executeCommand', params, function(err, result)
      if not err then
        M.last[name] = result
        remember(result)
      end
      on_done(err, result)
    end)
    return
  end
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
  remember(resp.result)
  return resp.result
end

-- scratch shows lines in a named scratch buffer (reused), in a split.
local function scratch(name, text, ft)
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
  return function(err, result)
    if err then
      notify(name .. ': ' .. errtext(err), vim.log.levels.ERROR)
      return
    end
    scratch(name, type(result) == 'table' and result.text or vim.inspect(result))
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

-- header_for is the ¶PATH#TAG header for a buffer: the tag is minted over
-- the buffer's current text (a one-line read), so edits written against
-- what the editor shows apply; the last remembered tag is the fallback.
local function header_for(bufnr)
  local p = cur_rel(bufnr)
  if not p then
    return '¶PATH#TAG'
  end
  local res = M.exec('hashls.read', { path = p .. ':1' }, nil, bufnr)
  local shown = res and type(res.shown) == 'table' and res.shown[1]
  local tag = type(shown) == 'table' and shown.tag
  return '¶' .. p .. '#' .. (tag or M.tags[p] or 'TAG')
end

-- open_edit_buffer opens the scratch buffer whose text :HashlsEdit (or :w in
-- it) sends to hashls.edit, prefilled with the header of the last read.
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
  local header = header_for(origin)
  api.nvim_buf_set_lines(edit_buf, 0, -1, false, { header, '' })
  api.nvim_buf_set_option(edit_buf, 'modified', false)
  api.nvim_buf_set_var(edit_buf, 'hashls_origin', origin)
  vim.cmd('botright split')
  api.nvim_win_set_buf(0, edit_buf)
  api.nvim_win_set_cursor(0, { 2, 0 })
  return edit_buf
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

-- select_block selects (linewise) the block at the cursor.
function M.select_block(bufnr, line)
  bufnr = (bufnr == nil or bufnr == 0) and api.nvim_get_current_buf() or bufnr
  line = line or api.nvim_win_get_cursor(0)[1]
  local res, err = M.exec('hashls.selectBlock', { uri = vim.uri_from_bufnr(bufnr), line = line }, nil, bufnr)
  if not res then
    notify('select block: ' .. errtext(err), vim.log.levels.ERROR)
    return nil, err
  end
  M.visual_lines(res.startLine, res.endLine)
  return res
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
-- ("¶path#TAG\nreplace block N:") into a register.
function M.anchor(reg, bufnr, line)
  bufnr = (bufnr == nil or bufnr == 0) and api.nvim_get_current_buf() or bufnr
  line = line or api.nvim_win_get_cursor(0)[1]
  local res, err = M.exec('hashls.copyBlockAnchor', { uri = vim.uri_from_bufnr(bufnr), line = line }, nil, bufnr)
  if not res then
    notify('anchor: ' .. errtext(err), vim.log.levels.ERROR)
    return nil, err
  end
  if type(res.path) == 'string' and type(res.tag) == 'string' then
    M.tags[res.path] = res.tag
  end
  reg = (reg and reg ~= '') and reg or default_register()
  vim.fn.setreg(reg, res.text, 'l')
  notify('copied ' .. res.anchor .. ' (block ' .. res.startLine .. '–' .. res.endLine .. ') to register ' .. reg)
  return res
end

-- outline shows the structural summary of the current file.
function M.outline(bufnr, on_done)
  bufnr = (bufnr == nil or bufnr == 0) and api.nvim_get_current_buf() or bufnr
  M.exec('hashls.outline', { uri = vim.uri_from_bufnr(bufnr) }, on_done or show_result('outline'), bufnr)
end

-- Agent panel ---------------------------------------------------------------

local function entry_line(e)
  local audits = {}
  for _, id in ipairs(e.auditIds) do
    table.insert(audits, '#' .. tostring(id))
  end
  local outcome = e.outcome
  if e.errorKind then
    outcome = outcome .. '(' .. e.errorKind .. ')'
  end
  return string.format('%s %-11s %-10s %s%s%s', e.time, e.tool, outcome, table.concat(e.paths, ','),
    #audits > 0 and ('  audit ' .. table.concat(audits, ',')) or '',
    e.durationMs and string.format('  %.0fms', e.durationMs) or '')
end

-- panel_lines renders the panel: one line per activity entry (newest last),
-- then the diff (or error message) of the selected entry (default: newest).
function M.panel_lines()
  local lines = { 'hashls activity  (<CR>: show diff, q: close)' }
  for _, e in ipairs(M.activity) do
    local mark = (panel.selected == e.seq) and '>' or ' '
    table.insert(lines, mark .. entry_line(e))
  end
  local sel = M.selected_entry()
  if sel then
    table.insert(lines, string.rep('─', 20) .. ' ' .. sel.tool .. ' ' .. sel.time .. ' ' .. string.rep('─', 20))
    local body = sel.diff ~= '' and sel.diff or (sel.message or '(no diff)')
    for _, l in ipairs(vim.split(body, '\n', { plain = true })) do
      table.insert(lines, l)
    end
  end
  return lines
end

function M.selected_entry()
  for _, e in ipairs(M.activity) do
    if e.seq == panel.selected then
      return e
    end
  end
  return M.activity[#M.activity]
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
  for i, e in ipairs(M.activity) do
    if e.outcome ~= 'ok' then
      api.nvim_buf_add_highlight(buf, ns, 'ErrorMsg', i, 0, -1)
    end
  end
  for i = #M.activity + 2, #lines do
    local c = lines[i]:sub(1, 1)
    local group = (c == '+' and 'DiffAdd') or (c == '-' and 'DiffDelete') or (c == '@' and 'DiffChange') or nil
    if i == #M.activity + 2 then
      group = 'Title'
    end
    if group then
      api.nvim_buf_add_highlight(buf, ns, group, i - 1, 0, -1)
    end
  end
end

-- panel_select selects the entry on panel line lnum (1-based).
function M.panel_select(lnum)
  local e = M.activity[lnum - 1]
  if e then
    panel.selected = e.seq
    M.panel_render()
  end
end

-- panel opens (or focuses) the agent panel on the right.
function M.panel()
  if not (panel.buf and api.nvim_buf_is_valid(panel.buf)) then
    local buf = api.nvim_create_buf(false, true)
    api.nvim_buf_set_name(buf, 'hashls://panel')
    api.nvim_buf_set_option(buf, 'bufhidden', 'hide')
    api.nvim_buf_set_option(buf, 'filetype', 'hashlspanel')
    api.nvim_buf_set_keymap(buf, 'n', '<CR>', '', {
      noremap = true,
      callback = function()
        M.panel_select(api.nvim_win_get_cursor(0)[1])
      end,
    })
    api.nvim_buf_set_keymap(buf, 'n', 'q', '<cmd>close<CR>', { noremap = true })
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
    M.search(o.args, nil, show_result('search'))
  end, { nargs = 1, desc = 'hashls: search the workspace (Go RE2)' })
  cmd('HashlsOutline', function()
    M.outline(0)
  end, { desc = 'hashls: structural summary of this file' })
  cmd('HashlsSelectBlock', function()
    M.select_block(0)
  end, { range = true, desc = 'hashls: select the block at the cursor' })
  cmd('HashlsAnchor', function(o)
    M.anchor(o.args, 0)
  end, { nargs = '?', range = true, desc = 'hashls: copy the block anchor into a register' })
  cmd('HashlsPanel', function()
    M.panel()
  end, { desc = 'hashls: agent activity panel' })
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
  if M.config.autostart then
    api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
      group = group,
      callback = function(ev)
        if buf_path(ev.buf) and api.nvim_buf_get_option(ev.buf, 'buftype') == '' then
          local ok, err = M.start(ev.buf)
          if not ok then
            notify(err, vim.log.levels.WARN)
          end
        end
      end,
    })
    for _, b in ipairs(api.nvim_list_bufs()) do
      if api.nvim_buf_is_loaded(b) and buf_path(b) and api.nvim_buf_get_option(b, 'buftype') == '' then
        M.start(b)
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

return M
