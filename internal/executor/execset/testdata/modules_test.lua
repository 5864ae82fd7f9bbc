-- Tests of the executor modules over a real execset.Set; run by
-- execset_test.go with a fresh
-- workspace (fixture.ws) holding memory fixtures.
local script = require "script"
local fs = require "fs"
local exec = require "exec"
local process = require "process"
local memory = require "memory"
local fixture = require "fixture"

function TestScriptShellOK(t)
  local r, err = script.run("echo hello\necho oops >&2")
  t:eq(err, nil, "no error")
  t:eq(r.ok, true, "ok")
  t:eq(r.exit_code, 0, "exit code")
  t:eq(r.stdout, "hello\n", "stdout")
  t:eq(r.stderr, "oops\n", "stderr")
  t:eq(r.timed_out, false, "not timed out")
  t:ok(r.run_id:match("^%d+%-%d+%-%x+$"), "run id " .. r.run_id)
  t:eq(r.run_dir, fixture.ws .. "/scripts/runs/run-" .. r.run_id, "run dir")
  t:eq(r.script_path, r.run_dir .. "/script.sh", "script.sh")
  t:ok(r.duration_ms >= 0, "duration")
  t:eq(r.rejected, nil, "not rejected")
end

function TestScriptShellFails(t)
  local r = script.run("ls /definitely-missing-dir", {language = "sh"})
  t:eq(r.ok, false)
  t:eq(r.exit_code, 2)
end

function TestScriptRejectedNamesRule(t)
  local r, err = script.run("sudo reboot")
  t:eq(err, nil, "a rejection is a result")
  t:eq(r.ok, false)
  t:eq(r.exit_code, -1)
  t:eq(r.rejected_rule, "allowlist")
  t:ok(r.rejected:find("sudo", 1, true), r.rejected)
  t:ok(fixture.exists(r.run_dir .. "/result.json"), "artifacts of a rejected script")

  r = script.run("python3 -c 1")
  t:eq(r.rejected_rule, "allowlist")
end

function TestScriptTimeout(t)
  local r = script.run("sleep 20", {timeout_ms = 300})
  t:eq(r.timed_out, true, "timed out")
  t:eq(r.ok, false)
  t:eq(r.exit_code, 137, "SIGKILL")
  t:ok(r.duration_ms < 5000, "killed promptly: " .. r.duration_ms)
end

