package workspace

import (
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hashls/hashls/internal/lines"
)

// Seen lines: for each snapshot (key and sha256 of the content), the line
// ranges that tools displayed with its tag — read's rows (a summary's kept
// lines only), search's match and context rows, every line of what write
// wrote, an edit's carried-over and written lines, the lines a refusal
// showed. The edit tool refuses hunks on lines outside them. A snapshot
// with no row has no record (a tag minted before this table, or by a tool
// that does not track lines) and is not checked.

// maxSeenPerKey bounds the snapshots of one key whose seen lines are kept;
// older rows are dropped (their snapshots are rarely edited against).
const maxSeenPerKey = 32

// maxSeenRanges bounds the ranges kept for one snapshot; past it the
// closest neighbours are joined (which never loses a seen line).
const maxSeenRanges = 512

// AddSeen records that the lines in ranges (1-based, inclusive) of the
// snapshot of key with this sha256 were displayed, merged with what was
// recorded before.
func (s *Store) AddSeen(key string, sum [32]byte, ranges []LineRange) error {
	if err := s.check(); err != nil {
		return err
	}
	err := s.write(func(tx wtx) error {
		return addSeenTx(tx, key, sum, ranges, time.Now().UnixNano())
	})
	if err != nil {
		return storeErr(s.path, err)
	}
	return nil
}

// addSeenTx is AddSeen inside tx.
func addSeenTx(tx wtx, key string, sum [32]byte, ranges []LineRange, now int64) error {
	var prev string
	err := tx.QueryRow(`SELECT ranges FROM seen WHERE key = ? AND sha256 = ?`, key, sum[:]).Scan(&prev)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	existed := err == nil
	all := append(parseSeen(prev), ranges...)
	if _, err := tx.Exec(`INSERT INTO seen(key, sha256, ranges, time) VALUES (?, ?, ?, ?)
		ON CONFLICT(key, sha256) DO UPDATE SET ranges = excluded.ranges, time = excluded.time`,
		key, sum[:], formatSeen(MergeLineRanges(all)), now); err != nil {
		return err
	}
	if existed {
		return nil // no new row: the key's count is what it was
	}
	_, err = tx.Exec(`DELETE FROM seen WHERE key = ?1 AND rowid NOT IN
		(SELECT rowid FROM seen WHERE key = ?1 ORDER BY time DESC LIMIT ?2)`, key, maxSeenPerKey)
	return err
}

// Seen returns the displayed lines of the snapshot of key with this sha256;
// known is false when nothing was recorded for it.
func (s *Store) Seen(key string, sum [32]byte) (ranges []LineRange, known bool, err error) {
	if err := s.check(); err != nil {
		return nil, false, err
	}
	var text string
	err = s.readRow(`SELECT ranges FROM seen WHERE key = ? AND sha256 = ?`, key, sum[:]).Scan(&text)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, storeErr(s.path, err)
	}
	return parseSeen(text), true, nil
}

// MergeLineRanges sorts ranges and merges overlapping and adjacent ones;
// empty and reversed ranges are dropped.
func MergeLineRanges(rs []LineRange) []LineRange {
	out := lines.Merge(rs)
	// Bound the row: join the closest neighbours (this only ever adds
	// lines to the seen set of a snapshot read in hundreds of pieces).
	for len(out) > maxSeenRanges {
		best := 1
		for i := 2; i < len(out); i++ {
			if out[i].Start-out[i-1].End < out[best].Start-out[best-1].End {
				best = i
			}
		}
		out[best-1].End = out[best].End
		out = append(out[:best], out[best+1:]...)
	}
	return out
}

// formatSeen renders ranges as "1-40,52-60".
func formatSeen(rs []LineRange) string {
	var b strings.Builder
	for i, r := range rs {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%d-%d", r.Start, r.End)
	}
	return b.String()
}

// parseSeen parses formatSeen's text, skipping anything malformed.
func parseSeen(text string) []LineRange {
	var out []LineRange
	for _, part := range strings.Split(text, ",") {
		a, b, ok := strings.Cut(part, "-")
		if !ok {
			continue
		}
		s, err1 := strconv.Atoi(a)
		e, err2 := strconv.Atoi(b)
		if err1 == nil && err2 == nil && s >= 1 && e >= s {
			out = append(out, LineRange{Start: s, End: e})
		}
	}
	return out
}
