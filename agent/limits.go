package agent

// Limits bound what one tool call shows. They are a value in Deps, beside
// the tools' other dependencies, so a reader sees them in one place and a
// test can shrink them; the zero value means DefaultLimits, which are the
// reference engine's output contract (hashline-behaviour.md).
type Limits struct {
	ReadLines int // rows one read shows at most (and a summary or listing)
	ReadBytes int // bytes of rows one read shows at most

	SearchFiles int // files one search page shows
	SearchBytes int // bytes one search result shows at most
}

// DefaultLimits are the limits a zero Limits stands for: 3,000 lines and
// 50 KiB per read, 20 files and 50 KiB per search page.
func DefaultLimits() Limits {
	return Limits{ReadLines: 3000, ReadBytes: 50 * 1024, SearchFiles: 20, SearchBytes: 50 * 1024}
}

// orDefault returns l, or DefaultLimits when l is the zero value. A
// partly set value keeps its fields and takes the defaults for the rest.
func (l Limits) orDefault() Limits {
	d := DefaultLimits()
	if l.ReadLines <= 0 {
		l.ReadLines = d.ReadLines
	}
	if l.ReadBytes <= 0 {
		l.ReadBytes = d.ReadBytes
	}
	if l.SearchFiles <= 0 {
		l.SearchFiles = d.SearchFiles
	}
	if l.SearchBytes <= 0 {
		l.SearchBytes = d.SearchBytes
	}
	return l
}

// limits are the call's limits (an Env built by hand, in a test, has the
// zero value: the defaults).
func (env *Env) limits() Limits { return env.Limits.orDefault() }
