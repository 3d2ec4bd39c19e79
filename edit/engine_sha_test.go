package edit

import (
	"crypto/sha256"
	"testing"
)

// TestResultOldSHA256: every result carries the sha256 of its Old bytes,
// which callers commit against without hashing them again.
func TestResultOldSHA256(t *testing.T) {
	old := []byte("a\r\nb\r\nc\r\n")
	tag := Tag(old)
	for _, body := range []string{"replace 2..2:\n+B", "REM", "MV c.txt"} {
		res, err := ApplySection(Section{Path: "a.txt", Tag: tag, Body: body}, File{Path: "a.txt", Key: "a.txt", Bytes: old}, Options{})
		if err != nil {
			t.Fatalf("%q: %v", body, err)
		}
		if res.OldSHA256 != sha256.Sum256(old) {
			t.Errorf("%q: OldSHA256 is not the sha256 of Old", body)
		}
	}
}
