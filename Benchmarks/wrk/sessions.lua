-- Shared by the wrk scripts: each wrk thread takes its own share of the session tokens in
-- the file named by TABULA_SESSIONS (one per line; TABULA_THREADS threads, default 2), so
-- that no two connections of different threads send events for the same session.
local sessions = {}

function sessions.setup(thread)
  thread:set("id", sessions.next_id or 0)
  sessions.next_id = (sessions.next_id or 0) + 1
end

function sessions.mine(id)
  local all = {}
  for line in io.lines(os.getenv("TABULA_SESSIONS")) do
    if line ~= "" then all[#all + 1] = line end
  end
  local threads = tonumber(os.getenv("TABULA_THREADS") or "2")
  local tokens = {}
  for index, token in ipairs(all) do
    if (index - 1) % threads == id then tokens[#tokens + 1] = token end
  end
  return tokens
end

-- The two switch events (on, off) of one session, formatted once: request() then only picks.
function sessions.switch_requests(token)
  local requests = {}
  for _, value in ipairs({ "true", "false" }) do
    requests[#requests + 1] = wrk.format("POST", "/v1/screens/settings/switch", {
      ["X-Session"] = token,
      ["Content-Type"] = "application/json",
    }, '{"row":"bluetooth","isOn":' .. value .. '}')
  end
  return requests
end

-- Each session's two requests (a write that flips a value back and forth, so that every
-- one changes state), set by a script's init(); sessions.request sends them in turn, one
-- session after the other. Scripts take it as their request() when they load: wrk sends
-- one fixed request for a script that has none then.
local pairs_of_requests = {}
local flips = {}
local counter = 0

function sessions.alternate(requests)
  pairs_of_requests = requests
  for index = 1, #requests do flips[index] = 1 end
end

function sessions.request()
  counter = counter % #pairs_of_requests + 1
  flips[counter] = 3 - flips[counter]
  return pairs_of_requests[counter][flips[counter]]
end

function sessions.done(summary, latency, requests)
  io.write(string.format("non-2xx: %d\n", summary.errors.status))
end

return sessions