function TestScriptLuaCallsModules(t)
  local r, err = script.run([[
local fs = require "fs"
fs.write("from-lua.txt", "written by a Lua script")
print(fixture.greet("lua"))   -- module as a global (AutoRequire)
print(#fs.read("from-lua.txt"))
]], {language = "lua"})
  t:eq(err, nil)
  t:eq(r.ok, true, r.stderr)
  t:eq(r.stdout, "hello lua\n23\n")
  t:eq(r.script_path, r.run_dir .. "/script.lua")
  t:eq(fixture.read(r.run_dir .. "/stdout.log"), "hello lua\n23\n")
end

function TestScriptLuaByFirstLine(t)
  local r = script.run("-- lua\nprint(1 + 1)")
  t:eq(r.stdout, "2\n")
  t:eq(r.script_path, r.run_dir .. "/script.lua")
end

function TestScriptLuaErrorAndTimeout(t)
  local r = script.run("-- lua\nerror('boom')")
  t:eq(r.ok, false)
  t:eq(r.exit_code, 1)
  t:ok(r.stderr:find("boom", 1, true), r.stderr)

  r = script.run("-- lua\nwhile true do end", {timeout_ms = 200})
  t:eq(r.timed_out, true)
  t:eq(r.exit_code, 137)

  -- the nested sandbox has no os/io either
  r = script.run("-- lua\nprint(os == nil, io == nil, load == nil)")
  t:eq(r.stdout, "true\ttrue\ttrue\n")
end

function TestScriptBadArguments(t)
  t:ok(not pcall(script.run), "src required")
  local ok, err = pcall(script.run, "echo", {language = "python"})
  t:ok(not ok and err:find('language must be "sh" or "lua"', 1, true), err)
  ok, err = pcall(script.run, "echo", {timeout = 5})
  t:ok(not ok and err:find("timeout", 1, true), err)
end

function TestFS(t)
  local w, err = fs.write("notes/a.txt", "one\ntwo\nthree\n")
  t:eq(err, nil)
  t:eq(w.path, "notes/a.txt")
  t:eq(w.created, true)
  t:eq(w.bytes, 14)

  w = fs.write("notes/a.txt", "four\n", {append = true})
  t:eq(w.appended, true)

  local text, info = fs.read("notes/a.txt", {from = 2, lines = 2})
  t:eq(text, "two\nthree\n")
  t:eq(info.from, 2)
  t:eq(info.lines, 2)
  t:eq(info.total_lines, 4)

  local e = fs.edit("notes/a.txt", "two", "TWO")
  t:eq(e.replacements, 1)
  fs.write("notes/b.txt", "x x x")
  e = fs.edit("notes/b.txt", "x", "y", {all = true})
  t:eq(e.replacements, 3)
  t:eq(fs.read("notes/b.txt"), "y y y")

  local r, perr = fs.apply_patch([[
*** Begin Patch
*** Update File: notes/a.txt
@@
 one
-TWO
+2
*** Add File: notes/c.txt
+new file
*** Delete File: notes/b.txt
*** End Patch]])
  t:eq(perr, nil)
  t:eq(#r.changes, 3)
  t:eq(r.changes[1].kind, "update")
  t:eq(r.changes[2].kind, "add")
  t:eq(r.changes[3].path, "notes/b.txt")
  t:eq(fs.read("notes/a.txt"), "one\n2\nthree\nfour\n")
  t:eq(fs.read("notes/c.txt"), "new file\n")
  t:eq(fixture.exists(fixture.ws .. "/notes/b.txt"), false)
end

function TestFSFailures(t)
  local v, err = fs.read("../outside.txt")
  t:eq(v, nil)
  t:ok(err:find("outside the workspace", 1, true), err)
  v, err = fs.write("../../etc/evil", "x")
  t:eq(v, nil)
  t:ok(err:find("outside the workspace", 1, true), err)
  t:eq(fixture.exists(fixture.ws .. "/../outside.txt"), false)

  v, err = fs.read("missing.txt")
  t:eq(v, nil)
  t:ok(err ~= nil)

  fs.write("f.txt", "abc")
  v, err = fs.edit("f.txt", "zzz", "y")
  t:eq(v, nil)
  t:ok(err ~= nil, "edit of absent text fails")
  t:eq(fs.read("f.txt"), "abc", "untouched")

  v, err = fs.apply_patch("not a patch")
  t:eq(v, nil)
  t:ok(err ~= nil)

  local ok, perr = pcall(fs.read, "f.txt", {form = 1})
  t:ok(not ok and perr:find("form", 1, true), perr)
end

function TestExecRun(t)
  local r, err = exec.run("echo hi && echo err >&2")
  t:eq(err, nil)
  t:eq(r.exit_code, 0)
  t:eq(r.timed_out, false)
  t:ok(r.output:find("hi\n", 1, true), r.output)
  t:ok(r.output:find("err\n", 1, true), r.output)

  fs.write("sub/x.txt", "")
  r = exec.run("ls", {workdir = "sub"})
  t:eq(r.output, "x.txt\n")

  r = exec.run("sleep 5", {timeout_ms = 500})
  t:eq(r.timed_out, true)

  r = exec.run("ls /definitely-missing-dir")
  t:eq(r.exit_code, 2, "a failing command is a result")

  r, err = exec.run("sudo ls")
  t:eq(r, nil)
  t:ok(err:find("rejected (allowlist)", 1, true), err)
  r, err = exec.run("ls", {workdir = "../.."})
  t:eq(r, nil)
  t:ok(err:find("outside the workspace", 1, true), err)
end

function TestExecStartProcess(t)
  local s, err = exec.start("echo started; sleep 30", {yield_ms = 300})
  t:eq(err, nil)
  t:eq(s.running, true)
  t:ok(s.id ~= nil and s.id ~= "", "session id")
  t:eq(s.output, "started\n", "output so far")

  local found = false
  for _, p in ipairs(process.list()) do
    if p.id == s.id then
      found = true
      t:eq(p.running, true)
      t:eq(p.status, "running")
      t:eq(p.command, "echo started; sleep 30")
    end
  end
  t:ok(found, "listed")

  local text, win = process.log(s.id)
  t:eq(text, "started\n")
  t:eq(win.total_lines, 1)

  local p = process.poll(s.id)
  t:eq(p.running, true)
  t:eq(p.output, "", "nothing new since start")

  local k = process.kill(s.id)
  t:eq(k.was_running, true)
  t:eq(k.running, false)
  p = process.poll(s.id, {timeout_ms = 2000})
  t:eq(p.running, false)
  t:ok(p.exit_code ~= 0, "killed")

  -- finished within the yield: no session
  local f = exec.start("echo quick", {yield_ms = 5000})
  t:eq(f.running, false)
  t:eq(f.id, nil)
  t:eq(f.exit_code, 0)
  t:eq(f.output, "quick\n")

  -- write to stdin of a background session
  local c = exec.start("cat")
  t:eq(c.running, true)
  t:eq(process.write(c.id, "ping\n"), 5)
  local got = ""
  for _ = 1, 50 do
    got = got .. process.poll(c.id, {timeout_ms = 100}).output
    if got ~= "" then break end
  end
  t:eq(got, "ping\n")
  process.kill(c.id)

  local v, perr = process.poll("no-such-session")
  t:eq(v, nil)
  t:ok(perr ~= nil)
end

function TestMemory(t)
  local r, err = memory.search("coffee order", {min_score = 0.1})
  t:eq(err, nil)
  t:eq(r.query, "coffee order")
  t:eq(r.scanned_files, 2)
  t:ok(#r.results >= 2, "hits")
  local top = r.results[1]
  t:eq(top.path, "memory/2026-01-02.md")
  t:eq(top.score, 1)
  t:eq(top.start_line, 1)
  t:eq(top.end_line, 3)
  t:eq(top.citation, "memory/2026-01-02.md#L1-L3")
  t:ok(top.snippet:find("coffee order", 1, true), top.snippet)
  local second = r.results[2]
  t:eq(second.path, "MEMORY.md")
  t:eq(second.score, 0.25, "one of two tokens, no phrase")

  r = memory.search("coffee order", {max_results = 1})
  t:eq(#r.results, 1)
  r = memory.search("coffee order", {min_score = 0.9})
  t:eq(#r.results, 1, "min_score filters")
  r = memory.search("nothing like this")
  t:eq(#r.results, 0)

  local ok, perr = pcall(memory.search, "x", {min_score = 2})
  t:ok(not ok and perr:find("min_score", 1, true), perr)

  local text, win = memory.get("MEMORY.md", {from = 2, lines = 1})
  t:eq(text, "User likes coffee.")
  t:eq(win.from, 2)
  t:eq(win.to, 2)
  local v, gerr = memory.get("notes/secret.md")
  t:eq(v, nil)
  t:ok(gerr:find("MEMORY.md", 1, true), gerr)
end

function TestScriptLuaNestingBounded(t)
  -- Lua scripts starting Lua scripts stop at MaxLuaDepth (4) levels;
  -- each level prints what its child printed and its error.
  local chain = "-- lua\nprint('bottom')"
  for _ = 1, 6 do
    chain = "-- lua\nlocal r = require('script').run(" .. string.format("%q", chain) .. ")\nio_out = r.stdout .. r.stderr\nprint(io_out)"
  end
  local r = script.run(chain)
  t:ok(r.ok, r.stderr)
  t:ok(r.stdout:find("nest too deeply", 1, true), r.stdout)
  t:ok(not r.stdout:find("bottom", 1, true), "the innermost script never ran")
end
