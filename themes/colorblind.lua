-- themes/colorblind.lua: every colour from the Okabe-Ito palette (Okabe
-- and Ito, "Color Universal Design", 2008), which stays apart under
-- protanopia, deuteranopia and tritanopia: no red against green
-- anywhere. Good is blue, bad is vermillion and bold (underlined where
-- it matters), warnings yellow; better and worse carry arrows besides.
local blue, sky, orange, green = "#0072b2", "#56b4e9", "#e69f00", "#009e73"
local yellow, vermillion, purple = "#f0e442", "#d55e00", "#cc79a7"
return {
	name = "colorblind",
	base = "dark",
	roles = {
		["border-focus"] = { fg = sky, bold = true },
		["header"] = { fg = sky, bold = true },
		["select"] = { fg = "#ffffff", bg = blue, bold = true },
		["tab-on"] = { fg = "#000000", bg = sky, bold = true },
		["bar-key"] = { fg = "#000000", bg = sky, bold = true },
		["error"] = { fg = vermillion, bold = true, underline = true },
		["ok"] = { fg = sky },
		["warn"] = { fg = yellow },
		["edit"] = { fg = "#000000", bg = yellow },
		["stale"] = { fg = orange, italic = true },
		["mem-ok"] = { fg = sky },
		["mem-high"] = { fg = yellow },
		["mem-over"] = { fg = vermillion, bold = true, underline = true },
		["critical"] = { fg = purple, bold = true },
		["viewport"] = { fg = sky },
		["better"] = { fg = sky, bold = true },
		["worse"] = { fg = orange, bold = true, underline = true },
	},
	kinds = {
		forward = blue, backward = orange, weight_gradient = sky, activation = purple,
		gradient = green, sync = vermillion, optimizer = yellow,
	},
}
