-- :checkhealth hashls — which binary the plugin starts (the cmd of
-- setup{}, else `hashls` on PATH), its version, the store it uses for the
-- current buffer's root (the stateDir of init_options when set, else
-- HASHLS_STATE_DIR, else the default), and the running clients. Every
-- subprocess is bounded by a timeout.
local M = {}

local health = vim.health or require('health')
local start = health.start or health.report_start
local ok = health.ok or health.report_ok
local warn = health.warn or health.report_warn
local err = health.error or health.report_error
local info = health.info or health.report_info

local timeout_ms = 5000

-- run runs argv with extra environment variables and returns its output
-- (stdout and stderr), its exit code (-1 on a timeout) and an error text.
local function run(argv, env)
  local out = {}
  local function collect(_, data)
    for i, l in ipairs(data or {}) do
      if i == 1 and #out > 0 then
        out[#out] = out[#out] .. l
      else
        table.insert(out, l)
      end
    end
  end
  local opts = { stdout_buffered = true, stderr_buffered = true, on_stdout = collect, on_stderr = collect }
  if env and next(env) then
    opts.env = env
  end
  local ok_, job = pcall(vim.fn.jobstart, argv, opts)
  if not ok_ or job <= 0 then
    return '', -1, 'could not run ' .. argv[1] .. ': ' .. tostring(job)
  end
  local code = vim.fn.jobwait({ job }, timeout_ms)[1]
  if code == -1 then
    vim.fn.jobstop(job)
    return table.concat(out, '\n'), -1, string.format('`%s` did not finish in %d ms', table.concat(argv, ' '), timeout_ms)
  end
  return table.concat(out, '\n'), code
end

function M.check()
  start('hashls')
  local hashls = require('hashls')
  local exe, source, berr = hashls.binary()
  if not exe then
    err(berr, {
      'Install it: go install github.com/hashls/hashls@latest (or a release archive), and put it on PATH',
      "Or name it: require('hashls').setup{ cmd = { '/abs/path/to/hashls', 'serve', '--stdio' } }",
    })
    return
  end
  ok(string.format('binary: %s (%s)', exe, source))
  local version, code, verr = run({ exe, 'version' })
  if code ~= 0 then
    err('`' .. exe .. ' version` failed: ' .. (verr or vim.trim(version)))
    return
  end
  ok('version: ' .. vim.trim(version))

  local root = hashls.root_dir(0)
  local env = {}
  local state_dir = type(hashls.config.init_options) == 'table' and hashls.config.init_options.stateDir
  local state_from = 'HASHLS_STATE_DIR or the default'
  if type(state_dir) == 'string' and state_dir ~= '' then
    env.HASHLS_STATE_DIR = state_dir
    state_from = 'stateDir of init_options'
  elseif (os.getenv('HASHLS_STATE_DIR') or '') ~= '' then
    state_from = 'HASHLS_STATE_DIR'
  end
  local out, dcode, derr = run({ exe, '--root', root, '--json', 'doctor' }, env)
  local decoded, report = pcall(vim.fn.json_decode, out)
  if not decoded or type(report) ~= 'table' or type(report.Store) ~= 'string' then
    warn(string.format('`hashls --root %s doctor` did not report its store: %s', root, derr or vim.trim(out)))
    return
  end
  local line = string.format('store for %s: %s (%s; integrity %s)', root, report.Store, state_from,
    tostring(report.Integrity))
  if dcode == 0 then
    ok(line)
  else
    warn(line, { 'Run `hashls --root ' .. root .. ' doctor` for details, and `doctor --fix` to repair' })
  end
  local roots = hashls.roots()
  if #roots == 0 then
    info('no hashls client is running (open a file under a root to start one)')
  end
  for _, r in ipairs(roots) do
    info('client running for ' .. r)
  end
end

return M
