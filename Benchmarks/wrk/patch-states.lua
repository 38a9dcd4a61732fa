-- wrk script: the app's backend PATCHes sessions' state (JSON Merge Patch, If-Match: *),
-- cycling through this thread's sessions (their public ids, one per line in the file named
-- by TABULA_SESSIONS) and flipping Bluetooth on each, so that every write changes state.
-- The backend key comes from TABULA_BACKEND_KEY.
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
local sessions = require("sessions")

setup = sessions.setup
request = sessions.request
done = sessions.done

function init(args)
  local key = os.getenv("TABULA_BACKEND_KEY")
  local patches = {}
  for index, id in ipairs(sessions.mine(id)) do
    patches[index] = {}
    for _, value in ipairs({ "true", "false" }) do
      patches[index][#patches[index] + 1] = wrk.format("PATCH", "/v1/sessions/" .. id .. "/state", {
        ["Authorization"] = "Bearer " .. key,
        ["Content-Type"] = "application/merge-patch+json",
        ["If-Match"] = "*",
      }, '{"bluetooth":' .. value .. '}')
    end
  end
  sessions.alternate(patches)
end
