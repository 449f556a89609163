-- wrk script of the trigger benchmarks: each request pushes a score for one of 20 players (scores
-- cycling through 0-999) to /scores of the default database, which fires functions/' onScoreWrite.
wrk.method = "POST"
wrk.headers["Authorization"] = "Bearer owner"
wrk.headers["Content-Type"] = "application/json"
counter = 0
request = function()
  counter = counter + 1
  local body = string.format('{"playerName": "p%d", "score": %d, "cheatMode": false}', counter % 20, counter % 1000)
  return wrk.format(nil, "/scores.json?ns=demo-project-default-rtdb", nil, body)
end
