-- wrk script: POST edit events on the inbox's search field, cycling through this thread's
-- sessions and alternating between two queries on each ("lunc" and "lunch": a keystroke
-- and its undo), so that every edit changes the filter. Requests are formatted in init().
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
local sessions = require("sessions")

setup = sessions.setup
request = sessions.request
done = sessions.done

function init(args)
  local events = {}
  for index, token in ipairs(sessions.mine(id)) do
    local requests = {}
    -- The second request goes first: "lunc", then "lunch".
    for _, query in ipairs({ "lunch", "lunc" }) do
      requests[#requests + 1] = wrk.format("POST", "/v1/screens/inbox/edit", {
        ["X-Session"] = token,
        ["Content-Type"] = "application/json",
      }, '{"row":"inbox-search","value":"' .. query .. '"}')
    end
    events[index] = requests
  end
  sessions.alternate(events)
end
