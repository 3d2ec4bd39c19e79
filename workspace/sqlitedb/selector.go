// Package sqlitedb reads and writes SQLite databases for the read and write
// tools: `db.sqlite` lists tables, `db.sqlite:table` shows the schema and
// sample rows, `db.sqlite:table:key` one row, `db.sqlite:table:key?col=c&
// byte=n` a page of one cell, `db.sqlite:table?limit=&offset=&order=&
// where=` a page of rows and `db.sqlite?q=SELECT …` a raw read-only query;
// writes insert (`db.sqlite:table`), update or delete
// (`db.sqlite:table:key`) one row from a JSON5 object. It is pure (no
// workspace or agent import): callers hand it the database as a File, its
// directory opened beneath their root, and SQLite's files are opened
// through that directory, never by a path that could lead out of it
// (vfs.go).
//
// Everything is bounded whatever the database holds: a read by its page (a
// cell over CellCap is never loaded: its start and its pages are read
// through SQLite's blob I/O; no value over MaxValue is made or loaded by a
// read's SQL) and QueryBudget; a write by WriteBudget and GrowthBudget
// (past one it is rolled back, a runaway trigger included).
//
// Entry points: Candidates and IsSQLiteFile detect a target, OpenReadOnly
// and OpenReadWrite open a File, ParseSelector and ParseWriteSelector
// parse the suffix, Read renders a read, Write
// performs a row write in one transaction, ParseJSON5Object parses a row
// payload; HotJournal and RollBackJournal find and repair a database a
// process left in the middle of a write.
package sqlitedb

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/hashls/hashls/internal/kinded"
	"github.com/hashls/hashls/internal/lazy"
)

// Limits (read.md "Limits & Caps").
const (
	DefaultLimit  = 20
	MaxLimit      = 500
	SchemaSample  = 5
	MaxTables     = 500
	MaxWidth      = 120
	MaxColumn     = 40
	BusyTimeoutMS = 3000
)

// Error kinds.
const (
	KindUsage    = kinded.Usage    // a malformed selector or payload
	KindNotFound = kinded.NotFound // missing table or row
	KindIO       = kinded.IO       // SQLite failed
	KindTooLarge = kinded.TooLarge // a query ran past its time budget (QueryBudget)
)

// Error is a sqlitedb error with a kind and a caller-facing message: the
// workspace packages' one error type (package kinded; workspace.Error is
// the same type).
type Error = kinded.Error

func usagef(format string, args ...any) *Error {
	return &Error{Kind: KindUsage, Msg: fmt.Sprintf(format, args...)}
}

var exts = []string{".sqlite3", ".sqlite", ".db3", ".db"}

// Candidate is one way to read a tool path as database + selector.
type Candidate struct {
	DB   string // the database file path (as given)
	Rest string // "" or the selector, starting with ':' or '?'
}

// Candidates lists the ways p can name a SQLite target: every SQLite
// extension followed by ':', '?' or the end of p, earliest first.
func Candidates(p string) []Candidate {
	lower := strings.ToLower(p)
	var out []Candidate
	for i := 0; i < len(lower); i++ {
		for _, e := range exts {
			if !strings.HasPrefix(lower[i:], e) {
				continue
			}
			end := i + len(e)
			if end == len(p) || p[end] == ':' || p[end] == '?' {
				out = append(out, Candidate{DB: p[:end], Rest: p[end:]})
				break
			}
		}
	}
	return out
}

// header is the first 16 bytes of every SQLite 3 database file.
var header = []byte("SQLite format 3\x00")

// IsSQLiteHeader reports whether b starts with the SQLite 3 file header.
func IsSQLiteHeader(b []byte) bool { return bytes.HasPrefix(b, header) }

// IsSQLiteFile reports whether f is a regular file with a SQLite header.
func IsSQLiteFile(f File) bool {
	r, err := f.Dir.Open(f.Name)
	if err != nil {
		return false
	}
	defer r.Close()
	if st, err := r.Stat(); err != nil || !st.Mode().IsRegular() {
		return false
	}
	b := make([]byte, len(header))
	if _, err := io.ReadFull(r, b); err != nil {
		return false
	}
	return IsSQLiteHeader(b)
}

