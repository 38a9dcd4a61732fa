-- wrk script: POST edit events on the sign-in screen's e-mail field (a text field with two
-- rules), cycling through this thread's sessions and alternating between two addresses on
-- each, so that every edit changes state. Requests are formatted in init().
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
local sessions = require("sessions")

setup = sessions.setup
request = sessions.request
done = sessions.done

function init(args)
  local events = {}
  for index, token in ipairs(sessions.mine(id)) do
    local requests = {}
    for _, address in ipairs({ "ann@example.com", "ann@example.org" }) do
      requests[#requests + 1] = wrk.format("POST", "/v1/screens/sign-in/edit", {
        ["X-Session"] = token,
        ["Content-Type"] = "application/json",
      }, '{"row":"email","value":"' .. address .. '"}')
    end
    events[index] = requests
  end
  sessions.alternate(events)
end
