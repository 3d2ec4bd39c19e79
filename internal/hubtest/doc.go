// Package hubtest is test support for the callers of a root's hub
// (package hub): RefusingHub, a hub on a root that refuses every call,
// for the tests of what a caller does then (run the call itself, and say
// so); unix only (the hub listens on a named pipe on Windows). Tests only.
package hubtest
