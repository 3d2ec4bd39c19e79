//go:build !windows

package workspace

import "path/filepath"

type stateDirCase struct {
	name string
	env  map[string]string
	want string
}

func defaultStateDirCases(tmp string) []stateDirCase {
	x, home := filepath.Join(tmp, "x", "state"), filepath.Join(tmp, "home", "u")
	return []stateDirCase{
		{"XDG", map[string]string{"XDG_STATE_HOME": x}, filepath.Join(x, "hashls")},
		{"XDG relative (ignored)", map[string]string{"XDG_STATE_HOME": "rel", "HOME": home}, filepath.Join(home, ".local", "state", "hashls")},
		{"home", map[string]string{"XDG_STATE_HOME": "", "HOME": home}, filepath.Join(home, ".local", "state", "hashls")},
		{"no home", map[string]string{"XDG_STATE_HOME": "", "HOME": ""}, ""},
	}
}
