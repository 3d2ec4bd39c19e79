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
