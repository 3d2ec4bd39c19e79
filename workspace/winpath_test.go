package workspace

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// The Windows path grammar is pure string work: these cases run on every OS
// (path_windows.go applies it to every path on Windows).
func TestWindowsPath(t *testing.T) {
	tests := []struct {
		in, want string
		err      string // a substring of the refusal
	}{
		{in: `a.go`, want: `a.go`},
		{in: `dir\a.go`, want: `dir\a.go`},
		{in: `dir/sub/a.go`, want: `dir\sub\a.go`},
		{in: `..\a.go`, want: `..\a.go`}, // confined by Resolve, like "../a.go"
		{in: `C:\root\a.go`, want: `C:\root\a.go`},
		{in: `c:/root/a.go`, want: `c:\root\a.go`},
		{in: `C:\`, want: `C:\`},
		{in: `/c:/root/a.go`, want: `c:\root\a.go`}, // file:///c%3A/root/a.go
		{in: `/C:`, want: ``, err: "current directory of drive C:"},
		{in: `\\?\C:\root\a.go`, want: `C:\root\a.go`},
		{in: `//?/C:/root/a.go`, want: `C:\root\a.go`},
		{in: `\\?\UNC\srv\share\a.go`, want: `\\srv\share\a.go`},
		{in: `\\srv\share\dir\a.go`, want: `\\srv\share\dir\a.go`},
		{in: `\\srv\share`, want: `\\srv\share`},
		{in: `a b\c d.go`, want: `a b\c d.go`},
		{in: `.hidden\..\x`, want: `.hidden\..\x`},
		{in: `com10.txt`, want: `com10.txt`},
		{in: `console.log`, want: `console.log`},
		{in: `nul-handler.go`, want: `nul-handler.go`},
		{in: `PROGRA~1\a.go`, want: `PROGRA~1\a.go`}, // short names are resolved on disk

		{in: `C:a.go`, err: "current directory of drive C:"},
		{in: `C:`, err: "current directory of drive C:"},
		{in: `C:..\a.go`, err: "current directory of drive C:"},
		{in: `\root\a.go`, err: "root of the current drive"},
		{in: `/root/a.go`, err: "root of the current drive"},
		{in: `\\.\PhysicalDrive0`, err: "Windows device"},
		{in: `\\.\C:\root\a.go`, err: "Windows device"},
		{in: `\??\C:\root\a.go`, err: "Windows device"},
		{in: `\\?\Volume{1234}\a.go`, err: `device path`},
		{in: `\\?\GLOBALROOT\Device\X`, err: `device path`},
		{in: `\\srv`, err: "incomplete network path"},
		{in: `\\srv\`, err: "incomplete network path"},
		{in: `a.txt:stream`, err: "alternate data stream"},
		{in: `a.txt::$DATA`, err: "alternate data stream"},
		{in: `dir\a.txt:zone.identifier:$DATA`, err: "alternate data stream"},
		{in: `C:\root\a.txt:s`, err: "alternate data stream"},
		{in: `dir:x\a.go`, err: "alternate data stream"},
		{in: `NUL`, err: "reserved Windows device name"},
		{in: `nul.txt`, err: "reserved Windows device name"},
		{in: `dir\CON`, err: "reserved Windows device name"},
		{in: `Aux.tar.gz`, err: "reserved Windows device name"},
		{in: `COM1`, err: "reserved Windows device name"},
		{in: `lpt9.log`, err: "reserved Windows device name"},
		{in: `COM¹`, err: "reserved Windows device name"},
		{in: `conin$`, err: "reserved Windows device name"},
		{in: `PRN .txt`, err: "reserved Windows device name"},
		{in: `C:\root\nul\a.go`, err: "reserved Windows device name"},
		{in: `a.go.`, err: "ending in '.'"},
		{in: `a.go `, err: "ending in ' '"},
		{in: `.. \a.go`, err: "ending in ' '"},
		{in: `...\a.go`, err: "ending in '.'"},
		{in: `dir.\a.go`, err: "ending in '.'"},
		{in: `a*.go`, err: "forbids"},
		{in: `a?.go`, err: "forbids"},
		{in: `a<b`, err: "forbids"},
		{in: "a\tb", err: "forbids"},
		{in: `\\srv\sh|are\a`, err: "forbids"},
	}
	for _, tt := range tests {
		got, err := windowsPath(tt.in)
		if tt.err != "" {
			var we *Error
			if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.As(err, &we) || we.Kind != KindInvalid {
				t.Errorf("windowsPath(%q) = %q, %v; want a KindInvalid refusal with %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("windowsPath(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestIsReservedWindowsName(t *testing.T) {
	for name, want := range map[string]bool{
		"CON": true, "con": true, "nul.txt": true, "COM0": true, "LPT3.c": true, "COM³": true,
		"CONOUT$": true, "Aux  .x": true,
		"CONX": false, "COM": false, "COM10": false, "LPT": false, "con_": false, "a.nul": false,
		"nul-x": false, "": false, "COMa": false,
	} {
		if got := isReservedWindowsName(name); got != want {
			t.Errorf("isReservedWindowsName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestRetryBusy(t *testing.T) {
	errBusy, errOther := errors.New("busy"), errors.New("other")
	busy := func(err error) bool { return err == errBusy }
	tests := []struct {
		name      string
		results   []error // op's results in turn; the last repeats
		wantErr   error
		wantTries int
	}{
		{"at once", []error{nil}, nil, 1},
		{"after two busy", []error{errBusy, errBusy, nil}, nil, 3},
		{"other error at once", []error{errOther}, errOther, 1},
		{"busy then other", []error{errBusy, errOther}, errOther, 2},
		{"always busy", []error{errBusy}, errBusy, len(busyDelays) + 1},
	}
	for _, tt := range tests {
		var slept time.Duration
		i := 0
		op := func() error {
			r := tt.results[min(i, len(tt.results)-1)]
			i++
			return r
		}
		err, n := retryBusy(op, busy, func(d time.Duration) { slept += d })
		if err != tt.wantErr || n != tt.wantTries {
			t.Errorf("%s: retryBusy = %v after %d attempts, want %v after %d", tt.name, err, n, tt.wantErr, tt.wantTries)
		}
		if tt.name == "always busy" && slept != busyTotal() {
			t.Errorf("always busy: slept %v, want %v", slept, busyTotal())
		}
	}
}
