package agent

import (
	"strings"
	"testing"
)

// TestExplain: an error's next step names tools the caller has, and an
// argument error says where that caller finds the arguments.
func TestExplain(t *testing.T) {
	hashline, files := MustParseSets("hashline"), MustParseSets("stale-file")
	notFound := &Error{Kind: KindNotFound, Message: "File not found: a.txt."}
	stale := &Error{Kind: KindStale, Message: "stale"}
	badArg := &Error{Kind: KindUsage, Message: `read: argument "path" must be a string, not a number 5`, ArgsOf: "read"}
	for _, tc := range []struct {
		name   string
		caller Caller
		tool   string
		err    *Error
		msg    string // the whole message
		action string // the whole action
	}{
		{"hashline caller", Caller{Transport: "mcp", Sets: hashline}, "read", notFound, "File not found: a.txt.",
			"Check the path (find lists what exists); create a new file with write."},
		{"file tools caller", Caller{Transport: "mcp", Sets: files}, "read_file", notFound, "File not found: a.txt.",
			"Check the path (glob lists what exists); create a new file with create_file."},
		// A hashline tool called by a caller that also has the file tools
		// answers in its own family.
		{"every tool, hashline family", Caller{Transport: "cli"}, "read", notFound, "File not found: a.txt.",
			"Check the path (find lists what exists); create a new file with write."},
		{"every tool, file family", Caller{Transport: "cli"}, "move_file", notFound, "File not found: a.txt.",
			"Check the path (glob lists what exists); create a new file with create_file."},
		// Only the other family's face is offered: it is named.
		{"patch caller", Caller{Transport: "mcp", Sets: MustParseSets("patch,stale-file")}, "apply_patch", notFound, "File not found: a.txt.",
			"Check the path (glob lists what exists); create a new file with create_file."},
		// Neither face is offered: the clause naming it is left out.
		{"patch alone", Caller{Transport: "mcp", Sets: MustParseSets("patch")}, "apply_patch", notFound, "File not found: a.txt.",
			"Check the path; create a new file."},
		{"history alone", Caller{Transport: "mcp", Sets: MustParseSets("history")}, "restore", &Error{Kind: KindAlreadyExists, Message: "m"}, "m",
			"Read the existing file and change it, or choose another path."},
		{"stale, hashline", Caller{Transport: "mcp", Sets: hashline}, "edit", stale, "stale",
			"Re-read the file to obtain the current ¶PATH#TAG and re-apply your edit."},
		{"stale, file tools", Caller{Transport: "mcp", Sets: files}, "edit_file", stale, "stale",
			"Re-read the file to obtain the current sha256 and re-apply your edit."},
		{"argument, mcp", Caller{Transport: "mcp", Sets: hashline}, "read", badArg,
			`read: argument "path" must be a string, not a number 5; the tool's inputSchema lists its arguments`, "Fix the arguments as the message says."},
		{"argument, cli", Caller{Transport: "cli"}, "read", badArg,
			"read: argument \"path\" must be a string, not a number 5; see `hashls tool read --schema`", "Fix the arguments as the message says."},
		{"argument, lsp", Caller{Transport: "lsp"}, "read", badArg,
			`read: argument "path" must be a string, not a number 5; hashls.toolSchemas lists every tool's arguments`, "Fix the arguments as the message says."},
		{"unseen lines", Caller{Transport: "mcp", Sets: hashline}, "edit", &Error{Kind: KindUnseen, Message: "m"}, "m",
			"Retry the same edit, under the header the refusal shows: it showed you those lines, so they are seen now."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.caller.Explain(tc.tool, tc.err)
			if got.Message != tc.msg || got.SuggestedAction != tc.action || got.ArgsOf != "" {
				t.Errorf("Explain:\n message %q\n  action %q\nwant\n message %q\n  action %q", got.Message, got.SuggestedAction, tc.msg, tc.action)
			}
			if strings.Contains(got.Text(), "{") {
				t.Errorf("an unrendered job in %q", got.Text())
			}
		})
	}
	// Every default action renders to tools, for every kind.
	for _, kind := range []string{KindStale, KindUnseen, KindNotFound, KindAlreadyExists, KindPermission, KindUsage, KindEdit, KindTooLarge, KindBinary, KindOutside, KindInput, KindNoChange, KindStore, KindIO, KindInternal} {
		for _, tool := range []string{"read", "read_file", "lsp"} {
			if got := (Caller{Transport: "mcp"}).Explain(tool, &Error{Kind: kind, Message: "m"}); jobRE.MatchString(got.SuggestedAction) || got.SuggestedAction == "" {
				t.Errorf("kind %s, tool %s: action %q", kind, tool, got.SuggestedAction)
			}
		}
	}
}
