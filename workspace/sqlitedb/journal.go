package sqlitedb

import (
	"bytes"
	"fmt"
	"io"
)

// A database left unwritable. A process that stops in the middle of a
// write transaction of a database in rollback-journal mode (killed, or its
// machine lost power) leaves a hot journal beside it ("db-journal": the
// pages the transaction changed, as they were). The next connection that
// may write rolls it back before it reads; a read-only one cannot, and
// every read fails with "attempt to write a readonly database". A SQLite
// write here never leaves one behind by itself (its budgets interrupt it
// and roll it back), but a kill can: the read then says so, and doctor
// finds and rolls back such journals.

// journalMagic starts the header of a journal that holds a transaction.
var journalMagic = []byte{0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7}

// JournalPath is the rollback journal of the database at abs.
func JournalPath(abs string) string { return abs + "-journal" }

// HotJournal reports whether the database f has a rollback journal that
// holds a transaction (its header is valid). It is hot unless a live
// process is writing the database now (which holds a lock SQLite checks,
// and this does not).
func HotJournal(f File) bool {
	j, err := f.Dir.Open(f.Name + "-journal")
	if err != nil {
		return false
	}
	defer j.Close()
	head := make([]byte, len(journalMagic))
	if _, err := io.ReadFull(j, head); err != nil {
		return false
	}
	return bytes.Equal(head, journalMagic)
}

// hotJournalErr is the error of a read that failed because of a hot
// journal.
func hotJournalErr(f File, err error) error {
	return &Error{Kind: KindIO, Msg: fmt.Sprintf("cannot read the SQLite database: a write transaction was left unfinished in it (its rollback journal %s is hot: a process stopped in the middle of a write), and only a connection that may write can roll it back; run `hashls doctor --fix` (it rolls the transaction back, leaving the database as it was before it), or write a row to it", JournalPath(f.Abs())), Err: err}
}

// RollBackJournal rolls back the hot journal of the database f by opening
// it for writing and reading its schema, which is what SQLite does first
// on such a connection. It reports whether the journal is gone (or no
// longer holds a transaction).
func RollBackJournal(f File) (bool, error) {
	db, err := OpenReadWrite(f)
	if err != nil {
		return false, err
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master`).Scan(&n); err != nil {
		return false, ioErr("cannot roll back the journal of "+f.Abs(), err)
	}
	return !HotJournal(f), nil
}
