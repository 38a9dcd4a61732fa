-- wrk script: POST selections of the row TABULA_ROW of Benchmarks/actions/call.json ("call":
-- the backend is asked and answers {}; "local": the same event without the call), cycling
-- through this thread's sessions. Neither changes state, so every event does the same work.
-- With TABULA_DIRECT=1 the requests are a call's own POST, for timing the backend alone.
-- With TABULA_DELAY_MS each connection waits that long between its requests: an offered
-- rate well below what the server can do, so that latency is the work's and not a queue's.
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
local sessions = require("sessions")

setup = sessions.setup
request = sessions.request
done = sessions.done

local pause = tonumber(os.getenv("TABULA_DELAY_MS") or "0")
if pause > 0 then
  function delay() return pause end
end

function init(args)
  local row = os.getenv("TABULA_ROW") or "call"
  local direct = os.getenv("TABULA_DIRECT") == "1"
  local events = {}
  for index, token in ipairs(sessions.mine(id)) do
    local one
    if direct then
      one = wrk.format("POST", "/echo", { ["Content-Type"] = "application/json" },
        '{"action":"echo","eventId":"bench","row":"call","screen":"call","session":{"client":{},"id":"s_bench","revision":0,"subject":null},"state":{},"values":{}}')
    else
      one = wrk.format("POST", "/v1/screens/call/selection", {
        ["X-Session"] = token,
        ["Content-Type"] = "application/json",
      }, '{"row":"' .. row .. '"}')
    end
    -- sessions.alternate takes pairs; both are the same request.
    events[index] = { one, one }
  end
  sessions.alternate(events)
end
