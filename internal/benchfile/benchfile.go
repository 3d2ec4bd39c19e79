// Package benchfile makes the file the speed and history goals are stated
// on (bench/edit.sh, bench/mcp.sh, bench/history.sh and the Go benchmarks
// beside them): a 10,000-line text file of about 480 KB, and its versions
// after the 50-hunk edit that changes lines 1, 201, 401, … Its entry point
// is Text.
package benchfile

import (
	"bytes"
	"fmt"
	"strconv"
)

// Text is the file: "line N: some text for the benchmark file", N from 1
// to 10,000.
func Text() []byte {
	var b bytes.Buffer
	for i := 1; i <= 10000; i++ {
		fmt.Fprintf(&b, "line %d: some text for the benchmark file\n", i)
	}
	return b.Bytes()
}

// Edited is text with lines 1, 201, 401, … (50 of them, as far as text
// has them) replaced by "changed I" (the I-th such line), followed by
// " round R" when round > 0: the content the 50-hunk edit makes, a new one
// each round.
func Edited(text []byte, round int) []byte {
	lines := bytes.SplitAfter(text, []byte("\n"))
	suffix := "\n"
	if round > 0 {
		suffix = " round " + strconv.Itoa(round) + "\n"
	}
	for i := 0; i < 50 && i*200 < len(lines); i++ {
		lines[i*200] = []byte("changed " + strconv.Itoa(i) + suffix)
	}
	return bytes.Join(lines, nil)
}
