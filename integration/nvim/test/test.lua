-- Headless end-to-end test of the hashls Neovim plugin against the real
-- hashls binary:
--
--   HASHLS_BIN=/path/to/hashls timeout 60 nvim --headless -u NONE -i NONE -n \
--     -c "luafile integration/nvim/test/test.lua"
--
-- HASHLS_NVIM_SCRATCH (optional) is the directory for the workspace and the
-- store (default: a fresh directory from vim.fn.tempname()). Exit code 0
-- means every check passed; failures are printed to stderr and exit 1.

local t0 = vim.loop.hrtime()
local function ms()
  return string.format('%6.1fms', (vim.loop.hrtime() - t0) / 1e6)
end
local function log(...)
  io.stderr:write(ms() .. ' ' .. table.concat(vim.tbl_map(tostring, { ... }), ' ') .. '\n')
end

local function check(cond, msg, ...)
  if not cond then
    error(string.format(msg, ...), 2)
  end
end

local function wait(what, ms_, fn)
  local ok = vim.wait(ms_, fn, 5)
  check(ok, 'timed out after %d ms waiting for %s', ms_, what)
end

local function read_file(p)
  local f = assert(io.open(p, 'rb'))
  local s = f:read('*a')
  f:close()
  return s
end

local function write_file(p, s)
  local f = assert(io.open(p, 'wb'))
  f:write(s)
  f:close()
end

