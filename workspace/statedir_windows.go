//go:build windows

package workspace

// stateHome says where the default state directory is on Windows:
// %LOCALAPPDATA%\hashls, the place for a program's per-user data that stays
// on this machine (not roamed: the store names this machine's paths), else
// <home>\AppData\Local\hashls.
var stateHome = struct {
	env    string   // an absolute directory holding hashls\
	inHome []string // else this under the home directory
}{"LOCALAPPDATA", []string{"AppData", "Local"}}
