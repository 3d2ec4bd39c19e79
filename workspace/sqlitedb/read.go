package sqlitedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hashls/hashls/internal/lazy"

	"modernc.org/sqlite" // also the "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"
)

// OpenReadOnly opens the database f read-only (mode=ro, PRAGMA
// query_only, busy_timeout 3000 ms) on a single connection, and reads its
// schema: a database a read-only connection cannot read (a hot journal
// left by a process that stopped mid-write) is an error saying so.
func OpenReadOnly(f File) (*sql.DB, error) {
	db, err := f.open("ro", fmt.Sprintf("busy_timeout(%d)", BusyTimeoutMS), "query_only(1)")
	if err != nil {
		if HotJournal(f) {
			return nil, hotJournalErr(f, err)
		}
		return nil, err
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master`).Scan(&n); err != nil {
		db.Close()
		if HotJournal(f) {
			return nil, hotJournalErr(f, err)
		}
		return nil, ioErr("cannot read the SQLite database", err)
	}
	return db, nil
}

// OpenReadWrite opens the existing database f for writing (mode=rw: never
// creates it; busy_timeout 3000 ms) on a single connection.
func OpenReadWrite(f File) (*sql.DB, error) {
	return f.open("rw", fmt.Sprintf("busy_timeout(%d)", BusyTimeoutMS))
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
	Kind      string `json:"kind"` // list, schema, row, query, raw, cell
	Table     string `json:"table,omitempty"`
	Rows      int    `json:"rows"`
	Total     int64  `json:"total,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
	// BigCells counts the cells shown by their size and start only
	// (over CellCap bytes: never loaded whole).
	BigCells int `json:"bigCells,omitempty"`
	// Next is the selector that reads on (a cell page's next bytes).
	Next string `json:"next,omitempty"`
}

// QueryBudget is the time one Read may take: SQLite is interrupted when it
// is spent (a runaway ?q=, such as an endless recursive CTE, or a where=
// over a huge table), and the read is a too_large error saying so. The
// row budget is MaxLimit rows: a ?q= computes at most one more (budgeted)
// and says when it had more.
var QueryBudget = 5 * time.Second

// The memory budget of a read: a read never loads a value it does not
// show whole, and SQLite refuses to make or load a bigger one.
var (
	// CellCap is the size (bytes) over which a table read does not load a
	// cell: it shows the cell's type, size and start (read through
	// SQLite's blob I/O) and names the selector that pages through it.
	CellCap = 64 << 10
	// MaxValue is the largest string or blob the SQL of a read may make
	// or load (SQLITE_LIMIT_LENGTH on the read's connection): a ?q= or
	// where= that touches a bigger value fails, saying so.
	MaxValue = 16 << 20
)

// Read runs sel against db and renders it; display names the database in
// hints (e.g. "data/app.db"). It takes at most QueryBudget, and its memory
// is bounded by the page: cells over CellCap are never loaded, no value
// over MaxValue is made.
func Read(ctx context.Context, db *sql.DB, display string, sel Selector) (string, ReadInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, QueryBudget)
	defer cancel()
	conn, err := db.Conn(ctx)
	if err != nil {
		return "", ReadInfo{}, ioErr("cannot open "+display, err)
	}
	defer conn.Close()
	if err := limitLength(conn, MaxValue); err != nil {
		return "", ReadInfo{}, ioErr("cannot open "+display, err)
	}
	r := &reader{db: db, q: conn, display: display}
	defer r.close()
	text, info, err := r.read(ctx, sel)
	if err != nil && ctx.Err() == context.DeadlineExceeded {
		var e *Error
		if !errors.As(err, &e) || e.Kind != KindTooLarge {
			err = overBudget(err)
		}
	}
	return text, info, err
}

// limitLength sets the connection's SQLITE_LIMIT_LENGTH: the largest
// string or blob its statements may make or load.
func limitLength(conn *sql.Conn, n int) error {
	_, err := sqlite.Limit(conn, sqlite3.SQLITE_LIMIT_LENGTH, n)
	return err
}

// sqliteCode is the primary result code of a SQLite error (0: none).
func sqliteCode(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() & 0xff
	}
	return 0
}

// overBudget is the error of a read stopped by QueryBudget.
func overBudget(err error) error {
	return &Error{Kind: KindTooLarge, Msg: fmt.Sprintf("the query was stopped after %s, the time budget of a SQLite read; narrow it (a LIMIT, a WHERE on an indexed column, a recursive CTE that ends)", QueryBudget), Err: err}
}

