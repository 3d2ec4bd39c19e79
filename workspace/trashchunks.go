package workspace

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"time"
)

// A content over the store's content limit (MaxContentBytes) that a change
// replaces or deletes goes to the trash in pieces (schemaV10): its trash row
// holds no content and points at snapshot chunkedTrash, and trash_chunks
// holds it in rows of trashChunk bytes, written one at a time as it is read
// (from the file, when the commit does not hold it: see fileState) and
// read back one at a time (TrashOpen). Neither hashls nor SQLite ever holds
// it whole: bound as one blob, SQLite copies a value twice more (the
// binding and the record), which made a 200 MB notebook's old content cost
// 600 MB. As any trash entry, it is kept when it is larger than the whole
// trash (MaxTrashBytes), until the next change's pruning.

// chunkedTrash is the snapshot_id of a trash entry kept in trash_chunks.
const chunkedTrash = -1

// trashChunk is the size of a trash chunk: large enough that a 200 MB
// content is 200 rows, small enough that a row costs nothing to hold.
const trashChunk = 1 << 20

// trashChunkedTx adds trash entry t, of size bytes, as chunks: from
// t.content, or read from t.open and checked against t.sum as it is read
// (a file changed since the commit checked it is a stale error).
func (s *Store) trashChunkedTx(tx wtx, t *trashReq, size int64) error {
	res, err := tx.Exec(`INSERT INTO trash(key, content, size, reason, time, snapshot_id) VALUES (?, x'', ?, ?, ?, ?)`,
		t.key, size, t.reason, time.Now().UnixNano(), chunkedTrash)
	if err != nil {
		return err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return err
	}
	r := io.Reader(bytes.NewReader(t.content))
	if t.content == nil {
		rc, err := t.open()
		if err != nil {
			return err
		}
		defer rc.Close()
		r = rc
	}
	h := sha256.New()
	buf := make([]byte, trashChunk)
	var n int64
	for seq := 0; ; seq++ {
		k, err := io.ReadFull(r, buf)
		if k > 0 {
			if t.content == nil {
				h.Write(buf[:k])
			}
			if _, err := tx.Exec(`INSERT INTO trash_chunks(trash_id, seq, data) VALUES (?, ?, ?)`, id, seq, buf[:k]); err != nil {
				return err
			}
			n += int64(k)
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return fsError("read", t.name(), err)
		}
	}
	if t.content == nil && (n != size || t.sum != nil && [32]byte(h.Sum(nil)) != *t.sum) {
		return t.changed()
	}
	t.id = id
	return nil
}

// changed is the error of a content that changed while it was read into
// the trash: the file was written by another program since the commit
// checked it.
func (t *trashReq) changed() error {
	return &Error{Kind: KindStale, Msg: fmt.Sprintf("%s changed on disk (another program wrote it) while hashls kept its old content; re-read it and retry", t.name())}
}

// name is the file t keeps, as messages name it.
func (t *trashReq) name() string {
	if t.entry != nil {
		return t.entry.ch.Path.Rel
	}
	return t.key
}

// TrashOpen returns trash entry id and a reader of its content, which
// reads an entry kept in pieces one piece at a time; a missing id is
// KindNotFound. The caller closes the reader.
func (s *Store) TrashOpen(id int64) (TrashEntry, io.ReadCloser, error) {
	e, r, err := s.trashReader(id)
	if err != nil {
		return TrashEntry{}, nil, err
	}
	return e, io.NopCloser(r), nil
}

// trashReader returns trash entry id and its content, read in order or at
// random: in pieces when it was kept so (chunkReader), else from the
// content SQLite holds.
func (s *Store) trashReader(id int64) (TrashEntry, trashContent, error) {
	e, chunked, err := s.trashEntry(id)
	if err != nil {
		return TrashEntry{}, nil, err
	}
	if chunked {
		return e, newChunkReader(s, id, e.Size), nil
	}
	e, content, err := s.TrashGet(id)
	if err != nil {
		return TrashEntry{}, nil, err
	}
	return e, bytes.NewReader(content), nil
}

