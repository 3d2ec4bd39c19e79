package edit

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

func TestXXH32Known(t *testing.T) {
	cases := []struct {
		in   string
		want uint32
	}{
		{"", 0x02CC5D05},
		{"abc", 0x32D153FF},
		{"Nobody inspects the spammish repetition", 0xE2293B2F},
	}
	for _, c := range cases {
		if got := XXH32([]byte(c.in)); got != c.want {
			t.Errorf("XXH32(%q) = %08X, want %08X", c.in, got, c.want)
		}
	}
}

func TestTagNormalisation(t *testing.T) {
	base := Tag([]byte("a\nb\nc\n"))
	same := []string{"a\r\nb\r\nc\r\n", "a  \nb\t\nc\n", "\ufeffa\nb\nc\n", "a\nb\nc\n \t", "a \rb\nc\n"}
	for _, s := range same {
		if got := Tag([]byte(s)); got != base {
			t.Errorf("Tag(%q) = %s, want %s", s, got, base)
		}
	}
	if Tag([]byte("a\nb\nc")) == base {
		t.Errorf("final newline must change the tag")
	}
	if got, want := Tag([]byte("abc")), fmt.Sprintf("%04X", 0x32D153FF&0xFFFF); got != want {
		t.Errorf("Tag(abc) = %s, want %s", got, want)
	}
}

// Feeding through the streaming path in odd chunk sizes must agree with the
// one-shot digest.
func TestXXH32Streaming(t *testing.T) {
	buf := make([]byte, 1000)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	want := XXH32(buf)
	for step := 1; step < 40; step++ {
		var d xxh32
		d.reset()
		for i := 0; i < len(buf); i += step {
			d.write(buf[i:min(i+step, len(buf))])
		}
		if got := d.sum(); got != want {
			t.Fatalf("step %d: %08X want %08X", step, got, want)
		}
	}
}

// naiveTag is the reference definition, written the slow obvious way.
func naiveTag(text []byte) string {
	s := strings.TrimPrefix(string(text), "\ufeff")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " \t")
	}
	return tagHex(XXH32([]byte(strings.Join(lines, "\n"))))
}

func TestTagMatchesNaive(t *testing.T) {
	alphabet := []byte("ab \t\r\n")
	for n := 0; n < 7; n++ {
		total := 1
		for i := 0; i < n; i++ {
			total *= len(alphabet)
		}
		buf := make([]byte, n)
		for v := 0; v < total; v++ {
			x := v
			for i := 0; i < n; i++ {
				buf[i] = alphabet[x%len(alphabet)]
				x /= len(alphabet)
			}
			if got, want := Tag(buf), naiveTag(buf); got != want {
				t.Fatalf("Tag(%q) = %s, naive %s", buf, got, want)
			}
		}
	}
}

func TestTagMatchesNaiveLong(t *testing.T) {
	alphabet := []byte("abcdefgh  \t\r\n\n")
	seed := uint32(1)
	for n := 0; n < 200; n++ {
		buf := make([]byte, n*97)
		for i := range buf {
			seed = seed*1664525 + 1013904223
			buf[i] = alphabet[int(seed>>24)%len(alphabet)]
		}
		if n%3 == 0 { // long lines too
			buf = append(buf, bytes.Repeat([]byte("x"), 3000)...)
		}
		if got, want := Tag(buf), naiveTag(buf); got != want {
			t.Fatalf("len %d: Tag %s naive %s", len(buf), got, want)
		}
	}
}
