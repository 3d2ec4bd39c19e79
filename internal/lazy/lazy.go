// Package lazy holds values built on first use instead of at package init.
// Every hashls process pays for every package's init, whatever command it
// runs: `hashls version` and a one-shot `hashls tool read` should not
// compile the edit parser's regular expressions. The entry point is Regexp.
package lazy

import (
	"regexp"
	"sync"
)

// Regexp returns a function that compiles expr on its first call (panicking
// there, as regexp.MustCompile would at init, when expr is invalid) and
// returns the same *regexp.Regexp on every call. Safe for concurrent use.
func Regexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
