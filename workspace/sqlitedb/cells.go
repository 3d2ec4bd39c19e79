package sqlitedb

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Reading rows without loading big cells. A table read selects, for every
// column, the cell when it is at most CellCap bytes and NULL otherwise,
// plus a marker naming the type and size of each bigger cell. SQLite
// answers octet_length() and typeof() of a column from the record header
// (it does not read the value), so a row holding an 800 MB text costs what
// a small one does; the start of a big cell is then read through the blob
// I/O (blobReader), a few pages.

// maxCellColumns is the most columns a table read selects (each is
// selected twice, and SQLite allows 2,000 result columns).
const maxCellColumns = 999

// cellInfo is what a page did not show of one cell.
type cellInfo struct {
	typ   string // "text" or "blob"
	size  int64  // the cell's size in bytes
	shown int64  // bytes shown from its start
	big   bool   // over CellCap: not loaded
}

// cellPage is the rows of one table read.
type cellPage struct {
	cols   []string
	rows   [][]string    // the cells as shown
	cut    [][]*cellInfo // per row and column: nil when shown whole
	big    int           // cells over CellCap
	capped int           // columns left out (over maxCellColumns)
}

// rowidAlias is the name that selects t's rowid ("" for a view or a
// WITHOUT ROWID table, or when every alias is a column's name).
func (t *tableInfo) rowidAlias() string {
	if t.typ != "table" || t.withoutRowid {
		return ""
	}
	for _, a := range []string{"rowid", "_rowid_", "oid"} {
		if _, ok := t.column(a); !ok {
			return a
		}
	}
	return ""
}

// scanCells runs "SELECT <cells of t>" + tail with args and formats each
// cell to at most width runes. Cells over CellCap are never loaded.
func (r *reader) scanCells(ctx context.Context, t *tableInfo, max, width int, tail string, args ...any) (*cellPage, error) {
	cols := t.cols
	page := &cellPage{}
	if len(cols) > maxCellColumns {
		page.capped = len(cols) - maxCellColumns
		cols = cols[:maxCellColumns]
	}
	var sel strings.Builder
	sel.WriteString("SELECT ")
	for i, c := range cols {
		if i > 0 {
			sel.WriteString(", ")
		}
		q := quoteIdent(c.name)
		fmt.Fprintf(&sel, "CASE WHEN octet_length(%s) > %d THEN NULL ELSE %s END AS %s", q, CellCap, q, q)
		page.cols = append(page.cols, c.name)
	}
	alias := t.rowidAlias()
	if alias != "" {
		sel.WriteString(", " + alias)
	}
	for _, c := range cols {
		q := quoteIdent(c.name)
		fmt.Fprintf(&sel, ", CASE WHEN octet_length(%s) > %d THEN typeof(%s) || ' ' || octet_length(%s) END", q, CellCap, q, q)
	}
	if len(cols) == 0 {
		sel.WriteString("NULL")
	}
	rs, err := r.q.QueryContext(ctx, sel.String()+tail, args...)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	n := len(cols)
	extra := 0
	if alias != "" {
		extra = 1
	}
	for rs.Next() {
		if len(page.rows) >= max {
			break
		}
		vals := make([]any, 2*n+extra+boolInt(n == 0))
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, err
		}
		var rowid int64
		hasRowid := false
		if alias != "" {
			rowid, hasRowid = vals[n].(int64)
		}
		row := make([]string, n)
		cut := make([]*cellInfo, n)
		for i := range n {
			marker, _ := vals[n+extra+i].(string)
			if marker == "" {
				var whole bool
				var ci cellInfo
				row[i], ci, whole = formatCut(vals[i], width)
				if !whole {
					cut[i] = &ci
				}
				continue
			}
			typ, size, _ := strings.Cut(marker, " ")
			ci := &cellInfo{typ: typ, big: true}
			ci.size, _ = strconv.ParseInt(size, 10, 64)
			page.big++
			cut[i] = ci
			row[i] = fmt.Sprintf("<%s %d bytes>", typ, ci.size)
			if typ != "text" || !hasRowid {
				continue
			}
			// The start of the text, through the blob I/O: at most 4
			// bytes a rune.
			head, _, err := r.blobReader(ctx).Read(t.name, cols[i].name, rowid, 0, int64(4*width+4))
			if err != nil {
				continue
			}
			for k := 0; k < utf8.UTFMax && len(head) > 0 && !utf8.Valid(head); k++ {
				head = head[:len(head)-1] // a rune cut by the read's end
			}
			s, shown, _ := formatCut(string(head), width)
			if !strings.HasSuffix(s, "…") {
				s += "…"
			}
			row[i] += " " + s
			ci.shown = shown.shown
		}
		page.rows = append(page.rows, row)
		page.cut = append(page.cut, cut)
	}
	return page, rs.Err()
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// formatCut formats v (FormatValue) to at most width runes, cutting text
// before escaping it, and says what it did not show: whole is false when
// the value was cut (info.shown bytes of info.size shown) or is a blob
// shown by its size.
func formatCut(v any, width int) (s string, info cellInfo, whole bool) {
	switch x := v.(type) {
	case string:
		info = cellInfo{typ: "text", size: int64(len(x))}
		if len(x) <= width || utf8.RuneCountInString(x) <= width {
			return escapeText(x), info, true
		}
		n, end := 0, 0
		for i := range x {
			if n == width-1 {
				end = i
				break
			}
			n++
		}
		info.shown = int64(end)
		return escapeText(x[:end]) + "…", info, false
	case []byte:
		if utf8.Valid(x) && len(x) <= 256 && !strings.ContainsRune(string(x), 0) {
			s, info, whole = formatCut(string(x), width)
			info.typ = "blob"
			return s, info, whole
		}
		return FormatValue(x), cellInfo{typ: "blob", size: int64(len(x))}, len(x) == 0
	}
	return FormatValue(v), cellInfo{}, true
}

