//go:build windows

package workspace

import "path/filepath"

type stateDirCase struct {
	name string
	env  map[string]string
	want string
}

func defaultStateDirCases(tmp string) []stateDirCase {
	local, home := filepath.Join(tmp, "Local"), filepath.Join(tmp, "home", "u")
	return []stateDirCase{
		{"LOCALAPPDATA", map[string]string{"LOCALAPPDATA": local, "XDG_STATE_HOME": filepath.Join(tmp, "xdg")}, filepath.Join(local, "hashls")},
		{"LOCALAPPDATA relative (ignored)", map[string]string{"LOCALAPPDATA": "rel", "USERPROFILE": home}, filepath.Join(home, "AppData", "Local", "hashls")},
		{"home", map[string]string{"LOCALAPPDATA": "", "USERPROFILE": home}, filepath.Join(home, "AppData", "Local", "hashls")},
		{"no home", map[string]string{"LOCALAPPDATA": "", "USERPROFILE": ""}, ""},
	}
}
