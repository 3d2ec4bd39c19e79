package sqlitedb

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	sqlite3 "modernc.org/sqlite/lib"
)

// WriteResult describes a row write.
type WriteResult struct {
	Op      string          `json:"op"` // insert, update, delete, none
	Table   string          `json:"table"`
	Key     string          `json:"key,omitempty"`
	RowID   int64           `json:"rowid,omitempty"`
	Text    string          `json:"-"`
	OldRow  json.RawMessage `json:"oldRow,omitempty"` // the row before (update/delete)
	NewRow  json.RawMessage `json:"newRow,omitempty"` // the row after (insert/update)
	Changed bool            `json:"changed"`
}

// Write inserts (hasKey false), updates (content a non-empty object) or
// deletes (content blank) one row of table in one immediate transaction.
// keepOld (may be nil) is called inside the transaction with the row as it
// is (nil for an insert) before anything changes; its error aborts the
// write. A key that names no row is a NotFound error.
func Write(ctx context.Context, db *sql.DB, display, table, key string, hasKey bool, content string, keepOld func(old json.RawMessage) error) (WriteResult, error) {
	if keepOld == nil {
		keepOld = func(json.RawMessage) error { return nil }
	}
	del := strings.TrimSpace(content) == ""
	var fields []Field
	if !del {
		var err error
		if fields, err = ParseJSON5Object(content); err != nil {
			return WriteResult{}, err
		}
	} else if !hasKey {
		return WriteResult{}, usagef("empty content inserts nothing: pass a JSON5 object such as {name: 'Ada'} to insert (or {} for default values), or name a row (%s:%s:<key>) to delete it", display, table)
	}
	return inTx(ctx, db, display, table, len(content), func(ctx context.Context, conn *sql.Conn, t *tableInfo) (WriteResult, error) {
		switch {
		case !hasKey:
			if err := keepOld(nil); err != nil {
				return WriteResult{}, err
			}
			return insertRow(ctx, conn, t, fields)
		case del:
			return deleteRow(ctx, conn, t, key, keepOld)
		default:
			return updateRow(ctx, conn, t, key, fields, keepOld)
		}
	})
}

// Restore puts row (a row as Write kept it: a JSON object of every
// column) back as the row of table named key, in one immediate
// transaction: re-inserted when no row has that key now, else the row
// there is set to it. keepOld (may be nil) sees the row there now (nil:
// none) before anything changes, as for Write.
func Restore(ctx context.Context, db *sql.DB, display, table, key string, row json.RawMessage, keepOld func(old json.RawMessage) error) (WriteResult, error) {
	if keepOld == nil {
		keepOld = func(json.RawMessage) error { return nil }
	}
	fields, err := ParseJSON5Object(string(row))
	if err != nil {
		return WriteResult{}, &Error{Kind: KindUsage, Msg: fmt.Sprintf("the kept row is not a JSON object (%v); write its values back by hand", err), Err: err}
	}
	return inTx(ctx, db, display, table, len(row), func(ctx context.Context, conn *sql.Conn, t *tableInfo) (WriteResult, error) {
		return restoreRow(ctx, conn, t, key, fields, keepOld)
	})
}

// The budgets of a write: a row write (with the triggers it fires) that
// runs longer than WriteBudget, grows the database by more than
// GrowthBudget (plus twice the content), or makes or loads a value over
// MaxValue is interrupted and rolled back, so the database is left as it
// was and writable.
var (
	WriteBudget  = 5 * time.Second
	GrowthBudget = int64(64 << 20)
)

// inTx runs fn on table in one immediate transaction on db, committed when
// fn succeeds, within the write budgets (content is the payload, which
// the growth budget allows for); fn runs under the context that carries
// the time budget.
func inTx(ctx context.Context, db *sql.DB, display, table string, content int, fn func(ctx context.Context, conn *sql.Conn, t *tableInfo) (WriteResult, error)) (WriteResult, error) {
	ctx, cancel := context.WithTimeout(ctx, WriteBudget)
	defer cancel()
	conn, err := db.Conn(ctx)
	if err != nil {
		return WriteResult{}, ioErr("cannot open "+display, err)
	}
	defer conn.Close()
	if err := limitLength(conn, MaxValue); err != nil {
		return WriteResult{}, ioErr("cannot open "+display, err)
	}
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return WriteResult{}, writeErr(ctx, display, ioErr("cannot start a transaction on "+display+" (is it locked by another process?)", err))
	}
	done := false
	defer func() {
		if !done {
			_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		}
	}()
	var pages, pageSize int64
	if err := conn.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		return WriteResult{}, writeErr(ctx, display, ioErr("cannot read the size of "+display, err))
	}
	if err := conn.QueryRowContext(ctx, "PRAGMA page_size").Scan(&pageSize); err != nil {
		return WriteResult{}, writeErr(ctx, display, ioErr("cannot read the page size of "+display, err))
	}
	pageSize = max(pageSize, 512) // SQLite's smallest
	growth := GrowthBudget + 2*int64(content)
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA max_page_count = %d", pages+growth/pageSize+1)); err != nil {
		return WriteResult{}, writeErr(ctx, display, ioErr("cannot set the growth budget of "+display, err))
	}
	t, err := loadTable(ctx, conn, display, table)
	if err != nil {
		return WriteResult{}, writeErr(ctx, display, err)
	}
	if t.typ != "table" {
		return WriteResult{}, usagef("%s is a view; write to its underlying table instead", t.name)
	}
	res, err := fn(ctx, conn, t)
	if err != nil {
		return WriteResult{}, writeErr(ctx, display, err)
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return WriteResult{}, writeErr(ctx, display, ioErr("cannot commit the change to "+display, err))
	}
	done = true
	return res, nil
}

