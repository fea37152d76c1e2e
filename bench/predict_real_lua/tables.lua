-- tables.lua: array insert/remove, hash part with string keys, table.sort
-- with a comparator, ipairs/pairs traversal (bench/predict_real_lua.sh).
local a = {}
for i = 1, 2000 do table.insert(a, (i * 7919) % 20011) end
for _ = 1, 40 do table.remove(a, 1 + (#a // 2)) end
for _ = 1, 300 do table.remove(a) end
table.sort(a, function(x, y) return x > y end)
local s = 0
for i, v in ipairs(a) do s = s + i * v end
local h = {}
for i = 1, 8000 do h["k" .. (i % 2000)] = (h["k" .. (i % 2000)] or 0) + i end
local c = 0
for k, v in pairs(h) do c = c + v + #k end
local recs = {}
for i = 1, 1000 do recs[i] = {name = "n" .. ((i * 37) % 1000), v = i} end
table.sort(recs, function(x, y) return x.name < y.name end)
local m = {}
for i = 1, 2000 do m[i] = {} for j = 1, 4 do m[i][j] = i + j end end
local t = 0
for i = 1, #m do local r = m[i] t = t + r[1] * r[4] end
print(s, c, recs[1].name, recs[1000].name, t, #a)
