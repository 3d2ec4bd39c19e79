// Package workspace owns everything about the files under one root: path
// confinement, open-buffer overlays, atomic file IO that keeps line endings,
// BOM and mode, and the persistent store (snapshots and tags, audit log,
// trash) kept in SQLite.
//
// The entry point is Open, which returns a *Workspace for a root directory;
// OpenStore opens the store on its own.
//
// Every path a tool touches goes through Workspace.Resolve, which confines it
// to the root (symlinks resolved). ReadFile returns the editor's buffer when
// the file is open (SetOverlay) and the disk otherwise; WriteFile checks that
// the caller's base content is still current, then either hands the change
// to the editor (SetBufferEditor) or replaces the file atomically. Lock
// serialises read → check → write across goroutines and hashls processes.
//
// The store is one SQLite database per root under the state directory
// (<state>/roots/<base>-<hash>.db), opened with one writer connection
// (immediate transactions) and a read-only reader pool in WAL mode, so that
// several hashls processes can share it. Every store failure is a KindStore
// *Error naming the database file.
//
// The package is Unix-only (flock).
package workspace
