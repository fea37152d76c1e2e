-- strings.lua: concatenation, string.format, gsub, find and match with
-- patterns, rep, sub, byte/char, table.concat (bench/predict_real_lua.sh).
local words = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"}
local parts = {}
for i = 1, 1500 do
  parts[#parts + 1] = string.format("%s-%d:%5.2f;", words[i % 8 + 1], i, i / 7)
end
local text = table.concat(parts, " ")
local n = 0
for _ = 1, 3 do
  local t2, k = text:gsub("(%a+)%-(%d+)", "%2=%1")
  n = n + k + #t2
  for w in text:gmatch("%a+") do n = n + #w end
  local pos = 1
  while true do
    local s, e = text:find("eta%-%d+", pos)
    if not s then break end
    n = n + s; pos = e + 1
  end
end
local acc = ""
for i = 1, 2000 do acc = acc .. tostring(i % 10) end
local up = 0
for i = 1, #acc, 3 do up = up + acc:byte(i) + #acc:sub(i, i + 5):upper() end
local r = string.rep("ab", 1000, ",")
print(n, #acc, up, #r, select(2, r:gsub(",", ",")))
