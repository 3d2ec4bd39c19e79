package main

import (
	"fmt"

	"example.com/gomod/shapes"
)

func main() {
	sq := shapes.Square{Side: 2}
	fmt.Println(shapes.Total([]shapes.Area{sq}))
}
