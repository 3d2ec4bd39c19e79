-- :checkhealth hashls — which binary the plugin starts (the `cmd` of
-- setup{}, else `hashls` on PATH), its version, and the store it uses for
-- the current buffer's root.
local M = {}

local health = vim.health or require('health')
local start = health.start or health.report_start
local ok = health.ok or health.report_ok
local warn = health.warn or health.report_warn
local err = health.error or health.report_error
local info = health.info or health.report_info

function M.check()
  start('hashls')
  local hashls = require('hashls')
  local cmd = hashls.config.cmd or { 'hashls', 'serve', '--stdio' }
  local bin = cmd[1]
  local source = bin == 'hashls' and 'hashls on PATH' or 'the cmd of setup{}'
  local exe = vim.fn.exepath(bin)
  if exe == '' then
    err(string.format('%s (%s) is not found or not executable', bin, source), {
      'Install it: go install github.com/hashls/hashls@latest (or a release archive), and put it on PATH',
      "Or name it: require('hashls').setup{ cmd = { '/abs/path/to/hashls', 'serve', '--stdio' } }",
    })
    return
  end
  ok(string.format('binary: %s (%s)', exe, source))
  local version = vim.fn.system({ exe, 'version' })
  if vim.v.shell_error ~= 0 then
    err('`' .. exe .. ' version` failed: ' .. vim.trim(version))
    return
  end
  ok('version: ' .. vim.trim(version))
  local root = hashls.root_dir(0)
  local out = vim.fn.system({ exe, '--root', root, '--json', 'doctor' })
  local decoded, report = pcall(vim.fn.json_decode, out)
  if not decoded or type(report) ~= 'table' or type(report.Store) ~= 'string' then
    warn(string.format('`hashls --root %s doctor` did not report its store: %s', root, vim.trim(out)))
    return
  end
  local line = string.format('store for %s: %s (integrity %s)', root, report.Store, tostring(report.Integrity))
  if vim.v.shell_error == 0 then
    ok(line)
  else
    warn(line, { 'Run `hashls --root ' .. root .. ' doctor` for details, and `doctor --fix` to repair' })
  end
  if type(hashls.config.init_options) == 'table' and hashls.config.init_options.stateDir then
    info('stateDir set in init_options: ' .. tostring(hashls.config.init_options.stateDir))
  end
end

return M
