-- wrk script: POST switch events on the settings screen, cycling through this thread's
-- sessions and flipping Bluetooth on each, so that every event changes state. Requests
-- are formatted in init(), so that request() costs the client almost nothing.
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
local sessions = require("sessions")

local events = {}
local flips = {}
local counter = 0

setup = sessions.setup

function init(args)
  for index, token in ipairs(sessions.mine(id)) do
    events[index] = sessions.switch_requests(token)
    flips[index] = 1
  end
end

function request()
  counter = counter % #events + 1
  flips[counter] = 3 - flips[counter]
  return events[counter][flips[counter]]
end

function done(summary, latency, requests)
  io.write(string.format("non-2xx: %d\n", summary.errors.status))
end
