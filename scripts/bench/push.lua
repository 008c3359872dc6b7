-- wrk: POST /v3/push to one alias of one app (pushes accepted per second).
-- Environment: AUTH (the whole Authorization header value).
wrk.method = "POST"
wrk.headers["Authorization"] = os.getenv("AUTH")
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"platform":"ios","audience":{"alias":["bench_user"]},"notification":{"alert":"wrk"}}'

-- The first refusal's status and body go to stderr, so a refused run says why.
local told = false
function response(status, headers, body)
  if status ~= 200 and not told then
    told = true
    io.stderr:write("push refused: " .. status .. " " .. body .. "\n")
  end
end
