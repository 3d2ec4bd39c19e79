package pieces

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReader(t *testing.T) {
	base := strings.NewReader("0123456789")
	for _, c := range []struct {
		ps   []Piece
		want string
		err  bool
	}{
		{nil, "", false},
		{[]Piece{Base(0, 10)}, "0123456789", false},
		{[]Piece{Base(0, 3), Bytes([]byte("abc")), Base(7, 3)}, "012abc789", false},
		{[]Piece{Base(5, 2), Base(0, 2), Bytes(nil), Base(9, 0)}, "5601", false},
		{[]Piece{Base(8, 5)}, "89", true},
		{[]Piece{Base(-1, 2)}, "", true},
		{[]Piece{Base(11, 1)}, "", true},
	} {
		got, err := io.ReadAll(Reader(base, c.ps))
		if string(got) != c.want || (err != nil) != c.err || err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%v: %q, %v; want %q (error %v)", c.ps, got, err, c.want, c.err)
		}
		if !c.err && Size(c.ps) != int64(len(c.want)) {
			t.Errorf("%v: Size %d, want %d", c.ps, Size(c.ps), len(c.want))
		}
	}
}
