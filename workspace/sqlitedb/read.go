package sqlitedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hashls/hashls/internal/lazy"

	_ "modernc.org/sqlite" // the "sqlite" driver
)

// dsn is the URI for abs with SQLite's mode and the driver's pragmas.
func dsn(abs, mode string, pragmas ...string) string {
	q := "mode=" + mode
	for _, p := range pragmas {
		q += "&_pragma=" + url.QueryEscape(p)
	}
	return "file:" + (&url.URL{Path: abs}).EscapedPath() + "?" + q
}

// OpenReadOnly opens the database at abs read-only (mode=ro, PRAGMA
// query_only, busy_timeout 3000 ms) on a single connection.
func OpenReadOnly(abs string) (*sql.DB, error) {
	return open(dsn(abs, "ro", fmt.Sprintf("busy_timeout(%d)", BusyTimeoutMS), "query_only(1)"))
}

// OpenReadWrite opens the existing database at abs for writing
// (mode=rw: never creates it; busy_timeout 3000 ms) on a single connection.
func OpenReadWrite(abs string) (*sql.DB, error) {
	return open(dsn(abs, "rw", fmt.Sprintf("busy_timeout(%d)", BusyTimeoutMS)))
}

func open(d string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", d)
	if err != nil {
		return nil, &Error{Kind: KindIO, Msg: "cannot open the SQLite database: " + err.Error(), Err: err}
	}
	db.SetMaxOpenConns(1)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, &Error{Kind: KindIO, Msg: "cannot open the SQLite database: " + err.Error(), Err: err}
	}
	return db, nil
}

func ioErr(what string, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{Kind: KindIO, Msg: what + ": " + err.Error(), Err: err}
}

// column is one column of a table (PRAGMA table_info).
type column struct {
	name    string
	typ     string
	notNull bool
	pk      int
}

type tableInfo struct {
	name         string
	typ          string // "table" or "view"
	sql          string
	cols         []column
	pk           []string
	withoutRowid bool
}

