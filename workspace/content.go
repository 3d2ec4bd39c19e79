package workspace

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"slices"
)

// Kept content (schemaV8). A snapshot names its content in the contents
// table, where each content is kept once (by sha256, whatever file or
// snapshot it belongs to) and, when it was made from a content the store
// holds, as a delta against that one (delta.go): a commit knows the
// content it replaced, which is the version the new one was made from, so
// an edit that changes 50 lines of a 480 KB file stores about a kilobyte,
// not the file again. A content is rebuilt by applying the deltas from the
// whole copy at the root of its chain, and checked against its sha256.
//
// Chains are bounded: a content whose base is already maxDeltaDepth deltas
// from a whole copy, or whose delta is more than half its size, is kept
// whole, so rebuilding any version applies at most maxDeltaDepth deltas
// (each a copy of the content's size: a few milliseconds for a 480 KB
// file, BenchmarkRebuild).
//
// Why deltas against the parent and not content-defined chunks: chunking
// (restic, borg) cuts a file at content-chosen boundaries into chunks of
// a few kilobytes and keeps each distinct chunk once; it needs no base, but
// every change costs at least a whole chunk, and an agent's edit touches
// lines all over a file: 50 one-line changes spread over 480 KB touch 50
// chunks, some 200-400 KB at the usual 4-8 KB chunk size, against about 1
// KB as a delta. git keeps deltas too, chosen by similarity among many
// objects when it packs, with the chain depth limited (50 by default) for
// the same reason as here; the store has no need to search for a base,
// because the commit hands it the one the new version was made from.
//
// Dropping a content is by reference count (content_refs, apart from the
// contents so that counting never rewrites a row holding a whole copy): a
// content no snapshot names and no delta is made against is deleted
// (collectContents), by the writer that dropped the last reference, in the
// same transaction. A content that deltas still need stays, unnamed, until
// they go: retention drops versions oldest first, so the whole copy at the
// root of a chain goes with the last version made from it.

// maxDeltaDepth bounds the deltas between any kept content and a whole
// copy (git's default depth is 50 as well).
const maxDeltaDepth = 50

