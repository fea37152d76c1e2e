-- gc.lua: closures, upvalues, short-lived tables and strings, the collector
-- (incremental steps, full collections) (bench/predict_real_lua.sh).
local function counter()
  local n = 0
  return function(d) n = n + d return n end
end
local total = 0
for i = 1, 4000 do
  local c = counter()
  c(i); total = total + c(1)
end
local keep = {}
for i = 1, 6000 do
  local t = {i, i + 1, tostring(i), {x = i}}
  if i % 10 == 0 then keep[#keep + 1] = t end
  if i % 200 == 0 then collectgarbage("step", 0) end
end
for _ = 1, 3 do collectgarbage() end
local chain = nil
for i = 1, 4000 do chain = {next = chain, v = i} end
local v = 0
while chain do v = v + chain.v chain = chain.next end
collectgarbage()
print(total, #keep, v)
