-- renew.lua: one instance renews its share of a fleet-wide rate, atomically.
-- KEYS[1]: the limit's hash, instance -> "demand expiry_ms"
-- ARGV: instance, demand (permits/s wanted), lease TTL (ms), rate (permits/s)
-- Returns the instance's share (permits/s) as a string, and how many instances are live.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[3])
local demand = tonumber(ARGV[2])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ' ' .. (now + ttl))
local entries = redis.call('HGETALL', KEYS[1])
local total, live = 0, 0
for i = 1, #entries, 2 do
  local d, exp = string.match(entries[i + 1], '^(%S+) (%S+)$')
  if d == nil or tonumber(exp) < now then
    redis.call('HDEL', KEYS[1], entries[i])
  else
    total = total + tonumber(d)
    live = live + 1
  end
end
redis.call('PEXPIRE', KEYS[1], ttl)
return {tostring(tonumber(ARGV[4]) * demand / total), live}