// SelKind is the kind of a read selector.
type SelKind int

// Read selector kinds.
const (
	SelList   SelKind = iota + 1 // db.sqlite
	SelSchema                    // db.sqlite:table
	SelRow                       // db.sqlite:table:key
	SelQuery                     // db.sqlite:table?limit=…
	SelRaw                       // db.sqlite?q=SELECT …
	SelCell                      // db.sqlite:table:key?col=c&byte=n
)

// Selector is a parsed read selector.
type Selector struct {
	Kind   SelKind
	Table  string
	Key    string
	Limit  int
	Offset int
	Order  string // column, "" for none
	Desc   bool
	Where  string
	SQL    string
	// Column and Byte: a cell page (SelCell) shows the cell of Column
	// from byte Byte.
	Column string
	Byte   int64
	// Capped is set when the requested limit was above MaxLimit.
	Capped bool
}

var otherParamRE = lazy.Regexp(`&(?:limit|offset|order|where|q)=`)

// ParseSelector parses the part of a read path after the database name:
// "", ":table", ":table:key", ":table:key?col=c&byte=n",
// ":table?limit=…&offset=…&order=col[:asc|desc]&where=…" or "?q=SELECT …".
func ParseSelector(rest string) (Selector, error) {
	if rest == "" {
		return Selector{Kind: SelList}, nil
	}
	if strings.HasPrefix(rest, "?") {
		return parseDatabaseQuery(rest[1:])
	}
	if !strings.HasPrefix(rest, ":") {
		return Selector{}, usagef("unrecognised SQLite selector %q; use db.sqlite, db.sqlite:table, db.sqlite:table:key, db.sqlite:table?limit=20 or db.sqlite?q=SELECT …", rest)
	}
	body, query, hasQuery := strings.Cut(rest[1:], "?")
	table, key, hasKey := strings.Cut(body, ":")
	if table == "" {
		return Selector{}, usagef("SQLite selector %q names no table; read the database itself to list its tables", rest)
	}
	if hasKey && key == "" {
		return Selector{}, usagef("SQLite row selector %q has an empty row key; use db.sqlite:%s:<key>", rest, table)
	}
	if hasKey && hasQuery {
		return parseCellSelector(table, key, query)
	}
	if hasKey {
		return Selector{Kind: SelRow, Table: table, Key: key}, nil
	}
	if !hasQuery {
		return Selector{Kind: SelSchema, Table: table}, nil
	}
	return parseTableQuery(table, query)
}

// parseDatabaseQuery parses the query after a database's name ("?…"): a
// raw read-only statement ("q=SELECT …", taken verbatim), or nothing.
func parseDatabaseQuery(query string) (Selector, error) {
	if strings.HasPrefix(query, "q=") {
		if otherParamRE().MatchString(query) {
			return Selector{}, usagef("?q= cannot be combined with other query parameters; put LIMIT/OFFSET/ORDER BY/WHERE inside the SQL")
		}
		// Taken verbatim: LIKE '%30' must not become LIKE '0'.
		sqlText := query[2:]
		if strings.TrimSpace(sqlText) == "" {
			return Selector{}, usagef("?q= is empty; pass a read-only statement such as db.sqlite?q=SELECT * FROM users LIMIT 5")
		}
		return Selector{Kind: SelRaw, SQL: sqlText}, nil
	}
	params, err := parseParams(query)
	if err != nil {
		return Selector{}, err
	}
	if len(params) == 0 {
		return Selector{Kind: SelList}, nil
	}
	return Selector{}, usagef("query parameters need a table (db.sqlite:table?limit=10) or a raw query (db.sqlite?q=SELECT …)")
}