// writeErr names the budget a failed write ran into, if any; the write
// was rolled back.
func writeErr(ctx context.Context, display string, err error) error {
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return &Error{Kind: KindTooLarge, Msg: fmt.Sprintf("the write to %s was stopped after %s, the time budget of a SQLite write (a trigger that runs away, or a lock another process holds), and rolled back: nothing was changed; check the table's triggers (read %s?q=SELECT sql FROM sqlite_master WHERE type = 'trigger')", display, WriteBudget, display), Err: err}
	case sqliteCode(err) == sqlite3.SQLITE_FULL:
		return &Error{Kind: KindTooLarge, Msg: fmt.Sprintf("the write to %s would grow it by more than %s, the growth budget of one SQLite write (a trigger that inserts without end?), or the disk is full; it was rolled back: nothing was changed; check the table's triggers (read %s?q=SELECT sql FROM sqlite_master WHERE type = 'trigger')", display, sizeText(GrowthBudget), display), Err: err}
	case sqliteCode(err) == sqlite3.SQLITE_TOOBIG:
		return &Error{Kind: KindTooLarge, Msg: fmt.Sprintf("the write to %s made or loaded a value over %s (the row, its old values kept for the trash, or a trigger's), more than a SQLite write holds; it was rolled back: nothing was changed", display, sizeText(int64(MaxValue))), Err: err}
	}
	return err
}

// bindValues checks payload keys against the table and converts values.
func bindValues(t *tableInfo, fields []Field) (cols []string, args []any, err error) {
	for _, f := range fields {
		c, ok := t.column(f.Key)
		if !ok {
			return nil, nil, usagef("%s has no column %q (columns: %s)", t.name, f.Key, t.colNames())
		}
		var v any
		switch x := f.Value.(type) {
		case nil, string, int64:
			v = x
		case float64:
			if math.IsInf(x, 0) || math.IsNaN(x) {
				return nil, nil, usagef("column %q: %v cannot be stored; SQLite has no Infinity/NaN values", f.Key, x)
			}
			v = x
		case []byte:
			v = x
		case bool:
			v = int64(0)
			if x {
				v = int64(1)
			}
		default:
			return nil, nil, usagef("column %q: value must be a string, number, boolean or null, not an object or array (store JSON as a string)", f.Key)
		}
		cols = append(cols, quoteIdent(c.name))
		args = append(args, v)
	}
	return cols, args, nil
}

