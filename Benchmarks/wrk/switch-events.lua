-- wrk script: POST switch events on the settings screen. Sessions come from the file
-- named by TABULA_SESSIONS (one token per line); each wrk thread takes its own share and
-- cycles through them, flipping Bluetooth on each so that events change state.
local tokens = {}
local counter = 0
local values = {}

function setup(thread)
  thread:set("id", thread_number or 0)
  thread_number = (thread_number or 0) + 1
end

function init(args)
  local all = {}
  for line in io.lines(os.getenv("TABULA_SESSIONS")) do all[#all + 1] = line end
  local threads = tonumber(os.getenv("TABULA_THREADS") or "2")
  for index, token in ipairs(all) do
    if (index - 1) % threads == id then tokens[#tokens + 1] = token end
  end
  for index = 1, #tokens do values[index] = false end
end

function request()
  counter = counter % #tokens + 1
  values[counter] = not values[counter]
  local body = '{"row":"bluetooth","isOn":' .. tostring(values[counter]) .. '}'
  return wrk.format("POST", "/v1/screens/settings/switch", {
    ["X-Session"] = tokens[counter],
    ["Content-Type"] = "application/json",
  }, body)
end

function done(summary, latency, requests)
  io.write(string.format("non-2xx: %d\n", summary.errors.status))
end
