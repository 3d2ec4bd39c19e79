package agent

import "context"

// readTarget reads an archive member or a SQLite target named by path. ok
// is false when path names neither (the caller reads a plain file).
func readTarget(ctx context.Context, env *Env, path string) (res *Result, ok bool, err error) {
	return nil, false, nil
}

// writeTarget writes an archive member or a SQLite row named by path. ok is
// false when path names neither (the caller writes a plain file).
func writeTarget(ctx context.Context, env *Env, path, content string, expectedSha256 *string) (res *Result, ok bool, err error) {
	return nil, false, nil
}