// rowJSON reads the row where col = arg as a JSON object (nil when absent).
func rowJSON(ctx context.Context, q querier, t *tableInfo, col string, arg any) (json.RawMessage, int64, error) {
	sel := "SELECT *"
	if !t.withoutRowid {
		sel = "SELECT rowid AS __hashls_rowid, *"
	}
	cols, _, raw, _, err := scanAll(ctx, q, 1, MaxColumn, true, fmt.Sprintf("%s FROM %s WHERE %s = ? LIMIT 1", sel, quoteIdent(t.name), quoteIdent(col)), arg)
	if err != nil {
		return nil, 0, ioErr("cannot read the row", err)
	}
	if len(raw) == 0 {
		return nil, 0, nil
	}
	var rowid int64
	var b strings.Builder
	b.WriteByte('{')
	n := 0
	for i, c := range cols {
		v := raw[0][i]
		if c == "__hashls_rowid" {
			rowid, _ = v.(int64)
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		k, _ := json.Marshal(c)
		b.Write(k)
		b.WriteByte(':')
		if f, ok := v.(float64); ok && (math.IsInf(f, 0) || math.IsNaN(f)) {
			v = nil
		}
		j, err := json.Marshal(v)
		if err != nil {
			j = []byte(strconv.Quote(FormatValue(v)))
		}
		b.Write(j)
	}
	b.WriteByte('}')
	return json.RawMessage(b.String()), rowid, nil
}

func insertRow(ctx context.Context, conn *sql.Conn, t *tableInfo, fields []Field) (WriteResult, error) {
	cols, args, err := bindValues(t, fields)
	if err != nil {
		return WriteResult{}, err
	}
	q := "INSERT INTO " + quoteIdent(t.name) + " DEFAULT VALUES"
	if len(cols) > 0 {
		q = fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", quoteIdent(t.name), strings.Join(cols, ", "), strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", "))
	}
	r, err := conn.ExecContext(ctx, q, args...)
	if err != nil {
		return WriteResult{}, constraintErr("insert into "+t.name, err)
	}
	res := WriteResult{Op: "insert", Table: t.name, Changed: true}
	res.Text = "Inserted row into " + t.name
	switch {
	case !t.withoutRowid:
		id, err := r.LastInsertId()
		if err != nil {
			break
		}
		res.RowID = id
		res.NewRow, _, _ = rowJSON(ctx, conn, t, "rowid", id)
		res.Key = strconv.FormatInt(id, 10)
		if key, ok := pkValue(t, res.NewRow); ok {
			res.Key = key
			res.Text += fmt.Sprintf(" (%s = %s)", t.pk[0], key)
		} else {
			res.Text += fmt.Sprintf(" (rowid %d)", id)
		}
	case len(t.pk) == 1:
		// WITHOUT ROWID: the row is found by the primary key it was given.
		for i, f := range fields {
			if c, ok := t.column(f.Key); ok && strings.EqualFold(c.name, t.pk[0]) {
				res.NewRow, _, _ = rowJSON(ctx, conn, t, c.name, args[i])
				break
			}
		}
		if key, ok := pkValue(t, res.NewRow); ok {
			res.Key = key
			res.Text += fmt.Sprintf(" (%s = %s)", t.pk[0], key)
		}
	}
	return res, nil
}

// pkValue returns the single-column primary key of row (a rowJSON object)
// as a row selector spells it: numbers digit for digit (a 64-bit key is
// never rounded through a float), strings unquoted.
func pkValue(t *tableInfo, row json.RawMessage) (string, bool) {
	if len(t.pk) != 1 || row == nil {
		return "", false
	}
	dec := json.NewDecoder(bytes.NewReader(row))
	dec.UseNumber()
	var m map[string]any
	if dec.Decode(&m) != nil {
		return "", false
	}
	switch v := m[t.pk[0]].(type) {
	case json.Number:
		return v.String(), true
	case string:
		return v, true
	}
	return "", false
}

// constraintErr reports constraint and type failures as usage errors.
func constraintErr(what string, err error) error {
	msg := err.Error()
	if strings.Contains(msg, "constraint") || strings.Contains(msg, "datatype mismatch") || strings.Contains(msg, "cannot store") {
		return &Error{Kind: KindUsage, Msg: fmt.Sprintf("%s failed: %s; fix the values in the content (a JSON5 object of column values) and retry", what, msg), Err: err}
	}
	return ioErr(what+" failed", err)
}

func rowKey(t *tableInfo, key string) (string, any, error) {
	if len(t.pk) > 1 {
		return "", nil, usagef("%s has a composite primary key (%s); key-based writes need a single-column primary key or rowid, so find the row with a read of the table with ?where= and write it with no key or through a table without a composite key", t.name, strings.Join(t.pk, ", "))
	}
	if t.withoutRowid && len(t.pk) != 1 {
		return "", nil, usagef("%s is a WITHOUT ROWID table; key-based writes are not supported", t.name)
	}
	return keyColumn(t, key)
}

func updateRow(ctx context.Context, conn *sql.Conn, t *tableInfo, key string, fields []Field, keepOld func(json.RawMessage) error) (WriteResult, error) {
	if len(fields) == 0 {
		return WriteResult{}, usagef("the update object is empty; give the columns to change, e.g. {name: 'Ada'} (blank content deletes the row)")
	}
	col, arg, err := rowKey(t, key)
	if err != nil {
		return WriteResult{}, err
	}
	cols, args, err := bindValues(t, fields)
	if err != nil {
		return WriteResult{}, err
	}
	old, rowid, err := rowJSON(ctx, conn, t, col, arg)
	if err != nil {
		return WriteResult{}, err
	}
	if old == nil {
		return WriteResult{}, notFoundf("no row updated: %s has no row with %s = %s; read %s to see its keys, or write to %s (no key) to insert", t.name, col, key, t.name, t.name)
	}
	if err := keepOld(old); err != nil {
		return WriteResult{}, err
	}
	res := WriteResult{Op: "update", Table: t.name, Key: key}
	sets := make([]string, len(cols))
	for i, c := range cols {
		sets[i] = c + " = ?"
	}
	args = append(args, arg)
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("UPDATE %s SET %s WHERE %s = ?", quoteIdent(t.name), strings.Join(sets, ", "), quoteIdent(col)), args...); err != nil {
		return WriteResult{}, constraintErr("update of "+t.name, err)
	}
	res.OldRow, res.Changed, res.RowID = old, true, rowid
	if t.withoutRowid {
		res.NewRow, _, _ = rowJSON(ctx, conn, t, col, arg)
	} else {
		res.NewRow, _, _ = rowJSON(ctx, conn, t, "rowid", rowid)
	}
	res.Text = fmt.Sprintf("Updated row '%s' in %s", key, t.name)
	return res, nil
}

