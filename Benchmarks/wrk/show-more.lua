-- wrk script: POST selections of the inbox's paging button (inbox-page: 50 messages more,
-- or 50 fewer once it showed more; Scripts/bench-lists adds it to the inbox), cycling
-- through this thread's sessions, so that every event moves the list's limit by 50, in
-- whatever order two events of a session arrive. Requests are formatted in init().
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
local sessions = require("sessions")

setup = sessions.setup
request = sessions.request
done = sessions.done

function init(args)
  local events = {}
  for index, token in ipairs(sessions.mine(id)) do
    local page = wrk.format("POST", "/v1/screens/inbox/selection", {
      ["X-Session"] = token,
      ["Content-Type"] = "application/json",
    }, '{"row":"inbox-page"}')
    events[index] = { page, page }
  end
  sessions.alternate(events)
end
