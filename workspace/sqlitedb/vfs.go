package sqlitedb

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"modernc.org/libc"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Confinement. SQLite opens its files by name: the database, then its
// rollback journal, write-ahead log and shared-memory index beside it,
// whenever it needs them. A name checked beneath the workspace root and
// then opened by SQLite could lead out of the root if a directory on its
// way were swapped for a symbolic link in between. So a database is named
// to SQLite through its directory, opened beneath the root by the caller
// (File.Dir), and opened through the VFS "hashls": the system's own
// ("unix", "win32") with three methods wrapped.
//
//   - Linux: the database is named /proc/self/fd/N/NAME, N a descriptor of
//     its directory held while the database is open. The kernel follows
//     /proc/self/fd/N to the directory itself, not to a path, so every
//     file SQLite opens, creates or removes beside the database is in that
//     directory whatever is renamed meanwhile (and SQLite opens them with
//     O_NOFOLLOW). xFullPathname keeps such a name as it is: the unix VFS
//     would otherwise resolve /proc/self/fd/N into the directory's path and
//     open by that.
//   - Everywhere (the only guard where /proc is not there, as on macOS and
//     Windows): xOpen checks that each database, journal and log file
//     SQLite opened is the file of that name in the directory (same device
//     and inode; on Windows the same volume and file index), and refuses
//     it (SQLITE_CANTOPEN) when not; a journal or log SQLite would create
//     is created in the directory first and SQLite only opens it (so an
//     open by a path that leads elsewhere makes nothing there); xDelete
//     removes through the directory. What stays by name there: the
//     shared-memory index of a database in WAL mode (SQLite opens "-shm"
//     itself, not through xOpen).

// vfsName is the VFS a File is opened through (registered on first use).
const vfsName = "hashls"

// pinning names databases through their directory's descriptor where the
// system can (Linux). Tests turn it off to run the check alone, as macOS
// and Windows have it.
var pinning = true

// uriDir is the URI parameter that names a database's directory to the
// VFS: a key of dirs.
const uriDir = "hashls_dir"

// dirs are the directories of the open databases, by key.
var dirs struct {
	sync.Mutex
	next int64
	m    map[int64]*dbDir
}

// dbDir is an open database's directory, and whether xOpen refused a file
// for not being the one in it.
type dbDir struct {
	dir     *os.Root
	db      string // the database's name in it
	refused atomic.Bool
}

func addDir(d *os.Root, db string) (int64, *dbDir) {
	dirs.Lock()
	defer dirs.Unlock()
	if dirs.m == nil {
		dirs.m = map[int64]*dbDir{}
	}
	dirs.next++
	dd := &dbDir{dir: d, db: db}
	dirs.m[dirs.next] = dd
	return dirs.next, dd
}

func dirOf(key int64) *dbDir {
	dirs.Lock()
	defer dirs.Unlock()
	return dirs.m[key]
}

func removeDir(key int64) {
	dirs.Lock()
	defer dirs.Unlock()
	delete(dirs.m, key)
}

// The system VFS's methods that the hashls VFS wraps.
var sysOpen, sysFullPathname, sysDelete uintptr

var registerVFS = sync.OnceValue(func() error {
	tls := libc.NewTLS() // kept: the VFS lives as long as the process
	sys := sqlite3.Xsqlite3_vfs_find(tls, 0)
	if sys == 0 {
		return errors.New("SQLite has no default VFS")
	}
	p := libc.Xmalloc(tls, sqlite3.Tsize_t(unsafe.Sizeof(sqlite3.Tsqlite3_vfs{})))
	name, err := libc.CString(vfsName)
	if p == 0 || err != nil {
		return errors.New("out of memory registering the SQLite VFS")
	}
	v := (*sqlite3.Tsqlite3_vfs)(cmem(p))
	*v = *(*sqlite3.Tsqlite3_vfs)(cmem(sys))
	v.FpNext = 0
	v.FzName = name
	sysOpen, sysFullPathname, sysDelete = v.FxOpen, v.FxFullPathname, v.FxDelete
	// A C function pointer is a Go func value here (modernc.org/libc).
	*(*func(*libc.TLS, uintptr, uintptr, uintptr, int32, uintptr) int32)(unsafe.Pointer(&v.FxOpen)) = vfsOpen
	*(*func(*libc.TLS, uintptr, uintptr, int32, uintptr) int32)(unsafe.Pointer(&v.FxFullPathname)) = vfsFullPathname
	*(*func(*libc.TLS, uintptr, uintptr, int32) int32)(unsafe.Pointer(&v.FxDelete)) = vfsDelete
	if rc := sqlite3.Xsqlite3_vfs_register(tls, p, 0); rc != sqlite3.SQLITE_OK {
		return fmt.Errorf("registering the SQLite VFS: error %d", rc)
	}
	return nil
})

