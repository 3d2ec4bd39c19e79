package workspace

import (
	"database/sql"
	"sync"
)

// Statements prepared for reuse. SQLite parses and plans a statement's SQL
// text every time it is prepared, and database/sql prepares every Exec and
// Query it is not given a *sql.Stmt for: a 50-hunk edit runs about fifteen
// statements, and preparing them was 8% of its CPU time in a long-lived
// process (`hashls mcp`, `serve`).
//
// A statement is prepared for reuse once it has run twice, so that a
// one-shot process, which runs most statements once, pays no more than
// before. The writer has a single connection, held by the transaction that
// runs the statement, so its statements are noted there and prepared when
// the next write transaction is about to begin (Store.write, writeFull),
// the connection free: a process that never writes again never prepares
// them. Tx.Stmt then finds them on the connection. The readers prepare
// theirs on the spot; database/sql prepares a statement again on each
// reader connection it runs on.

// maxPrepared bounds the statements a store keeps prepared; every query
// text the store runs is a constant, so the bound is never reached in use.
const maxPrepared = 64

// stmtCache holds one database's statements prepared for reuse, by SQL text.
type stmtCache struct {
	mu       sync.Mutex
	closed   bool
	prepared map[string]*sql.Stmt
	seen     map[string]bool // run, not prepared: false once, true when due to be prepared
	wanted   []string        // the writer's: to prepare before its next transaction
}

// lookup returns query's prepared statement, or nil when it has none; a
// miss counts as a run of query, and second reports the miss at which the
// caller is to prepare it (once per query).
func (c *stmtCache) lookup(query string) (st *sql.Stmt, second bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st := c.prepared[query]; st != nil {
		return st, false
	}
	if len(c.prepared) >= maxPrepared {
		return nil, false
	}
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	due, ran := c.seen[query]
	c.seen[query] = ran
	return nil, ran && !due
}

// add keeps st as query's statement (closing st when query has one, or
// when the cache is closed: then it returns nil).
func (c *stmtCache) add(query string, st *sql.Stmt) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		st.Close()
		return nil
	}
	if old := c.prepared[query]; old != nil {
		st.Close()
		return old
	}
	if c.prepared == nil {
		c.prepared = map[string]*sql.Stmt{}
	}
	c.prepared[query] = st
	delete(c.seen, query)
	return st
}

// want notes query for prepareWanted.
func (c *stmtCache) want(query string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.wanted = append(c.wanted, query)
}

// prepareWanted prepares on db the statements noted by want. Failure only
// costs speed: the statement keeps running unprepared.
func (c *stmtCache) prepareWanted(db *sql.DB) {
	c.mu.Lock()
	wanted := c.wanted
	c.wanted = nil
	c.mu.Unlock()
	for _, q := range wanted {
		if st, err := db.Prepare(q); err == nil {
			c.add(q, st)
		}
	}
}

// close closes every prepared statement.
func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.prepared {
		st.Close()
	}
	c.prepared, c.seen, c.wanted, c.closed = nil, nil, nil, true
}

// wtx is a transaction of the store's writer. Its Exec, Query and QueryRow
// use the statements the store prepared for reuse. Within one transaction
// every run of a query text uses the same SQLite statement, so a query must
// not run again while *sql.Rows of the same text are still open (it would
// reset them); every query here reads its rows to the end first.
type wtx struct {
	*sql.Tx
	cache *stmtCache
}

func (t wtx) stmt(query string) *sql.Stmt {
	st, second := t.cache.lookup(query)
	if second {
		t.cache.want(query)
	}
	if st == nil {
		return nil
	}
	return t.Tx.Stmt(st)
}

func (t wtx) Exec(query string, args ...any) (sql.Result, error) {
	if st := t.stmt(query); st != nil {
		return st.Exec(args...)
	}
	return t.Tx.Exec(query, args...)
}

func (t wtx) Query(query string, args ...any) (*sql.Rows, error) {
	if st := t.stmt(query); st != nil {
		return st.Query(args...)
	}
	return t.Tx.Query(query, args...)
}

func (t wtx) QueryRow(query string, args ...any) *sql.Row {
	if st := t.stmt(query); st != nil {
		return st.QueryRow(args...)
	}
	return t.Tx.QueryRow(query, args...)
}

// readStmt returns query's statement on the readers, prepared for reuse
// the second time it runs, or nil to run it unprepared.
func (s *Store) readStmt(query string) *sql.Stmt {
	st, second := s.rstmts.lookup(query)
	if !second {
		return st
	}
	prepared, err := s.r.Prepare(query)
	if err != nil {
		return nil
	}
	return s.rstmts.add(query, prepared)
}

// readRow is s.r.QueryRow through readStmt.
func (s *Store) readRow(query string, args ...any) *sql.Row {
	if st := s.readStmt(query); st != nil {
		return st.QueryRow(args...)
	}
	return s.r.QueryRow(query, args...)
}

// readRows is s.r.Query through readStmt.
func (s *Store) readRows(query string, args ...any) (*sql.Rows, error) {
	if st := s.readStmt(query); st != nil {
		return st.Query(args...)
	}
	return s.r.Query(query, args...)
}