// trashContent is a trash entry's content, read in order or at random.
type trashContent interface {
	io.Reader
	io.ReaderAt
}

// trashEntry reads trash entry id's row; chunked reports an entry kept in
// pieces.
func (s *Store) trashEntry(id int64) (e TrashEntry, chunked bool, err error) {
	if err := s.check(); err != nil {
		return e, false, err
	}
	var t int64
	err = s.readRow(`SELECT id, key, size, reason, time, coalesce(snapshot_id = ?2, 0) FROM trash WHERE id = ?1`, id, chunkedTrash).
		Scan(&e.ID, &e.Key, &e.Size, &e.Reason, &t, &chunked)
	if errors.Is(err, sql.ErrNoRows) {
		return e, false, &Error{Kind: KindNotFound, Msg: fmt.Sprintf("trash entry %d not found; list the trash to see the available ids", id)}
	}
	if err != nil {
		return e, false, storeErr(s.path, err)
	}
	e.Time = time.Unix(0, t)
	return e, chunked, nil
}

// trashBase reads trash entry id's content at random (the base of a
// change's pieces: Change.NewPiecesOf), in pieces when it was kept so.
func (s *Store) trashBase(id int64) (io.ReaderAt, error) {
	_, r, err := s.trashReader(id)
	return r, err
}

// chunkReader reads the chunks of trash entry id (size bytes) in order, or
// at random (each chunk but the last is as long as the first), each with a
// query of its own (no read transaction is held between them): an entry
// dropped meanwhile, or a chunk missing, is an error, never short content.
type chunkReader struct {
	s          *Store
	id         int64
	size       int64
	seq        int
	left       int64 // bytes not yet read
	cur        []byte
	chunkBytes int64 // the length of chunk 0, once read (ReadAt)
}

// newChunkReader reads the size bytes of trash entry id's chunks.
func newChunkReader(s *Store, id, size int64) *chunkReader {
	return &chunkReader{s: s, id: id, size: size, left: size}
}

// chunk reads chunk seq, which holds at most max bytes.
func (r *chunkReader) chunk(seq int, max int64) ([]byte, error) {
	var data []byte
	err := r.s.readRow(`SELECT data FROM trash_chunks WHERE trash_id = ? AND seq = ?`, r.id, seq).Scan(&data)
	switch {
	case errors.Is(err, sql.ErrNoRows) || err == nil && (len(data) == 0 || int64(len(data)) > max):
		return nil, storeErr(r.s.path, fmt.Errorf("trash entry %d is missing its piece %d (dropped while it was read, or a damaged store)", r.id, seq))
	case err != nil:
		return nil, storeErr(r.s.path, err)
	}
	return data, nil
}

func (r *chunkReader) Read(p []byte) (int, error) {
	for len(r.cur) == 0 {
		if r.left == 0 {
			return 0, io.EOF
		}
		data, err := r.chunk(r.seq, r.left)
		if err != nil {
			return 0, err
		}
		r.cur, r.left = data, r.left-int64(len(data))
		r.seq++
	}
	n := copy(p, r.cur)
	r.cur = r.cur[n:]
	return n, nil
}

func (r *chunkReader) ReadAt(p []byte, off int64) (int, error) {
	if r.chunkBytes == 0 && r.size > 0 {
		first, err := r.chunk(0, r.size)
		if err != nil {
			return 0, err
		}
		r.chunkBytes = int64(len(first))
	}
	n := 0
	for n < len(p) {
		at := off + int64(n)
		if at >= r.size {
			return n, io.EOF
		}
		seq := at / r.chunkBytes
		data, err := r.chunk(int(seq), min(r.chunkBytes, r.size-seq*r.chunkBytes))
		if err != nil {
			return n, err
		}
		if within := at - seq*r.chunkBytes; within < int64(len(data)) {
			n += copy(p[n:], data[within:])
		} else {
			return n, storeErr(r.s.path, fmt.Errorf("trash entry %d's piece %d is short (a damaged store)", r.id, seq))
		}
	}
	return n, nil
}

func (r *chunkReader) Close() error { return nil }