// cmem is the C memory at p (modernc.org/libc's heap, which Go's
// collector neither scans nor moves) as an unsafe.Pointer.
func cmem(p uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&p)) }

// pinnedPrefix starts the names of databases opened through a descriptor
// of their directory (Linux).
const pinnedPrefix = "/proc/self/fd/"

func vfsFullPathname(tls *libc.TLS, pVfs, zPath uintptr, nOut int32, zOut uintptr) int32 {
	if p := libc.GoString(zPath); strings.HasPrefix(p, pinnedPrefix) {
		if len(p) >= int(nOut) {
			return sqlite3.SQLITE_CANTOPEN
		}
		out := unsafe.Slice((*byte)(cmem(zOut)), nOut)
		copy(out, p)
		out[len(p)] = 0
		return sqlite3.SQLITE_OK
	}
	return (*(*func(*libc.TLS, uintptr, uintptr, int32, uintptr) int32)(unsafe.Pointer(&struct{ uintptr }{sysFullPathname})))(tls, pVfs, zPath, nOut, zOut)
}

func vfsOpen(tls *libc.TLS, pVfs, zName, pFile uintptr, flags int32, pOutFlags uintptr) int32 {
	const checked = sqlite3.SQLITE_OPEN_MAIN_DB | sqlite3.SQLITE_OPEN_MAIN_JOURNAL | sqlite3.SQLITE_OPEN_WAL
	if zName == 0 || flags&checked == 0 {
		return sysOpenFile(tls, pVfs, zName, pFile, flags, pOutFlags)
	}
	dd, name, ok := fileDir(tls, zName)
	if !ok {
		return sysOpenFile(tls, pVfs, zName, pFile, flags, pOutFlags)
	}
	if dd == nil {
		return sqlite3.SQLITE_CANTOPEN
	}
	// A journal or log to be made is made here, in the directory, and
	// SQLite only opens it: an open by a path that leads elsewhere finds
	// nothing there and makes nothing.
	made := false
	if flags&sqlite3.SQLITE_OPEN_CREATE != 0 && flags&(sqlite3.SQLITE_OPEN_MAIN_JOURNAL|sqlite3.SQLITE_OPEN_WAL) != 0 {
		made = dd.make(name)
		flags &^= sqlite3.SQLITE_OPEN_CREATE
	}
	rc := sysOpenFile(tls, pVfs, zName, pFile, flags, pOutFlags)
	if rc == sqlite3.SQLITE_OK && !sameFile(pFile, dd.dir, name) {
		dd.refused.Store(true)
		f := (*sqlite3.Tsqlite3_file)(cmem(pFile))
		if f.FpMethods != 0 {
			xClose := (*sqlite3.Tsqlite3_io_methods)(cmem(f.FpMethods)).FxClose
			(*(*func(*libc.TLS, uintptr) int32)(unsafe.Pointer(&struct{ uintptr }{xClose})))(tls, pFile)
			f.FpMethods = 0
		}
		rc = sqlite3.SQLITE_CANTOPEN
	}
	if rc != sqlite3.SQLITE_OK && made {
		dd.dir.Remove(name)
	}
	return rc
}

// sysOpenFile is the system VFS's xOpen.
func sysOpenFile(tls *libc.TLS, pVfs, zName, pFile uintptr, flags int32, pOutFlags uintptr) int32 {
	return (*(*func(*libc.TLS, uintptr, uintptr, uintptr, int32, uintptr) int32)(unsafe.Pointer(&struct{ uintptr }{sysOpen})))(tls, pVfs, zName, pFile, flags, pOutFlags)
}

// make creates the journal or log name in the directory, empty, with the
// database's permissions (as SQLite gives it), unless it exists. It
// reports whether it made it.
func (dd *dbDir) make(name string) bool {
	perm := os.FileMode(0o644)
	if fi, err := dd.dir.Stat(dd.db); err == nil {
		perm = fi.Mode().Perm()
	}
	f, err := dd.dir.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return false
	}
	f.Close()
	dd.dir.Chmod(name, perm) // whatever the umask
	return true
}