// parseTableQuery parses the query of a table page,
// ":table?limit=…&offset=…&order=col[:asc|desc]&where=…".
func parseTableQuery(table, query string) (Selector, error) {
	params, err := parseParams(query)
	if err != nil {
		return Selector{}, err
	}
	sel := Selector{Kind: SelQuery, Table: table, Limit: DefaultLimit}
	for _, p := range params {
		switch p.k {
		case "q":
			return Selector{}, usagef("?q= cannot be combined with a table selector; use db.sqlite?q=SELECT … FROM %s …", table)
		case "limit":
			n, err := strconv.Atoi(p.v)
			if err != nil || n < 1 {
				return Selector{}, usagef("limit=%q is not a positive integer; use limit=1..%d", p.v, MaxLimit)
			}
			if n > MaxLimit {
				n, sel.Capped = MaxLimit, true
			}
			sel.Limit = n
		case "offset":
			n, err := strconv.Atoi(p.v)
			if err != nil || n < 0 {
				return Selector{}, usagef("offset=%q is not a non-negative integer", p.v)
			}
			sel.Offset = n
		case "order":
			col, dir, hasDir := strings.Cut(p.v, ":")
			if col == "" {
				return Selector{}, usagef("order=%q names no column; use order=column or order=column:desc", p.v)
			}
			if hasDir {
				switch strings.ToLower(dir) {
				case "asc":
				case "desc":
					sel.Desc = true
				default:
					return Selector{}, usagef("order direction %q is not asc or desc", dir)
				}
			}
			sel.Order = col
		case "where":
			if err := ValidateWhere(p.v); err != nil {
				return Selector{}, err
			}
			sel.Where = p.v
		default:
			return Selector{}, usagef("unknown SQLite query parameter %q; use limit, offset, order or where (or db.sqlite?q=SELECT … alone)", p.k)
		}
	}
	return sel, nil
}

// parseCellSelector parses the query of a cell page,
// ":table:key?col=c&byte=n".
func parseCellSelector(table, key, query string) (Selector, error) {
	params, err := parseParams(query)
	if err != nil {
		return Selector{}, err
	}
	sel := Selector{Kind: SelCell, Table: table, Key: key}
	for _, p := range params {
		switch p.k {
		case "col":
			sel.Column = p.v
		case "byte":
			n, err := strconv.ParseInt(p.v, 10, 64)
			if err != nil || n < 0 {
				return Selector{}, usagef("byte=%q is not a non-negative integer (a byte offset in the cell)", p.v)
			}
			sel.Byte = n
		default:
			return Selector{}, usagef("a row lookup (db.sqlite:%s:%s) takes only col= and byte= (a page of one cell: ?col=COLUMN&byte=N), not %q; use db.sqlite:%s?where=… to query rows", table, key, p.k, table)
		}
	}
	if sel.Column == "" {
		return Selector{}, usagef("a cell page needs its column: db.sqlite:%s:%s?col=COLUMN&byte=0", table, key)
	}
	return sel, nil
}

type param struct{ k, v string }

func parseParams(q string) ([]param, error) {
	var out []param
	seen := map[string]bool{}
	for _, part := range strings.Split(q, "&") {
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")

		if !ok {
			return nil, usagef("query parameter %q has no value; use %s=…", k, k)
		}
		if seen[k] {
			return nil, usagef("query parameter %q is given twice", k)
		}
		seen[k] = true
		// Values are verbatim (a where= of LIKE '%30' stays so).
		out = append(out, param{k, v})
	}
	return out, nil
}

// forbiddenWhere are the keywords a where= clause may not contain.
var forbiddenWhere = map[string]bool{
	"LIMIT": true, "OFFSET": true, "UNION": true, "INTERSECT": true, "EXCEPT": true,
	"ATTACH": true, "DETACH": true, "PRAGMA": true, "INSERT": true, "UPDATE": true,
	"DELETE": true, "DROP": true, "CREATE": true, "ALTER": true, "REPLACE": true,
	"VACUUM": true, "REINDEX": true, "ANALYZE": true, "ORDER": true, "GROUP": true,
	"HAVING": true, "WINDOW": true, "BEGIN": true, "COMMIT": true, "ROLLBACK": true,
	"SAVEPOINT": true, "RELEASE": true, "LOAD_EXTENSION": true,
}