// putContentTx keeps content (sum its sha256) in contents and returns its
// row: the row that holds it already, else a new one, a delta against from
// (fromSum its sha256) when the store holds from less than maxDeltaDepth
// deltas from a whole copy and the delta is at most half the content's
// size, else the content whole; fromDelta, when not nil, returns that
// delta (deltaAsync). The caller names the row from a snapshot in the same
// transaction (an unnamed row is dropped by collectContents).
func putContentTx(tx wtx, content []byte, sum [32]byte, from []byte, fromSum *[32]byte, fromDelta func() []byte) (int64, error) {
	fromKey := []byte{} // matches no sha256
	if from != nil && fromSum != nil && len(content) > 0 {
		fromKey = fromSum[:]
	}
	// One query finds the content (kept already) and the base.
	rows, err := tx.Query(`SELECT id, size, depth, sha256 = ?1 FROM contents WHERE sha256 IN (?1, ?2)`, sum[:], fromKey)
	if err != nil {
		return 0, err
	}
	var (
		have, baseID, baseSize int64
		baseDepth              int
	)
	for rows.Next() {
		var id, size int64
		var depth int
		var same bool
		if err := rows.Scan(&id, &size, &depth, &same); err != nil {
			rows.Close()
			return 0, err
		}
		if same {
			have = id
		} else {
			baseID, baseSize, baseDepth = id, size, depth
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	if have != 0 {
		return have, nil
	}
	data, base, depth := content, any(nil), 0
	if baseID != 0 && baseSize == int64(len(from)) && baseDepth < maxDeltaDepth {
		if fromDelta == nil {
			fromDelta = func() []byte { return encodeDelta(from, content) }
		}
		if d := fromDelta(); len(d) <= len(content)/2 {
			data, base, depth = d, baseID, baseDepth+1
		}
	}
	if data == nil {
		data = []byte{}
	}
	// (Not RETURNING id: SQLite would copy the whole row, a whole copy's
	// blob included, to return it.)
	res, err := tx.Exec(`INSERT INTO contents(sha256, size, base, depth, data) VALUES (?, ?, ?, ?, ?)`,
		sum[:], len(content), base, depth, data)
	if err != nil {
		return 0, err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, err
	}
	return id, nil
}

// deltaAsyncWorth reports whether a commit's delta of a new content of
// size bytes against one of fromSize is worth beginning on another
// goroutine: the store keeps both (limit: Store.ContentLimit), and they are
// large enough for the encoding to outweigh a goroutine (64 KB).
func deltaAsyncWorth(fromSize, size, limit int) bool {
	return size >= 64<<10 && size <= limit && fromSize <= limit
}

// deltaAsync encodes to as a delta against from on another goroutine; the
// function it returns waits for it. A commit begins its new contents'
// deltas before it writes them to disk, so that the encoding (about 0.3
// ms for 50 lines of a 480 KB file) runs while the fsyncs wait.
func deltaAsync(from, to []byte) func() []byte {
	var d []byte
	done := make(chan struct{})
	go func() {
		d = encodeDelta(from, to)
		close(done)
	}()
	return func() []byte {
		<-done
		return d
	}
}

// collectContents deletes the contents of ids (those whose snapshots just
// stopped naming them) that nothing names any more (content_refs 0), and then the
// bases only they needed; with ids nil, every such content (a hashls of
// schema 6 or 7 deletes snapshots without collecting theirs).
func collectContents(tx wtx, ids []int64) error {
	if ids == nil {
		var err error
		if ids, err = queryInts(tx, `SELECT content_id FROM content_refs WHERE refs <= 0`); err != nil {
			return err
		}
	}
	for len(ids) > 0 {
		id := ids[len(ids)-1]
		ids = ids[:len(ids)-1]
		var base sql.NullInt64
		err := tx.QueryRow(`DELETE FROM contents WHERE id = ?1
			AND NOT EXISTS (SELECT 1 FROM content_refs WHERE content_id = ?1 AND refs > 0) RETURNING base`, id).Scan(&base)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return err
		case base.Valid:
			ids = append(ids, base.Int64)
		}
	}
	return nil
}

// rowsQuerier runs a query: the store's readers or a write transaction.
type rowsQuerier interface {
	Query(query string, args ...any) (*sql.Rows, error)
}

// chainQuery reads the chain of content ?1: the content, its base, its
// base's base, … up to the whole copy.
const chainQuery = `WITH RECURSIVE chain(id, base, depth, size, sha256, data) AS (
		SELECT id, base, depth, size, sha256, data FROM contents WHERE id = ?1
		UNION ALL
		SELECT c.id, c.base, c.depth, c.size, c.sha256, c.data FROM contents c JOIN chain ON c.id = chain.base
	) SELECT id, base, depth, size, sha256, data FROM chain`

// chainLink is one content of a chain as chainQuery reads it.
type chainLink struct {
	id, size int64
	base     sql.NullInt64
	depth    int
	sum      []byte
	data     []byte
}

// loadContent rebuilds content id and checks it against its sha256. A
// content that is missing, or does not rebuild to its sha256, is an error
// (a damaged store: every content the store names is kept whole).
func loadContent(q rowsQuerier, id int64) ([]byte, error) {
	rows, err := q.Query(chainQuery, id)
	if err != nil {
		return nil, err
	}
	var chain []chainLink
	for rows.Next() {
		var l chainLink
		if err := rows.Scan(&l.id, &l.base, &l.depth, &l.size, &l.sum, &l.data); err != nil {
			rows.Close()
			return nil, err
		}
		chain = append(chain, l)
		if len(chain) > maxDeltaDepth+1 {
			break // a cycle, or a chain no hashls made: reported below
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return rebuild(id, chain, nil)
}

// rebuild applies chain (the content first, then its base, … up to a
// whole copy, or up to a content known holds: known, when not nil, has
// contents already rebuilt, by id) and checks the result.
func rebuild(id int64, chain []chainLink, known map[int64][]byte) ([]byte, error) {
	damaged := func(why string, args ...any) error {
		return fmt.Errorf("stored content %d is damaged (%s); `hashls doctor` checks every kept content", id, fmt.Sprintf(why, args...))
	}
	if len(chain) == 0 {
		return nil, damaged("it is missing")
	}
	for i, l := range chain {
		if (l.depth == 0) == l.base.Valid {
			return nil, damaged("content %d has depth %d and base %v", l.id, l.depth, l.base.Valid)
		}
		if p := chain[max(0, i-1)]; i > 0 && (p.base.Int64 != l.id || l.depth != p.depth-1) {
			return nil, damaged("its chain is broken at content %d", l.id)
		}
	}
	start := len(chain) - 1
	cur, fromKnown := known[chain[start].id]
	switch {
	case fromKnown:
	case chain[start].base.Valid:
		return nil, damaged("content %d is missing from its chain", chain[start].base.Int64)
	default:
		cur = chain[start].data
	}
	var spare []byte
	for i := start - 1; i >= 0; i-- {
		out, err := applyDelta(spare, cur, chain[i].data)
		if err != nil {
			return nil, damaged("content %d: %v", chain[i].id, err)
		}
		spare = cur // reused by the next delta, unless it is known's
		if i == start-1 && fromKnown {
			spare = nil
		}
		cur = out
	}
	sum := sha256.Sum256(cur)
	if int64(len(cur)) != chain[0].size || !slices.Equal(sum[:], chain[0].sum) {
		return nil, damaged("it does not rebuild to its sha256")
	}
	if cur == nil {
		cur = []byte{}
	}
	return cur, nil
}

// migrateContents moves every content a snapshot holds itself into
// contents, each file's versions in the order they were recorded, each as a
// delta against the one before (within putContentTx's bounds). It streams:
// one snapshot is read at a time, and only it and the file's version
// before it are held. A content that does not match its snapshot's sha256
// (a store edited by hand) is left in its row, as schemas 6 and 7 kept it. The
// running totals are counted again at the end.
func (s *Store) migrateContents(tx wtx) error {
	key := ""
	for {
		err := tx.QueryRow(`SELECT key FROM snapshots WHERE key > ? AND length(content) IS NOT NULL ORDER BY key LIMIT 1`, key).Scan(&key)
		if errors.Is(err, sql.ErrNoRows) {
			break
		}
		if err != nil {
			return err
		}
		var prev []byte
		var prevSum [32]byte
		var after int64
		for {
			var (
				id      int64
				rowSum  []byte
				content []byte
			)
			err := tx.QueryRow(`SELECT id, sha256, content FROM snapshots WHERE key = ? AND id > ? AND length(content) IS NOT NULL ORDER BY id LIMIT 1`, key, after).
				Scan(&id, &rowSum, &content)
			if errors.Is(err, sql.ErrNoRows) {
				break
			}
			if err != nil {
				return err
			}
			after = id
			sum := sha256.Sum256(content)
			if !slices.Equal(sum[:], rowSum) {
				continue // not the snapshot's content: left as it was, in its row
			}
			var from []byte
			var fromSum *[32]byte
			if prev != nil {
				from, fromSum = prev, &prevSum
			}
			cid, err := putContentTx(tx, content, sum, from, fromSum, nil)
			if err != nil {
				return err
			}
			if _, err := tx.Exec(`UPDATE snapshots SET content = NULL, content_id = ? WHERE id = ?`, cid, id); err != nil {
				return err
			}
			if content == nil {
				content = []byte{}
			}
			prev, prevSum = content, sum
		}
	}
	_, err := tx.Exec(`UPDATE meta SET value = (SELECT coalesce(sum(length(data)), 0) FROM contents) +
			(SELECT coalesce(sum(length(content)), 0) FROM snapshots) WHERE name = 'content_bytes';
		UPDATE meta SET value = ` + trashBytesSQL + ` WHERE name = 'trash_bytes';`)
	return err
}

// ContentCheck is what VerifyContents found.
type ContentCheck struct {
	Contents   int64 // kept contents checked
	Deltas     int64 // of which kept as deltas
	Bytes      int64 // their stored size
	WholeBytes int64 // their size rebuilt
	Damaged    []string
}

// VerifyContents rebuilds every kept content and checks it against its
// sha256 (oldest first, each chain's contents from the one before where
// it can, so a long history costs about one rebuild per content).
func (s *Store) VerifyContents(ctx context.Context) (ContentCheck, error) {
	var c ContentCheck
	if err := s.check(); err != nil {
		return c, err
	}
	// Contents made by this hashls have their base before them; the
	// previous few rebuilt are kept for the next.
	known := map[int64][]byte{}
	var order []int64
	var after int64
	for {
		if err := ctx.Err(); err != nil {
			return c, err
		}
		var id, size, dlen int64
		var delta bool
		err := s.r.QueryRowContext(ctx, `SELECT id, size, length(data), base IS NOT NULL FROM contents WHERE id > ? ORDER BY id LIMIT 1`, after).Scan(&id, &size, &dlen, &delta)
		if errors.Is(err, sql.ErrNoRows) {
			break
		}
		if err != nil {
			return c, storeErr(s.path, err)
		}
		after = id
		c.Contents++
		c.Bytes += dlen
		c.WholeBytes += size
		if delta {
			c.Deltas++
		}
		chain, err := s.readChain(ctx, id, known)
		if err != nil {
			return c, storeErr(s.path, err)
		}
		content, err := rebuild(id, chain, known)
		if err != nil {
			c.Damaged = append(c.Damaged, err.Error())
			continue
		}
		known[id] = content
		order = append(order, id)
		if len(order) > 4 {
			delete(known, order[0])
			order = order[1:]
		}
	}
	return c, nil
}

// readChain reads the chain of content id as far as a content known has.
func (s *Store) readChain(ctx context.Context, id int64, known map[int64][]byte) ([]chainLink, error) {
	var chain []chainLink
	for next := id; ; {
		var l chainLink
		err := s.r.QueryRowContext(ctx, `SELECT id, base, depth, size, sha256, CASE WHEN ?2 THEN x'' ELSE data END FROM contents WHERE id = ?1`, next, known[next] != nil).
			Scan(&l.id, &l.base, &l.depth, &l.size, &l.sum, &l.data)
		if errors.Is(err, sql.ErrNoRows) {
			return chain, nil // reported by rebuild
		}
		if err != nil {
			return nil, err
		}
		chain = append(chain, l)
		if known[next] != nil || !l.base.Valid || len(chain) > maxDeltaDepth+1 {
			return chain, nil
		}
		next = l.base.Int64
	}
}
