-- wrk script: GET the settings screen with a session, cycling through every session in
-- the file named by TABULA_SESSIONS (one token per line). Requests are formatted once.
local gets = {}
local counter = 0

function init(args)
  for line in io.lines(os.getenv("TABULA_SESSIONS")) do
    if line ~= "" then
      gets[#gets + 1] = wrk.format("GET", "/v1/screens/settings", { ["X-Session"] = line })
    end
  end
end

function request()
  counter = counter % #gets + 1
  return gets[counter]
end

function done(summary, latency, requests)
  io.write(string.format("non-2xx: %d\n", summary.errors.status))
end
