//go:build !windows

package workspace

// stateHome says where the default state directory is on Unix and macOS:
// $XDG_STATE_HOME/hashls, else ~/.local/state/hashls (on macOS too: a
// command-line tool's state, where other XDG-following tools keep theirs).
var stateHome = struct {
	env    string   // an absolute directory holding hashls/
	inHome []string // else this under the home directory
}{"XDG_STATE_HOME", []string{".local", "state"}}
