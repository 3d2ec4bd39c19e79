package main

import "example.com/gomod/shapes"

// describe reports the total area of two squares.
func describe() float64 {
	return shapes.Total([]shapes.Area{shapes.Square{Side: 1}, shapes.Square{Side: 3}})
}
