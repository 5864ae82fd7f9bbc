package screen

// Width is Right-Left.
func (r Rect) Width() int { return r.Right - r.Left }

// Height is Bottom-Top.
func (r Rect) Height() int { return r.Bottom - r.Top }

// Empty reports a rectangle with no area (also an inverted one).
func (r Rect) Empty() bool { return r.Right <= r.Left || r.Bottom <= r.Top }

// Area is Width*Height, 0 for an empty rectangle.
func (r Rect) Area() int {
	if r.Empty() {
		return 0
	}
	return r.Width() * r.Height()
}

// Center is the midpoint, rounded down.
func (r Rect) Center() Point {
	return Point{X: (r.Left + r.Right) / 2, Y: (r.Top + r.Bottom) / 2}
}

// Intersect is the overlap of r and s (the zero Rect when they do not
// overlap).
func (r Rect) Intersect(s Rect) Rect {
	o := Rect{max(r.Left, s.Left), max(r.Top, s.Top), min(r.Right, s.Right), min(r.Bottom, s.Bottom)}
	if o.Empty() {
		return Rect{}
	}
	return o
}

// Union is the smallest rectangle holding both; an empty operand is ignored.
func (r Rect) Union(s Rect) Rect {
	if r.Empty() {
		return s
	}
	if s.Empty() {
		return r
	}
	return Rect{min(r.Left, s.Left), min(r.Top, s.Top), max(r.Right, s.Right), max(r.Bottom, s.Bottom)}
}

// Contains reports whether p lies inside r (Right/Bottom exclusive).
func (r Rect) Contains(p Point) bool {
	return p.X >= r.Left && p.X < r.Right && p.Y >= r.Top && p.Y < r.Bottom
}

// parseBounds reads "[l,t][r,b]" (spaces tolerated, negative values
// allowed). Anything malformed gives the zero Rect.
func parseBounds(s string) Rect {
	var v [4]int
	i := 0
	skip := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
	}
	expect := func(c byte) bool {
		skip()
		if i < len(s) && s[i] == c {
			i++
			return true
		}
		return false
	}
	num := func(dst *int) bool {
		skip()
		neg := false
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			neg = s[i] == '-'
			i++
		}
		start := i
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			if n > 1<<30 {
				return false
			}
			n = n*10 + int(s[i]-'0')
			i++
		}
		if i == start {
			return false
		}
		if neg {
			n = -n
		}
		*dst = n
		return true
	}
	for k := 0; k < 2; k++ {
		if !expect('[') || !num(&v[2*k]) || !expect(',') || !num(&v[2*k+1]) || !expect(']') {
			return Rect{}
		}
	}
	skip()
	if i != len(s) {
		return Rect{}
	}
	return Rect{Left: v[0], Top: v[1], Right: v[2], Bottom: v[3]}
}
