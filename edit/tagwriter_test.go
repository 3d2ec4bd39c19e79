package edit

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TagWriter gives Tag's result however the text is cut into pieces.
func TestTagWriterMatchesTag(t *testing.T) {
	texts := []string{
		"", "a", "\xEF\xBB\xBF", "\xEF\xBB", "\xEF\xBB\xBFx \n", "\xEFx",
		"a \t\nb\t \r\nc  \rd  ", "\r\n\r\n", "\r\r\n\n", "  \n  ", "x \r", "x\r \n",
		strings.Repeat("line with trailing   \r\n", 500) + "end \t",
		strings.Repeat(" ", 10000) + "x" + strings.Repeat("\t", 700),
	}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("ab \t\r\n\xEF\xBB\xBF")
	for range 300 {
		b := make([]byte, r.IntN(200))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		texts = append(texts, string(b))
	}
	for _, s := range texts {
		want := Tag([]byte(s))
		for _, size := range []int{1, 2, 3, 5, 7, 64, 4096, 1 << 20} {
			var w TagWriter
			for i := 0; i < len(s); i += size {
				w.Write([]byte(s[i:min(i+size, len(s))]))
			}
			if got := w.Tag(); got != want {
				t.Fatalf("%q in pieces of %d: tag %s, want %s", s, size, got, want)
			}
			// All 32 bits, not only the 16 the tag shows.
			if got, want := w.f.sum(), tagSum([]byte(s)); got != want {
				t.Fatalf("%q in pieces of %d: digest %08x, want %08x", s, size, got, want)
			}
		}
	}
}

// FuzzTagWriter: any text cut into pieces of any sizes has the digest
// Tag computes over it whole.
func FuzzTagWriter(f *testing.F) {
	f.Add([]byte("a \t\nb\t \r\nc  \rd  "), []byte{1, 2, 3})
	f.Add([]byte("\xEF\xBB\xBFx \r"), []byte{1})
	f.Add([]byte("x  \r\n  y\t"), []byte{3, 2})
	f.Fuzz(func(t *testing.T, text, cuts []byte) {
		var w TagWriter
		rest := text
		for k := 0; len(rest) > 0; k++ {
			size := len(rest)
			if len(cuts) > 0 {
				size = min(size, int(cuts[k%len(cuts)]))
			}
			w.Write(rest[:size])
			rest = rest[size:]
			if len(cuts) == 0 || (size == 0 && k > len(cuts)) {
				w.Write(rest)
				break
			}
		}
		w.Tag()
		if got, want := w.f.sum(), tagSum(text); got != want {
			t.Fatalf("%q cut by %v: digest %08x, want %08x", text, cuts, got, want)
		}
	})
}
