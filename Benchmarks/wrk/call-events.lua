-- wrk script: POST selections of the row TABULA_ROW of Benchmarks/actions/call.json ("call":
-- the backend is asked and answers {}; "local": the same event without the call), cycling
-- through this thread's sessions. Neither changes state, so every event does the same work.
-- With TABULA_DIRECT=1 the requests are a call's own POST, for timing the backend alone.
-- With TABULA_DELAY_MS each connection waits between its requests a whole number of
-- milliseconds drawn evenly from 0 to twice that, that long on average: an offered rate well
-- below what the server can do, so that latency is the work's and not a queue's. A fixed
-- wait would keep the connections in step (each waits the same time after an answer that
-- came when the others' did), so that all of them send within a millisecond or two of each
-- other every period, and the latencies would measure that queue.
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
local sessions = require("sessions")

setup = sessions.setup
request = sessions.request
done = sessions.done

local pause = tonumber(os.getenv("TABULA_DELAY_MS") or "0")
if pause > 0 then
  function delay() return math.random(0, 2 * pause) end
end

function init(args)
  -- Each thread its own draws (every thread's Lua starts with the same seed).
  math.randomseed(id + 1)
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
