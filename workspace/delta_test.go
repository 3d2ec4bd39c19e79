package workspace

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/hashls/hashls/internal/benchfile"
)

// benchFile is bench/edit.sh's 10,000-line file (480 KB).
func benchFile() []byte { return benchfile.Text() }

// edit50 changes lines 1, 201, 401, … (50 of them) of text to "changed N
// round R", as bench/edit.sh's edit writing new content does.
func edit50(text []byte, round int) []byte { return benchfile.Edited(text, round) }

func TestDeltaRoundTrip(t *testing.T) {
	big := benchFile()
	r := rand.New(rand.NewPCG(3, 4))
	random := make([]byte, 5000)
	for i := range random {
		random[i] = byte(r.IntN(256))
	}
	moved := append(append([]byte{}, big[len(big)/2:]...), big[:len(big)/2]...)
	cases := []struct {
		name         string
		base, target []byte
		maxDelta     int // the delta's size must not be above this (0: no bound)
	}{
		{"empty to empty", nil, nil, 4},
		{"empty to text", nil, []byte("hello\n"), 12},
		{"text to empty", []byte("hello\n"), nil, 4},
		{"same", big, big, 12},
		{"50 scattered lines", big, edit50(big, 1), 2000},
		{"one line inserted", big, append(append(append([]byte{}, big[:1000]...), "a new line\n"...), big[1000:]...), 40},
		{"one line deleted", big, append(append([]byte{}, big[:1000]...), big[1043:]...), 30},
		{"halves swapped", big, moved, 40},
		{"appended", big[:1000], big[:5000], 4100},
		{"random to random", random, append(append([]byte{}, random[2000:]...), random[:100]...), 40},
		{"unrelated", random, big[:3000], 3100},
		{"short", []byte("abc"), []byte("abd"), 12},
		{"repeated lines", bytes.Repeat([]byte("}\n"), 5000), append(bytes.Repeat([]byte("}\n"), 2500), append([]byte("x\n"), bytes.Repeat([]byte("}\n"), 2500)...)...), 30},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := encodeDelta(c.base, c.target)
			got, err := applyDelta(nil, c.base, d)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, c.target) {
				t.Fatalf("rebuilt %d bytes, not the %d of the target", len(got), len(c.target))
			}
			if c.maxDelta > 0 && len(d) > c.maxDelta {
				t.Fatalf("delta of %d bytes, want at most %d", len(d), c.maxDelta)
			}
		})
	}
}

// TestDeltaDamaged: a delta that is cut short, names another base or has
// a changed byte anywhere is an error or (a changed literal) a content of
// the right length, never a panic.
func TestDeltaDamaged(t *testing.T) {
	big := benchFile()[:40000] // 900 lines: 5 of the 50 changes
	target := edit50(big, 7)
	d := encodeDelta(big, target)
	if _, err := applyDelta(nil, big[1:], d); !errors.Is(err, errDelta) {
		t.Fatalf("another base: %v", err)
	}
	for i := range len(d) {
		if _, err := applyDelta(nil, big, d[:i]); !errors.Is(err, errDelta) {
			t.Fatalf("cut at %d: %v", i, err)
		}
		for _, x := range []byte{0x01, 0x80, 0xff} {
			bad := bytes.Clone(d)
			bad[i] ^= x
			got, err := applyDelta(nil, big, bad)
			if err == nil && len(got) != len(target) {
				t.Fatalf("byte %d ^ %#x: %d bytes without an error", i, x, len(got))
			}
		}
	}
}

func FuzzDelta(f *testing.F) {
	f.Add([]byte("hello world, hello world\n"), []byte("hello there world, hello world\n"))
	f.Add([]byte(""), []byte("x"))
	f.Add(bytes.Repeat([]byte("abcdefgh"), 40), bytes.Repeat([]byte("abcdefgh"), 41))
	f.Fuzz(func(t *testing.T, base, target []byte) {
		d := encodeDelta(base, target)
		got, err := applyDelta(nil, base, d)
		if err != nil || !bytes.Equal(got, target) {
			t.Fatalf("round trip: %v", err)
		}
		// Any bytes as a delta: an error or a content, never a panic.
		_, _ = applyDelta(nil, base, target)
	})
}

func BenchmarkDelta50Lines(b *testing.B) {
	big := benchFile()
	target := edit50(big, 1)
	b.SetBytes(int64(len(big)))
	var d []byte
	b.Run("encode", func(b *testing.B) {
		for b.Loop() {
			d = encodeDelta(big, target)
		}
		b.ReportMetric(float64(len(d)), "delta-bytes")
	})
	b.Run("apply", func(b *testing.B) {
		var out []byte
		for b.Loop() {
			out, _ = applyDelta(out, big, d)
		}
	})
}