// tooBig is the error of a read whose SQL made or loaded a value over
// MaxValue.
func tooBig(what string, err error) error {
	return &Error{Kind: KindTooLarge, Msg: fmt.Sprintf("%s made or loaded a value over %s, more than a SQLite read holds; a cell that large is read in pieces: octet_length(col) gives its size without loading it, and db.sqlite:table:KEY?col=COL&byte=N pages through it", what, sizeText(int64(MaxValue))), Err: err}
}

// reader is one Read: its connection, and the blob reader of its big
// cells (opened on first use).
type reader struct {
	db      *sql.DB
	q       *sql.Conn
	display string
	blobs   *blobReader
}

func (r *reader) close() {
	if r.blobs != nil {
		r.blobs.Close()
	}
}

// blobReader returns the read's blob reader, opening it on the file the
// connection reads.
func (r *reader) blobReader(ctx context.Context) *blobReader {
	if r.blobs == nil {
		var file string
		_ = r.q.QueryRowContext(ctx, `SELECT file FROM pragma_database_list WHERE name = 'main'`).Scan(&file)
		r.blobs = newBlobReader(readOnlyURI(r.db), file)
		if file == "" {
			r.blobs.err = fmt.Errorf("the database has no file")
		}
	}
	return r.blobs
}

func (r *reader) read(ctx context.Context, sel Selector) (string, ReadInfo, error) {
	switch sel.Kind {
	case SelList:
		return r.readList(ctx)
	case SelSchema:
		return r.readSchema(ctx, sel.Table)
	case SelRow:
		return r.readRow(ctx, sel.Table, sel.Key)
	case SelCell:
		return r.readCell(ctx, sel)
	case SelQuery:
		return r.readQuery(ctx, sel)
	case SelRaw:
		return r.readRaw(ctx, sel.SQL)
	}
	return "", ReadInfo{}, usagef("empty SQLite selector")
}

func (r *reader) readList(ctx context.Context) (string, ReadInfo, error) {
	display := r.display
	names, err := tableNames(ctx, r.q)
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
		if err := r.q.QueryRowContext(ctx, "SELECT count(*) FROM "+quoteIdent(n)).Scan(&count); err == nil {
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

// scanAll runs a query and returns its columns and rows, at most max rows
// (more is reported by more), each cell formatted to at most width runes
// (FormatValue, cut before it is escaped); raw keeps the values when
// keepRaw.
func scanAll(ctx context.Context, q querier, max, width int, keepRaw bool, query string, args ...any) (cols []string, rows [][]string, raw [][]any, more bool, err error) {
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
			cells[i] = formatCell(v, width)
		}
		rows = append(rows, cells)
		if keepRaw {
			raw = append(raw, vals)
		}
	}
	return cols, rows, raw, more, rs.Err()
}

