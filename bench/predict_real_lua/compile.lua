-- compile.lua: the lexer, parser and code generator: load() of a fixed,
-- generated Lua source text many times (bench/predict_real_lua.sh).
local b = {}
for i = 1, 60 do
  b[#b + 1] = string.format([[
local function f%d(a, b, ...)
  local t = {a, b, x = %d, y = "s%d", [%d] = a * b}
  if a > b then t.z = a - b elseif a < b then t.z = b - a else t.z = 0 end
  for i = 1, #t do t[i] = (t[i] or 0) + i * %d.5 end
  while a > 0 do a = a // 2; b = b .. "x" end
  local s = 0
  for k, v in pairs(t) do if type(v) == "number" then s = s + v end end
  return s, function(c) return c + a + %d end, select("#", ...)
end
]], i, i, i, i, i, i)
end
b[#b + 1] = "return f1(3, 4)"
local src = table.concat(b)
local n = 0
for _ = 1, 6 do
  local f = assert(load(src, "=gen"))
  n = n + f()
end
print(#src, n)
