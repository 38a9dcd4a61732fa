-- wrk script: POST switch events on the settings screen, cycling through this thread's
-- sessions and flipping Bluetooth on each, so that every event changes state. Requests
-- are formatted in init(), so that request() costs the client almost nothing.
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
local sessions = require("sessions")

setup = sessions.setup
request = sessions.request
done = sessions.done

function init(args)
  local events = {}
  for index, token in ipairs(sessions.mine(id)) do
    events[index] = sessions.switch_requests(token)
  end
  sessions.alternate(events)
end
