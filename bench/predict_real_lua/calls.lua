-- calls.lua: Lua function calls, recursion, varargs, method calls through
-- metatables (__index), tail calls (bench/predict_real_lua.sh).
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end

local Point = {}
Point.__index = Point
function Point.new(x, y) return setmetatable({x = x, y = y}, Point) end
function Point:add(o) return Point.new(self.x + o.x, self.y + o.y) end
function Point:norm1() return math.abs(self.x) + math.abs(self.y) end

local function sum(...)
  local s = 0
  for i = 1, select('#', ...) do s = s + select(i, ...) end
  return s
end

local function loop(n, acc) if n == 0 then return acc end return loop(n - 1, acc + n) end

local r = fib(21)
local p = Point.new(0, 0)
local d = Point.new(1, -2)
for _ = 1, 8000 do p = p:add(d) end
local s = 0
for i = 1, 4000 do s = s + sum(i, 2, 3, 4, 5) end
local t = 0
for _ = 1, 40 do t = t + loop(500, 0) end
print(r, p:norm1(), s, t)
