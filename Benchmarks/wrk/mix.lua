-- wrk script: 90% GET of the settings screen with a session, 10% switch events on it,
-- cycling through this thread's sessions (each event flips Bluetooth, so it changes state
-- and the next GET of that session is a new revision).
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
local sessions = require("sessions")

local gets = {}
local events = {}
local flips = {}
local counter = 0
local session = 0

setup = sessions.setup

function init(args)
  for index, token in ipairs(sessions.mine(id)) do
    gets[index] = wrk.format("GET", "/v1/screens/settings", { ["X-Session"] = token })
    events[index] = sessions.switch_requests(token)
    flips[index] = 1
  end
end

function request()
  counter = counter + 1
  session = session % #gets + 1
  if counter % 10 == 0 then
    flips[session] = 3 - flips[session]
    return events[session][flips[session]]
  end
  return gets[session]
end

function done(summary, latency, requests)
  io.write(string.format("non-2xx: %d\n", summary.errors.status))
end
