package edit

import "errors"

// TODO(edit helper): replace this file with the real implementation.

var errTODO = errors.New("edit: not implemented yet")

// Tag returns the 4-hex content tag of text (reference §1): CRLF→LF, strip
// [ \t\r] runs before each "\n" and at the end, XXH32 seed 0, low 16 bits,
// upper-case hex. A leading UTF-8 BOM is ignored.
func Tag(text []byte) string { return "0000" }

// SplitInput splits an edit input into sections (reference §2): same-path
// sections merged, conflicting tags an error, empty sections dropped.
func SplitInput(input string) ([]Section, error) { return nil, errTODO }

// ApplySection parses sec's ops and applies them to f.Bytes after checking
// sec.Tag against the live content and the store (recovering when stale).
func ApplySection(sec Section, f File, opts Options) (*Result, error) { return nil, errTODO }