func vfsDelete(tls *libc.TLS, pVfs, zPath uintptr, syncDir int32) int32 {
	dd, name, ok := fileDir(tls, zPath)
	if !ok {
		return (*(*func(*libc.TLS, uintptr, uintptr, int32) int32)(unsafe.Pointer(&struct{ uintptr }{sysDelete})))(tls, pVfs, zPath, syncDir)
	}
	if dd == nil {
		return sqlite3.SQLITE_IOERR_DELETE
	}
	dir := dd.dir
	if err := dir.Remove(name); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return sqlite3.SQLITE_IOERR_DELETE_NOENT
		}
		return sqlite3.SQLITE_IOERR_DELETE
	}
	if syncDir != 0 {
		if d, err := dir.Open("."); err == nil {
			d.Sync() // as the unix VFS does; Windows cannot (and SQLite does not ask)
			d.Close()
		}
	}
	return sqlite3.SQLITE_OK
}

// fileDir returns the directory (nil when it is closed) and the base name
// of a file SQLite names (its database, journal or log), when the database
// was opened with a directory (ok).
func fileDir(tls *libc.TLS, zName uintptr) (dir *dbDir, name string, ok bool) {
	param, err := libc.CString(uriDir)
	if err != nil {
		return nil, "", false
	}
	defer libc.Xfree(tls, param)
	v := sqlite3.Xsqlite3_uri_parameter(tls, zName, param)
	if v == 0 {
		return nil, "", false
	}
	key, err := strconv.ParseInt(libc.GoString(v), 10, 64)
	if err != nil {
		return nil, "", true
	}
	return dirOf(key), filepath.Base(libc.GoString(zName)), true
}

// File is a database file as its caller reached it: its directory, opened
// beneath the caller's root (Workspace.OpenParent), and its name there.
// SQLite's files are opened relative to the directory, or checked against
// it (see above). The caller keeps Dir and may close it once the database
// is open: the database holds what it needs.
type File struct {
	Dir  *os.Root
	Name string
}

// Abs is f's path, for messages.
func (f File) Abs() string { return filepath.Join(f.Dir.Name(), f.Name) }

// open opens f through the hashls VFS with SQLite's mode and the driver's
// pragmas, on a single connection.
func (f File) open(mode string, pragmas ...string) (*sql.DB, error) {
	if err := registerVFS(); err != nil {
		return nil, &Error{Kind: KindIO, Msg: "cannot open the SQLite database: " + err.Error(), Err: err}
	}
	dir, err := f.Dir.OpenRoot(".") // the database's own, closed with it
	if err != nil {
		return nil, &Error{Kind: KindIO, Msg: "cannot open the SQLite database: " + err.Error(), Err: err}
	}
	key, dd := addDir(dir, f.Name)
	name, unpin := "", func() {}
	if pinning {
		name, unpin = pinned(dir, f.Name)
	}
	if name == "" {
		name = f.Abs()
	}
	done := func() {
		removeDir(key)
		unpin()
		dir.Close()
	}
	uri := "file:" + (&url.URL{Path: name}).EscapedPath() + "?vfs=" + vfsName + "&" + uriDir + "=" + strconv.FormatInt(key, 10)
	q := "&mode=" + mode
	for _, p := range pragmas {
		q += "&_pragma=" + url.QueryEscape(p)
	}
	c, err := sqlite.NewConnector(uri + q)
	if err != nil {
		done()
		return nil, &Error{Kind: KindIO, Msg: "cannot open the SQLite database: " + err.Error(), Err: err}
	}
	var db *sql.DB
	db = sql.OpenDB(closing{c, func() {
		uris.Delete(db)
		done()
	}})
	uris.Store(db, uri+"&mode=ro")
	db.SetMaxOpenConns(1)
	if err := db.Ping(); err != nil {
		db.Close()
		if dd.refused.Load() {
			return nil, errMoved(f, err)
		}
		return nil, &Error{Kind: KindIO, Msg: "cannot open the SQLite database: " + err.Error(), Err: err}
	}
	return db, nil
}

// errMoved is the error of an open that SQLite made of a file other than
// the one in the database's directory.
func errMoved(f File, err error) error {
	return &Error{Kind: KindIO, Msg: fmt.Sprintf("cannot open the SQLite database %s: the file SQLite opened by its path is not the one in its directory (a directory on its way was renamed, or swapped for a link, since the path was checked); it was closed unread: check the path and retry", f.Abs()), Err: err}
}

// uris are the URIs of the databases open as Files, for the read-only
// second connection of blob reads.
var uris sync.Map // *sql.DB → string

// readOnlyURI is the URI that opens db again read-only ("" when it was not
// opened as a File).
func readOnlyURI(db *sql.DB) string {
	if u, ok := uris.Load(db); ok {
		return u.(string)
	}
	return ""
}

// closing is a connector whose Close (called by sql.DB.Close) releases the
// database's directory.
type closing struct {
	driver.Connector
	done func()
}

func (c closing) Close() error {
	c.done()
	return nil
}
