// Package wine lets the Windows test binaries run under wine 8.0, CI's
// stand-in for Windows (.ci/run, "windows/amd64 under wine"). Its one job:
// Go's os.RemoveAll deletes with FileDispositionInformationEx, which that
// wine does not implement (it answers STATUS_NOT_IMPLEMENTED, which Go does
// not take as "unsupported"), so every t.TempDir cleanup would fail. Under
// wine, detected by ntdll's wine_get_version, it switches Go to its own
// fallback (FileDispositionInfo, the pre-Windows-10 way).
//
// Entry point: a blank import from a test file built only with the "wine"
// tag on windows (wine_windows_test.go in the engine packages); CI builds
// those binaries with -tags wine -ldflags=-checklinkname=0, because the
// switch is a variable inside the standard library. Nothing outside tests
// imports it, and without the tag it is empty.
package wine
