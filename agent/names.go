package agent

import (
	"fmt"

	"github.com/hashls/hashls/internal/names"
	"github.com/hashls/hashls/workspace"
)

// Names in output and in arguments. Every name a tool shows (headers, rows
// of listings, find's groups) goes through showName, which quotes a name
// that could forge a row or a header ($'a\n12:x.txt', package names), and
// every path argument is read back through argPath (read and search read
// theirs through workspace.SplitSelector, which does the same).

// showName is rel as tool output shows a name.
func showName(rel string) string { return names.Show(rel) }

// showTarget is a path that may name a target inside a file (an archive
// member, a SQLite row: "db.sqlite:t:1"), as the trash and audit lists
// show it: as it is, unless something in it could start a line or hide
// what follows (then quoted, as showName quotes).
func showTarget(path string) string {
	if names.Printable(path) {
		return path
	}
	return names.Show(path)
}

// oneLine is free text (an audit row's note) as one line: its control
// characters escaped (\n, \xHH), so that it cannot start a row.
func oneLine(s string) string {
	if names.Printable(s) {
		return s
	}
	return names.EscapeControls(s)
}

// header is the ¶PATH#TAG header of rel at tag.
func header(rel, tag string) string { return "¶" + names.Show(rel) + "#" + tag }

// argPath is the path a path argument spells: its $'…' quoted elements
// (as output shows names that need them) read as the names they are.
func argPath(arg string) (string, error) {
	name, rest, ok, err := names.Cut(arg)
	switch {
	case !ok:
		return arg, nil
	case err != nil:
		return "", &Error{Kind: KindUsage, Message: fmt.Sprintf("path %s: %v; copy the name as tool output shows it", QuoteInput(arg), err), Err: err}
	}
	return name + rest, nil
}

// resolveArg resolves a path argument (argPath) inside the root.
func resolveArg(env *Env, arg string) (workspace.Path, error) {
	p, err := argPath(arg)
	if err != nil {
		return workspace.Path{}, err
	}
	return env.WS.Resolve(p)
}
