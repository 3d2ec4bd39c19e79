package sqlitedb

import (
	"errors"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCandidates(t *testing.T) {
	cases := []struct {
		in   string
		want []Candidate
	}{
		{"data.db", []Candidate{{DB: "data.db"}}},
		{"data.db:users:42", []Candidate{{DB: "data.db", Rest: ":users:42"}}},
		{"x/app.SQLITE3?q=SELECT 1", []Candidate{{DB: "x/app.SQLITE3", Rest: "?q=SELECT 1"}}},
		{"a.sqlite:t?limit=5", []Candidate{{DB: "a.sqlite", Rest: ":t?limit=5"}}},
		{"a.db3", []Candidate{{DB: "a.db3"}}},
		{"a.dbx", nil},
		{"db.d/x.txt", nil},
		{"a.db.bak:t", nil},
		{"a.db/b.db:t", []Candidate{{DB: "a.db/b.db", Rest: ":t"}}},
	}
	for _, c := range cases {
		got := Candidates(c.in)
		if len(got) != len(c.want) {
			t.Errorf("%q: got %+v, want %+v", c.in, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%q: got %+v, want %+v", c.in, got[i], c.want[i])
			}
		}
	}
}

func TestParseSelector(t *testing.T) {
	cases := []struct {
		in   string
		want Selector
		err  string
	}{
		{"", Selector{Kind: SelList}, ""},
		{"?", Selector{Kind: SelList}, ""},
		{":users", Selector{Kind: SelSchema, Table: "users"}, ""},
		{":users:42", Selector{Kind: SelRow, Table: "users", Key: "42"}, ""},
		{":users:a:b", Selector{Kind: SelRow, Table: "users", Key: "a:b"}, ""},
		{":users:7?col=body&byte=4000", Selector{Kind: SelCell, Table: "users", Key: "7", Column: "body", Byte: 4000}, ""},
		{":users:7?col=body", Selector{Kind: SelCell, Table: "users", Key: "7", Column: "body"}, ""},
		{":users?limit=5", Selector{Kind: SelQuery, Table: "users", Limit: 5}, ""},
		{":users?limit=9999", Selector{Kind: SelQuery, Table: "users", Limit: MaxLimit, Capped: true}, ""},
		{":users?offset=10&order=name:desc", Selector{Kind: SelQuery, Table: "users", Limit: DefaultLimit, Offset: 10, Order: "name", Desc: true}, ""},
		{":users?order=name:ASC", Selector{Kind: SelQuery, Table: "users", Limit: DefaultLimit, Order: "name"}, ""},
		{":users?where=age>30 AND name='a;b'", Selector{Kind: SelQuery, Table: "users", Limit: DefaultLimit, Where: "age>30 AND name='a;b'"}, ""},
		{":users?where=name LIKE '%30'", Selector{Kind: SelQuery, Table: "users", Limit: DefaultLimit, Where: "name LIKE '%30'"}, ""},
		{"?q=SELECT * FROM users WHERE a=1&b", Selector{Kind: SelRaw, SQL: "SELECT * FROM users WHERE a=1&b"}, ""},
		{"?q=SELECT * FROM t WHERE a LIKE '%30'", Selector{Kind: SelRaw, SQL: "SELECT * FROM t WHERE a LIKE '%30'"}, ""}, // verbatim, not percent-decoded
		// errors
		{"?q=", Selector{}, "empty"},
		{"?q=  ", Selector{}, "empty"},
		{"?q=SELECT 1&limit=5", Selector{}, "cannot be combined"},
		{":users?q=SELECT 1", Selector{}, "cannot be combined with a table"},
		{"?limit=5", Selector{}, "need a table"},
		{":", Selector{}, "names no table"},
		{":users:", Selector{}, "empty row key"},
		{":users:1?limit=2", Selector{}, "takes only col= and byte="},
		{":users:1?byte=2", Selector{}, "needs its column"},
		{":users:1?col=body&byte=-1", Selector{}, "non-negative integer"},
		{":users?foo=1", Selector{}, "unknown SQLite query parameter"},
		{":users?limit", Selector{}, "has no value"},
		{":users?limit=0", Selector{}, "positive integer"},
		{":users?limit=x", Selector{}, "positive integer"},
		{":users?offset=-1", Selector{}, "non-negative"},
		{":users?order=", Selector{}, "names no column"},
		{":users?order=a:up", Selector{}, "not asc or desc"},
		{":users?limit=1&limit=2", Selector{}, "twice"},
		{":users?where=1;DROP TABLE users", Selector{}, "';'"},
		{":users?where=1 -- x", Selector{}, "comments"},
		{":users?where=1 /* x */", Selector{}, "comments"},
		{":users?where=1 LIMIT 5", Selector{}, "LIMIT"},
		{":users?where=1 limit 5", Selector{}, "LIMIT"},
		{":users?where=1 OFFSET 5", Selector{}, "OFFSET"},
		{":users?where=1 UNION SELECT 1", Selector{}, "UNION"},
		{":users?where=1 ATTACH", Selector{}, "ATTACH"},
		{":users?where=pragma", Selector{}, "PRAGMA"},
		{":users?where=", Selector{}, "empty"},
		{":users?where=(a", Selector{}, "unbalanced"},
		{":users?where=a)", Selector{}, "unbalanced"},
		{":users?where=a=?", Selector{}, "bound parameters"},
		{":users?where=a=:x", Selector{}, "bound parameters"},
		{":users?where='unterminated", Selector{}, "malformed"},
		{"users", Selector{}, "unrecognised"},
	}
	for _, c := range cases {
		got, err := ParseSelector(c.in)
		if c.err != "" {
			var e *Error
			if err == nil || !strings.Contains(err.Error(), c.err) || !errors.As(err, &e) || e.Kind != KindUsage {
				t.Errorf("%q: err %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: %+v %v, want %+v", c.in, got, err, c.want)
		}
	}
}

func TestWhereAllowsKeywordsInStrings(t *testing.T) {
	for _, w := range []string{"name = 'LIMIT 5; -- x'", `"limit" > 3`, "[offset] = 1", "a IN (1, 2)", "note LIKE '%union%'"} {
		if err := ValidateWhere(w); err != nil {
			t.Errorf("%q: %v", w, err)
		}
	}
}

func TestValidateRaw(t *testing.T) {
	ok := []string{"SELECT 1", "  select * from t", "WITH x AS (SELECT 1) SELECT * FROM x", "VALUES (1)", "(SELECT 1)", "SELECT 1;", "SELECT 1; ;", "/* c */ SELECT 1", "EXPLAIN SELECT 1", "SELECT 'a;b'"}
	for _, q := range ok {
		if err := ValidateRaw(q); err != nil {
			t.Errorf("%q: %v", q, err)
		}
	}
	bad := map[string]string{
		"DELETE FROM t":             "read-only",
		"PRAGMA query_only=0":       "read-only",
		"ATTACH 'x.db' AS x":        "read-only",
		"SELECT 1; DELETE FROM t":   "one statement",
		"SELECT * FROM t WHERE a=?": "bound parameters",
		"SELECT @x":                 "bound parameters",
		"SELECT $x":                 "bound parameters",
		"SELECT * FROM pragma_table_info('t') WHERE 1 AND pragma": "PRAGMA",
		"-- only a comment": "no statement",
		"SELECT 'open":      "malformed",
	}
	for q, want := range bad {
		if err := ValidateRaw(q); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", q, err, want)
		}
	}
}

func TestParseWriteSelector(t *testing.T) {
	cases := []struct {
		in, table, key string
		hasKey         bool
		err            string
	}{
		{":users", "users", "", false, ""},
		{":users:42", "users", "42", true, ""},
		{"", "", "", false, "must target a table"},
		{":", "", "", false, "must target a table"},
		{":users:", "", "", false, "non-empty row key"},
		{":users?limit=1", "", "", false, "query parameters"},
		{"?q=SELECT 1", "", "", false, "query parameters"},
	}
	for _, c := range cases {
		table, key, hasKey, err := ParseWriteSelector(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: err %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || table != c.table || key != c.key || hasKey != c.hasKey {
			t.Errorf("%q: %q %q %v %v", c.in, table, key, hasKey, err)
		}
	}
}

func TestJSON5(t *testing.T) {
	got, err := ParseJSON5Object(`// a row
	{name: 'Ada', "email": "a@x", $n_1: +5, f: .5, h: 0x1F, neg: -3, e: 1e3, b: true, z: null, s: 'it\'s\n', u: "\u00e9\uD83D\uDE00", big: 12345678901234567890, /* c */ trail: [1, 2,], o: {a: 1,},}`)
	if err != nil {
		t.Fatal(err)
	}
	want := []Field{{"name", "Ada"}, {"email", "a@x"}, {"$n_1", int64(5)}, {"f", 0.5}, {"h", int64(31)}, {"neg", int64(-3)}, {"e", 1000.0}, {"b", true}, {"z", nil}, {"s", "it's\n"}, {"u", "é😀"}, {"big", 12345678901234567890.0}}
	for i, w := range want {
		if got[i].Key != w.Key || got[i].Value != w.Value {
			t.Errorf("field %d: %#v, want %#v", i, got[i], w)
		}
	}
	if len(got) != len(want)+2 {
		t.Errorf("got %d fields", len(got))
	}
	if v, err := ParseJSON5Object(`{a: Infinity, b: -Infinity, c: NaN}`); err != nil || !math.IsInf(v[0].Value.(float64), 1) || !math.IsNaN(v[2].Value.(float64)) {
		t.Errorf("Infinity/NaN: %v %v", v, err)
	}
	if v, err := ParseJSON5Object(" {} "); err != nil || len(v) != 0 {
		t.Errorf("{}: %v %v", v, err)
	}
	bad := map[string]string{
		``:                        "must be a JSON5 object",
		`[1]`:                     "must be a JSON5 object",
		`"x"`:                     "must be a JSON5 object",
		`{a: 1} x`:                "after the object",
		`{a: 1, a: 2}`:            "duplicate key",
		`{a 1}`:                   "expected ':'",
		`{a: 'x}`:                 "unterminated",
		`{a: bare}`:               "strings need quotes",
		`{a: 1 b: 2}`:             "expected ','",
		`{,}`:                     "expected a key",
		`{a: 1.2.3}`:              "bad number",
		`{a: 'x\u12'}`:            "bad \\u escape",
		`{a: 1 /* open`:           "unterminated /*",
		`{a: "line` + "\n" + `"}`: "line break",
		`{a: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`: "too deep",
	}
	for in, want := range bad {
		if _, err := ParseJSON5Object(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}

func TestRenderTable(t *testing.T) {
	long := strings.Repeat("x", 100)
	out := RenderTable([]string{"id", "text"}, [][]string{{"1", long}, {"2", "é short"}})
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if n := utf8.RuneCountInString(line); n > MaxWidth {
			t.Errorf("line too wide (%d): %s", n, line)
		}
	}
	if !strings.Contains(out, strings.Repeat("x", MaxColumn-1)+"…") || strings.Contains(out, strings.Repeat("x", MaxColumn)) {
		t.Errorf("column not capped at %d:\n%s", MaxColumn, out)
	}
	// Many wide columns shrink to fit 120.
	var cols []string
	row := []string{}
	for i := 0; i < 6; i++ {
		cols = append(cols, "c"+strings.Repeat("c", i))
		row = append(row, long)
	}
	out = RenderTable(cols, [][]string{row})
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if n := utf8.RuneCountInString(line); n > MaxWidth {
			t.Errorf("line too wide (%d): %s", n, line)
		}
	}
	// Too many columns: trailing ones are left out with a note.
	cols, row = nil, nil
	for i := 0; i < 40; i++ {
		cols = append(cols, "column")
		row = append(row, "v")
	}
	out = RenderTable(cols, [][]string{row})
	if !strings.Contains(out, "more columns not shown") {
		t.Errorf("no note:\n%s", out)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if n := utf8.RuneCountInString(line); n > MaxWidth && strings.HasPrefix(line, "|") {
			t.Errorf("line too wide (%d): %s", n, line)
		}
	}
	if got := FormatValue([]byte{0, 1, 2}); got != "<blob 3 bytes>" {
		t.Errorf("blob: %q", got)
	}
	if got := FormatValue("a\nb\x01"); got != `a\nb\x01` {
		t.Errorf("escape: %q", got)
	}
}

// FuzzParseSelector: no panic; an accepted selector is well formed.
func FuzzParseSelector(f *testing.F) {
	for _, s := range []string{"", ":t", ":t:1", ":t?limit=5&offset=2&order=a:desc&where=a>1", "?q=SELECT 1", ":t?where='x", ":t?where=%zz", "?", ":t?a=1&&b", ":t?where=[x", ":t?where=\"a\"\"b\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := ParseSelector(s)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Msg == "" {
				t.Fatalf("%q: untyped error %v", s, err)
			}
			return
		}
		switch sel.Kind {
		case SelList:
		case SelSchema, SelRow:
			if sel.Table == "" {
				t.Fatalf("%q: no table", s)
			}
		case SelQuery:
			if sel.Table == "" || sel.Limit < 1 || sel.Limit > MaxLimit || sel.Offset < 0 {
				t.Fatalf("%q: bad %+v", s, sel)
			}
			if sel.Where != "" && ValidateWhere(sel.Where) != nil {
				t.Fatalf("%q: where not validated", s)
			}
		case SelRaw:
			if strings.TrimSpace(sel.SQL) == "" {
				t.Fatalf("%q: empty SQL", s)
			}
			_ = ValidateRaw(sel.SQL)
		default:
			t.Fatalf("%q: kind %d", s, sel.Kind)
		}
	})
}

// FuzzJSON5: no panic on any payload.
func FuzzJSON5(f *testing.F) {
	for _, s := range []string{"{}", "{a: 1,}", `{'a': "b\u00e9"}`, "{a: [1, {b: 2}]}", "{a: 0x}", "{a: -}", "{a: '\\", "/*", "{a: .}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = ParseJSON5Object(s)
	})
}
