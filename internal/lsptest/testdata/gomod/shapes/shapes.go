// Package shapes is a small module the language-server tests navigate.
package shapes

// Area is implemented by every shape.
type Area interface {
	Area() float64
}

// Square is a square.
type Square struct {
	Side float64
}

// Area returns the square's area.
func (s Square) Area() float64 {
	return s.Side * s.Side
}

// Total sums the areas of shapes.
func Total(shapes []Area) float64 {
	sum := 0.0
	for _, s := range shapes {
		sum += s.Area()
	}
	return sum
}
