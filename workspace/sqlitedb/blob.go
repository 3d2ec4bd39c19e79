package sqlitedb

import (
	"encoding/binary"
	"fmt"

	"modernc.org/libc"
	"modernc.org/libc/sys/types"
	sqlite3 "modernc.org/sqlite/lib"
)

// blobReader reads parts of single cells through SQLite's incremental
// blob I/O (sqlite3_blob_open and sqlite3_blob_read), which follows a
// cell's overflow pages without loading the cell: the start of an 800 MB
// text costs a few pages, where any SQL expression over the column (even
// substr) would load all of it. database/sql has no such call, so this is
// a second, read-only connection of the SQLite library itself on the same
// file, opened on first use and closed with Close. Only tables with a
// rowid have it (not views, not WITHOUT ROWID tables).
type blobReader struct {
	name  string // the database's file, or its URI
	flags int32  // SQLITE_OPEN_READONLY, and SQLITE_OPEN_URI with a URI
	tls   *libc.TLS
	db    uintptr
	err   error // the open failed: every read fails so
}

// newBlobReader reads the database the URI names (File.open's), or the
// file when the database was not opened as a File.
func newBlobReader(uri, file string) *blobReader {
	if uri != "" {
		return &blobReader{name: uri, flags: sqlite3.SQLITE_OPEN_READONLY | sqlite3.SQLITE_OPEN_URI}
	}
	return &blobReader{name: file, flags: sqlite3.SQLITE_OPEN_READONLY}
}

func (b *blobReader) open() error {
	if b.db != 0 || b.err != nil {
		return b.err
	}
	b.tls = libc.NewTLS()
	name, err := libc.CString(b.name)
	if err != nil {
		b.err = err
		return err
	}
	defer libc.Xfree(b.tls, name)
	out := libc.Xmalloc(b.tls, 8)
	if out == 0 {
		b.err = fmt.Errorf("out of memory")
		return b.err
	}
	defer libc.Xfree(b.tls, out)
	rc := sqlite3.Xsqlite3_open_v2(b.tls, name, out, b.flags, 0)
	b.db = readPtr(out)
	if rc != sqlite3.SQLITE_OK {
		b.err = b.errf(rc)
		return b.err
	}
	sqlite3.Xsqlite3_busy_timeout(b.tls, b.db, BusyTimeoutMS)
	return nil
}

// ptrSize is the size of a C pointer on this platform.
const ptrSize = 4 << (^uintptr(0) >> 63)

// readPtr reads the C pointer stored at p (an out parameter).
func readPtr(p uintptr) uintptr {
	b := libc.GoBytes(p, ptrSize)
	if ptrSize == 8 {
		return uintptr(binary.NativeEndian.Uint64(b))
	}
	return uintptr(binary.NativeEndian.Uint32(b))
}

func (b *blobReader) errf(rc int32) error {
	msg := ""
	if b.db != 0 {
		msg = libc.GoString(sqlite3.Xsqlite3_errmsg(b.tls, b.db))
	}
	if msg == "" {
		msg = fmt.Sprintf("SQLite error %d", rc)
	}
	return fmt.Errorf("%s (%d)", msg, rc)
}

// Read returns up to n bytes of the cell of table.column in the row with
// rowid, from byte off, and the cell's size in bytes.
func (b *blobReader) Read(table, column string, rowid int64, off, n int64) ([]byte, int64, error) {
	if err := b.open(); err != nil {
		return nil, 0, err
	}
	cstr := func(s string) (uintptr, error) { return libc.CString(s) }
	zDB, err := cstr("main")
	if err != nil {
		return nil, 0, err
	}
	defer libc.Xfree(b.tls, zDB)
	zTable, err := cstr(table)
	if err != nil {
		return nil, 0, err
	}
	defer libc.Xfree(b.tls, zTable)
	zCol, err := cstr(column)
	if err != nil {
		return nil, 0, err
	}
	defer libc.Xfree(b.tls, zCol)
	out := libc.Xmalloc(b.tls, 8)
	if out == 0 {
		return nil, 0, fmt.Errorf("out of memory")
	}
	defer libc.Xfree(b.tls, out)
	if rc := sqlite3.Xsqlite3_blob_open(b.tls, b.db, zDB, zTable, zCol, rowid, 0, out); rc != sqlite3.SQLITE_OK {
		return nil, 0, b.errf(rc)
	}
	blob := readPtr(out)
	defer sqlite3.Xsqlite3_blob_close(b.tls, blob)
	total := int64(sqlite3.Xsqlite3_blob_bytes(b.tls, blob))
	if off >= total || n <= 0 {
		return nil, total, nil
	}
	n = min(n, total-off)
	buf := libc.Xmalloc(b.tls, types.Size_t(n))
	if buf == 0 {
		return nil, 0, fmt.Errorf("out of memory")
	}
	defer libc.Xfree(b.tls, buf)
	if rc := sqlite3.Xsqlite3_blob_read(b.tls, blob, buf, int32(n), int32(off)); rc != sqlite3.SQLITE_OK {
		return nil, 0, b.errf(rc)
	}
	return append([]byte(nil), libc.GoBytes(buf, int(n))...), total, nil
}

// Close closes the connection, if it was opened.
func (b *blobReader) Close() {
	if b.tls == nil {
		return
	}
	if b.db != 0 {
		sqlite3.Xsqlite3_close_v2(b.tls, b.db)
		b.db = 0
	}
	b.tls.Close()
	b.tls = nil
}
