// Package workspace owns everything about the files under one root: path
// confinement, open-buffer overlays, the one commit path through which every
// change to a file is made, and the persistent store (snapshots and tags,
// audit log, trash, the commit journal) kept in SQLite.
//
// The entry point is Open, which returns a *Workspace for a root directory
// (and finishes any commit a crash interrupted); OpenStore opens the store
// on its own.
//
// Every path a tool touches goes through Workspace.Resolve, which confines
// it to the root (symlinks resolved; "~" expanded, then confined; URLs
// refused). What is then done with it (read, stat, list, create, rename,
// remove) goes through the root opened once as an os.Root, by the path's
// Rel: it resolves beneath the root at the moment of use and never follows
// a link out of it, so a directory swapped for a link to elsewhere after the
// check makes the operation fail (KindOutside), never land outside
// (rootfs.go). What reads by names of its own, the walks of package search
// and SQLite (package sqlitedb), starts from a directory opened so
// (OpenDir, OpenParent); archives are read from a file opened so
// (OpenReader). ReadFile, Stat, Exists, ReadDir and FileSHA256 see the editor's
// open buffers (SetOverlay) before the disk, so a tool never needs to know
// whether a file is open. Tools never change files themselves: they plan
// Change values and call Commit (or CommitRow for a row of a SQLite
// database). Lock serialises read → check → commit across goroutines and
// hashls processes: it locks the directories of the files, as the file
// system knows them (lock.go), whatever store and path each process has.
//
// # Committing a change
//
// Commit applies a set of changes all or nothing. Its steps, and what is
// durable after each:
//
//  1. Make the missing directories of the files it creates, then lock the
//     directory of every file (in-process mutexes and an OS lock on the
//     directory itself, keyed by its device and inode, in one global order,
//     so two commits never deadlock; see lock.go), read each file as tools
//     see it (the buffer when the editor has it open, else the disk) in the
//     directory as locked, and check it against the change's Base.
//     Any mismatch refuses the whole set with KindStale; nothing is written.
//     Changes under .git, .hg and .svn are refused unless the caller says
//     AllowVCS.
//  2. The intent. One store transaction adds a trash entry for every file
//     content that is replaced or deleted (for an open buffer whose disk
//     text differs, the disk text too) and one row in the intents table
//     listing every disk operation: the path, write or delete, the sha256
//     of the disk text before and of the new content after, the temp file
//     name, the trash entry holding the old disk text, the mode. When
//     several files change, this transaction is committed with
//     synchronous=FULL: it is on disk before step 3 begins. A single file's
//     intent is committed with the store's usual synchronous=NORMAL (WAL):
//     it survives a process crash; a power loss may lose it, which can then
//     leave only a temp file behind (the rename of one file is atomic by
//     itself).
//  3. Temp files. Each new content is written to ".NAME.hashls-NONCE-I.tmp"
//     in its file's directory, the one the commit opened (NAME cut so that
//     the whole fits in 255 bytes: a file with a name that long is written
//     like any other; O_EXCL, mode and owner of the file it replaces),
//     fsynced and closed; with several files their directories are fsynced
//     too, so every temp file and its name are durable before the first
//     rename.
//  4. Renames and removes, in the order of the set, in the same open
//     directories (the temp file and its target are in one directory,
//     whatever is renamed meanwhile), then an fsync of every directory
//     touched.
//  5. Open documents: the editor applies its edits (BufferEditor, a
//     versioned workspace/applyEdit), into its undo history. Then it
//     performs the moves of open documents (BufferRenamer, a rename
//     operation of workspace/applyEdit): a change set that moves a file
//     the editor has open, with its text unchanged, has the editor rename
//     the file on disk, and its buffer follows with its unsaved text. Such
//     a move is journaled in step 2 like any other (the destination a write
//     whose new content is the source's disk text, without a temp file; the
//     source a delete); steps 3 and 4 leave it to the editor (they only
//     create the destination's directory). An editor that cannot rename
//     gets today's plain move: the buffer's text written to the
//     destination, the source deleted, and a note to close the old buffer.
//  6. Finish. One store transaction records the new snapshots (so the tags
//     the result shows are accepted by the next edit), one audit row per
//     file, and deletes the intent.
//
// Contents too large to hold (over the store's content limit, 16 MiB by
// default) take the same steps without being held whole. A file over it
// that the caller does not hold (its Base names only a sha256) is hashed in
// step 1, not kept in memory; its trash entry in step 2 is read from the file
// in pieces of 1 MiB, each a row of trash_chunks, and checked against the
// sum as it is read (trashchunks.go; a bound blob that size would be copied
// twice more by SQLite). A new content may be given as pieces of the content
// it replaces and new bytes (Change.NewPieces: a cell edit of a notebook with
// a 200 MB output is the file's bytes around the new source): step 3 writes
// them from the file to the temp file in one pass and checks that they make
// the sha256 the caller gave, which the intent already names. Undo and
// recovery read such an old content back from the trash one piece at a
// time. The pieces' content is recorded by sha256 and size, as any content
// over the limit.
//
// A failure before or in step 6 undoes what was done: the editor's moves
// and edits are reverted through the editor (newest first), the disk from
// the in-memory old contents, or the trash for those not held (renames of
// the old content into place, through the same temp names), and the
// intent is deleted; the error says that nothing was changed. When the
// editor refuses to revert a buffer edit, that buffer keeps the new text
// while its file goes back: the error says so instead, naming the buffer,
// and the editor's user is told (BufferNotifier: the LSP server shows a
// warning), since the caller may be another process.
// When the undo itself fails, the intent stays and the next open finishes
// it from the trash.
//
// # Recovery
//
// Open (and Recover, which is safe at any time) reads every intent left in
// the journal. Each intent names its owner, the process that wrote it (its
// pid and start time, process_*.go, so that a reused pid is not taken for
// it): an intent whose owner runs is a commit in flight, or one its owner is
// still undoing, and is left alone; this process's own intents too, unless
// it is not committing them any more (an undo that failed). Intent ids are
// never reused (AUTOINCREMENT), so an intent found again after waiting for
// its locks is the one that was listed. An intent whose paths are locked is
// in flight too. For the others, under their locks:
//
//   - Roll forward when every file still holds the intent's base (its old
//     content, or nothing for a file it creates) or already its new content
//     (for a delete: is gone), and every new content not yet in place is
//     complete in its temp file (its sha256 checked): the remaining temp
//     files are renamed into place, and files to delete are removed.
//   - Roll back otherwise: every file that holds its new content (or, for a
//     delete, is gone) gets its old content back from the trash entry the
//     intent names, through a temp file and a rename; created files are
//     removed; every temp file is removed. A file that holds neither the
//     base nor the new content was changed since by someone else: it is
//     left as it is, and reported (Recovery.Left, and its audit row).
//
// A commit that finds, under its locks, an intent of another process on one
// of its files marks that entry Later (in the same transaction as its own
// intent): that intent's owner is gone (a live one would hold the lock), and
// the file is now the later commit's, so recovery leaves it as it is even if
// it holds the old intent's base again (a later commit that restored it).
// So recovery never undoes, or rolls an older change over, a commit made
// after it.
//
// Each is audited with transport "recovery", and the intent is deleted.
//
// Why this is correct. Every temp file's name is in an intent before the
// file is created, and the old content of every file is in the trash in the
// same transaction, so whatever instant a crash hits, recovery knows every
// temp file and can reach both versions of every file. Before the intent is
// durable, no file has been touched. Between the intent and the first
// rename, every file is old: rolling back leaves it so, and rolling forward
// is chosen only when every new content is complete on disk. During the
// renames some files are new and the rest have complete, durable temp files
// (step 3 finished before the first rename), so rolling forward completes
// the set. After the last rename every file is new, and finishing only adds
// the audit rows. A move the editor performs (step 5) comes after every
// rename of step 4 and is one rename of the editor's: until it happens the
// destination is absent (its write incomplete: roll back, which leaves the
// source alone), after it the destination holds its new content and the
// source is gone (roll forward, which has nothing left to do for the pair).
// Each recovery step first hashes what it finds and acts
// only on a file holding the old or the new content of the intent, so a
// file changed by someone else since is left alone, and a crash during
// recovery is recovered again by the next open: recovery is idempotent.
// Orphan temp files cannot outlive recovery, except a single-file temp file
// whose intent a power loss took (step 2).
//
// A SQLite row (CommitRow) is written in the database's own transaction,
// which makes it atomic; the journal only records that it was under way, and
// the old row goes to the trash before the write.
//
// # The store
//
// The store is one SQLite database per root under the state directory
// (<state>/roots/<base>-<hash>.db), opened with one writer connection
// (immediate transactions) and a read-only reader pool in WAL mode, so that
// several hashls processes can share it; a process that makes one call and
// exits (Options.OneShot, the CLI) reads on the writer connection instead,
// sparing a second connection's open and parse of the schema. Every store failure is a KindStore
// *Error naming the database file. A one-shot process leaves its connections
// open at exit (closing the last one would checkpoint the write-ahead log on
// the hot path; committed transactions are durable in the log), and the
// first connection of the next process rebuilds the log's index by reading
// every frame since the log last restarted. So a commit that leaves the log
// over 256 pages (walFoldPages) folds it into the database and truncates it
// (a TRUNCATE checkpoint that does not wait for other connections). A
// statement that has run twice is prepared for reuse (stmts.go; the
// writer's before its next transaction): a long-lived process stops
// re-parsing the same SQL on every call, a one-shot one pays next to
// nothing extra.
//
// Snapshots name their content in the contents table, where each content
// is kept once (by sha256) and a version a commit made is kept as a delta
// against the content it replaced (Recording.From; delta.go, content.go):
// rebuilding any version applies at most maxDeltaDepth deltas from a whole
// copy and checks the result's sha256. The commit's last transaction
// (step 6) writes the delta with the snapshot, so the journal covers it as
// it covers the snapshot: a crash leaves both or neither. Retention drops a
// snapshot's content by dropping the snapshot's reference; a content goes
// when nothing names it and no kept delta is made against it.
//
// Each audit row carries the call id of the tool run that wrote it
// (CommitOptions.Call; the journal keeps it, so a commit recovery rolls
// forward is still that call's): AuditByCall finds what a call did, which is
// how a call retried after its hub died is never applied twice. AuditFeed
// follows the audit log as every process appends to it (PRAGMA data_version),
// for the editor's activity panel.
//
// Beside the store, HubSocket names the path of the root's hub
// (<state>/hub/<hash>.sock, directory 0700: its Unix socket, and the stem of
// its lock on every OS) and TryLockFile the lock that makes it one per root
// (package hub, which chooses the endpoint: a named pipe on Windows).
//
// # Operating systems
//
// What differs per OS lives in one file per OS; the rest never asks which OS
// it is on:
//
//   - Locks (lockfile_*.go, dirlock_*.go): a commit's lock is flock on the
//     directory itself on Unix (a lock file in the state directory named by
//     the directory's device and inode where the file system cannot lock a
//     directory: NFS); on Windows LockFileEx on the first byte of a lock
//     file named by the directory's volume and file index, in
//     %LOCALAPPDATA%\hashls\locks. The store's and the hub's locks are lock
//     files beside them. All are released by the OS when the process dies.
//   - Confinement (rootfs.go) is Go's os.Root everywhere: on Linux and
//     macOS a walk of openat calls with O_NOFOLLOW, each link resolved by
//     hand within the root; on Windows NtCreateFile relative to the
//     directory's handle, reparse points opened, not followed. The search
//     walk opens relative to each open parent with raw openat and
//     O_NOFOLLOW on Linux, through os.Root elsewhere. SQLite names a
//     database through its directory's descriptor on Linux
//     (/proc/self/fd/N/NAME); everywhere each file it opens is checked to
//     be the one in the directory (sqlitedb's vfs.go), and on macOS and
//     Windows the WAL index (-shm) is still opened by path.
//   - Atomic replace (replace_*.go): renameat(2) in the file's open
//     directory on Unix; on Windows os.Root's rename (NtSetInformationFile,
//     FILE_RENAME_INFORMATION_EX with POSIX semantics, replacing the target,
//     relative to the directory's handle), retried for about 1.6 s while
//     another program (a virus scanner, an indexer, an editor) holds the
//     file open, with an error saying so when it gives up; a read-only file
//     has its attribute cleared first. Windows has no directory fsync: the
//     rename is as durable as NTFS's own metadata log makes it. Removes are
//     retried the same way.
//   - Owner (owner_*.go): kept on Unix; Windows files have none to keep.
//   - Path grammar and spelling (path_*.go, winpath.go, canon.go): on
//     Windows, drive letters, backslashes, the \\?\ and UNC prefixes and
//     file:///c%3A/… URIs are accepted; drive-relative paths, device paths,
//     reserved device names (NUL, COM1, …), alternate data streams
//     ("a.txt:s") and names Windows would silently change (a trailing '.' or
//     ' ') are refused before anything touches the disk; existing names are
//     resolved to their long names in stored case (filepath.EvalSymlinks)
//     and the volume is upper-cased. On macOS every existing element is
//     rewritten to the name its directory stores (any case, NFC or NFD), so
//     one file has one Path.Abs: one overlay, one lock, one store key. Linux
//     names are byte strings. Confinement is checked on that final spelling.
//     SplitSelector's drive-letter rule is the same on every OS.
//   - The default state directory (statedir_*.go): $XDG_STATE_HOME/hashls,
//     else ~/.local/state/hashls on Unix and macOS; %LOCALAPPDATA%\hashls on
//     Windows. HASHLS_STATE_DIR (or Options.StateDir) wins everywhere.
package workspace