// ValidateWhere checks a where= clause: non-empty, no comments, no
// semicolons, no bound parameters, balanced quotes and parentheses, and none
// of the keywords that would change the statement (LIMIT, OFFSET, UNION,
// ATTACH, PRAGMA, …).
func ValidateWhere(w string) error {
	if strings.TrimSpace(w) == "" {
		return usagef("where= is empty; give a condition such as where=age>30")
	}
	var problem error
	depth := 0
	err := lex(w, func(t token) bool {
		switch t.kind {
		case tokComment:
			problem = usagef("where= may not contain comments (-- or /* */)")
		case tokPunct:
			switch t.text {
			case ";":
				problem = usagef("where= may not contain ';'; give a single condition")
			case "(":
				depth++
			case ")":
				depth--
				if depth < 0 {
					problem = usagef("where= has an unbalanced ')'")
				}
			}
		case tokParam:
			problem = usagef("where= may not contain bound parameters (%s); write the value inline, e.g. name='Ada'", t.text)
		case tokWord:
			if forbiddenWhere[strings.ToUpper(t.text)] {
				problem = usagef("where= may not contain %s; use limit=, offset= and order= for paging, or db.sqlite?q=SELECT … for other queries", strings.ToUpper(t.text))
			}
		}
		return problem == nil
	})
	if problem != nil {
		return problem
	}
	if err != nil {
		return usagef("where= is malformed: %v", err)
	}
	if depth != 0 {
		return usagef("where= has an unbalanced '('")
	}
	return nil
}

type tokKind int

const (
	tokWord tokKind = iota + 1
	tokString
	tokIdent // "quoted" or [bracketed] or `backticked`
	tokNumber
	tokPunct
	tokComment
	tokParam
)

type token struct {
	kind tokKind
	text string
	pos  int // byte offset of text in the lexed string
}

// lex splits SQL into tokens, calling fn for each until it returns false.
func lex(s string, fn func(token) bool) error {
	for i := 0; i < len(s); {
		switch s[i] {
		case ' ', '\t', '\n', '\r', '\f':
			i++
			continue
		}
		t, err := scanToken(s, i)
		if err != nil {
			return err
		}
		if !fn(t) {
			return nil
		}
		i += len(t.text)
	}
	return nil
}

// scanToken scans the token that starts at s[i], which is not white space.
func scanToken(s string, i int) (token, error) {
	c := s[i]
	next := byte(0)
	if i+1 < len(s) {
		next = s[i+1]
	}
	end, kind := i+1, tokPunct
	switch {
	case c == '-' && next == '-':
		end, kind = len(s), tokComment
		if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
			end = i + j
		}
	case c == '/' && next == '*':
		end, kind = len(s), tokComment
		if j := strings.Index(s[i+2:], "*/"); j >= 0 {
			end = i + 2 + j + 2
		}
	case c == '\'' || c == '"' || c == '`' || c == '[':
		var err error
		if end, err = quotedEnd(s, i); err != nil {
			return token{}, err
		}
		kind = tokIdent
		if c == '\'' {
			kind = tokString
		}
	case isParamStart(c, next):
		kind = tokParam
		for end < len(s) && (isWordByte(s[end]) || (c == '?' && isDigit(s[end]))) {
			end++
		}
	case isDigit(c) || c == '.' && isDigit(next):
		kind = tokNumber
		for end < len(s) && (isWordByte(s[end]) || s[end] == '.') {
			end++
		}
	case isWordByte(c):
		kind = tokWord
		for end < len(s) && isWordByte(s[end]) {
			end++
		}
	}
	return token{kind, s[i:end], i}, nil
}