local function buf_text(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n') .. '\n'
end

local notes = {}
vim.notify = function(msg, level)
  table.insert(notes, { msg = msg, level = level })
  log('notify[' .. tostring(level) .. ']', msg)
end

local function main()
  local bin = os.getenv('HASHLS_BIN')
  check(bin and bin ~= '', 'set HASHLS_BIN to the built hashls binary')
  check(vim.fn.executable(bin) == 1, 'HASHLS_BIN=%s is not executable', bin)

  -- The plugin lives two directories above this file.
  local here = debug.getinfo(1, 'S').source:sub(2)
  local plugin_dir = vim.fn.fnamemodify(here, ':p:h:h')
  vim.opt.runtimepath:prepend(plugin_dir)

  local scratch = os.getenv('HASHLS_NVIM_SCRATCH')
  if not scratch or scratch == '' then
    scratch = vim.fn.tempname()
  end
  local ws = scratch .. '/ws'
  local state = scratch .. '/state'
  vim.fn.mkdir(ws, 'p')
  vim.fn.mkdir(state, 'p')
  ws = vim.loop.fs_realpath(ws)
  local file = ws .. '/main.go'
  local original = table.concat({
    'package main',
    '',
    'import "fmt"',
    '',
    'func hello() {',
    '\tfmt.Println("hi")',
    '}',
    '',
    'func main() {',
    '\thello()',
    '}',
    '',
  }, '\n')
  write_file(file, original)

  local hashls = require('hashls')
  hashls.setup({
    cmd = { bin, 'serve', '--stdio' },
    root_dir = ws,
    init_options = { stateDir = state, logLevel = 'warning' },
    register = 'a',
  })
  log('nvim', tostring(vim.version().major) .. '.' .. vim.version().minor .. '.' .. vim.version().patch)

  -- Open the file: the autocmd starts the client and attaches the buffer.
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  local src_win = vim.api.nvim_get_current_win()
  local c, root, err = hashls.client(buf)
  check(c, 'no client: %s', tostring(err))
  check(root == ws, 'client root %s, want %s', tostring(root), ws)
  check(vim.lsp.buf_is_attached(buf, c.id), 'buffer not attached to hashls')
  local caps = c.server_capabilities or c.resolved_capabilities
  check(caps, 'no server capabilities')
  local cmds = (c.server_capabilities and c.server_capabilities.executeCommandProvider
    or c.resolved_capabilities.execute_command) or {}
  cmds = type(cmds) == 'table' and (cmds.commands or cmds) or {}
  for _, want in ipairs({ 'hashls.read', 'hashls.edit', 'hashls.search', 'hashls.selectBlock', 'hashls.copyBlockAnchor', 'hashls.outline' }) do
    check(vim.tbl_contains(cmds, want), 'server does not advertise %s (got %s)', want, vim.inspect(cmds))
  end
  log('initialized, client', c.id)

  -- Agent panel, opened before any tool runs so it fills live.
  vim.cmd('HashlsPanel')
  local panel_buf = vim.api.nvim_get_current_buf()
  check(vim.api.nvim_buf_get_name(panel_buf):match('hashls://panel$'), 'panel buffer name %s', vim.api.nvim_buf_get_name(panel_buf))
  vim.api.nvim_set_current_win(src_win)

  -- :HashlsRead (async through the plugin) -> read scratch buffer + tag.
  vim.cmd('HashlsRead')
  wait('the read result', 5000, function()
    return hashls.last.read ~= nil
  end)
  local rd = hashls.last.read
  local tag = rd.details and rd.details.tag
  check(type(tag) == 'string' and tag:match('^%x%x%x%x$'), 'read details.tag = %s', vim.inspect(tag))
  check(rd.text:find('¶main.go#' .. tag, 1, true) == 1, 'read text starts %q', rd.text:sub(1, 40))
  check(rd.text:find('6:\tfmt.Println("hi")', 1, true), 'read text lacks line 6: %s', rd.text)
  check(hashls.tags['main.go'] == tag, 'plugin did not remember the tag')
  local read_buf = vim.fn.bufnr('hashls://read')
  check(read_buf ~= -1 and vim.api.nvim_buf_get_lines(read_buf, 0, 1, false)[1] == '¶main.go#' .. tag, 'read scratch buffer')
  log('read ok, tag', tag)

  -- :HashlsEdit opens the edit buffer prefilled with the header; :write in it
  -- runs hashls.edit; the change comes back as workspace/applyEdit.
  vim.api.nvim_set_current_win(src_win)
  vim.cmd('HashlsEdit')
  local edit_buf = vim.api.nvim_get_current_buf()
  check(vim.api.nvim_buf_get_name(edit_buf):match('hashls://edit$'), 'edit buffer not current')
  local header = vim.api.nvim_buf_get_lines(edit_buf, 0, 1, false)[1]
  check(header == '¶main.go#' .. tag, 'edit buffer header %q', header)
  vim.api.nvim_buf_set_lines(edit_buf, 1, -1, false, { 'replace 6:', '+\tfmt.Println("hello, nvim")' })
  vim.cmd('write')
  wait('the edit result', 10000, function()
    return hashls.last.edit ~= nil
  end)
  local edited = original:gsub('"hi"', '"hello, nvim"')
  wait('the buffer to change', 5000, function()
    return buf_text(buf) == edited
  end)
  check(vim.api.nvim_buf_get_option(buf, 'modified'), 'buffer should be modified (unsaved)')
  check(read_file(file) == original, 'file on disk changed before :write')
  check(vim.fn.bufwinid(edit_buf) == -1, 'edit window should close after a successful edit')
  log('edit ok:', (hashls.last.edit.text or ''):match('^[^\n]*'))

  -- The edit is in the buffer's undo history.
  vim.api.nvim_set_current_win(src_win)
  check(vim.api.nvim_get_current_buf() == buf, 'source window lost its buffer')
  vim.cmd('silent undo')
  check(buf_text(buf) == original, 'undo did not restore the original text')
  vim.cmd('silent redo')
  check(buf_text(buf) == edited, 'redo did not restore the edit')
  vim.cmd('silent write')
  check(read_file(file) == edited, 'file on disk after :write:\n%s', read_file(file))
  log('undo/redo/write ok')

  -- One-line :HashlsEdit with a tag the store never minted fails cleanly and
  -- shows up as an error in the activity panel.
  local n_notes = #notes
  vim.cmd([[HashlsEdit ¶main.go#0000\nreplace 1:\n+package nope]])
  wait('the failed edit activity', 5000, function()
    local e = hashls.activity[#hashls.activity]
    return e and e.tool == 'edit' and e.outcome == 'error'
  end)
  wait('the error notification', 5000, function()
    return #notes > n_notes
  end)
  check(buf_text(buf) == edited, 'a refused edit changed the buffer')
  log('bad tag refused:', notes[#notes].msg)

  -- documentSymbol.
  local resp = vim.lsp.buf_request_sync(buf, 'textDocument/documentSymbol',
    { textDocument = { uri = vim.uri_from_bufnr(buf) } }, 5000)
  check(resp and resp[c.id] and resp[c.id].result, 'documentSymbol: %s', vim.inspect(resp))
  local names = {}
  for _, s in ipairs(resp[c.id].result) do
    names[s.name] = s
  end
  check(names.hello and names.main, 'documentSymbol names: %s', vim.inspect(vim.tbl_keys(names)))
  check(names.main.range.start.line == 8, 'main starts on line %d, want 8 (0-based)', names.main.range.start.line)
  log('documentSymbol ok')

  -- :HashlsSelectBlock on `func main` selects lines 9-11 linewise.
  vim.api.nvim_win_set_cursor(src_win, { 9, 0 })
  vim.cmd('HashlsSelectBlock')
  local mode = vim.api.nvim_get_mode().mode
  check(mode == 'V', 'mode after select block = %q, want V', mode)
  local a, b = vim.fn.line('v'), vim.fn.line('.')
  check(math.min(a, b) == 9 and math.max(a, b) == 11, 'selected lines %d-%d, want 9-11 (server: %s)', a, b,
    vim.inspect(hashls.last.selectBlock))
  vim.cmd('normal! \27')
  log('select block ok')

  -- :HashlsAnchor copies "¶main.go#TAG\nreplace block 9:" into register a.
  vim.api.nvim_win_set_cursor(src_win, { 9, 0 })
  vim.cmd('HashlsAnchor')
  local reg = vim.fn.getreg('a')
  check(reg:match('^¶main%.go#%x%x%x%x\nreplace block 9:\n?$'), 'register a = %q', reg)
  log('anchor ok:', (reg:gsub('\n', ' | ')))

  -- A synchronous edit from Lua with that anchor (block replace): the
  -- server's workspace/applyEdit is served while request_sync waits.
  local res, eerr = hashls.edit(reg:gsub('\n?$', '\n') .. '+func main() {\n+\thello()\n+\thello()\n+}\n')
  check(res, 'edit with the anchor: %s', vim.inspect(eerr))
  local edited2 = edited:gsub('\thello%(%)\n}\n$', '\thello()\n\thello()\n}\n')
  check(edited2 ~= edited, 'test bug: pattern did not match')
  check(buf_text(buf) == edited2, 'after the block edit:\n%s', buf_text(buf))
  check(read_file(file) == edited, 'block edit reached the disk before :write')
  log('block edit via anchor ok')

  -- :HashlsOutline and :HashlsSearch fill scratch buffers.
  vim.api.nvim_set_current_win(src_win)
  vim.cmd('HashlsOutline')
  wait('the outline buffer', 5000, function()
    local ob = vim.fn.bufnr('hashls://outline')
    return ob ~= -1 and buf_text(ob):find('main.go', 1, true) ~= nil
  end)
  vim.api.nvim_set_current_win(src_win)
  vim.cmd('HashlsSearch Println')
  wait('the search buffer', 5000, function()
    local sb = vim.fn.bufnr('hashls://search')
    return sb ~= -1 and buf_text(sb):find('hello, nvim', 1, true) ~= nil
  end)
  -- :HashlsRead on a range, and :Hashls TOOL {json} for any tool.
  vim.api.nvim_set_current_win(src_win)
  hashls.last.read = nil
  vim.cmd('2,3HashlsRead')
  wait('the range read', 5000, function()
    return hashls.last.read ~= nil
  end)
  -- (the read tool adds a few lines of context around a range)
  check(hashls.last.read.text:find('\n3:import "fmt"', 1, true) and not hashls.last.read.text:find('\n10:', 1, true),
    'range read: %s', hashls.last.read.text)
  vim.api.nvim_set_current_win(src_win)
  vim.cmd([[Hashls find {"paths": "*.go"}]])
  wait('the find buffer', 5000, function()
    local fb = vim.fn.bufnr('hashls://find')
    return fb ~= -1 and buf_text(fb):find('main.go', 1, true) ~= nil
  end)
  log('outline + search + range read + find ok')

  -- Delete block through the real vim.lsp.buf.code_action() path, with
  -- vim.ui.select stubbed to pick the delete action.
  vim.api.nvim_set_current_win(src_win)
  vim.api.nvim_win_set_cursor(src_win, { 5, 0 })
  local offered = {}
  local orig_select = vim.ui.select
  vim.ui.select = function(items, opts, on_choice)
    local pick
    for i, it in ipairs(items) do
      local action = it[2] or it.action or it
      table.insert(offered, action.title)
      if action.title and action.title:match('^Delete block') then
        pick = pick or i
      end
    end
    on_choice(pick and items[pick] or nil, pick)
  end
  vim.lsp.buf.code_action()
  wait('the delete-block code action', 5000, function()
    return not buf_text(buf):find('func hello', 1, true)
  end)
  vim.ui.select = orig_select
  local want_after = edited2:gsub('func hello%(%) {\n\tfmt.Println%("hello, nvim"%)\n}\n', '')
  check(buf_text(buf) == want_after, 'after delete block:\n%s', buf_text(buf))
  check(vim.tbl_contains(offered, 'Delete block (lines 5–7)'), 'offered actions: %s', vim.inspect(offered))
  log('code action delete block ok; offered:', table.concat(offered, '; '))

  -- Picking "Select block" from code_action() runs the plugin's client-side
  -- hashls.selectBlock command: `func main` (now lines 6-9) gets selected.
  vim.api.nvim_win_set_cursor(src_win, { 6, 0 })
  vim.ui.select = function(items, _, on_choice)
    for _, it in ipairs(items) do
      local action = it[2] or it.action or it
      if action.title and action.title:match('^Select block') then
        return on_choice(it)
      end
    end
    on_choice(nil)
  end
  vim.lsp.buf.code_action()
  wait('the select-block code action', 5000, function()
    return vim.api.nvim_get_mode().mode == 'V'
  end)
  vim.ui.select = orig_select
  a, b = vim.fn.line('v'), vim.fn.line('.')
  check(math.min(a, b) == 6 and math.max(a, b) == 9, 'code action selected lines %d-%d, want 6-9', a, b)
  vim.cmd('normal! \27')
  log('code action select block ok')

  -- The panel received the activity entries and shows the selected diff.
  local tools = {}
  for _, e in ipairs(hashls.activity) do
    local k = e.tool .. ':' .. e.outcome
    tools[k] = tools[k] or e
  end
  check(tools['read:ok'] and tools['edit:ok'] and tools['edit:error'] and tools['search:ok'],
    'activity entries: %s', vim.inspect(vim.tbl_keys(tools)))
  local ed = tools['edit:ok']
  check(vim.tbl_contains(ed.paths, 'main.go'), 'edit activity paths %s', vim.inspect(ed.paths))
  check(ed.diff:find('hello, nvim', 1, true), 'edit activity diff: %q', ed.diff)
  wait('the panel to list every entry', 2000, function()
    return #vim.api.nvim_buf_get_lines(panel_buf, 0, -1, false) > #hashls.activity
  end)
  local plines = vim.api.nvim_buf_get_lines(panel_buf, 0, -1, false)
  local edit_line
  for i, l in ipairs(plines) do
    if l:find(' edit ', 1, true) and l:find(' ok ', 1, true) then
      edit_line = edit_line or i
    end
  end
  check(edit_line, 'no edit line in the panel:\n%s', table.concat(plines, '\n'))
  check(plines[edit_line]:match('^.%d%d:%d%d:%d%d edit'), 'panel line format: %q', plines[edit_line])
  check(plines[edit_line]:find('main.go', 1, true), 'panel line lacks the path: %q', plines[edit_line])
  if #ed.auditIds > 0 then
    check(plines[edit_line]:find('#' .. ed.auditIds[1], 1, true), 'panel line lacks the audit id: %q', plines[edit_line])
  end
  -- <CR> on the edit line shows its diff.
  local panel_win = vim.fn.bufwinid(panel_buf)
  vim.api.nvim_set_current_win(panel_win)
  vim.api.nvim_win_set_cursor(panel_win, { edit_line, 0 })
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<CR>', true, false, true), 'x', false)
  local shown = table.concat(vim.api.nvim_buf_get_lines(panel_buf, 0, -1, false), '\n')
  check(shown:find('+\tfmt.Println("hello, nvim")', 1, true), 'panel does not show the edit diff:\n%s', shown)
  check(vim.api.nvim_buf_get_lines(panel_buf, edit_line - 1, edit_line, false)[1]:sub(1, 1) == '>', 'selected entry not marked')
  log('panel ok:', #hashls.activity, 'entries')
  io.stderr:write(table.concat(plines, '\n') .. '\n')

  -- Stop the client: the server must exit 0.
  hashls.stop()
  wait('the server to exit', 5000, function()
    return hashls.exit ~= nil
  end)
  check(hashls.exit.code == 0 and hashls.exit.signal == 0, 'server exit code %s signal %s', hashls.exit.code, hashls.exit.signal)
  log('server exited 0')
end

local ok, err = xpcall(main, debug.traceback)
if ok then
  log('PASS')
  io.stderr:flush()
  vim.cmd('qall!')
else
  log('FAIL: ' .. tostring(err))
  io.stderr:flush()
  -- Stop the server so it does not outlive the test.
  pcall(function()
    require('hashls').stop()
    vim.wait(1000, function()
      return require('hashls').exit ~= nil
    end, 10)
  end)
  vim.cmd('cquit 1')
end
