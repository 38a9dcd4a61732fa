-- wrk script: the app's backend reads the feed, a page of TABULA_FEED_LIMIT entries
-- (default 1000) from the oldest kept, again and again. The backend key comes from
-- TABULA_BACKEND_KEY.
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
local sessions = require("sessions")
local limit = os.getenv("TABULA_FEED_LIMIT") or "1000"
local read

function init(args)
  read = wrk.format("GET", "/v1/feed?limit=" .. limit, { ["Authorization"] = "Bearer " .. os.getenv("TABULA_BACKEND_KEY") })
end

function request()
  return read
end

done = sessions.done