// isParamStart reports whether c, followed by next, starts a bound
// parameter (?, ?NNN, :name, @name, $name).
func isParamStart(c, next byte) bool {
	return c == '?' || ((c == ':' || c == '@' || c == '$') && isWordByte(next))
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// quotedEnd is the end of the quoted string or identifier that starts at
// s[i] ('…', "…", `…` or […]; a doubled quote stands for itself).
func quotedEnd(s string, i int) (int, error) {
	c := s[i]
	closer := c
	if c == '[' {
		closer = ']'
	}
	j := i + 1
	for {
		k := strings.IndexByte(s[j:], closer)
		if k < 0 {
			return 0, fmt.Errorf("unterminated %c", c)
		}
		j += k + 1
		if closer != ']' && j < len(s) && s[j] == closer {
			j++ // doubled quote
			continue
		}
		return j, nil
	}
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// readStatements are the statement keywords a raw ?q= query may start with.
var readStatements = map[string]bool{"SELECT": true, "WITH": true, "VALUES": true, "EXPLAIN": true}

// ValidateRaw checks a raw ?q= statement: a single SELECT / WITH / VALUES /
// EXPLAIN statement without bound parameters. The connection is read-only
// as well (mode=ro, PRAGMA query_only), so a write that slips through
// still fails.
func ValidateRaw(q string) error {
	first := ""
	var problem error
	afterSemi := false
	err := lex(q, func(t token) bool {
		if t.kind == tokComment {
			return true
		}
		if afterSemi {
			if !(t.kind == tokPunct && t.text == ";") {
				problem = usagef("?q= runs one statement; remove everything after the ';'")
				return false
			}
			return true
		}
		switch {
		case first == "" && t.kind == tokPunct && t.text == "(":
			return true
		case first == "":
			first = strings.ToUpper(t.text)
			if t.kind != tokWord || !readStatements[first] {
				problem = usagef("?q= accepts read-only statements only (SELECT, WITH, VALUES, EXPLAIN), not %s; to change rows, write to db.sqlite:table or db.sqlite:table:key", t.text)
				return false
			}
		case t.kind == tokParam:
			problem = usagef("?q= may not contain bound parameters (%s); write values inline", t.text)
			return false
		case t.kind == tokWord && (strings.EqualFold(t.text, "ATTACH") || strings.EqualFold(t.text, "PRAGMA")):
			problem = usagef("?q= may not use %s", strings.ToUpper(t.text))
			return false
		case t.kind == tokPunct && t.text == ";":
			afterSemi = true
		}
		return true
	})
	if problem != nil {
		return problem
	}
	if err != nil {
		return usagef("?q= is malformed: %v", err)
	}
	if first == "" {
		return usagef("?q= holds no statement; pass e.g. db.sqlite?q=SELECT * FROM users LIMIT 5")
	}
	return nil
}

// budgeted returns the statement of a valid ?q= (ValidateRaw) as SQLite
// runs it within the budgets: a SELECT, WITH or VALUES is wrapped so that
// its first step computes at most max+1 rows into a materialized table.
// The driver can interrupt that step at the time budget, never a later
// one (one slow row after the first would hang the read), so the rows
// are all found in the first step. EXPLAIN is returned as it is.
func budgeted(q string, max int) string {
	first, end := "", len(q)
	lex(q, func(t token) bool {
		switch {
		case t.kind == tokComment, first == "" && t.kind == tokPunct && t.text == "(":
		case first == "":
			first = strings.ToUpper(t.text)
		case t.kind == tokPunct && t.text == ";":
			end = t.pos
			return false
		}
		return true
	})
	if first == "EXPLAIN" {
		return q
	}
	// The newline ends a trailing -- comment before the closing parenthesis.
	return fmt.Sprintf("WITH hashls_q AS MATERIALIZED (SELECT * FROM (%s\n) LIMIT %d) SELECT * FROM hashls_q", q[:end], max+1)
}

// ParseWriteSelector parses the part of a write path after the database
// name: ":table" (insert) or ":table:key" (update/delete).
func ParseWriteSelector(rest string) (table, key string, hasKey bool, err error) {
	if strings.Contains(rest, "?") {
		return "", "", false, usagef("SQLite write paths do not support query parameters; use db.sqlite:table to insert or db.sqlite:table:key to update/delete")
	}
	if rest == "" || rest == ":" {
		return "", "", false, usagef("SQLite write path must target a table: db.sqlite:table inserts a row, db.sqlite:table:key updates or deletes one")
	}
	if !strings.HasPrefix(rest, ":") {
		return "", "", false, usagef("unrecognised SQLite write selector %q", rest)
	}
	table, key, hasKey = strings.Cut(rest[1:], ":")
	if table == "" {
		return "", "", false, usagef("SQLite write path must target a table: db.sqlite:table")
	}
	if hasKey && key == "" {
		return "", "", false, usagef("SQLite row writes require a non-empty row key: db.sqlite:%s:<key>", table)
	}
	return table, key, hasKey, nil
}

// quoteIdent quotes a SQL identifier.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