// formatCell is formatCut's text.
func formatCell(v any, width int) string {
	s, _, _ := formatCut(v, width)
	return s
}

// record renders the page's first row vertically, "column: value" per
// line, then what each cut cell did not show and the selector that reads
// on.
func (p *cellPage) record(display string, t *tableInfo, col, key string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s row %s = %s\n", t.name, col, key)
	w := 0
	for _, c := range p.cols {
		w = max(w, len(c))
	}
	for i, c := range p.cols {
		fmt.Fprintf(&b, "%s:%s %s\n", c, strings.Repeat(" ", w-len(c)), p.rows[0][i])
	}
	for i, ci := range p.cut[0] {
		if ci == nil {
			continue
		}
		sel := fmt.Sprintf("%s:%s:%s?col=%s", display, t.name, key, p.cols[i])
		switch {
		case ci.typ == "blob":
			fmt.Fprintf(&b, "[%s: a blob of %d bytes; read its bytes (hex) with %s]\n", p.cols[i], ci.size, sel)
		case ci.shown == 0:
			fmt.Fprintf(&b, "[%s: text of %d bytes, not loaded; read it in pieces with %s&byte=0]\n", p.cols[i], ci.size, sel)
		default:
			fmt.Fprintf(&b, "[%s: text of %d bytes, the first %d bytes shown; read on with %s&byte=%d]\n", p.cols[i], ci.size, ci.shown, sel, ci.shown)
		}
	}
	if p.capped > 0 {
		fmt.Fprintf(&b, "[%d more column%s not shown; select them with ?q=SELECT col1, col2 FROM %s WHERE …]\n", p.capped, plural(p.capped), t.name)
	}
	return b.String()
}

// notes says what a table page did not show.
func (p *cellPage) notes(display string, t *tableInfo) string {
	var b strings.Builder
	if p.big > 0 {
		fmt.Fprintf(&b, "[%d cell%s over %s shown by type, size and start (never loaded whole); read a row (%s:%s:KEY) for more of it, or page through a cell with %s:%s:KEY?col=COLUMN&byte=0]\n",
			p.big, plural(p.big), sizeText(int64(CellCap)), display, t.name, display, t.name)
	}
	if p.capped > 0 {
		fmt.Fprintf(&b, "[%d more column%s not selected (at most %d); select them with ?q=SELECT col1, col2 FROM %s …]\n", p.capped, plural(p.capped), maxCellColumns, t.name)
	}
	return b.String()
}

// sizeText renders a byte count for a message: "64 KiB", "16 MiB".
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Cell pages (db.sqlite:table:key?col=c&byte=n).
const (
	cellPageText = 32 << 10 // bytes of a text cell one page reads
	cellPageOut  = 40 << 10 // bytes of escaped text one page shows at most
	cellPageBlob = 16 << 10 // bytes of a blob one page shows (as hex)
	hexRow       = 32       // blob bytes per hex row
)

