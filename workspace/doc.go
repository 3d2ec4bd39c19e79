// Package workspace owns everything about the files under one root: path
// confinement, open-buffer overlays, atomic file IO that keeps line endings,
// BOM and mode, and the persistent store (snapshots and tags, audit log,
// trash) kept in SQLite.
//
// The entry point is Open, which returns a *Workspace for a root directory;
// OpenStore opens the store on its own.
package workspace
