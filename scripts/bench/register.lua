-- wrk: POST /v3/devices with a fresh random token on every request.
-- Environment: APP_KEY, APP_SECRET.
local counter = 0
local threads = {}

function setup(thread)
  counter = counter + 1
  thread:set("id", counter)
  table.insert(threads, thread)
end

function init(args)
  math.randomseed(os.time() * 1000 + id)
  local key, secret = os.getenv("APP_KEY"), os.getenv("APP_SECRET")
  local b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
  local raw = key .. ":" .. secret
  local encoded = ((raw:gsub('.', function(x)
    local r, b = '', x:byte()
    for i = 8, 1, -1 do r = r .. (b % 2 ^ i - b % 2 ^ (i - 1) > 0 and '1' or '0') end
    return r
  end) .. '0000'):gsub('%d%d%d?%d?%d?%d?', function(x)
    if #x < 6 then return '' end
    local c = 0
    for i = 1, 6 do c = c + (x:sub(i, i) == '1' and 2 ^ (6 - i) or 0) end
    return b64:sub(c + 1, c + 1)
  end) .. ({ '', '==', '=' })[#raw % 3 + 1])
  wrk.headers["Authorization"] = "Basic " .. encoded
  wrk.headers["Content-Type"] = "application/json"
end

function request()
  local hex = {}
  for i = 1, 32 do hex[i] = string.format("%02x", math.random(0, 255)) end
  local body = '{"platform":"ios","token":"' .. table.concat(hex) .. '","environment":"production"}'
  return wrk.format("POST", "/v3/devices", nil, body)
end

function response(status, headers, body)
  if status ~= 200 then
    errors_seen = (errors_seen or 0) + 1
    if errors_seen <= 3 then io.stderr:write("unexpected " .. status .. ": " .. body .. "\n") end
  end
end
