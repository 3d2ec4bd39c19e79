package agent

import (
	"bytes"
	"fmt"
	"path"
	"strings"
)

// Generated-file detection (write.md "assertEditableFile"): the first
// generatedHeadLines lines within generatedHeadBytes of a file, and a few
// names that are always generated.
const (
	generatedHeadLines = 40
	generatedHeadBytes = 1024
)

// generatedReason says why content at rel looks generated ("" when it
// does not).
func generatedReason(rel string, content []byte) string {
	base := path.Base(rel)
	switch {
	case strings.HasSuffix(base, ".pb.go"):
		return "its name ends in .pb.go (protoc output)"
	case strings.HasPrefix(base, "zz_generated."):
		return "its name starts with zz_generated. (Kubernetes code generators)"
	}
	head := content
	if len(head) > generatedHeadBytes {
		head = head[:generatedHeadBytes]
	}
	for i, line := range bytes.SplitN(head, []byte("\n"), generatedHeadLines+1) {
		if i == generatedHeadLines {
			break
		}
		l := string(line)
		switch {
		case strings.Contains(l, "Code generated") && strings.Contains(l, "DO NOT EDIT"):
			return fmt.Sprintf("line %d says \"Code generated … DO NOT EDIT\"", i+1)
		case strings.Contains(l, "@generated"):
			return fmt.Sprintf("line %d is marked @generated", i+1)
		}
	}
	return ""
}
