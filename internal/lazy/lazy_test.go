package lazy

import "testing"

func TestRegexp(t *testing.T) {
	re := Regexp(`^a+$`)
	if re() != re() {
		t.Fatal("Regexp compiled twice")
	}
	if !re().MatchString("aaa") || re().MatchString("ab") {
		t.Fatal("wrong match")
	}
}