// readCell shows one cell from a byte offset: text (escaped as in tables)
// or a blob in hex, a page at a time, read through the blob I/O, so that
// a cell of any size is read within the page's memory.
func (r *reader) readCell(ctx context.Context, sel Selector) (string, ReadInfo, error) {
	t, err := loadTable(ctx, r.q, r.display, sel.Table)
	if err != nil {
		return "", ReadInfo{}, err
	}
	c, ok := t.column(sel.Column)
	if !ok {
		return "", ReadInfo{}, usagef("col=%s: %s has no such column (columns: %s)", sel.Column, t.name, t.colNames())
	}
	kcol, arg, err := keyColumn(t, sel.Key)
	if err != nil {
		return "", ReadInfo{}, err
	}
	q := quoteIdent(c.name)
	alias := t.rowidAlias()
	rowidExpr := "NULL"
	if alias != "" {
		rowidExpr = alias
	}
	var (
		typ   string
		size  int64
		rowid *int64
	)
	err = r.q.QueryRowContext(ctx, fmt.Sprintf("SELECT typeof(%s), coalesce(octet_length(%s), 0), %s FROM %s WHERE %s = ? LIMIT 1", q, q, rowidExpr, quoteIdent(t.name), quoteIdent(kcol)), arg).Scan(&typ, &size, &rowid)
	if err != nil {
		if strings.Contains(err.Error(), "no rows") {
			return "", ReadInfo{}, &Error{Kind: KindNotFound, Msg: fmt.Sprintf("%s has no row with %s = %s; read %s:%s?limit=20 to see rows", t.name, kcol, sel.Key, r.display, t.name)}
		}
		return "", ReadInfo{}, r.queryErr("cannot read the cell", err)
	}
	info := ReadInfo{Kind: "cell", Table: t.name, Rows: 1}
	head := fmt.Sprintf("%s row %s = %s, column %s", t.name, kcol, sel.Key, c.name)
	if typ != "text" && typ != "blob" {
		v := "NULL"
		if typ != "null" {
			var x any
			if err := r.q.QueryRowContext(ctx, fmt.Sprintf("SELECT %s FROM %s WHERE %s = ? LIMIT 1", q, quoteIdent(t.name), quoteIdent(kcol)), arg).Scan(&x); err != nil {
				return "", ReadInfo{}, r.queryErr("cannot read the cell", err)
			}
			v = FormatValue(x)
		}
		return fmt.Sprintf("%s (%s): %s\n", head, typ, v), info, nil
	}
	if sel.Byte > size {
		return "", ReadInfo{}, usagef("byte=%d is past the end of the cell, which holds %d bytes; use byte=0..%d", sel.Byte, size, size)
	}
	want := int64(cellPageText)
	if typ == "blob" {
		want = cellPageBlob
	}
	var chunk []byte
	switch {
	case rowid != nil:
		chunk, _, err = r.blobReader(ctx).Read(t.name, c.name, *rowid, sel.Byte, want)
		if err != nil {
			return "", ReadInfo{}, ioErr("cannot read the cell", err)
		}
	case size <= int64(MaxValue):
		err = r.q.QueryRowContext(ctx, fmt.Sprintf("SELECT substr(CAST(%s AS BLOB), ?, ?) FROM %s WHERE %s = ? LIMIT 1", q, quoteIdent(t.name), quoteIdent(kcol)), sel.Byte+1, want, arg).Scan(&chunk)
		if err != nil {
			return "", ReadInfo{}, r.queryErr("cannot read the cell", err)
		}
	default:
		return "", ReadInfo{}, &Error{Kind: KindTooLarge, Msg: fmt.Sprintf("the cell is %d bytes, more than a SQLite read loads (%s), and %s has no rowid to read it in pieces (a view or a WITHOUT ROWID table); read its table, or octet_length(%s) for its size", size, sizeText(int64(MaxValue)), t.name, c.name)}
	}
	var b strings.Builder
	var next int64
	if typ == "text" {
		start, body, used := textPage(chunk, sel.Byte > 0, sel.Byte+int64(len(chunk)) >= size)
		from := sel.Byte + int64(start)
		next = from + int64(used)
		fmt.Fprintf(&b, "%s: text of %d bytes; bytes %d-%d:\n%s\n", head, size, from, next, body)
	} else {
		next = sel.Byte + int64(len(chunk))
		fmt.Fprintf(&b, "%s: blob of %d bytes; bytes %d-%d in hex:\n", head, size, sel.Byte, next)
		for i := 0; i < len(chunk); i += hexRow {
			fmt.Fprintf(&b, "%08x  %x\n", sel.Byte+int64(i), chunk[i:min(i+hexRow, len(chunk))])
		}
	}
	if next < size {
		info.Truncated = true
		info.Next = fmt.Sprintf("%s:%s:%s?col=%s&byte=%d", r.display, t.name, sel.Key, c.name, next)
		fmt.Fprintf(&b, "[More: %s]\n", info.Next)
	} else {
		b.WriteString("[End of the cell.]\n")
	}
	return b.String(), info, nil
}

// textPage renders a piece of a text cell: it skips the bytes of a rune
// the piece starts inside of (mid), leaves a rune cut by its end for the
// next page (unless last), and escapes it as tables do, up to
// cellPageOut bytes. It returns the bytes skipped at the start, the
// rendering, and the bytes it covers after them.
func textPage(chunk []byte, mid, last bool) (start int, body string, used int) {
	if mid {
		for start < len(chunk) && start < utf8.UTFMax && !utf8.RuneStart(chunk[start]) {
			start++
		}
	}
	var b strings.Builder
	i := start
	for i < len(chunk) && b.Len() < cellPageOut {
		r, w := utf8.DecodeRune(chunk[i:])
		if r == utf8.RuneError && w == 1 && !last && len(chunk)-i < utf8.UTFMax && !utf8.FullRune(chunk[i:]) {
			break // a rune cut by the page's end
		}
		b.WriteString(escapeText(string(chunk[i : i+w])))
		i += w
	}
	return start, b.String(), i - start
}
