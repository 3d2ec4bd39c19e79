//go:build windows

package workspace

// On Windows a directory's ACL says who may use it, and the default state
// directory (%LOCALAPPDATA%) is the user's own: nothing is checked here
// (private.go).

func checkStateDir(dir string) error { return nil }
func checkOwnDir(dir string) error   { return nil }
func checkOwnFile(name string) error { return nil }
