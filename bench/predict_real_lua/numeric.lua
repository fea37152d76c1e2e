-- numeric.lua: integer and float arithmetic in numeric for loops, bitwise
-- operators, math library functions (bench/predict_real_lua.sh).
local floor, sqrt, sin = math.floor, math.sqrt, math.sin
local function mandel(w)
  local count = 0
  for y = 0, w - 1 do
    local ci = 2.0 * y / w - 1.0
    for x = 0, w - 1 do
      local cr = 2.5 * x / w - 2.0
      local zr, zi = 0.0, 0.0
      local it = 0
      while it < 50 and zr * zr + zi * zi < 4.0 do
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        it = it + 1
      end
      count = count + it
    end
  end
  return count
end
local function sieve(n)
  local comp, c = {}, 0
  for i = 2, n do
    if not comp[i] then
      c = c + 1
      for j = i * i, n, i do comp[j] = true end
    end
  end
  return c
end
local h = 0
for i = 1, 15000 do h = (h ~ (i << 3)) * 31 % 1000003 + (i // 7) end
local f = 0.0
for i = 1, 7500 do f = f + sqrt(i) * sin(i) + floor(i / 3) end
print(mandel(45), sieve(15000), h, string.format("%.6f", f))