func (r *reader) readSchema(ctx context.Context, table string) (string, ReadInfo, error) {
	display := r.display
	t, err := loadTable(ctx, r.q, display, table)
	if err != nil {
		return "", ReadInfo{}, err
	}
	info := ReadInfo{Kind: "schema", Table: t.name}
	var b strings.Builder
	b.WriteString(strings.TrimSpace(t.sql))
	b.WriteString(";\n")
	if err := r.q.QueryRowContext(ctx, "SELECT count(*) FROM "+quoteIdent(t.name)).Scan(&info.Total); err != nil {
		return "", ReadInfo{}, ioErr("cannot count the rows of "+t.name, err)
	}
	page, err := r.scanCells(ctx, t, SchemaSample, MaxColumn, fmt.Sprintf(" FROM %s LIMIT %d", quoteIdent(t.name), SchemaSample))
	if err != nil {
		return "", ReadInfo{}, r.queryErr("cannot read sample rows of "+t.name, err)
	}
	info.Rows, info.BigCells = len(page.rows), page.big
	fmt.Fprintf(&b, "\n%d row%s", info.Total, plural(int(info.Total)))
	if len(page.rows) > 0 {
		fmt.Fprintf(&b, "; sample of %d:\n", len(page.rows))
		b.WriteString(RenderTable(page.cols, page.rows))
	} else {
		b.WriteString("\n")
	}
	b.WriteString(page.notes(display, t))
	if info.Total > int64(len(page.rows)) {
		fmt.Fprintf(&b, "More: %s:%s?limit=%d&offset=%d (also order=col[:desc], where=…)\n", display, t.name, DefaultLimit, len(page.rows))
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

// recordWidth is the runes a row read shows of one cell.
const recordWidth = 4000

func (r *reader) readRow(ctx context.Context, table, key string) (string, ReadInfo, error) {
	t, err := loadTable(ctx, r.q, r.display, table)
	if err != nil {
		return "", ReadInfo{}, err
	}
	col, arg, err := keyColumn(t, key)
	if err != nil {
		return "", ReadInfo{}, err
	}
	page, err := r.scanCells(ctx, t, 1, recordWidth, fmt.Sprintf(" FROM %s WHERE %s = ? LIMIT 1", quoteIdent(t.name), quoteIdent(col)), arg)
	if err != nil {
		return "", ReadInfo{}, r.queryErr("cannot read the row", err)
	}
	if len(page.rows) == 0 {
		return "", ReadInfo{}, &Error{Kind: KindNotFound, Msg: fmt.Sprintf("%s has no row with %s = %s; read %s:%s?limit=20 to see rows", t.name, col, key, r.display, t.name)}
	}
	return page.record(r.display, t, col, key), ReadInfo{Kind: "row", Table: t.name, Rows: 1, BigCells: page.big}, nil
}

func (r *reader) readQuery(ctx context.Context, sel Selector) (string, ReadInfo, error) {
	display := r.display
	t, err := loadTable(ctx, r.q, display, sel.Table)
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
		// The table's column, not the page's capped cell of that name.
		order = " ORDER BY " + quoteIdent(t.name) + "." + quoteIdent(c.name)
		if sel.Desc {
			order += " DESC"
		}
	}
	info := ReadInfo{Kind: "query", Table: t.name}
	if err := r.q.QueryRowContext(ctx, "SELECT count(*)"+from).Scan(&info.Total); err != nil {
		return "", ReadInfo{}, r.queryErr("where="+sel.Where, err)
	}
	page, err := r.scanCells(ctx, t, sel.Limit, MaxColumn, from+order+" LIMIT ? OFFSET ?", sel.Limit, sel.Offset)
	if err != nil {
		return "", ReadInfo{}, r.queryErr("the query", err)
	}
	info.Rows, info.BigCells = len(page.rows), page.big
	var b strings.Builder
	if len(page.rows) == 0 {
		fmt.Fprintf(&b, "%s: no rows at offset %d (%d matching)\n", t.name, sel.Offset, info.Total)
		if len(page.cols) > 0 {
			b.WriteString(RenderTable(page.cols, nil))
		}
		return b.String(), info, nil
	}
	fmt.Fprintf(&b, "%s: rows %d-%d of %d\n", t.name, sel.Offset+1, sel.Offset+len(page.rows), info.Total)
	b.WriteString(RenderTable(page.cols, page.rows))
	b.WriteString(page.notes(display, t))
	if sel.Capped {
		fmt.Fprintf(&b, "[limit capped at %d]\n", MaxLimit)
	}
	if next := int64(sel.Offset + len(page.rows)); next < info.Total {
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

// queryErr reports the failure of a read's SQL: a value over MaxValue,
// an error in user-supplied SQL (usage), or an io error.
func (r *reader) queryErr(what string, err error) error {
	if sqliteCode(err) == sqlite3.SQLITE_TOOBIG {
		return tooBig(what, err)
	}
	return usageOrIO(what, err)
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

func (r *reader) readRaw(ctx context.Context, q string) (string, ReadInfo, error) {
	if err := ValidateRaw(q); err != nil {
		return "", ReadInfo{}, err
	}
	cols, rows, _, more, err := scanAll(ctx, r.q, maxRawRows, MaxColumn, false, budgeted(q, maxRawRows))
	if err != nil && ctx.Err() == nil && strings.Contains(err.Error(), "syntax error") {
		// What cannot be a subquery (WITH … DELETE) fails as it is, with
		// SQLite's own message; its first step is still interruptible.
		cols, rows, _, more, err = scanAll(ctx, r.q, maxRawRows, MaxColumn, false, q)
	}
	if err != nil {
		if strings.Contains(err.Error(), "readonly") || strings.Contains(err.Error(), "read-only") {
			return "", ReadInfo{}, &Error{Kind: KindUsage, Msg: "?q= runs read-only; to change rows, write to db.sqlite:table or db.sqlite:table:key", Err: err}
		}
		return "", ReadInfo{}, r.queryErr("?q=", err)
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
