package agent

import "context"

// summarizeForRead is a placeholder until the tree-sitter summary lands
// (owned by the treesitter work; this file will be replaced).
func summarizeForRead(ctx context.Context, displayPath, tag string, content []byte) (string, map[string]any, bool) {
	return "", nil, false
}