var withoutRowidRE = lazy.Regexp(`(?i)\bWITHOUT\s+ROWID\b`)

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// loadTable reads a table's (or view's) schema; a missing table is a
// KindNotFound error naming the tables there are.
func loadTable(ctx context.Context, q querier, display, name string) (*tableInfo, error) {
	t := &tableInfo{name: name}
	var sqlText sql.NullString
	err := q.QueryRowContext(ctx, `SELECT type, sql FROM sqlite_master WHERE type IN ('table','view') AND name = ?`, name).Scan(&t.typ, &sqlText)
	if errors.Is(err, sql.ErrNoRows) {
		names, _ := tableNames(ctx, q)
		hint := "the database has no tables"
		if len(names) > 0 {
			if len(names) > 20 {
				names = append(names[:20], "…")
			}
			hint = "tables: " + strings.Join(names, ", ")
		}
		return nil, &Error{Kind: KindNotFound, Msg: fmt.Sprintf("%s has no table %q (%s); read %s to list them", display, name, hint, display)}
	}
	if err != nil {
		return nil, ioErr("cannot read the schema of "+display, err)
	}
	t.sql = sqlText.String
	t.withoutRowid = withoutRowidRE().MatchString(t.sql)
	rows, err := q.QueryContext(ctx, `SELECT name, type, "notnull", pk FROM pragma_table_info(?) ORDER BY cid`, name)
	if err != nil {
		return nil, ioErr("cannot read the columns of "+name, err)
	}
	defer rows.Close()
	type pkcol struct {
		name string
		n    int
	}
	var pks []pkcol
	for rows.Next() {
		var c column
		if err := rows.Scan(&c.name, &c.typ, &c.notNull, &c.pk); err != nil {
			return nil, ioErr("cannot read the columns of "+name, err)
		}
		t.cols = append(t.cols, c)
		if c.pk > 0 {
			pks = append(pks, pkcol{c.name, c.pk})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, ioErr("cannot read the columns of "+name, err)
	}
	for n := 1; n <= len(pks); n++ {
		for _, p := range pks {
			if p.n == n {
				t.pk = append(t.pk, p.name)
			}
		}
	}
	return t, nil
}

func (t *tableInfo) column(name string) (column, bool) {
	for _, c := range t.cols {
		if c.name == name {
			return c, true
		}
	}
	for _, c := range t.cols {
		if strings.EqualFold(c.name, name) {
			return c, true
		}
	}
	return column{}, false
}

func (t *tableInfo) colNames() string {
	var ns []string
	for _, c := range t.cols {
		ns = append(ns, c.name)
	}
	return strings.Join(ns, ", ")
}

func tableNames(ctx context.Context, q querier) ([]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// ReadInfo is the structured part of a read.
type ReadInfo struct {
	Kind      string `json:"kind"` // list, schema, row, query, raw
	Table     string `json:"table,omitempty"`
	Rows      int    `json:"rows"`
	Total     int64  `json:"total,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
}

// QueryBudget is the time one Read may take: SQLite is interrupted when it
// is spent (a runaway ?q=, such as an endless recursive CTE, or a where=
// over a huge table), and the read is a too_large error saying so. The
// row budget is MaxLimit rows: a ?q= computes at most one more (budgeted)
// and says when it had more.
var QueryBudget = 5 * time.Second

// Read runs sel against db and renders it; display names the database in
// hints (e.g. "data/app.db"). It takes at most QueryBudget.
func Read(ctx context.Context, db *sql.DB, display string, sel Selector) (string, ReadInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, QueryBudget)
	defer cancel()
	text, info, err := readSel(ctx, db, display, sel)
	if err != nil && ctx.Err() == context.DeadlineExceeded {
		var e *Error
		if !errors.As(err, &e) || e.Kind != KindTooLarge {
			err = overBudget(err)
		}
	}
	return text, info, err
}

// overBudget is the error of a read stopped by QueryBudget.
func overBudget(err error) error {
	return &Error{Kind: KindTooLarge, Msg: fmt.Sprintf("the query was stopped after %s, the time budget of a SQLite read; narrow it (a LIMIT, a WHERE on an indexed column, a recursive CTE that ends)", QueryBudget), Err: err}
}

func readSel(ctx context.Context, db *sql.DB, display string, sel Selector) (string, ReadInfo, error) {
	switch sel.Kind {
	case SelList:
		return readList(ctx, db, display)
	case SelSchema:
		return readSchema(ctx, db, display, sel.Table)
	case SelRow:
		return readRow(ctx, db, display, sel.Table, sel.Key)
	case SelQuery:
		return readQuery(ctx, db, display, sel)
	case SelRaw:
		return readRaw(ctx, db, sel.SQL)
	}
	return "", ReadInfo{}, usagef("empty SQLite selector")
}

func readList(ctx context.Context, db *sql.DB, display string) (string, ReadInfo, error) {
	names, err := tableNames(ctx, db)
	if err != nil {
		return "", ReadInfo{}, ioErr("cannot list the tables of "+display, err)
	}
	info := ReadInfo{Kind: "list", Total: int64(len(names))}
	if len(names) == 0 {
		return display + ": no tables\n", info, nil
	}
	if len(names) > MaxTables {
		names, info.Truncated = names[:MaxTables], true
	}
	var rows [][]string
	for _, n := range names {
		var count int64
		cnt := "?"
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM "+quoteIdent(n)).Scan(&count); err == nil {
			cnt = strconv.FormatInt(count, 10)
		}
		rows = append(rows, []string{n, cnt})
	}
	info.Rows = len(rows)
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d table%s\n", display, info.Total, plural(int(info.Total)))
	b.WriteString(RenderTable([]string{"table", "rows"}, rows))
	if info.Truncated {
		fmt.Fprintf(&b, "[Showing the first %d of %d tables.]\n", MaxTables, info.Total)
	}
	fmt.Fprintf(&b, "Read %s:<table> for a schema and sample rows.\n", display)
	return b.String(), info, nil
}

// scanAll runs a query and returns its columns and formatted rows, at most
// max rows (more is reported by more).
func scanAll(ctx context.Context, q querier, max int, query string, args ...any) (cols []string, rows [][]string, raw [][]any, more bool, err error) {
	rs, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, nil, nil, false, err
	}
	defer rs.Close()
	cols, err = rs.Columns()
	if err != nil {
		return nil, nil, nil, false, err
	}
	for rs.Next() {
		if len(rows) >= max {
			more = true
			break
		}
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, nil, nil, false, err
		}
		cells := make([]string, len(cols))
		for i, v := range vals {
			cells[i] = FormatValue(v)
		}
		rows = append(rows, cells)
		raw = append(raw, vals)
	}
	return cols, rows, raw, more, rs.Err()
}

func readSchema(ctx context.Context, db *sql.DB, display, table string) (string, ReadInfo, error) {
	t, err := loadTable(ctx, db, display, table)
	if err != nil {
		return "", ReadInfo{}, err
	}
	info := ReadInfo{Kind: "schema", Table: t.name}
	var b strings.Builder
	b.WriteString(strings.TrimSpace(t.sql))
	b.WriteString(";\n")
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM "+quoteIdent(t.name)).Scan(&info.Total); err != nil {
		return "", ReadInfo{}, ioErr("cannot count the rows of "+t.name, err)
	}
	cols, rows, _, _, err := scanAll(ctx, db, SchemaSample, fmt.Sprintf("SELECT * FROM %s LIMIT %d", quoteIdent(t.name), SchemaSample))
	if err != nil {
		return "", ReadInfo{}, ioErr("cannot read sample rows of "+t.name, err)
	}
	info.Rows = len(rows)
	fmt.Fprintf(&b, "\n%d row%s", info.Total, plural(int(info.Total)))
	if len(rows) > 0 {
		fmt.Fprintf(&b, "; sample of %d:\n", len(rows))
		b.WriteString(RenderTable(cols, rows))
	} else {
		b.WriteString("\n")
	}
	if info.Total > int64(len(rows)) {
		fmt.Fprintf(&b, "More: %s:%s?limit=%d&offset=%d (also order=col[:desc], where=…)\n", display, t.name, DefaultLimit, len(rows))
	}
	return b.String(), info, nil
}

// keyColumn returns the column a row key names: the single-column primary
// key, else rowid (nil arg when the key is not an integer).
func keyColumn(t *tableInfo, key string) (col string, arg any, err error) {
	if len(t.pk) == 1 {
		c, _ := t.column(t.pk[0])
		var arg any = key
		if n, err := strconv.ParseInt(key, 10, 64); err == nil && integerAffinity(c.typ) {
			arg = n
		}
		return t.pk[0], arg, nil
	}
	if t.withoutRowid {
		return "", nil, usagef("%s is a WITHOUT ROWID table with a composite primary key (%s); row keys need a single-column key, so use ?where=%s=… instead", t.name, strings.Join(t.pk, ", "), firstOr(t.pk))
	}
	if t.typ == "view" {
		return "", nil, usagef("%s is a view; views have no row keys, use %s?where=… instead", t.name, t.name)
	}
	n, err := strconv.ParseInt(key, 10, 64)
	if err != nil {
		what := "no primary key"
		if len(t.pk) > 1 {
			what = "a composite primary key (" + strings.Join(t.pk, ", ") + ")"
		}
		return "", nil, usagef("%s has %s, so row keys are rowids, and %q is not an integer; use ?where=… to find rows by other columns", t.name, what, key)
	}
	return "rowid", n, nil
}

func firstOr(s []string) string {
	if len(s) == 0 {
		return "col"
	}
	return s[0]
}

func integerAffinity(typ string) bool { return strings.Contains(strings.ToUpper(typ), "INT") }

func readRow(ctx context.Context, db *sql.DB, display, table, key string) (string, ReadInfo, error) {
	t, err := loadTable(ctx, db, display, table)
	if err != nil {
		return "", ReadInfo{}, err
	}
	col, arg, err := keyColumn(t, key)
	if err != nil {
		return "", ReadInfo{}, err
	}
	cols, _, raw, _, err := scanAll(ctx, db, 1, fmt.Sprintf("SELECT * FROM %s WHERE %s = ? LIMIT 1", quoteIdent(t.name), quoteIdent(col)), arg)
	if err != nil {
		return "", ReadInfo{}, ioErr("cannot read the row", err)
	}
	if len(raw) == 0 {
		return "", ReadInfo{}, &Error{Kind: KindNotFound, Msg: fmt.Sprintf("%s has no row with %s = %s; read %s:%s?limit=20 to see rows", t.name, col, key, display, t.name)}
	}
	return renderRecord(t.name, col, key, cols, raw[0]), ReadInfo{Kind: "row", Table: t.name, Rows: 1}, nil
}

// renderRecord renders one row vertically, "column: value" per line.
func renderRecord(table, col, key string, cols []string, vals []any) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s row %s = %s\n", table, col, key)
	w := 0
	for _, c := range cols {
		w = max(w, len(c))
	}
	for i, c := range cols {
		v := truncate(FormatValue(vals[i]), 4000)
		fmt.Fprintf(&b, "%s:%s %s\n", c, strings.Repeat(" ", w-len(c)), v)
	}
	return b.String()
}

func readQuery(ctx context.Context, db *sql.DB, display string, sel Selector) (string, ReadInfo, error) {
	t, err := loadTable(ctx, db, display, sel.Table)
	if err != nil {
		return "", ReadInfo{}, err
	}
	from := " FROM " + quoteIdent(t.name)
	if sel.Where != "" {
		from += " WHERE (" + sel.Where + ")"
	}
	order := ""
	if sel.Order != "" {
		c, ok := t.column(sel.Order)
		if !ok {
			return "", ReadInfo{}, usagef("order=%s: %s has no such column (columns: %s)", sel.Order, t.name, t.colNames())
		}
		order = " ORDER BY " + quoteIdent(c.name)
		if sel.Desc {
			order += " DESC"
		}
	}
	info := ReadInfo{Kind: "query", Table: t.name}
	if err := db.QueryRowContext(ctx, "SELECT count(*)"+from).Scan(&info.Total); err != nil {
		return "", ReadInfo{}, usageOrIO("where="+sel.Where, err)
	}
	cols, rows, _, _, err := scanAll(ctx, db, sel.Limit, "SELECT *"+from+order+" LIMIT ? OFFSET ?", sel.Limit, sel.Offset)
	if err != nil {
		return "", ReadInfo{}, usageOrIO("the query", err)
	}
	info.Rows = len(rows)
	var b strings.Builder
	if len(rows) == 0 {
		fmt.Fprintf(&b, "%s: no rows at offset %d (%d matching)\n", t.name, sel.Offset, info.Total)
		if len(cols) > 0 {
			b.WriteString(RenderTable(cols, nil))
		}
		return b.String(), info, nil
	}
	fmt.Fprintf(&b, "%s: rows %d-%d of %d\n", t.name, sel.Offset+1, sel.Offset+len(rows), info.Total)
	b.WriteString(RenderTable(cols, rows))
	if sel.Capped {
		fmt.Fprintf(&b, "[limit capped at %d]\n", MaxLimit)
	}
	if next := int64(sel.Offset + len(rows)); next < info.Total {
		info.Truncated = true
		fmt.Fprintf(&b, "[More rows: use %s:%s?%s]\n", display, t.name, nextQuery(sel, int(next)))
	}
	return b.String(), info, nil
}

func nextQuery(sel Selector, offset int) string {
	q := fmt.Sprintf("limit=%d&offset=%d", sel.Limit, offset)
	if sel.Order != "" {
		q += "&order=" + sel.Order
		if sel.Desc {
			q += ":desc"
		}
	}
	if sel.Where != "" {
		q += "&where=" + sel.Where
	}
	return q
}

// usageOrIO reports SQL errors in user-supplied SQL as usage errors.
func usageOrIO(what string, err error) error {
	msg := err.Error()
	if strings.Contains(msg, "SQL logic error") || strings.Contains(msg, "syntax error") || strings.Contains(msg, "no such column") || strings.Contains(msg, "no such table") || strings.Contains(msg, "no such function") {
		return &Error{Kind: KindUsage, Msg: fmt.Sprintf("%s failed: %s; check the SQL and the column names", what, msg), Err: err}
	}
	return ioErr(what+" failed", err)
}

const maxRawRows = MaxLimit

func readRaw(ctx context.Context, db *sql.DB, q string) (string, ReadInfo, error) {
	if err := ValidateRaw(q); err != nil {
		return "", ReadInfo{}, err
	}
	cols, rows, _, more, err := scanAll(ctx, db, maxRawRows, budgeted(q, maxRawRows))
	if err != nil && ctx.Err() == nil && strings.Contains(err.Error(), "syntax error") {
		// What cannot be a subquery (WITH … DELETE) fails as it is, with
		// SQLite's own message; its first step is still interruptible.
		cols, rows, _, more, err = scanAll(ctx, db, maxRawRows, q)
	}
	if err != nil {
		if strings.Contains(err.Error(), "readonly") || strings.Contains(err.Error(), "read-only") {
			return "", ReadInfo{}, &Error{Kind: KindUsage, Msg: "?q= runs read-only; use the write tool with db.sqlite:table or db.sqlite:table:key to change rows", Err: err}
		}
		return "", ReadInfo{}, usageOrIO("?q=", err)
	}
	info := ReadInfo{Kind: "raw", Rows: len(rows), Truncated: more}
	var b strings.Builder
	fmt.Fprintf(&b, "%d row%s\n", len(rows), plural(len(rows)))
	if len(cols) > 0 {
		b.WriteString(RenderTable(cols, rows))
	}
	if more {
		fmt.Fprintf(&b, "[Showing the first %d rows (the row budget of a query); add LIMIT/OFFSET to the query to page.]\n", maxRawRows)
	}
	return b.String(), info, nil
}
