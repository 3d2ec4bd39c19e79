package agent

import (
	"errors"
	"fmt"
	"testing"

	"github.com/hashls/hashls/edit"
	"github.com/hashls/hashls/internal/kinded"
	"github.com/hashls/hashls/langserver"
	"github.com/hashls/hashls/workspace"
	"github.com/hashls/hashls/workspace/sqlitedb"
)

// TestKindOf: every error's kind is decided in KindOf, wrapped or not; the
// workspace packages share one error type, whose kinds map in one switch.
func TestKindOf(t *testing.T) {
	cases := []struct {
		err  error
		want string
	}{
		{&Error{Kind: KindAlreadyExists}, KindAlreadyExists},
		{&edit.Error{Kind: edit.KindParse}, KindInput},
		{&edit.Error{Kind: edit.KindUnseen}, KindUnseen},
		{&workspace.Error{Kind: workspace.KindOutside}, KindOutside},
		{&workspace.Error{Kind: workspace.KindIsDir}, KindUsage},
		{&workspace.Error{Kind: workspace.KindInvalid}, KindUsage},
		{&sqlitedb.Error{Kind: sqlitedb.KindUsage}, KindUsage},
		{&sqlitedb.Error{Kind: sqlitedb.KindNotFound}, KindNotFound},
		{&sqlitedb.Error{Kind: sqlitedb.KindTooLarge}, KindTooLarge},
		{&sqlitedb.Error{Kind: sqlitedb.KindIO}, KindIO},
		{fmt.Errorf("wrapped: %w", &sqlitedb.Error{Kind: sqlitedb.KindTooLarge}), KindTooLarge},
		{&langserver.Error{Kind: kinded.NotFound, Msg: "language server gopls is not installed"}, KindNotFound},
		{&langserver.Error{Kind: kinded.Usage, Msg: "no language server handles a.xyz"}, KindUsage},
		{errors.New("anything else"), KindIO},
	}
	for _, c := range cases {
		if got := KindOf(c.err); got != c.want {
			t.Errorf("KindOf(%#v) = %s, want %s", c.err, got, c.want)
		}
		if got := AsError(c.err).Kind; got != c.want {
			t.Errorf("AsError(%#v).Kind = %s, want %s", c.err, got, c.want)
		}
	}
}

// lspError keeps an error that has a kind of its own (the tool's usage
// errors, with their next step), and gives the language servers' errors
// theirs.
func TestLSPErrorKeepsOwnErrors(t *testing.T) {
	own := &Error{Kind: KindUsage, Message: "lsp: hover needs file", SuggestedAction: "Pass file."}
	if got := lspError("hover", own); got != error(own) {
		t.Errorf("a usage error of the tool's own: %v, want it unchanged", got)
	}
	noServer := &langserver.Error{Kind: kinded.Usage, Msg: "no language server handles a.xyz", Err: langserver.ErrNoServer}
	var ae *Error
	if got := lspError("hover", noServer); !errors.As(got, &ae) || ae.Kind != KindUsage || ae.Message != "lsp hover: no language server handles a.xyz" {
		t.Errorf("no server: %#v", got)
	}
}
