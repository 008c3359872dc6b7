-- wrk: POST /v3/push to a random one of 1,000 aliases (u0…u999) of one app, each with
-- badge "+1", as an app backend sends trade alerts (pushes accepted per second).
-- Environment: AUTH (the whole Authorization header value).
wrk.method = "POST"
wrk.headers["Authorization"] = os.getenv("AUTH")
wrk.headers["Content-Type"] = "application/json"

function request()
  local body = '{"platform":"ios","audience":{"alias":["u' .. math.random(0, 999) ..
    '"]},"notification":{"ios":{"alert":"trade filled","badge":"+1"}}}'
  return wrk.format(nil, nil, nil, body)
end

-- The first refusal's status and body go to stderr, so a refused run says why.
local told = false
function response(status, headers, body)
  if status ~= 200 and not told then
    told = true
    io.stderr:write("push refused: " .. status .. " " .. body .. "\n")
  end
end