func deleteRow(ctx context.Context, conn *sql.Conn, t *tableInfo, key string, keepOld func(json.RawMessage) error) (WriteResult, error) {
	col, arg, err := rowKey(t, key)
	if err != nil {
		return WriteResult{}, err
	}
	old, rowid, err := rowJSON(ctx, conn, t, col, arg)
	if err != nil {
		return WriteResult{}, err
	}
	if old == nil {
		return WriteResult{}, notFoundf("no row deleted: %s has no row with %s = %s; read %s to see its keys", t.name, col, key, t.name)
	}
	if err := keepOld(old); err != nil {
		return WriteResult{}, err
	}
	res := WriteResult{Op: "delete", Table: t.name, Key: key}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("DELETE FROM %s WHERE %s = ?", quoteIdent(t.name), quoteIdent(col)), arg); err != nil {
		return WriteResult{}, constraintErr("delete from "+t.name, err)
	}
	res.OldRow, res.Changed, res.RowID = old, true, rowid
	res.Text = fmt.Sprintf("Deleted row '%s' from %s", key, t.name)
	return res, nil
}

// restoreRow writes fields (every column of a kept row) as the row of t
// named key: an insert when there is none, else an update of every column.
// A BLOB column's value was kept as base64 (rowJSON) and is decoded back.
func restoreRow(ctx context.Context, conn *sql.Conn, t *tableInfo, key string, fields []Field, keepOld func(json.RawMessage) error) (WriteResult, error) {
	col, arg, err := rowKey(t, key)
	if err != nil {
		return WriteResult{}, err
	}
	for i, f := range fields {
		c, ok := t.column(f.Key)
		if str, isStr := f.Value.(string); ok && isStr && strings.Contains(strings.ToUpper(c.typ), "BLOB") {
			if b, err := base64.StdEncoding.DecodeString(str); err == nil {
				fields[i].Value = b
			}
		}
	}
	cols, args, err := bindValues(t, fields)
	if err != nil {
		return WriteResult{}, &Error{Kind: KindUsage, Msg: fmt.Sprintf("the kept row no longer fits %s (%v); write the values that fit by hand", t.name, err), Err: err}
	}
	cur, rowid, err := rowJSON(ctx, conn, t, col, arg)
	if err != nil {
		return WriteResult{}, err
	}
	if err := keepOld(cur); err != nil {
		return WriteResult{}, err
	}
	res := WriteResult{Table: t.name, Key: key, OldRow: cur, Changed: true}
	if cur == nil {
		if col == "rowid" {
			cols, args = append(cols, "rowid"), append(args, arg)
		}
		q := fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", quoteIdent(t.name), strings.Join(cols, ", "), strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", "))
		if len(cols) == 0 {
			q = "INSERT INTO " + quoteIdent(t.name) + " DEFAULT VALUES"
		}
		r, err := conn.ExecContext(ctx, q, args...)
		if err != nil {
			return WriteResult{}, constraintErr("re-insert into "+t.name, err)
		}
		if !t.withoutRowid {
			rowid, _ = r.LastInsertId()
		}
		res.Op, res.Text = "insert", fmt.Sprintf("Re-inserted row '%s' into %s", key, t.name)
	} else {
		if len(cols) == 0 {
			return WriteResult{}, usagef("the kept row has no columns to restore")
		}
		sets := make([]string, len(cols))
		for i, c := range cols {
			sets[i] = c + " = ?"
		}
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("UPDATE %s SET %s WHERE %s = ?", quoteIdent(t.name), strings.Join(sets, ", "), quoteIdent(col)), append(args, arg)...); err != nil {
			return WriteResult{}, constraintErr("update of "+t.name, err)
		}
		res.Op, res.Text = "update", fmt.Sprintf("Restored row '%s' of %s to its kept values", key, t.name)
	}
	res.RowID = rowid
	if t.withoutRowid {
		res.NewRow, _, _ = rowJSON(ctx, conn, t, col, arg)
	} else {
		res.NewRow, _, _ = rowJSON(ctx, conn, t, "rowid", rowid)
	}
	return res, nil
}

func notFoundf(format string, args ...any) *Error {
	return &Error{Kind: KindNotFound, Msg: fmt.Sprintf(format, args...)}
}
