package workspace

import (
	"context"
	"database/sql"
	"time"
)

// AuditFeed follows the audit log as every process on the store appends to
// it, for the editor's activity panel. It holds one read connection and asks
// SQLite's PRAGMA data_version, which changes when another connection (in
// this process or any other) commits: a poll that finds it unchanged reads
// nothing else and costs no disk access beyond the shared-memory index.
type AuditFeed struct {
	s    *Store
	conn *sql.Conn
	dv   int64 // the data_version last seen
	last int64 // the newest audit id delivered (or present at the start)
}

// NewAuditFeed starts a feed after the newest audit row: Next returns only
// rows appended from now on.
func (s *Store) NewAuditFeed(ctx context.Context) (*AuditFeed, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	conn, err := s.r.Conn(ctx)
	if err != nil {
		return nil, storeErr(s.path, err)
	}
	f := &AuditFeed{s: s, conn: conn}
	if err := conn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&f.dv); err != nil {
		conn.Close()
		return nil, storeErr(s.path, err)
	}
	var last sql.NullInt64
	if err := conn.QueryRowContext(ctx, `SELECT max(id) FROM audit`).Scan(&last); err != nil {
		conn.Close()
		return nil, storeErr(s.path, err)
	}
	f.last = last.Int64
	return f, nil
}

// Next returns the audit rows appended since the last call, oldest first, at
// most limit of them (the rest come with the next call). It returns nothing,
// cheaply, when no connection has committed since.
func (f *AuditFeed) Next(ctx context.Context, limit int) ([]AuditEntry, error) {
	var dv int64
	if err := f.conn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&dv); err != nil {
		return nil, storeErr(f.s.path, err)
	}
	if dv == f.dv {
		return nil, nil
	}
	rows, err := f.conn.QueryContext(ctx, `SELECT `+auditColumns+` FROM audit WHERE id > ? ORDER BY id LIMIT ?`, f.last, limit)
	if err != nil {
		return nil, storeErr(f.s.path, err)
	}
	out, err := scanAudit(rows)
	if err != nil {
		return nil, storeErr(f.s.path, err)
	}
	if len(out) < limit {
		f.dv = dv // everything up to this version was read
	}
	if len(out) > 0 {
		f.last = out[len(out)-1].ID
	}
	return out, nil
}

// Close releases the feed's connection.
func (f *AuditFeed) Close() error { return f.conn.Close() }

// auditFeedPoll is how often an activity watcher polls a feed (see
// AuditFeed); exported through PollInterval for transports.
const auditFeedPoll = 200 * time.Millisecond

// PollInterval is how often a watcher should call Next: often enough that a
// change made by another process shows within a fraction of a second,
// rarely enough to cost nothing measurable.
func (f *AuditFeed) PollInterval() time.Duration { return auditFeedPoll }
